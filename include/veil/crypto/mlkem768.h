// ML-KEM-768, the module-lattice key-encapsulation mechanism of FIPS 203 at security category 3.
//
// A key pair is generated from two 32-byte seeds d and z (ML-KEM.KeyGen); anyone holding the
// encapsulation key ek derives a fresh 32-byte shared secret and a 1088-byte ciphertext for it
// (ML-KEM.Encaps); the holder of the decapsulation key dk recovers the same secret from the
// ciphertext (ML-KEM.Decaps). Decapsulation never fails on a well-sized ciphertext: a ciphertext
// that was not produced for this key yields an unrelated pseudorandom key J(z || c) ("implicit
// rejection", FIPS 203 sec. 6.3), chosen in constant time, so the caller learns nothing from the
// call itself. Our own implementation (src/crypto/mlkem/, docs/notes/mlkem.md): no packaged
// library on Debian 12 provides ML-KEM.
//
// Encodings and checks: an MlKem768EncapsulationKey exists only after the modulus check of FIPS
// 203 sec. 7.2; an MlKem768DecapsulationKey only after the length and hash checks of sec. 7.3
// (and, beyond the standard, the modulus check of its embedded ek, which any key made by KeyGen
// passes). Malformed encodings and wrong-length ciphertexts return kInvalidArgument.
//
// Constant time: key generation, encapsulation and decapsulation branch on and index by public
// data only (lengths, ek, the ciphertext); tests/ctime/mlkem_ctime.cc checks this under valgrind.
// The decapsulation key and the shared secrets live in wiped, move-only containers.
//
// The internal functions of FIPS 203 sec. 6 (KeyGen_internal, Encaps_internal with a caller-chosen
// m) are specified for testing, not as an application interface; a reused or predictable m gives
// the shared secret away. They live in veil/crypto/testing/mlkem768.h, which only tests, fuzzers
// and the conformance runner include. A key pair stored as its seed d || z is a normal key format
// (sec. 7.1 allows it), so FromSeed stays here.
//
// Moved-from: a moved-from decapsulation key aborts when used (secret.h).
//
// Thread safety: keys are immutable values after construction and may be shared between threads;
// every function is safe to call concurrently.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {

inline constexpr std::size_t kMlKem768EncapsulationKeySize = 1184,
                             kMlKem768DecapsulationKeySize = 2400, kMlKem768CiphertextSize = 1088,
                             kMlKem768SharedSecretSize = 32;
// The seed form of a decapsulation key: d || z, the inputs of ML-KEM.KeyGen_internal.
inline constexpr std::size_t kMlKem768SeedSize = 64;

class MlKem768DecapsulationKey;
class MlKem768Access;  // the implementation's way in (src/crypto/mlkem/mlkem768_access.h)

// ek: ByteEncode_12(t_hat) || rho, checked, with H(ek) computed once.
class MlKem768EncapsulationKey {
 public:
  // FIPS 203 sec. 7.2: the length (type check) and the modulus check (every 12-bit coefficient of
  // t_hat below q). kInvalidArgument otherwise.
  static Result<MlKem768EncapsulationKey> Decode(ByteView b);

  ByteView bytes() const { return bytes_; }
  // H(ek) = SHA3-256(ek), an input of every encapsulation and part of dk.
  std::span<const std::uint8_t, 32> hash() const { return hash_; }

 private:
  friend class MlKem768DecapsulationKey;
  friend class MlKem768Access;
  // From bytes known to pass the modulus check (produced by KeyGen or checked by the caller).
  static MlKem768EncapsulationKey FromCheckedBytes(ByteView b);
  MlKem768EncapsulationKey() = default;

  std::array<std::uint8_t, kMlKem768EncapsulationKeySize> bytes_{};
  std::array<std::uint8_t, 32> hash_{};
};

// dk = dk_PKE || ek || H(ek) || z, held in wiped memory.
class MlKem768DecapsulationKey {
 public:
  // FIPS 203 sec. 7.3: the length and the hash check (H(ek) equals the stored hash), plus the
  // modulus check of the embedded ek. kInvalidArgument otherwise.
  static Result<MlKem768DecapsulationKey> Decode(ByteView b);
  // ML-KEM.KeyGen_internal(d, z) from the 64-byte seed d || z (the "seed" private-key format used
  // by Wycheproof and the IETF ML-KEM key formats; FIPS 203 sec. 7.1 allows storing a key pair as
  // its seed); the expanded form is Encode().
  static MlKem768DecapsulationKey FromSeed(const Secret<kMlKem768SeedSize>& d_z);

  // The 2400-byte standard encoding (Wycheproof calls it "semi-expanded").
  SecretBytes Encode() const { return dk_.Clone(); }
  const MlKem768EncapsulationKey& encapsulation_key() const { return ek_; }

 private:
  friend class MlKem768Access;
  MlKem768DecapsulationKey(SecretBytes dk, MlKem768EncapsulationKey ek)
      : dk_(std::move(dk)), ek_(ek) {}

  SecretBytes dk_;
  MlKem768EncapsulationKey ek_;  // a copy of dk's embedded ek, public
};

struct MlKem768KeyPair {
  MlKem768DecapsulationKey dk;
  MlKem768EncapsulationKey ek;
};

// ML-KEM.KeyGen (Algorithm 19): d and z from the CSPRNG.
MlKem768KeyPair MlKem768KeyGen();

struct MlKem768Encapsulation {
  std::array<std::uint8_t, kMlKem768CiphertextSize> ciphertext;
  Secret<kMlKem768SharedSecretSize> shared_secret;
};

// ML-KEM.Encaps (Algorithm 20): m from the CSPRNG. The input check of sec. 7.2 was done when ek
// was decoded.
MlKem768Encapsulation MlKem768Encaps(const MlKem768EncapsulationKey& ek);

// ML-KEM.Decaps (Algorithm 21). A ciphertext of the wrong length is kInvalidArgument (the type
// check of sec. 7.3); any 1088-byte ciphertext yields a key, the implicit-rejection key J(z || c)
// when it does not decrypt and re-encrypt to itself.
Result<Secret<32>> MlKem768Decaps(const MlKem768DecapsulationKey& dk, ByteView ciphertext);

}  // namespace veil::crypto
