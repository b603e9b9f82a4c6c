// Owner keys: who deposited a share and who alone may read, renew or destroy it.
//
// An owner is a public signing key, either Ed25519 (32 bytes) or the composite ML-DSA-65 +
// Ed25519 key (1984 bytes, crypto/composite_sig.h). Kalypso's ephemeral per-record keys are owner
// keys like any other. The guardian stores an owner with each share and compares owners exactly:
// a request is authorised for a share only if it is signed by the key stored with it.
//
// OwnerKey is the public half (decoded strictly: the algorithm fixes the length); OwnerSigner
// holds the private half on the client side and signs request bodies. OwnerKeyText and
// ParseOwnerKeyList are the text form an operator writes in a guardian's allow list.
//
// Errors: a key of the wrong length or a malformed composite key is kInvalidArgument; a signature
// that does not verify is VerificationFailed().
//
// Thread safety: both are immutable after construction and safe to share between threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/composite_sig.h"
#include "veil/crypto/ed25519.h"

namespace veil::guardian {

enum class OwnerAlg : std::uint8_t { kEd25519 = 1, kComposite = 2 };

// "ed25519" or "composite", the names used on the wire.
std::string_view OwnerAlgName(OwnerAlg alg);
Result<OwnerAlg> OwnerAlgFromName(std::string_view name);
std::size_t OwnerKeySize(OwnerAlg alg);
std::size_t OwnerSignatureSize(OwnerAlg alg);

class OwnerKey {
 public:
  // An empty key, which verifies nothing (a placeholder in default-built requests).
  OwnerKey() = default;
  // Strict: the length must match the algorithm; a composite key must decode.
  static Result<OwnerKey> Create(OwnerAlg alg, ByteView key);
  // The storage form: one algorithm byte, then the key bytes.
  static Result<OwnerKey> Decode(ByteView encoded);
  Bytes Encode() const;

  OwnerAlg alg() const { return alg_; }
  // The raw public key: what the share's HPKE aad binds (the length tells the algorithm apart).
  const Bytes& key() const { return key_; }

  // Checks `signature` over `message` (for composite keys with an empty context).
  Status Verify(ByteView message, ByteView signature) const;

  friend bool operator==(const OwnerKey& a, const OwnerKey& b) {
    return a.alg_ == b.alg_ && a.key_ == b.key_;
  }

 private:
  OwnerKey(OwnerAlg alg, Bytes key) : alg_(alg), key_(std::move(key)) {}
  OwnerAlg alg_ = OwnerAlg::kEd25519;
  Bytes key_;
};

// The text form of an owner key: "ed25519:BASE64" or "composite:BASE64" (the raw public key,
// standard base64, padded), e.g. for kalypso-guardian's --allow-owner.
std::string OwnerKeyText(const OwnerKey& key);
// Strict: exactly that form, canonical base64, a key that OwnerKey::Create accepts.
Result<OwnerKey> ParseOwnerKeyText(std::string_view text);
// An allow-list file: one key per line in the text form, spaces and tabs around it ignored;
// blank lines and lines whose first non-blank character is '#' are skipped. Any other line is
// kInvalidArgument naming its line number (not its content). A key listed twice is kept once.
Result<std::vector<OwnerKey>> ParseOwnerKeyList(std::string_view text);

class OwnerSigner {
 public:
  static OwnerSigner GenerateEd25519();
  static OwnerSigner GenerateComposite();
  static OwnerSigner FromEd25519(crypto::Ed25519SigningKey key);
  static OwnerSigner FromComposite(crypto::CompositeSigningKey key);

  const OwnerKey& public_key() const { return *public_; }
  // The signature bytes (64 or 3373).
  Result<Bytes> Sign(ByteView message) const;

 private:
  OwnerSigner() = default;
  std::shared_ptr<const crypto::Ed25519SigningKey> ed25519_;
  std::shared_ptr<const crypto::CompositeSigningKey> composite_;
  std::shared_ptr<const OwnerKey> public_;
};

}  // namespace veil::guardian
