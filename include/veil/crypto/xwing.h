// X-Wing: the hybrid KEM of ML-KEM-768 and X25519 (draft-connolly-cfrg-xwing-kem, section 5).
//
// Secure if either ML-KEM-768 or X25519 is (with SHA3 as a random oracle); the combiner hashes
// both shared secrets with the X25519 ciphertext and public key. The decapsulation key is a
// 32-byte seed; the key object caches its expansion (section 5.5.1) so repeated decapsulation does
// not re-derive the ML-KEM key. Encapsulation checks the ML-KEM key (FIPS 203 7.2) and fails with
// kInvalidArgument on a bad key; decapsulation never fails on a well-sized ciphertext.
//
// EncapsulateDerand (section 5.4.1), whose caller supplies the ephemeral randomness, is for test
// vectors only (a reused eseed repeats the shared secret) and lives in veil/crypto/testing/xwing.h.
// A moved-from decapsulation key aborts when used.
//
// Thread safety: keys are immutable values once built; functions are safe from any thread.
#pragma once

#include <array>
#include <memory>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {

inline constexpr std::size_t kXWingSeedSize = 32;
inline constexpr std::size_t kXWingPublicKeySize = 1216;
inline constexpr std::size_t kXWingCiphertextSize = 1120;
inline constexpr std::size_t kXWingSharedSecretSize = 32;
inline constexpr std::size_t kXWingEncapsSeedSize = 64;

using XWingPublicKey = std::array<std::uint8_t, kXWingPublicKeySize>;
using XWingCiphertext = std::array<std::uint8_t, kXWingCiphertextSize>;

class XWingDecapsulationKey {
 public:
  // GenerateKeyPairDerand (5.2.1): expands the 32-byte seed.
  static XWingDecapsulationKey FromSeed(const Secret<kXWingSeedSize>& seed);
  static Result<XWingDecapsulationKey> FromSeedBytes(ByteView seed);
  static XWingDecapsulationKey Generate();

  ~XWingDecapsulationKey();
  XWingDecapsulationKey(XWingDecapsulationKey&&) noexcept;
  XWingDecapsulationKey& operator=(XWingDecapsulationKey&&) noexcept;

  const Secret<kXWingSeedSize>& seed() const;
  const XWingPublicKey& public_key() const;

  // Decapsulate (5.5); kInvalidArgument only for a wrong length.
  Result<Secret<kXWingSharedSecretSize>> Decapsulate(ByteView ciphertext) const;

 private:
  struct Expanded;
  explicit XWingDecapsulationKey(std::unique_ptr<Expanded> e);
  const Expanded& Live() const;
  std::unique_ptr<Expanded> e_;
};

struct XWingEncapsulation {
  XWingCiphertext ciphertext;
  Secret<kXWingSharedSecretSize> shared_secret;
};

// Encapsulate (5.4) with fresh randomness.
Result<XWingEncapsulation> XWingEncapsulate(ByteView public_key);

}  // namespace veil::crypto
