// Limits and the gas schedule of the ledger: every bound the ledger enforces lives in one value.
//
// Limits::Arkiv() matches the limits Arkiv publishes (docs/notes/ledger.md has the table with its
// sources); values Arkiv does not publish (batch size, query complexity, count cap) are our choice
// and say so. Tests build smaller profiles by copying a profile and changing fields.
//
// Thread safety: plain values.
#pragma once

#include <cstddef>
#include <cstdint>

namespace veil::ledger {

// Gas in the spirit of an EVM data chain: an intrinsic cost per transaction, calldata priced per
// byte (zero bytes cheaper, as in EIP-2028), a cost per operation and per byte the operation
// stores. All of it is computable from the encoded transaction alone, so a transaction over the
// block gas limit is rejected at submission.
struct GasSchedule {
  std::uint64_t tx_base = 21'000;
  std::uint64_t calldata_zero_byte = 4;
  std::uint64_t calldata_nonzero_byte = 16;
  std::uint64_t op_create = 20'000;
  std::uint64_t op_update = 10'000;
  std::uint64_t op_extend = 5'000;
  std::uint64_t op_transfer = 5'000;
  std::uint64_t op_delete = 5'000;
  std::uint64_t stored_byte = 8;  // payload, content type and attribute bytes written
  // Sealing stops adding transactions once the next one would exceed this.
  std::uint64_t block_gas_limit = 60'000'000;
  friend bool operator==(const GasSchedule&, const GasSchedule&) = default;
};

struct QueryLimits {
  std::size_t max_query_bytes = 4096;
  std::size_t max_depth = 16;        // nesting of (), NOT, && and ||
  std::size_t max_predicates = 64;   // comparisons in one query
  std::size_t max_in_values = 256;   // values in one IN (...) list
  std::size_t max_page = 200;        // entities per page (Arkiv: 1..200)
  std::uint64_t count_cap = 10'000;  // a filtered count stops here and says so
  // A cursor is pinned to a block; it stays valid for this many blocks after, and the sweeper
  // keeps expired entities this long so pinned pages stay stable.
  std::uint64_t cursor_lifetime_blocks = 1800;
  // The work one read (Query, Count, Explain, ExplainCount) may make the database do before it is
  // stopped with WorkBudgetExceeded (store.h; 0: unbounded). A filter no index can drive scans
  // every entity, and 64 predicates probe each row 64 times: without a bound one request holds a
  // reader connection and a worker for as long as the table is large. SQLite counts the virtual
  // machine's instructions over the whole read (a progress handler; a one-match read an index
  // serves passes a budget of 5,000 in UndrivenReadsStopAtTheWorkBudget, a walk of every entity
  // takes tens per entity). PostgreSQL bounds each statement of the read by time
  // (statement_timeout, set for the read's statements only). Both defaults are our choice.
  std::uint64_t max_read_steps = 100'000'000;
  std::uint32_t max_read_ms = 2'000;
  friend bool operator==(const QueryLimits&, const QueryLimits&) = default;
};

// The timed mode's queue, bounded by the memory its transactions hold (Ledger::QueuedBytes: the
// encoding plus the decoded form, estimated from above), per sender and in all, besides
// LedgerOptions::max_queued_txs. Fresh keys cost nothing, so the per-sender bound alone stops
// no one: the total bounds the node. A transaction over a bound is refused (kUnavailable: retry
// after the next block) and nothing of it is queued.
struct QueueLimits {
  std::size_t max_bytes = std::size_t{256} << 20;        // 256 MiB in all
  std::size_t max_sender_bytes = std::size_t{32} << 20;  // 32 MiB per sender
  friend bool operator==(const QueueLimits&, const QueueLimits&) = default;
};

struct Limits {
  std::size_t max_payload_bytes = 131'072;  // 128 KiB
  std::size_t max_create_attributes = 30;   // user attributes on create (32 cells - 2 system)
  std::size_t max_entity_attributes = 30;   // attributes an entity may hold after a patch
  std::size_t max_attribute_name = 32;
  std::size_t max_string_value = 128;
  std::size_t max_content_type = 128;
  std::size_t max_ops_per_tx = 200;
  // The longest lifetime a create or extend may ask for, in blocks (0: unbounded).
  std::uint64_t max_lifetime_blocks = 0;
  GasSchedule gas;
  QueryLimits query;
  QueueLimits queue;

  static Limits Arkiv() { return Limits{}; }
  // The largest encoded transaction the limits allow (a loose upper bound used by the decoder).
  std::size_t MaxTxBytes() const;
  friend bool operator==(const Limits&, const Limits&) = default;
};

}  // namespace veil::ledger
