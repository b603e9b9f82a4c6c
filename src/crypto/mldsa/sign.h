// The internal algorithms of ML-DSA-65 (FIPS 204 sec. 6): KeyGen_internal, Sign_internal and
// Verify_internal (Algorithms 6 to 8), over decoded key states that keep everything a repeated
// signature or verification needs: A_hat expanded once, s1, s2, t0 in the NTT domain once per
// key, t1 * 2^d in the NTT domain and tr = H(pk) once per public key.
//
// Constant time: key generation and signing branch on no secret and index memory by no secret
// except (1) the rejection samplers' accept/reject verdicts (sampling.h) and (2) the verdict of
// each rejection-loop iteration, whether to restart: signing time reveals the number of iterations
// in any implementation, and whether an iteration passes depends on its fresh mask y, not on the
// key (docs/notes/mldsa.md), so that bit is public by design. Both are declassified on the line
// where they are taken, as are rho (a field of the public key) and skDecode's verdict (was the key
// well formed). Verification works on public data only.
//
// Thread safety: the states are immutable once built; any number of threads may sign or verify
// with the same state at once.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "params.h"
#include "polyvec.h"
#include "veil/base/bytes.h"

namespace veil::crypto::mldsa {

struct PublicKeyState {
  std::array<std::uint8_t, kPublicKeyBytes> encoded;
  std::array<std::uint8_t, kTrBytes> tr;  // H(pk, 64)
  MatrixA a_hat;
  PolyVecK t1_hat;  // NTT(t1 * 2^d), reduced by Reduce32
};

struct SecretKeyState {
  SecretKeyState() = default;
  SecretKeyState(const SecretKeyState&) = delete;
  SecretKeyState& operator=(const SecretKeyState&) = delete;
  ~SecretKeyState();

  std::array<std::uint8_t, kSecretKeyBytes> encoded;
  std::array<std::uint8_t, kSeedBytes> key;  // K
  std::array<std::uint8_t, kTrBytes> tr;
  MatrixA a_hat;
  PolyVecL s1_hat;  // NTT(s1), NTT(s2), NTT(t0), each reduced by Reduce32
  PolyVecK s2_hat;
  PolyVecK t0_hat;
};

// ML-DSA.KeyGen_internal (Algorithm 6).
void KeyGenInternal(std::span<const std::uint8_t, kSeedBytes> xi, PublicKeyState& pk,
                    SecretKeyState& sk);

// pkDecode (Algorithm 23) plus the precomputation; every 1952-byte string is a public key.
void DecodePublicKey(PublicKeyState& pk, std::span<const std::uint8_t, kPublicKeyBytes> in);

// skDecode (Algorithm 25) plus the precomputation. False when s1 or s2 has a coefficient outside
// [-eta, eta]; the verdict is declassified (whether a key is malformed is public).
bool DecodeSecretKey(SecretKeyState& sk, std::span<const std::uint8_t, kSecretKeyBytes> in);

// mu = H(tr || M', 64) (Algorithm 7, line 6), with M' given as consecutive parts.
void ComputeMu(std::span<std::uint8_t, kMuBytes> mu, std::span<const std::uint8_t, kTrBytes> tr,
               std::initializer_list<ByteView> m_prime_parts);

// Algorithm 7 from line 7 on, given mu.
void SignMu(std::span<std::uint8_t, kSignatureBytes> sig, const SecretKeyState& sk,
            std::span<const std::uint8_t, kMuBytes> mu,
            std::span<const std::uint8_t, kSeedBytes> rnd);

// Algorithm 8 from line 8 on, given mu: true when the signature verifies.
bool VerifyMu(const PublicKeyState& pk, std::span<const std::uint8_t, kMuBytes> mu,
              std::span<const std::uint8_t, kSignatureBytes> sig);

}  // namespace veil::crypto::mldsa
