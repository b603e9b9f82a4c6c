// RemoteLedger (remote.h): each call is one JSON-RPC method of the node, its result decoded
// strictly (json.h); a reply that does not decode is kInternal, since the node sent it.
#include "veil/ledger/remote.h"

#include "veil/ledger/json.h"

namespace veil::ledger {
namespace {

using Json = nlohmann::json;
namespace lj = veil::ledger::json;

template <class T>
Result<T> Reply(Result<T> r) {
  if (r.ok()) return r;
  return Internal("malformed reply from the node: " + r.status().message());
}

}  // namespace

Result<Json> RemoteLedger::Call(std::string_view method, const Json& params, bool idempotent) {
  return transport_(method, params, idempotent);
}

Result<TxReceipt> RemoteLedger::Submit(ByteView encoded) {
  VEIL_ASSIGN_OR_RETURN(Json j,
                        Call("arkiv_sendTransaction", Json::array({lj::HexOf(encoded)}), true));
  VEIL_ASSIGN_OR_RETURN(TxReceipt r, Reply(lj::TxReceiptFromJson(j)));
  if (IsNonceReplayed(r.status)) {
    // Perhaps our own earlier attempt landed (see remote.h).
    VEIL_ASSIGN_OR_RETURN(auto landed, GetReceipt(r.tx_hash));
    if (landed) return *std::move(landed);
  }
  return r;
}

Result<std::optional<Entity>> RemoteLedger::Get(const EntityKey& key,
                                                const Projection& projection) {
  VEIL_ASSIGN_OR_RETURN(
      Json j, Call("arkiv_getEntity",
                   Json::array({lj::HexOf(key), Json{{"select", lj::ToJson(projection)}}})));
  if (j.is_null()) return std::optional<Entity>();
  VEIL_ASSIGN_OR_RETURN(Entity e, Reply(lj::EntityFromJson(j, projection)));
  return std::optional<Entity>(std::move(e));
}

Result<QueryPage> RemoteLedger::Query(std::string_view query, const QueryOptions& options) {
  const Json params = Json::array({query, lj::ToJson(options)});
  if (text_transport_) {
    // A page of 200 reads faster without a DOM (docs/notes/veil-ledger.md, "Serving pages").
    QueryPage page;
    VEIL_RETURN_IF_ERROR(
        text_transport_("arkiv_query", params, true, [&](std::string_view text) -> Status {
          VEIL_ASSIGN_OR_RETURN(page, Reply(lj::QueryPageFromJsonText(text, options.projection)));
          return Status::Ok();
        }));
    return page;
  }
  VEIL_ASSIGN_OR_RETURN(Json j, Call("arkiv_query", params));
  return Reply(lj::QueryPageFromJson(j, options.projection));
}

Result<CountResult> RemoteLedger::Count(std::string_view query) {
  VEIL_ASSIGN_OR_RETURN(Json j,
                        Call("arkiv_getEntityCount", Json::array({Json{{"query", query}}})));
  return Reply(lj::CountResultFromJson(j));
}

Result<std::string> RemoteLedger::Explain(std::string_view query, const QueryOptions& options) {
  VEIL_ASSIGN_OR_RETURN(Json j, Call("arkiv_explain", Json::array({query, lj::ToJson(options)})));
  if (!j.is_string()) return Internal("malformed reply from the node: explain is not a string");
  return j.get<std::string>();
}

Result<std::string> RemoteLedger::ExplainCount(std::string_view query) {
  VEIL_ASSIGN_OR_RETURN(Json j, Call("arkiv_explainCount", Json::array({query})));
  if (!j.is_string()) return Internal("malformed reply from the node: explain is not a string");
  return j.get<std::string>();
}

Result<BlockHeader> RemoteLedger::Head() {
  VEIL_ASSIGN_OR_RETURN(Json j, Call("arkiv_getHead", nullptr));
  return Reply(lj::BlockHeaderFromJson(j));
}

Result<ChainInfo> RemoteLedger::ChainInfo() {
  VEIL_ASSIGN_OR_RETURN(Json j, Call("arkiv_getChainInfo", nullptr));
  VEIL_ASSIGN_OR_RETURN(ledger::ChainInfo info, Reply(lj::ChainInfoFromJson(j)));
  std::lock_guard<std::mutex> lock(mu_);
  chain_id_ = info.chain_id;
  return info;
}

Result<std::uint64_t> RemoteLedger::ChainId() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (chain_id_) return *chain_id_;
  }
  VEIL_ASSIGN_OR_RETURN(Json j, Call("arkiv_chainId", nullptr));
  if (!j.is_number_unsigned()) return Internal("malformed reply from the node: chain id");
  std::lock_guard<std::mutex> lock(mu_);
  chain_id_ = j.get<std::uint64_t>();
  return *chain_id_;
}

Result<std::optional<BlockInfo>> RemoteLedger::GetBlock(std::uint64_t number) {
  VEIL_ASSIGN_OR_RETURN(Json j, Call("arkiv_getBlock", Json::array({number})));
  if (j.is_null()) return std::optional<BlockInfo>();
  VEIL_ASSIGN_OR_RETURN(BlockInfo b, Reply(lj::BlockInfoFromJson(j)));
  return std::optional<BlockInfo>(std::move(b));
}

Result<std::optional<TxReceipt>> RemoteLedger::GetReceipt(const Hash32& tx_hash) {
  VEIL_ASSIGN_OR_RETURN(Json j, Call("arkiv_getReceipt", Json::array({lj::HexOf(tx_hash)})));
  if (j.is_null()) return std::optional<TxReceipt>();
  VEIL_ASSIGN_OR_RETURN(TxReceipt r, Reply(lj::TxReceiptFromJson(j)));
  return std::optional<TxReceipt>(std::move(r));
}

Result<Account> RemoteLedger::GetAccount(const Address& address) {
  VEIL_ASSIGN_OR_RETURN(Json j, Call("arkiv_getAccount", Json::array({lj::HexOf(address)})));
  return Reply(lj::AccountFromJson(j));
}

Result<EntityKey> RemoteLedger::PredictKey(const Address& creator, std::uint64_t create_nonce) {
  VEIL_ASSIGN_OR_RETURN(std::uint64_t chain, ChainId());
  return DeriveEntityKey(chain, creator, create_nonce);
}

Status RemoteLedger::VerifyChain() {
  VEIL_ASSIGN_OR_RETURN(Json j, Call("arkiv_verifyChain", nullptr));
  (void)j;
  return Status::Ok();
}

}  // namespace veil::ledger
