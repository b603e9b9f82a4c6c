// LedgerApi: the operations a product needs from the ledger, the same whether the ledger runs in
// this process (LocalLedger, local.h, over a Ledger) or in a `veil-ledger serve` node
// (RemoteLedger, remote.h). Products take a LedgerApi&, so every product test can run either way
// (docs/notes/veil-ledger.md). This header and the values it names (types.h, entity.h, query.h)
// are the whole of what a product includes: none of them reaches the engine (ledger.h) or its
// storage (store.h); scripts/check-layers fails the build if one does (docs/notes/ledger-api.md).
// The operator's calls are in admin.h.
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
#include <optional>
#include <string_view>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/ledger/entity.h"
#include "veil/ledger/query.h"
#include "veil/ledger/types.h"

namespace veil::ledger {

class LedgerApi {
 public:
  virtual ~LedgerApi() = default;

  virtual Result<TxReceipt> Submit(ByteView encoded) = 0;
  virtual Result<std::optional<Entity>> Get(const EntityKey& key, const Projection& projection) = 0;
  virtual Result<QueryPage> Query(std::string_view query, const QueryOptions& options) = 0;
  virtual Result<CountResult> Count(std::string_view query) = 0;
  virtual Result<BlockHeader> Head() = 0;
  // The chain's id, limits and block times, and its head as of the call.
  virtual Result<ledger::ChainInfo> ChainInfo() = 0;
  // ChainInfo's chain_id alone (a remote ledger asks the node once).
  virtual Result<std::uint64_t> ChainId() = 0;
  // nullopt past the head.
  virtual Result<std::optional<BlockInfo>> GetBlock(std::uint64_t number) = 0;
  // nullopt: never landed (failed, pending or unknown).
  virtual Result<std::optional<TxReceipt>> GetReceipt(const Hash32& tx_hash) = 0;
  virtual Result<Account> GetAccount(const Address& address) = 0;
  // The key the create with this creator nonce will get (Account::create_nonce is the next one).
  virtual Result<EntityKey> PredictKey(const Address& creator, std::uint64_t create_nonce) = 0;

  // A query built in code (query.h): sent as query::ToCheckedString's text, so its values cannot
  // change its shape; an Expr that no query text has is kInvalidArgument before anything is sent.
  Result<QueryPage> Query(const query::Expr& filter, const QueryOptions& options);
  Result<CountResult> Count(const query::Expr& filter);

  // Conveniences with the common defaults.
  Result<std::optional<Entity>> Get(const EntityKey& key) { return Get(key, Projection::All()); }
  Result<QueryPage> Query(std::string_view query) { return Query(query, QueryOptions{}); }
  Result<QueryPage> Query(const query::Expr& filter) { return Query(filter, QueryOptions{}); }
};

}  // namespace veil::ledger
