// ledger::Client: what a product holds to write to a ledger. It signs with one key (Signer),
// tracks that key's transaction nonce, submits through any LedgerApi (LocalLedger in process,
// RemoteLedger over a node), signs again and resubmits a transaction that lost a nonce race, and
// on a timed ledger waits for the receipt (docs/notes/veil-ledger.md, "The client library").
//
// Nonces. A transaction carries its sender's next nonce (Account::tx_nonce), and only a
// transaction that lands uses it up: one refused before execution (an error from Submit) or one
// that failed (its receipt's status) changed nothing, its nonce included (ledger.h). The client
// reads the account on first use and then counts: one up for a landed transaction, nothing for a
// refused or failed one. A second writer with the same key (another Client, another process)
// makes the count stale; the ledger then fails the transaction itself (not one of its
// operations): "nonce already used" (IsNonceReplayed) when the count is behind, "nonce too high"
// when it is ahead. On such a failure the client reads the account again and, if its nonce is not
// the one it signed with, signs the same operations with the account's nonce and resubmits, up
// to ClientOptions::max_attempts submissions in all (then kUnavailable). Two Clients on one key
// that submit the same operations with the same nonce sign the same bytes, one transaction: both
// get its landed receipt (as RemoteLedger::Submit does for a repeat). After an error it
// cannot place (a transport failure: the transaction may have landed) it forgets the count and
// reads the account before the next transaction.
//
// Timed ledgers. Submit answers with a pending receipt, and the client polls GetReceipt with
// exponential backoff (ClientOptions::first_poll doubling up to max_poll) until the receipt comes
// or receipt_timeout has passed since the submission: then kUnavailable, naming the transaction,
// which may still land. While it waits it also watches the account: once the account's nonce has
// passed the transaction's and no receipt has come, another transaction took the nonce, and the
// client signs again as above. A node keeps the receipts of transactions that failed in a block
// and GetReceipt returns them (FailedReceiptLog, apps/veil-ledger/node.h); a LocalLedger keeps
// none, so there a transaction that fails in its block ends the wait with the timeout.
// With ClientOptions::wait_for_receipt false, Submit returns the pending receipt at once and
// counts its nonce as used (several transactions of one sender in one block); if one of them
// then fails, call ForgetNonce.
//
// Thread safety: a Client may be shared between threads; a mutex inside serialises its calls,
// and Submit holds it from signing to the receipt, so one Client's transactions go one at a time,
// in nonce order. For parallel writes from one key use SignNext (sign ahead, submit in parallel)
// or several Clients (their nonces race, and the races are retried). The LedgerApi must outlive
// the Client and be safe to call from the Client's threads (both implementations are).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/ledger/api.h"
#include "veil/ledger/entity.h"
#include "veil/ledger/transaction.h"

namespace veil::ledger {

// A signing key of a scheme transactions accept (SigScheme): Ed25519, or the composite
// ML-DSA-65 + Ed25519. Move-only, as its keys are.
class Signer {
 public:
  explicit Signer(crypto::Ed25519SigningKey key);
  explicit Signer(crypto::CompositeSigningKey key);
  Signer(Signer&&) noexcept;
  Signer& operator=(Signer&&) noexcept;
  ~Signer();

  SigScheme scheme() const { return scheme_; }
  const Bytes& public_key() const { return public_key_; }
  const Address& address() const { return address_; }

  // Validates `tx` (ValidateTransaction against `limits`) and signs it exactly as it is; the
  // encoded signed transaction.
  Result<Bytes> Sign(const Transaction& tx, const Limits& limits) const;

 private:
  std::variant<crypto::Ed25519SigningKey, crypto::CompositeSigningKey> key_;
  SigScheme scheme_;
  Bytes public_key_;
  Address address_{};
};

struct ClientOptions {
  // Checked before signing (the ledger checks again with its own).
  Limits limits = Limits::Arkiv();
  // Submissions of one transaction: the first, and the resubmissions after lost nonce races.
  int max_attempts = 8;
  // Timed ledgers: wait for a pending transaction's receipt (see above), at most this long.
  bool wait_for_receipt = true;
  std::chrono::milliseconds receipt_timeout{60'000};
  std::chrono::milliseconds first_poll{10};
  std::chrono::milliseconds max_poll{1'000};
};

// A transaction signed by SignNext, not yet submitted.
struct PreparedTx {
  Bytes encoded;
  Hash32 hash{};  // TxHash(encoded): its receipt's key
  std::uint64_t nonce = 0;
};

class Client {
 public:
  Client(LedgerApi& api, Signer signer, ClientOptions options = {});
  // A client without a ledger: it signs for chain `chain_id` with consecutive nonces from
  // `next_nonce` (SignNext), for a caller that submits by another channel (raw HTTP, a
  // benchmark's pre-signed batch). Its Submit and the operation helpers are kFailedPrecondition,
  // and ForgetNonce leaves the count as it is (there is no account to read).
  static Client Offline(Signer signer, std::uint64_t chain_id, std::uint64_t next_nonce = 0,
                        ClientOptions options = {});
  ~Client();
  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;

  const Signer& signer() const { return signer_; }
  const Address& address() const { return signer_.address(); }
  const ClientOptions& options() const { return options_; }

  // Signs `ops` as one transaction (all apply or none), submits it and returns its receipt: a
  // landed one (status ok; `created` holds the keys of its creates, in op order), a failed one
  // (status says why, failed_op which operation; nothing changed), or, without
  // wait_for_receipt on a timed ledger, a pending one. An error when the ledger refused the
  // transaction (malformed, over a limit, a full queue: kUnavailable) or could not be reached.
  Result<TxReceipt> Submit(std::vector<Operation> ops);
  Result<TxReceipt> Create(CreateOp op);
  Result<TxReceipt> Update(UpdateOp op);
  Result<TxReceipt> Extend(const EntityKey& key, std::uint64_t expires_block);
  Result<TxReceipt> Transfer(const EntityKey& key, const Address& new_owner);
  Result<TxReceipt> Delete(const EntityKey& key);

  // Signs `ops` with the next nonce and counts it as used, without submitting: the caller
  // submits (api.Submit(prepared.encoded)), in any order of its choosing but all of them, and
  // calls ForgetNonce (or SetNextNonce) if one does not land.
  Result<PreparedTx> SignNext(std::vector<Operation> ops);
  // Signs `ops` with `nonce` and leaves the count alone: for a caller that picks the nonce
  // itself (tests of replays and gaps).
  Result<Bytes> Sign(std::vector<Operation> ops, std::uint64_t nonce);

  // The nonce the next transaction will carry (the account is read if the count is unknown).
  Result<std::uint64_t> NextNonce();
  // The count is forgotten: the next transaction reads the account first.
  void ForgetNonce();
  // The next transaction carries `nonce` (a caller that knows better: a key made just now
  // starts at 0, which saves the account read).
  void SetNextNonce(std::uint64_t nonce);
  // The ledger's chain id (read once).
  Result<std::uint64_t> ChainId();
  // The lease clock (docs/architecture.md): the expires_block for an entity that is to live
  // `lifetime` from `now`, on the chain's expiry clock (ChainInfo::ExpiryFor, on the ledger's
  // ChainInfo read now). A product gives the guardians the same `now` and lifetime, so the
  // record's data and its key shares expire within one block of each other.
  Result<std::uint64_t> ExpiryFor(
      std::chrono::milliseconds lifetime,
      std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

 private:
  struct State;
  Client(LedgerApi* api, Signer signer, ClientOptions options);
  Result<TxReceipt> SubmitLocked(std::vector<Operation> ops);
  Result<TxReceipt> AwaitLocked(const TxReceipt& pending);
  Result<std::uint64_t> NextNonceLocked();
  Result<std::uint64_t> ChainIdLocked();

  LedgerApi* api_;  // null: offline
  Signer signer_;
  ClientOptions options_;
  std::unique_ptr<State> state_;
};

}  // namespace veil::ledger
