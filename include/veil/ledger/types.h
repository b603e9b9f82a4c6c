// The values a product exchanges with the ledger, apart from entities (entity.h) and
// transactions (transaction.h): receipts and their costs, query options, pages and counts, block
// headers and blocks, accounts, the chain's description, and the statuses a caller tells apart.
// They are plain values with no reference to the engine (ledger.h) or its storage (store.h), so a
// product that includes api.h compiles against these and nothing more (docs/notes/ledger-api.md).
//
// Thread safety: values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "veil/base/result.h"
#include "veil/ledger/entity.h"
#include "veil/ledger/limits.h"

namespace veil::ledger {

// What a transaction cost (docs/notes/ledger.md, "Costs").
struct TxCost {
  std::uint32_t operations = 0;
  std::uint64_t calldata_bytes = 0;  // the encoded transaction
  std::uint64_t bytes_written = 0;   // payload, content type and attribute bytes stored
  std::uint64_t gas = 0;
};

struct TxReceipt {
  Hash32 tx_hash{};
  Address sender{};
  std::uint64_t nonce = 0;
  bool pending = false;  // timed mode: queued, result comes from SealBlock
  Status status;         // ok, or why the transaction failed (it then changed nothing)
  std::optional<std::size_t> failed_op;  // the failing operation's index; none: the tx itself
  std::uint64_t block = 0;               // the block it landed in (0: none)
  std::optional<std::uint32_t> index;    // its position in that block (set by GetReceipt)
  std::vector<EntityKey> created;        // keys of the entities it created, in op order
  TxCost cost;
};

// The failure of a transaction whose nonce the sender already used: the same signed bytes
// submitted twice, or another transaction with that nonce. A client that retried a submission
// whose reply it lost asks for the receipt of its transaction's hash (RemoteLedger::Submit).
Status NonceReplayed();
bool IsNonceReplayed(const Status& s);

// The status of a read stopped by its work budget (QueryLimits::max_read_steps, max_read_ms):
// kResourceExhausted, message starting "query exceeded its work budget". The same read will be
// stopped again: narrow the filter with a predicate an index serves (an attribute equality or
// range, $owner, $key, ...).
Status WorkBudgetExceeded(const std::string& detail);
bool IsWorkBudgetExceeded(const Status& s);

// Columns a query returns (Arkiv's `select`).
struct Projection {
  bool key = true;
  bool owner = true;
  bool creator = true;
  bool blocks = true;  // created, updated, expires
  bool content_type = true;
  bool payload = true;
  bool attributes = true;
  bool flags = true;  // creation flags (Arkiv's `creationFlags`)
  static Projection KeysOnly() { return {true, false, false, false, false, false, false, false}; }
  static Projection All() { return {}; }
};

struct QueryOptions {
  Projection projection;
  std::size_t limit = 200;                // 1..Limits::query.max_page
  std::string cursor;                     // from the previous page; empty for the first
  std::optional<std::uint64_t> at_block;  // pin (default head); within the cursor lifetime
};

struct QueryCost {
  std::uint64_t query_units = 0;  // 1 + predicates + rows returned + KiB returned
  std::uint64_t rows_scanned = 0;
  std::uint64_t rows_returned = 0;
  std::uint64_t bytes_returned = 0;
};

struct QueryPage {
  std::vector<Entity> entities;
  std::string cursor;  // empty: no more pages
  std::uint64_t block = 0;
  QueryCost cost;
};

struct CountResult {
  std::uint64_t count = 0;
  bool capped = false;  // true: there are at least `count` (= Limits::query.count_cap)
  std::uint64_t block = 0;
  QueryCost cost;
};

// A block's header; `hash` is BlockHash(*this) (chain.h has the hash functions and the layout).
struct BlockHeader {
  std::uint64_t chain_id = 0;
  std::uint64_t number = 0;
  Hash32 parent{};
  std::uint64_t timestamp_ms = 0;
  Hash32 tx_root{};
  Hash32 changeset{};  // cumulative rolling hash after this block's changes
  std::uint32_t tx_count = 0;
  std::uint32_t change_count = 0;
  std::uint64_t gas_used = 0;
  Hash32 hash{};  // BlockHash(*this), stored beside the fields
  friend bool operator==(const BlockHeader&, const BlockHeader&) = default;
};

// A block as the node serves it: the header and its transactions' hashes in block order.
struct BlockInfo {
  BlockHeader header;
  std::vector<Hash32> tx_hashes;
};

struct Account {
  Address address{};
  std::uint64_t tx_nonce = 0;      // next transaction nonce
  std::uint64_t create_nonce = 0;  // next entity-key nonce
};

// What a chain is and how fast it goes: what a product needs to build transactions (the chain id,
// the limits a transaction must keep) and to turn lifetimes in blocks into durations.
struct ChainInfo {
  std::uint64_t chain_id = 0;
  Limits limits;
  // A timed node's block time; 0 for an instant node (a block for each transaction, as it comes).
  std::uint64_t block_time_ms = 0;
  // The block time to convert a lifetime in blocks into a duration with: a timed node's block
  // time, an instant node's declared one (LedgerOptions::nominal_block_time_ms, `veil-ledger
  // serve --nominal-block-time`; Arkiv's blocks come every 2 s).
  std::uint64_t nominal_block_time_ms = 0;
  std::uint64_t head_number = 0;
  std::uint64_t head_timestamp_ms = 0;
  // The chain's expiry clock (ExpiryHeight), fixed at its genesis: 0 for block numbers, else the
  // length of its slots in ms; and the head's height on it.
  std::uint64_t expiry_clock_ms = 0;
  std::uint64_t head_expiry_height = 0;

  // The expires_block of a lifetime of `lifetime_ms` starting at `now_ms` (Unix ms; the moment
  // the guardians' lease of the same lifetime starts from): the height at `now_ms` plus the
  // lifetime in units of the clock, rounded up, so the entity expires within one unit of
  // now + lifetime (a timed chain: within one block; a slot clock: within one slot). The height
  // at `now_ms` is the slot of `now_ms` on a slot clock, the head's number on block numbers (a
  // timed node seals a block every block time, so its head is less than one block old; an
  // instant chain on block numbers, made before the clock existed, counts transactions, and there
  // the nominal block time is a guess). At least one unit; saturates at UINT64_MAX.
  std::uint64_t ExpiryFor(std::uint64_t now_ms, std::uint64_t lifetime_ms) const;
};

// The lease clock (docs/architecture.md): an entity's expires_block counts on its chain's expiry
// clock, a parameter fixed at genesis. 0: block numbers (Arkiv's rule; a timed chain, whose
// blocks come every block time); T > 0: slots of T ms of the block timestamps,
// floor(timestamp_ms / T) (an instant chain, whose block numbers count transactions, not time).
// An entity is live at a block while its expires_block > the block's ExpiryHeight; heights never
// fall along a chain (block timestamps never do).
inline std::uint64_t ExpiryHeight(const BlockHeader& h, std::uint64_t expiry_clock_ms) {
  return expiry_clock_ms == 0 ? h.number : h.timestamp_ms / expiry_clock_ms;
}

}  // namespace veil::ledger
