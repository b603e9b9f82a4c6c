// A guardian's long-term identity: a composite signing key (ML-DSA-65 + Ed25519) that signs
// destroy receipts, an X-Wing KEM key pair that shares are sealed to with HPKE, and a separate
// 32-byte storage key that seals shares at rest. Clients pin the public half by its fingerprint.
//
// On disk the three secrets live in DIR/identity.key (mode 0600, never in the database), as the
// codec structure "GI" v1: composite private key (64) || X-Wing seed (32) || storage key (32). The
// file is written atomically: a temporary file is written and fsynced, linked into place (link(2)
// never replaces an existing identity), and the directory is fsynced. Load refuses a file that
// group or others may read.
//
// PublicIdentity's canonical encoding is the codec structure "GP" v1: composite public key (1984)
// || X-Wing public key (1216); its fingerprint is SHA-256 of that encoding, shown as lowercase hex.
//
// Errors: a missing identity is kNotFound; unreadable files or a failed write kUnavailable; a
// malformed file kDataLoss; a file readable by others kFailedPrecondition; a malformed public
// encoding kInvalidArgument.
//
// Thread safety: both types are immutable after construction; every const member is safe from any
// thread.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/composite_sig.h"
#include "veil/crypto/secret.h"
#include "veil/crypto/xwing.h"

namespace veil::guardian {

inline constexpr std::size_t kFingerprintSize = 32;
inline constexpr std::size_t kStorageKeySize = 32;
using Fingerprint = std::array<std::uint8_t, kFingerprintSize>;

inline constexpr char kIdentityFileName[] = "identity.key";

class PublicIdentity {
 public:
  static Result<PublicIdentity> Decode(ByteView encoded);
  const Bytes& Encode() const { return encoded_; }

  const Fingerprint& fingerprint() const { return fingerprint_; }
  // Lowercase hex of fingerprint(): what clients pin and what requests name.
  std::string FingerprintHex() const;

  const crypto::CompositeVerifyingKey& signing_key() const { return signing_key_; }
  const crypto::XWingPublicKey& kem_public_key() const { return kem_public_key_; }

 private:
  PublicIdentity(crypto::CompositeVerifyingKey signing_key,
                 const crypto::XWingPublicKey& kem_public_key);
  friend class GuardianIdentity;
  crypto::CompositeVerifyingKey signing_key_;
  crypto::XWingPublicKey kem_public_key_;
  Bytes encoded_;
  Fingerprint fingerprint_;
};

class GuardianIdentity {
 public:
  // A fresh identity in memory (nothing written).
  static GuardianIdentity Generate();
  // DIR/identity.key, which must exist.
  static Result<GuardianIdentity> Load(const std::filesystem::path& dir);
  // Loads DIR/identity.key, or creates DIR (mode 0700) and a fresh identity in it.
  static Result<GuardianIdentity> LoadOrCreate(const std::filesystem::path& dir);
  // Writes DIR/identity.key atomically; kFailedPrecondition if one is already there.
  Status Save(const std::filesystem::path& dir) const;

  GuardianIdentity(GuardianIdentity&&) noexcept;
  GuardianIdentity& operator=(GuardianIdentity&&) noexcept;
  ~GuardianIdentity();

  const PublicIdentity& public_identity() const { return *public_; }
  const crypto::CompositeSigningKey& signing_key() const { return *signing_key_; }
  // The X-Wing seed in the form crypto/hpke.h takes as a private key.
  const crypto::SecretBytes& kem_private_key() const { return kem_private_key_; }
  const crypto::Secret<kStorageKeySize>& storage_key() const { return storage_key_; }

 private:
  GuardianIdentity(crypto::CompositeSigningKey signing_key, crypto::XWingDecapsulationKey kem,
                   crypto::Secret<kStorageKeySize> storage_key);
  crypto::SecretBytes EncodeSecret() const;
  std::unique_ptr<crypto::CompositeSigningKey> signing_key_;
  crypto::SecretBytes kem_private_key_;
  crypto::Secret<kStorageKeySize> storage_key_;
  std::unique_ptr<PublicIdentity> public_;
};

}  // namespace veil::guardian
