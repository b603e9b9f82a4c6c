// RemoteLedger: LedgerApi and LedgerAdmin (admin.h) over a `veil-ledger` node's JSON-RPC methods
// (docs/notes/veil-ledger.md).
//
// The transport is a function, so ledger/ needs nothing from net/: the application wires a
// net::JsonRpcClient into it (apps/veil-ledger/node.h has MakeRpcTransport). `idempotent` tells
// the transport whether it may repeat the call after a failure in which the request may already
// have reached the server.
//
// Every read is idempotent. Submit is marked idempotent too: a signed transaction carries its
// sender's nonce, so a repeat of one that already landed cannot land twice; it comes back as a
// failed receipt "nonce already used (replay)". Submit then looks the transaction up by hash and,
// when it landed, returns the landed receipt instead, so a retried submit reads like the first.
//
// ChainInfo calls arkiv_getChainInfo; the chain id it carries is kept, as ChainId's is (PredictKey
// needs it and it never changes). VerifyChain calls arkiv_verifyChain, which a node serves only
// when started with --operator-rpc (otherwise kPermissionDenied, naming `veil-ledger verify-chain
// --store`). A node counts every read against its client address's read budget, the calls of a
// batch included: past it, reads are refused with kResourceExhausted until the budget refills (the
// message says when).
//
// Thread safety: as thread-safe as the transport (JsonRpcClient serialises calls on one
// connection; use one RemoteLedger per thread for parallel calls).
#pragma once

#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "veil/ledger/admin.h"

namespace veil::ledger {

using RpcTransport = std::function<Result<nlohmann::json>(
    std::string_view method, const nlohmann::json& params, bool idempotent)>;

// The same call handing the result's JSON text to `read` rather than returning its DOM, for
// results a reader without a DOM takes faster (pages: json.h, QueryPageFromJsonText); the
// transport's own errors come first, as with RpcTransport (net::JsonRpcClient::CallWithReader
// says how a refused text is judged). Optional.
using RpcTextReader = std::function<Status(std::string_view result_text)>;
using RpcTextTransport = std::function<Status(std::string_view method, const nlohmann::json& params,
                                              bool idempotent, const RpcTextReader& read)>;

class RemoteLedger final : public LedgerAdmin {
 public:
  explicit RemoteLedger(RpcTransport transport, RpcTextTransport text_transport = nullptr)
      : transport_(std::move(transport)), text_transport_(std::move(text_transport)) {}

  using LedgerApi::Count;
  using LedgerApi::Get;
  using LedgerApi::Query;
  Result<TxReceipt> Submit(ByteView encoded) override;
  Result<std::optional<Entity>> Get(const EntityKey& key, const Projection& projection) override;
  Result<QueryPage> Query(std::string_view query, const QueryOptions& options) override;
  Result<CountResult> Count(std::string_view query) override;
  Result<BlockHeader> Head() override;
  Result<ledger::ChainInfo> ChainInfo() override;
  Result<std::uint64_t> ChainId() override;
  Result<std::optional<BlockInfo>> GetBlock(std::uint64_t number) override;
  Result<std::optional<TxReceipt>> GetReceipt(const Hash32& tx_hash) override;
  Result<Account> GetAccount(const Address& address) override;
  Result<EntityKey> PredictKey(const Address& creator, std::uint64_t create_nonce) override;

  Result<std::string> Explain(std::string_view query, const QueryOptions& options) override;
  Result<std::string> ExplainCount(std::string_view query) override;
  Status VerifyChain() override;

 private:
  Result<nlohmann::json> Call(std::string_view method, const nlohmann::json& params,
                              bool idempotent = true);

  RpcTransport transport_;
  RpcTextTransport text_transport_;
  std::mutex mu_;
  std::optional<std::uint64_t> chain_id_;  // fetched once
};

}  // namespace veil::ledger
