// Ledger transactions: an ordered list of operations, signed by the sender, with a nonce.
//
// Operations follow Arkiv's (create, update as a patch, extend, transfer, delete). A transaction
// applies atomically: every operation or none. The encoding is canonical and strict (base/codec.h
// conventions; layout and sizes in docs/notes/ledger.md): attributes sorted strictly by name,
// every length bounded by Limits, a signature-scheme tag and the public key inside the signed
// body so the composite ML-DSA-65 + Ed25519 scheme can be added without a new format. Decode()
// accepts only what Encode() produces for a transaction that passes ValidateTransaction().
//
// Thread safety: values and pure functions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/composite_sig.h"
#include "veil/crypto/ed25519.h"
#include "veil/ledger/entity.h"
#include "veil/ledger/limits.h"

namespace veil::ledger {

enum class OpKind : std::uint8_t {
  kCreate = 1,
  kUpdate = 2,
  kExtend = 3,
  kTransfer = 4,
  kDelete = 5,
};

struct CreateOp {
  // Absolute, on the chain's expiry clock (ExpiryHeight, types.h): above the expiry height of
  // the block the transaction lands in (Client::ExpiryFor gives it for a lifetime).
  std::uint64_t expires_block = 0;
  std::uint8_t flags = 0;  // kFlagReadonly | kFlagPermissionlessExtension (entity.h)
  std::string content_type;
  Bytes payload;
  std::vector<Attribute> attributes;  // sorted by name
};

// A patch: set (insert or overwrite) and unset attributes, optionally replace the payload.
struct UpdateOp {
  EntityKey key{};
  std::vector<Attribute> set;      // sorted by name
  std::vector<std::string> unset;  // sorted, disjoint from `set`
  bool replace_payload = false;
  std::string content_type;  // with replace_payload
  Bytes payload;             // with replace_payload
};

struct ExtendOp {
  EntityKey key{};
  std::uint64_t expires_block = 0;  // new absolute expiry, strictly greater than the current one
};

struct TransferOp {
  EntityKey key{};
  Address new_owner{};
};

struct DeleteOp {
  EntityKey key{};
};

using Operation = std::variant<CreateOp, UpdateOp, ExtendOp, TransferOp, DeleteOp>;
OpKind KindOf(const Operation& op);

struct Transaction {
  std::uint64_t chain_id = 0;
  std::uint64_t nonce = 0;  // the sender's next nonce: 0, 1, 2, ...
  std::vector<Operation> ops;
};

// Encoding formats: 2 (current) carries a flags byte in each create; 1 (before creation flags)
// has none, and is still decoded, verified and re-encoded byte for byte, so chains written
// before flags existed keep verifying. Only format 2 is signed.
inline constexpr std::uint8_t kTxFormatV1 = 1;
inline constexpr std::uint8_t kTxFormat = 2;

// A decoded, signature-carrying transaction. The signature is not checked by Decode: call
// VerifySignature (the ledger does).
struct SignedTransaction {
  Transaction tx;
  std::uint8_t format = kTxFormat;  // the encoding it was decoded from (kTxFormat*)
  SigScheme scheme = SigScheme::kEd25519;
  Bytes public_key;
  Bytes signature;

  Address Sender() const { return AddressOf(scheme, public_key); }
};

// Stateless checks: limits, name and value syntax, ordering, non-empty op list.
Status ValidateTransaction(const Transaction& tx, const Limits& limits);

// The signed body: everything except the signature. Its bytes are what the key signs, after the
// label "veil.ledger.tx.v1". Format 1 cannot carry flags: a create with flags is written in
// format 2 whatever `format` says (so a signature over a format 1 body never covers flags).
Bytes EncodeBody(const Transaction& tx, SigScheme scheme, ByteView public_key,
                 std::uint8_t format = kTxFormat);
Bytes Encode(const SignedTransaction& stx);
Result<SignedTransaction> Decode(ByteView encoded, const Limits& limits);

// Validates and signs with Ed25519; returns the encoded signed transaction.
Result<Bytes> SignEd25519(const Transaction& tx, const crypto::Ed25519SigningKey& key,
                          const Limits& limits);
// Validates and signs with the composite ML-DSA-65 + Ed25519 key (SigScheme 2; the body is
// signed with the label "veil.ledger.tx.v1" as the composite signature's context); returns the
// encoded signed transaction. Both components sign the composite's message representative, so
// neither verifies on its own as an Ed25519 transaction. Hedged ML-DSA: two signatures of one
// transaction differ, and both verify.
Result<Bytes> SignComposite(const Transaction& tx, const crypto::CompositeSigningKey& key,
                            const Limits& limits);
// Ok, or VerificationFailed(). Ed25519 is checked on the group floor's engine with libsodium's
// acceptance rules (ec/ed25519.h), the composite scheme through crypto/composite_sig.h.
Status VerifySignature(const SignedTransaction& stx);

// VerifySignature with a bounded cache of prepared Ed25519 keys: a sender's key is prepared
// (decoded, with tables for the halved double-base multiplication, about half a verification's
// work) the second time it signs, and its later signatures then cost about half of a one-shot
// check (docs/notes/ledger.md, "Where the signature is checked"). At most `capacity` keys
// (about 4 KiB each) and as many seen-once entries; when full, an arbitrary one makes room.
// Thread safety: Verify may be called from any thread (the cache takes a mutex; the
// verification runs outside it).
class SignatureVerifier {
 public:
  explicit SignatureVerifier(std::size_t capacity = 4096);
  ~SignatureVerifier();
  SignatureVerifier(const SignatureVerifier&) = delete;
  SignatureVerifier& operator=(const SignatureVerifier&) = delete;

  Status Verify(const SignedTransaction& stx) const;
  // Prepared keys held (for tests).
  std::size_t prepared_keys() const;

 private:
  struct Cache;
  std::unique_ptr<Cache> cache_;
};

// SHA-256("veil.ledger.tx-hash.v1" || encoded signed transaction)
Hash32 TxHash(ByteView encoded);

// Bytes the operations would store (payload, content type, attribute names and values).
std::uint64_t StoredBytes(const Transaction& tx);
// Gas of a transaction from its encoding (calldata) and its operations (GasSchedule).
std::uint64_t TxGas(const Transaction& tx, ByteView encoded, const GasSchedule& gas);

}  // namespace veil::ledger
