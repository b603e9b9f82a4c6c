// Client and Signer (client.h).
#include "veil/ledger/client.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace veil::ledger {
namespace {

using Clock = std::chrono::steady_clock;

Bytes PublicKeyOf(const crypto::Ed25519SigningKey& k) {
  return Bytes(k.public_key().begin(), k.public_key().end());
}
Bytes PublicKeyOf(const crypto::CompositeSigningKey& k) {
  const auto& pk = k.verifying_key().bytes();
  return Bytes(pk.begin(), pk.end());
}

std::string Millis(std::chrono::milliseconds d) { return std::to_string(d.count()) + " ms"; }

}  // namespace

Signer::Signer(crypto::Ed25519SigningKey key)
    : key_(std::move(key)),
      scheme_(SigScheme::kEd25519),
      public_key_(PublicKeyOf(std::get<0>(key_))),
      address_(AddressOf(scheme_, public_key_)) {}

Signer::Signer(crypto::CompositeSigningKey key)
    : key_(std::move(key)),
      scheme_(SigScheme::kCompositeMlDsa65Ed25519),
      public_key_(PublicKeyOf(std::get<1>(key_))),
      address_(AddressOf(scheme_, public_key_)) {}

Signer::Signer(Signer&&) noexcept = default;
Signer& Signer::operator=(Signer&&) noexcept = default;
Signer::~Signer() = default;

Result<Bytes> Signer::Sign(const Transaction& tx, const Limits& limits) const {
  if (const auto* ed = std::get_if<crypto::Ed25519SigningKey>(&key_)) {
    return SignEd25519(tx, *ed, limits);
  }
  return SignComposite(tx, std::get<crypto::CompositeSigningKey>(key_), limits);
}

// What the mutex guards.
struct Client::State {
  std::mutex mu;
  std::optional<std::uint64_t> chain_id;
  std::optional<std::uint64_t> next_nonce;  // none: read the account
};

Client::Client(LedgerApi& api, Signer signer, ClientOptions options)
    : Client(&api, std::move(signer), std::move(options)) {}

Client::Client(LedgerApi* api, Signer signer, ClientOptions options)
    : api_(api),
      signer_(std::move(signer)),
      options_(std::move(options)),
      state_(std::make_unique<State>()) {
  VEIL_CHECK_MSG(options_.max_attempts >= 1, "ClientOptions::max_attempts must be at least 1");
}

Client Client::Offline(Signer signer, std::uint64_t chain_id, std::uint64_t next_nonce,
                       ClientOptions options) {
  Client c(nullptr, std::move(signer), std::move(options));
  c.state_->chain_id = chain_id;
  c.state_->next_nonce = next_nonce;
  return c;
}

Client::~Client() = default;
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;

Result<std::uint64_t> Client::ChainIdLocked() {
  if (!state_->chain_id) {
    VEIL_ASSIGN_OR_RETURN(std::uint64_t id, api_->ChainId());
    state_->chain_id = id;
  }
  return *state_->chain_id;
}

Result<std::uint64_t> Client::NextNonceLocked() {
  if (!state_->next_nonce) {
    VEIL_ASSIGN_OR_RETURN(Account a, api_->GetAccount(address()));
    state_->next_nonce = a.tx_nonce;
  }
  return *state_->next_nonce;
}

Result<std::uint64_t> Client::ChainId() {
  std::lock_guard<std::mutex> lock(state_->mu);
  return ChainIdLocked();
}

Result<std::uint64_t> Client::NextNonce() {
  std::lock_guard<std::mutex> lock(state_->mu);
  return NextNonceLocked();
}

void Client::ForgetNonce() {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (api_ != nullptr) state_->next_nonce.reset();
}

void Client::SetNextNonce(std::uint64_t nonce) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->next_nonce = nonce;
}

Result<Bytes> Client::Sign(std::vector<Operation> ops, std::uint64_t nonce) {
  std::lock_guard<std::mutex> lock(state_->mu);
  Transaction tx;
  VEIL_ASSIGN_OR_RETURN(tx.chain_id, ChainIdLocked());
  tx.nonce = nonce;
  tx.ops = std::move(ops);
  return signer_.Sign(tx, options_.limits);
}

Result<PreparedTx> Client::SignNext(std::vector<Operation> ops) {
  std::lock_guard<std::mutex> lock(state_->mu);
  Transaction tx;
  VEIL_ASSIGN_OR_RETURN(tx.chain_id, ChainIdLocked());
  VEIL_ASSIGN_OR_RETURN(tx.nonce, NextNonceLocked());
  tx.ops = std::move(ops);
  PreparedTx out;
  VEIL_ASSIGN_OR_RETURN(out.encoded, signer_.Sign(tx, options_.limits));
  out.hash = TxHash(out.encoded);
  out.nonce = tx.nonce;
  state_->next_nonce = tx.nonce + 1;
  return out;
}

Result<TxReceipt> Client::Submit(std::vector<Operation> ops) {
  if (api_ == nullptr) {
    return FailedPrecondition("this client has no ledger (Client::Offline): it only signs");
  }
  std::lock_guard<std::mutex> lock(state_->mu);
  return SubmitLocked(std::move(ops));
}

Result<TxReceipt> Client::SubmitLocked(std::vector<Operation> ops) {
  Transaction tx;
  VEIL_ASSIGN_OR_RETURN(tx.chain_id, ChainIdLocked());
  tx.ops = std::move(ops);
  for (int attempt = 1;; ++attempt) {
    VEIL_ASSIGN_OR_RETURN(tx.nonce, NextNonceLocked());
    VEIL_ASSIGN_OR_RETURN(const Bytes encoded, signer_.Sign(tx, options_.limits));
    Result<TxReceipt> submitted = api_->Submit(encoded);
    if (!submitted.ok()) {
      // Refused before execution (the nonce is unused), or lost on the way (it may have
      // landed): either way the account says.
      state_->next_nonce.reset();
      return submitted.status();
    }
    TxReceipt r = std::move(submitted).value();
    if (r.pending) {
      if (!options_.wait_for_receipt) {
        state_->next_nonce = tx.nonce + 1;
        return r;
      }
      Result<TxReceipt> awaited = AwaitLocked(r);
      if (!awaited.ok()) {
        state_->next_nonce.reset();
        return awaited.status();
      }
      r = std::move(awaited).value();
    }
    if (r.status.ok()) {
      state_->next_nonce = tx.nonce + 1;
      return r;
    }
    // A failed operation: the transaction changed nothing, and its nonce is the next one still.
    if (r.failed_op) return r;
    // The transaction itself failed: a stale count makes it fail so (replayed, or too high).
    if (IsNonceReplayed(r.status)) {
      // The same operations signed with the same nonce are the same bytes: if they landed (a
      // twin Client's), that is this transaction's receipt, as RemoteLedger::Submit answers.
      Result<std::optional<TxReceipt>> landed = api_->GetReceipt(r.tx_hash);
      if (landed.ok() && *landed && (*landed)->status.ok()) {
        state_->next_nonce = tx.nonce + 1;
        return **std::move(landed);
      }
    }
    Result<Account> account = api_->GetAccount(address());
    if (!account.ok()) {
      state_->next_nonce.reset();
      return r;
    }
    state_->next_nonce = account->tx_nonce;
    if (account->tx_nonce == tx.nonce) return r;  // not the nonce: the failure stands
    if (attempt >= options_.max_attempts) {
      return Unavailable(
          "transaction not submitted: its nonce was taken " + std::to_string(attempt) +
          " times by another writer with this key (last: " + r.status.ToString() + ")");
    }
  }
}

Result<TxReceipt> Client::AwaitLocked(const TxReceipt& pending) {
  const auto deadline = Clock::now() + options_.receipt_timeout;
  auto delay = std::max(options_.first_poll, std::chrono::milliseconds(1));
  for (;;) {
    VEIL_ASSIGN_OR_RETURN(auto got, api_->GetReceipt(pending.tx_hash));
    if (got) return *std::move(got);
    // Not landed yet. If the account has used the nonce meanwhile, look once more (it may have
    // been this transaction, landing between the two reads); else another took the nonce.
    VEIL_ASSIGN_OR_RETURN(Account a, api_->GetAccount(address()));
    if (a.tx_nonce > pending.nonce) {
      VEIL_ASSIGN_OR_RETURN(got, api_->GetReceipt(pending.tx_hash));
      if (got) return *std::move(got);
      TxReceipt replayed = pending;
      replayed.pending = false;
      replayed.status = NonceReplayed();
      return replayed;
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      return Unavailable(
          "no receipt for transaction 0x" + ToHex(pending.tx_hash) + " (nonce " +
          std::to_string(pending.nonce) + ") within " + Millis(options_.receipt_timeout) +
          ": the ledger has not sealed it yet (it may still land), or it failed in its block "
          "(an in-process timed ledger keeps no receipt of a failed transaction)");
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(delay, deadline - now));
    delay = std::min(delay * 2, std::max(options_.max_poll, std::chrono::milliseconds(1)));
  }
}

Result<TxReceipt> Client::Create(CreateOp op) { return Submit({std::move(op)}); }
Result<TxReceipt> Client::Update(UpdateOp op) { return Submit({std::move(op)}); }
Result<std::uint64_t> Client::ExpiryFor(std::chrono::milliseconds lifetime,
                                        std::chrono::system_clock::time_point now) {
  if (api_ == nullptr) return FailedPrecondition("an offline client has no ledger to ask");
  if (lifetime.count() <= 0) return InvalidArgument("a lifetime must be positive");
  const auto now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  if (now_ms < 0) return InvalidArgument("a time before 1970");
  VEIL_ASSIGN_OR_RETURN(const ledger::ChainInfo info, api_->ChainInfo());
  return info.ExpiryFor(static_cast<std::uint64_t>(now_ms),
                        static_cast<std::uint64_t>(lifetime.count()));
}

Result<TxReceipt> Client::Extend(const EntityKey& key, std::uint64_t expires_block) {
  return Submit({ExtendOp{key, expires_block}});
}
Result<TxReceipt> Client::Transfer(const EntityKey& key, const Address& new_owner) {
  return Submit({TransferOp{key, new_owner}});
}
Result<TxReceipt> Client::Delete(const EntityKey& key) { return Submit({DeleteOp{key}}); }

}  // namespace veil::ledger
