// LedgerApi: the operations a product needs from the ledger, the same whether the ledger runs in
// this process (LocalLedger, over a Ledger) or in a `veil-ledger serve` node (RemoteLedger,
// remote.h). Products take a LedgerApi&, so every product test can run either way
// (docs/notes/veil-ledger.md).
//
// Semantics are those of Ledger (ledger.h): Submit returns a receipt for a transaction that was
// well formed and signed (its status tells whether it landed; a failed one changed nothing and is
// not stored), an error for one that was rejected before execution (malformed, over a limit,
// wrongly signed, wrong chain, a full queue: kUnavailable, retry after the next block). A read
// whose filter no index serves may be stopped by its work budget (kResourceExhausted,
// IsWorkBudgetExceeded: narrow the filter); a node also refuses a client past its own read or
// queue budget (kResourceExhausted: retry later; docs/notes/veil-ledger.md). GetReceipt finds
// landed transactions only. Entities that travel over the wire lose their store-internal fields
// (id, last_change: zero on the remote side).
//
// Thread safety: both implementations may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "veil/base/result.h"
#include "veil/ledger/ledger.h"

namespace veil::ledger {

class LedgerApi {
 public:
  virtual ~LedgerApi() = default;

  virtual Result<TxReceipt> Submit(ByteView encoded) = 0;
  virtual Result<std::optional<Entity>> Get(const EntityKey& key, const Projection& projection) = 0;
  virtual Result<QueryPage> Query(std::string_view query, const QueryOptions& options) = 0;
  virtual Result<CountResult> Count(std::string_view query) = 0;
  virtual Result<std::string> Explain(std::string_view query, const QueryOptions& options) = 0;
  virtual Result<std::string> ExplainCount(std::string_view query) = 0;
  virtual Result<BlockHeader> Head() = 0;
  virtual Result<std::uint64_t> ChainId() = 0;
  // nullopt past the head.
  virtual Result<std::optional<BlockInfo>> GetBlock(std::uint64_t number) = 0;
  // nullopt: never landed (failed, pending or unknown).
  virtual Result<std::optional<TxReceipt>> GetReceipt(const Hash32& tx_hash) = 0;
  virtual Result<Account> GetAccount(const Address& address) = 0;
  // The key the create with this creator nonce will get (Account::create_nonce is the next one).
  virtual Result<EntityKey> PredictKey(const Address& creator, std::uint64_t create_nonce) = 0;
  // ok, or kDataLoss naming the first block or entity that does not match its hash. A scan of
  // the whole chain, for operators: a node (RemoteLedger) refuses it with kPermissionDenied
  // unless it was started with --operator-rpc; `veil-ledger verify-chain --store SPEC` runs it
  // beside the node. Writes go on while it runs (Ledger::VerifyChain).
  virtual Status VerifyChain() = 0;

  // Conveniences with the common defaults.
  Result<std::optional<Entity>> Get(const EntityKey& key) { return Get(key, Projection::All()); }
  Result<QueryPage> Query(std::string_view query) { return Query(query, QueryOptions{}); }
};

// The in-process ledger behind the interface.
class LocalLedger final : public LedgerApi {
 public:
  explicit LocalLedger(std::shared_ptr<Ledger> ledger) : ledger_(std::move(ledger)) {}

  using LedgerApi::Get;
  using LedgerApi::Query;
  Result<TxReceipt> Submit(ByteView encoded) override { return ledger_->Submit(encoded); }
  Result<std::optional<Entity>> Get(const EntityKey& key, const Projection& projection) override {
    return ledger_->Get(key, projection);
  }
  Result<QueryPage> Query(std::string_view query, const QueryOptions& options) override {
    return ledger_->Query(query, options);
  }
  Result<CountResult> Count(std::string_view query) override { return ledger_->Count(query); }
  Result<std::string> Explain(std::string_view query, const QueryOptions& options) override {
    return ledger_->Explain(query, options);
  }
  Result<std::string> ExplainCount(std::string_view query) override {
    return ledger_->ExplainCount(query);
  }
  Result<BlockHeader> Head() override;
  Result<std::uint64_t> ChainId() override { return ledger_->chain_id(); }
  Result<std::optional<BlockInfo>> GetBlock(std::uint64_t number) override {
    return ledger_->GetBlock(number);
  }
  Result<std::optional<TxReceipt>> GetReceipt(const Hash32& tx_hash) override {
    return ledger_->GetReceipt(tx_hash);
  }
  Result<Account> GetAccount(const Address& address) override {
    return ledger_->GetAccount(address);
  }
  Result<EntityKey> PredictKey(const Address& creator, std::uint64_t create_nonce) override {
    return ledger_->PredictKey(creator, create_nonce);
  }
  Status VerifyChain() override { return ledger_->VerifyChain(); }

  Ledger& ledger() { return *ledger_; }

 private:
  std::shared_ptr<Ledger> ledger_;
};

}  // namespace veil::ledger
