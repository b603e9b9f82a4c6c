// Hybrid Public Key Encryption (RFC 9180): modes base, psk, auth and auth_psk.
//
// KEMs: DHKEM(X25519, HKDF-SHA256) (0x0020) and X-Wing (0x647A, draft-connolly-cfrg-xwing-kem,
// section 5.6; not authenticated, so no auth modes). KDFs: HKDF-SHA256/384/512. AEADs: AES-128-GCM,
// AES-256-GCM, ChaCha20-Poly1305 and export-only. Single-shot Seal/Open, and contexts with sequence
// numbers and secret export (section 5.2, 5.3).
//
// Errors: malformed keys, encapsulations or parameters are kInvalidArgument; a ciphertext that does
// not open is VerificationFailed(); a context whose sequence number would wrap is
// kResourceExhausted; Seal/Open on an export-only context is kFailedPrecondition.
//
// The ephemeral key is always fresh: setups that take it from the caller (RFC 9180's test vectors
// derive it from ikmE) are for tests only, in veil/crypto/testing/hpke.h, since a reused ephemeral
// key repeats the key and nonces of every context it sets up. A moved-from Context aborts when
// used.
//
// Thread safety: free functions are safe from any thread; a Context is single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/secret.h"

namespace veil::crypto::hpke {

enum class Mode : std::uint8_t { kBase = 0, kPsk = 1, kAuth = 2, kAuthPsk = 3 };
enum class KemId : std::uint16_t { kX25519Sha256 = 0x0020, kXWing = 0x647A };
enum class KdfId : std::uint16_t { kHkdfSha256 = 1, kHkdfSha384 = 2, kHkdfSha512 = 3 };
enum class AeadId : std::uint16_t {
  kAes128Gcm = 1,
  kAes256Gcm = 2,
  kChaCha20Poly1305 = 3,
  kExportOnly = 0xFFFF,
};

struct Suite {
  KemId kem;
  KdfId kdf;
  AeadId aead;
};

// Checks that the numeric identifiers name algorithms we implement.
Result<Suite> SuiteFromIds(std::uint16_t kem, std::uint16_t kdf, std::uint16_t aead);

struct KeyPair {
  SecretBytes private_key;  // SerializePrivateKey form: 32 bytes for both KEMs
  Bytes public_key;         // SerializePublicKey form: 32 bytes (X25519), 1216 (X-Wing)
};

KeyPair GenerateKeyPair(KemId kem);
// DeriveKeyPair (RFC 9180 7.1.3; X-Wing 5.6). ikm should carry at least Nsk bytes of entropy.
KeyPair DeriveKeyPair(KemId kem, ByteView ikm);
// The public key of a serialized private key.
Result<Bytes> PublicKeyOf(KemId kem, const SecretBytes& private_key);

// What a setup needs beyond the recipient key; which fields must be set follows from the mode.
struct SetupOptions {
  Mode mode = Mode::kBase;
  ByteView info;
  ByteView psk;                                     // psk, auth_psk
  ByteView psk_id;                                  // psk, auth_psk
  const SecretBytes* sender_private_key = nullptr;  // auth, auth_psk (sender side)
  ByteView sender_public_key;                       // auth, auth_psk (recipient side)
};

class Context {
 public:
  ~Context();
  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Sender: encrypts under the next sequence number.
  Result<Bytes> Seal(ByteView aad, ByteView plaintext);
  // Recipient: decrypts under the next sequence number; the number advances only on success.
  Result<SecretBytes> Open(ByteView aad, ByteView ciphertext);
  // Secret export (section 5.3); length at most 255 * Nh.
  Result<SecretBytes> Export(ByteView exporter_context, std::size_t length) const;

  std::uint64_t sequence_number() const;

 private:
  struct State;
  friend struct ContextFactory;
  explicit Context(std::unique_ptr<State> state);
  State& Live() const;
  std::unique_ptr<State> state_;
};

struct SenderContext {
  Bytes enc;
  Context context;
};

Result<SenderContext> SetupSender(const Suite& suite, ByteView recipient_public_key,
                                  const SetupOptions& options);
Result<Context> SetupRecipient(const Suite& suite, ByteView enc,
                               const SecretBytes& recipient_private_key,
                               const SetupOptions& options);

// Single-shot APIs (section 6.1).
struct Sealed {
  Bytes enc;
  Bytes ciphertext;
};
Result<Sealed> Seal(const Suite& suite, ByteView recipient_public_key, const SetupOptions& options,
                    ByteView aad, ByteView plaintext);
Result<SecretBytes> Open(const Suite& suite, ByteView enc, const SecretBytes& recipient_private_key,
                         const SetupOptions& options, ByteView aad, ByteView ciphertext);

}  // namespace veil::crypto::hpke
