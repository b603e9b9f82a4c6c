// LocalLedger: the in-process Ledger (ledger.h) behind LedgerApi and LedgerAdmin. It is the one
// part of the interface that needs the engine, so it has a header of its own: products include
// api.h and are handed a LedgerApi by whoever built the ledger (an application, a test).
//
// Thread safety: every method may be called from any thread (as Ledger's).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "veil/ledger/admin.h"
#include "veil/ledger/ledger.h"

namespace veil::ledger {

class LocalLedger final : public LedgerAdmin {
 public:
  explicit LocalLedger(std::shared_ptr<Ledger> ledger) : ledger_(std::move(ledger)) {}

  using LedgerApi::Count;
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
  Result<BlockHeader> Head() override;
  // The ledger's options (a timed ledger's block time is its nominal_block_time_ms) and its
  // head read fresh.
  Result<ledger::ChainInfo> ChainInfo() override;
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

  Result<std::string> Explain(std::string_view query, const QueryOptions& options) override {
    return ledger_->Explain(query, options);
  }
  Result<std::string> ExplainCount(std::string_view query) override {
    return ledger_->ExplainCount(query);
  }
  Status VerifyChain() override { return ledger_->VerifyChain(); }

  Ledger& ledger() { return *ledger_; }

 private:
  std::shared_ptr<Ledger> ledger_;
};

}  // namespace veil::ledger
