// ML-DSA-65 signatures (FIPS 204, parameter set ML-DSA-65, NIST security category 3).
//
// Pure ML-DSA (FIPS 204 Algorithms 1 to 3) with an optional context string of at most 255 bytes.
// HashML-DSA (pre-hashing) is not provided. The internal functions that the standard's test vectors
// exercise (Sign_internal and Verify_internal, Algorithms 7 and 8, on a caller-formed M' and with a
// caller-chosen rnd) and the "external mu" forms are specified for testing and for use inside a
// cryptographic module (FIPS 204 sec. 6), not as an application interface: a caller-formed M' or mu
// skips the domain separation of pure ML-DSA. They live in veil/crypto/testing/mldsa65.h.
// KeyGen_internal stays here as MlDsa65KeyGenFromSeed, since a key pair stored as its 32-byte seed
// is a normal key format.
//
// Keys are decoded once into objects that keep the expanded matrix A and the NTT forms of the key
// polynomials, so repeated signatures or verifications with one key skip that work. Decoding is
// strict: wrong lengths and secret keys with s1 / s2 coefficients outside [-eta, eta] are
// kInvalidArgument. Signature decoding is canonical: a hint encoding that FIPS 204 Algorithm 21
// rejects (indices not strictly increasing, counts above omega or decreasing, non-zero padding),
// or z out of range, fails verification. A signature that does not verify is VerificationFailed();
// a signature or context of the wrong length is kInvalidArgument.
//
// Key generation and signing run in constant time with respect to the secret key, the seed and the
// signing randomness, apart from values that are public by design (see docs/notes/mldsa.md); the
// valgrind check in tests/ctime/mldsa_ctime.cc enforces it.
//
// Thread safety: keys are immutable after construction; any number of threads may sign or verify
// with the same key object at once. Public keys are cheap to copy (the precomputed state is
// shared); secret keys are move-only and wipe themselves. A moved-from key aborts when used.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {

inline constexpr std::size_t kMlDsa65PublicKeySize = 1952, kMlDsa65SecretKeySize = 4032,
                             kMlDsa65SignatureSize = 3309, kMlDsa65SeedSize = 32;
inline constexpr std::size_t kMlDsa65MuSize = 64;
inline constexpr std::size_t kMlDsa65RandomnessSize = 32;  // rnd of Algorithm 7
inline constexpr std::size_t kMlDsaMaxContextSize = 255;

using MlDsa65Signature = std::array<std::uint8_t, kMlDsa65SignatureSize>;

namespace mldsa {
struct PublicKeyState;
struct SecretKeyState;
struct SecretKeyStateDeleter {
  void operator()(SecretKeyState* s) const;
};
}  // namespace mldsa

class MlDsa65PublicKey {
 public:
  // pkDecode (FIPS 204 Algorithm 23): any 1952 bytes; other lengths are kInvalidArgument.
  static Result<MlDsa65PublicKey> Decode(ByteView encoded);

  // The 1952-byte encoding (pkEncode).
  ByteView bytes() const;

 private:
  friend class MlDsa65Access;
  explicit MlDsa65PublicKey(std::shared_ptr<const mldsa::PublicKeyState> state)
      : state_(std::move(state)) {}
  std::shared_ptr<const mldsa::PublicKeyState> state_;
};

class MlDsa65SecretKey {
 public:
  // skDecode (FIPS 204 Algorithm 25), strict: 4032 bytes with every s1, s2 coefficient in
  // [-eta, eta]. The key is not checked against a public key (t0 and tr are taken as given).
  static Result<MlDsa65SecretKey> Decode(ByteView encoded);

  // The 4032-byte encoding (skEncode).
  SecretBytes Encode() const;

  MlDsa65SecretKey(MlDsa65SecretKey&&) noexcept = default;
  MlDsa65SecretKey& operator=(MlDsa65SecretKey&&) noexcept = default;
  MlDsa65SecretKey(const MlDsa65SecretKey&) = delete;
  MlDsa65SecretKey& operator=(const MlDsa65SecretKey&) = delete;
  ~MlDsa65SecretKey() = default;

 private:
  friend class MlDsa65Access;
  explicit MlDsa65SecretKey(std::unique_ptr<mldsa::SecretKeyState, mldsa::SecretKeyStateDeleter> s)
      : state_(std::move(s)) {}
  std::unique_ptr<mldsa::SecretKeyState, mldsa::SecretKeyStateDeleter> state_;
};

struct MlDsa65KeyPair {
  MlDsa65SecretKey sk;
  MlDsa65PublicKey pk;
};

// ML-DSA.KeyGen (Algorithm 1): a fresh 32-byte seed xi from the CSPRNG.
MlDsa65KeyPair MlDsa65KeyGen();
// ML-DSA.KeyGen_internal (Algorithm 6): deterministic from xi.
MlDsa65KeyPair MlDsa65KeyGenFromSeed(const Secret<32>& xi);

// kHedged draws rnd from the CSPRNG (the standard's default); kDeterministic uses rnd = 0^32.
enum class MlDsaSigning { kHedged, kDeterministic };

// ML-DSA.Sign (Algorithm 2): M' = 0 || |ctx| || ctx || M. A context over 255 bytes is
// kInvalidArgument.
Result<MlDsa65Signature> MlDsa65Sign(const MlDsa65SecretKey& sk, ByteView message,
                                     ByteView context = {},
                                     MlDsaSigning mode = MlDsaSigning::kHedged);

// ML-DSA.Verify (Algorithm 3).
Status MlDsa65Verify(const MlDsa65PublicKey& pk, ByteView message, ByteView context,
                     ByteView signature);

}  // namespace veil::crypto
