// The storage backend interface of the ledger, and the SQLite backend's factory.
//
// The engine (Ledger) validates and executes transactions in memory over a few reads (the
// entities the operations name, the sender's account), then hands the store one BlockWrite (or,
// in a group commit, several consecutive ones): the final state of every touched entity, the
// accounts, transactions, changes, the block header and counter deltas. Ids and sequence numbers
// are assigned by the engine, so a write never needs to read back: a backend applies it as one
// batch in one database transaction (SQLite: one transaction with cached prepared statements;
// PostgreSQL: one pipeline, one round trip, docs/notes/ledger.md). Reads compile the query AST to
// the backend's SQL with bound parameters only.
//
// Several stores may share one database (PostgreSQL: several nodes). Then Apply succeeds only if
// the block's parent is still the head in the database, checked and moved by the database inside
// the write transaction; otherwise it writes nothing and returns HeadConflict, and the engine
// reloads the head (LoadState) and executes again.
//
// Thread safety: a Store is NOT thread-safe; the Ledger serialises the calls on each store. A
// store can open readers (OpenReader): further connections to the same database, each a Store of
// its own, on which the Ledger runs reads beside its writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "veil/base/result.h"
#include "veil/ledger/chain.h"
#include "veil/ledger/entity.h"
#include "veil/ledger/query.h"
#include "veil/ledger/types.h"

namespace veil::ledger {

// What the engine needs to resume after a restart.
struct ChainState {
  BlockHeader head;
  std::int64_t next_entity_id = 1;
  std::uint64_t next_change_seq = 1;
  std::uint64_t stored_entities = 0;  // rows in the entity table (live and not yet swept)
};

struct StoredTx {
  std::uint64_t block = 0;
  std::uint32_t index = 0;
  Hash32 hash{};
  Bytes encoded;
  std::uint64_t gas = 0;
};

struct EntityWrite {
  enum class Kind : std::uint8_t { kInsert, kUpdate, kDelete };
  Kind kind = Kind::kInsert;
  Entity entity;                        // final state (for kDelete: id and key suffice)
  std::uint64_t old_expires_block = 0;  // kUpdate/kDelete: expiry before this block
  bool attributes_changed = true;       // kUpdate: rewrite attribute rows
};

struct BlockWrite {
  BlockHeader header;
  std::vector<StoredTx> txs;
  std::vector<Change> changes;
  std::vector<EntityWrite> entities;
  std::vector<Account> accounts;
  ChainState state_after;
};

// The net effect of consecutive blocks (`writes`, each the parent of the next, at least one) on
// the rows, for a backend that writes a group of blocks with the statements of one (group
// commit): each entity's final state once (inserted if the group created it, updated or deleted
// if it existed before, nothing if it came and went), each account's last state, every change
// and transaction, the last block's header and state. The other blocks' headers are not in it:
// the caller writes them. old_expires_block and attributes_changed describe the change from
// before the first block.
BlockWrite NetBlockWrite(std::span<const BlockWrite> writes);
// kInvalidArgument unless each block of `writes` is the next after the one before it (number and
// parent hash): checked by the stores before a group reaches the database.
Status CheckConsecutive(std::span<const BlockWrite> writes);

// Where a read stands: live means created_block <= block and expires_block > expiry, the expiry
// height of that block on the chain's clock (ExpiryHeight; the block number itself on a chain
// that counts expiry in blocks).
struct ReadPoint {
  std::uint64_t block = 0;
  std::uint64_t expiry = 0;
};

struct QueryRequest {
  const query::Expr* filter = nullptr;
  Projection projection;
  ReadPoint at;
  std::int64_t before_id = 0;  // keyset: ids strictly below (0: from the top)
  std::size_t limit = 200;
};

struct QueryStats {
  std::uint64_t rows_scanned = 0;  // rows the backend stepped through (SQLite: VM row steps)
  std::uint64_t bytes_returned = 0;
};

// Sets each (*out)[i]'s owner and creator, as `p` projects them, from the account ids in ids[i]
// (owner, creator) through `address`: one definition for the SQL stores' reads that return ids
// and resolve them through a cache (ResolveAccounts in each). An id without a row is
// UnknownAccount's kDataLoss.
using AccountLookup = std::function<Result<Address>(std::int64_t id, const Entity& e)>;
Status SetAccounts(std::span<const std::pair<std::int64_t, std::int64_t>> ids, const Projection& p,
                   const AccountLookup& address, std::vector<Entity>* out);
Status UnknownAccount(const Entity& e, std::int64_t id);

// The bytes a page reports for an entity (payload, content type, attribute names and values, and
// 100 for the fixed fields): one definition for every backend's QueryStats.
std::uint64_t ReturnedBytes(const Entity& e);

// The copy of an entity's attributes that the SQL stores keep in its row (`entities.attrs`, in
// PutAttributes' form), so that a read returns them with the row; the attr_* rows stay the
// indexes that queries match against. Decoding checks structure only (the values were validated
// with their transaction): a malformed copy is kDataLoss naming the entity, and so is a copy that
// differs from the index rows (CheckAttributeCopies, for VerifyChain's scan).
Bytes EncodeStoredAttributes(const std::vector<Attribute>& attrs);
Result<std::vector<Attribute>> DecodeStoredAttributes(ByteView encoded, const EntityKey& key);
Status CheckAttributeCopies(const Entity& e, const std::vector<Attribute>& index_copy);

// A block's transactions and changes as its own row keeps them (the SQLite store's `blocks.txs`
// and `blocks.changes`, file format 4): a count, then each transaction's hash, gas and encoded
// bytes in block order; a count, then each change's kind, key and entity hash in sequence order
// (the row's next_change_seq and the count give the sequence numbers). Decoding is strict (a
// canonical encoding only, kinds known, counts as the header says: `tx_count` and
// `change_count`); anything else is kDataLoss naming the block.
Bytes EncodeBlockTxs(std::span<const StoredTx> txs);
Result<std::vector<StoredTx>> DecodeBlockTxs(ByteView encoded, std::uint64_t block,
                                             std::uint32_t tx_count);
Bytes EncodeBlockChanges(std::span<const Change> changes);
Result<std::vector<Change>> DecodeBlockChanges(ByteView encoded, std::uint64_t block,
                                               std::uint64_t first_seq, std::uint32_t change_count);

struct StorePage {
  std::vector<Entity> entities;  // descending id; unprojected fields left default
  bool more = false;             // at least one more row after the last
  QueryStats stats;
};

struct StoreCount {
  std::uint64_t count = 0;
  bool capped = false;
  QueryStats stats;
};

// The work one read may make the database do (QueryLimits::max_read_steps, max_read_ms; 0:
// unbounded). It applies to Query, Count, Explain and ExplainCount: the reads whose cost a
// caller's filter decides. Every other read is an index probe or a bounded batch. A read stopped
// by it fails with WorkBudgetExceeded (types.h).
struct ReadBudget {
  std::uint64_t max_steps = 0;  // SQLite: virtual machine instructions over the whole read
  std::uint32_t max_ms = 0;     // PostgreSQL: statement_timeout of each of the read's statements
};

class Store {
 public:
  virtual ~Store() = default;

  // The budget of each later filtered read (ReadBudget). The Ledger sets it on its store and on
  // every reader it opens. The default bounds nothing.
  virtual void SetReadBudget(const ReadBudget& budget) { (void)budget; }

  // Creates the schema if needed; nullopt for a fresh store.
  virtual Result<std::optional<ChainState>> LoadState() = 0;
  // Called by ApplyBlocks once the write's statements have run (on PostgreSQL: have been sent)
  // and before its commit: an error fails the write, which is rolled back, with that error. Work
  // that must pass before the blocks may land but need not hold up their statements (the
  // Ledger's deferred signature checks, SignatureCheck) can overlap them this way.
  using CommitGate = std::function<Status()>;
  // Applies consecutive blocks (each the parent of the next) in ONE database transaction: all
  // land or none does, and a durable commit covers them all (group commit: several blocks, one
  // WAL flush). When the database's head is no longer the first block's parent (another writer
  // sealed first): HeadConflict, and nothing is written. `gate`, when set, runs before the
  // commit (CommitGate).
  virtual Status ApplyBlocks(std::span<const BlockWrite> writes, const CommitGate& gate) = 0;
  Status ApplyBlocks(std::span<const BlockWrite> writes) { return ApplyBlocks(writes, {}); }
  // True when the gate runs while the database is still executing the write (its statements
  // sent, not yet answered), so work done in it overlaps the database's; false when the gate
  // runs after they have finished (SQLite, in process).
  virtual bool CommitGateOverlaps() const { return false; }
  // One block.
  Status Apply(const BlockWrite& write) { return ApplyBlocks(std::span(&write, 1), {}); }
  // True when other stores (nodes) may write the same database, so the head may move under the
  // engine: it then reloads the head with every read.
  virtual bool MayHaveOtherWriters() const { return false; }
  // Reloading the head with a read, in the same round trip: after CarryStateWithNextRead, the
  // store's next read statement also reads the state (LoadState's), before it in the same
  // round trip; TakeCarriedState returns that state, or reads it now when no statement carried it
  // (the read made none, or failed before reaching the database). The default carries nothing.
  virtual void CarryStateWithNextRead() {}
  virtual Result<std::optional<ChainState>> TakeCarriedState() { return LoadState(); }
  // Cancels CarryStateWithNextRead without reading (a read that ended by an exception).
  virtual void ForgetCarriedState() {}
  // The round trips to a database server this store has made (PostgreSQL: each statement sent
  // alone, each prepare, each pipeline); 0 where there is no server (SQLite).
  virtual std::uint64_t RoundTrips() const { return 0; }
  // The chain's write lock across several calls, for a writer that lost a race for the head: it
  // holds the lock while it reloads, reads and writes again, so faster writers cannot starve it
  // (every Apply takes the same lock for its own transaction). No-ops for a single-writer store.
  virtual Status LockWriters() { return Status::Ok(); }
  virtual Status UnlockWriters() { return Status::Ok(); }

  // Validation reads: all of them, expired or not (the engine decides), in one statement.
  virtual Result<std::vector<Entity>> GetEntities(const std::vector<EntityKey>& keys) = 0;
  virtual Result<Account> GetAccount(const Address& address) = 0;
  // The validation reads of several transactions at once: the stored entities among `keys` (as
  // GetEntities) and the accounts of `addresses` (as GetAccount: one each, in order, zero nonces
  // for an address without a row). PostgreSQL sends both statements in one round trip; the
  // default calls the two methods above.
  struct ValidationReads {
    std::vector<Entity> entities;
    std::vector<Account> accounts;
  };
  virtual Result<ValidationReads> GetForValidation(const std::vector<EntityKey>& keys,
                                                   const std::vector<Address>& addresses);

  virtual Result<StorePage> Query(const QueryRequest& request) = 0;
  virtual Result<StoreCount> Count(const query::Expr& filter, ReadPoint at, std::uint64_t cap) = 0;
  // Live entities at expiry height `expiry` from the counters: stored rows minus the unswept ones
  // with expires_block <= expiry.
  virtual Result<std::uint64_t> LiveCount(std::uint64_t expiry) = 0;
  // The compiled SQL, its parameters and the database's plan.
  virtual Result<std::string> Explain(const QueryRequest& request) = 0;
  // The same for Count's statement (a filter other than `*`, which LiveCount serves).
  virtual Result<std::string> ExplainCount(const query::Expr& filter, ReadPoint at,
                                           std::uint64_t cap) = 0;

  // Removes up to `max_rows` entities with expires_block <= `up_to` (an expiry height); returns
  // how many.
  virtual Result<std::uint64_t> Sweep(std::uint64_t up_to, std::size_t max_rows) = 0;

  // The chain's expiry clock (ExpiryHeight), a parameter of its genesis: nullopt when none is
  // recorded (no chain yet, or a chain made before the clock existed).
  virtual Result<std::optional<std::uint64_t>> LoadExpiryClock() = 0;
  // Records `ms` as the clock unless one is recorded already (then nothing changes: the first
  // node to create a chain sets it, and every node reads it back).
  virtual Status RecordExpiryClock(std::uint64_t ms) = 0;

  // History, for VerifyChain.
  virtual Result<std::optional<BlockHeader>> GetBlock(std::uint64_t number) = 0;
  virtual Result<std::vector<StoredTx>> GetBlockTxs(std::uint64_t number) = 0;
  // A block's changes in sequence order. An entity's last change is in the block of its
  // updated_block (every change sets it), which is how VerifyChain finds it.
  virtual Result<std::vector<Change>> GetBlockChanges(std::uint64_t number) = 0;
  // Entities with id > after_id, ascending, at most max_rows (any expiry).
  virtual Result<std::vector<Entity>> ScanEntities(std::int64_t after_id, std::size_t max_rows) = 0;
  // The stored transaction with this hash in blocks 1..head, or nullopt. The default scans the
  // blocks from the head down (store_reads.cc); both stores override it with index probes
  // (SQLite: blocks.tx_hash and tx_index; PostgreSQL: txs.hash).
  virtual Result<std::optional<StoredTx>> FindTx(const Hash32& hash, std::uint64_t head);
  // Where FindTx finds each of `hashes` (block and index; nullopt: not found), without reading
  // the transactions (VerifyChain checks a whole block's with one call). The default calls FindTx.
  struct TxLocation {
    std::uint64_t block = 0;
    std::uint32_t index = 0;
  };
  virtual Result<std::vector<std::optional<TxLocation>>> LocateTxs(std::span<const Hash32> hashes,
                                                                   std::uint64_t head);
  // The stored-entity counter (LoadState's stored_entities) and the entity table's rows, read in
  // one snapshot, so that a writer committing meanwhile cannot make them differ (VerifyChain).
  struct StoredRows {
    std::uint64_t counted = 0, rows = 0;
  };
  virtual Result<StoredRows> CountStoredRows() = 0;
  // Reads every table and index into the engine's own cache (SQLite: the connection's page cache,
  // up to SqliteOptions::cache_mib; PostgreSQL: shared_buffers through pg_prewarm, which needs
  // the right to CREATE EXTENSION pg_prewarm). Returns the bytes the cache then holds (SQLite) or
  // loaded (PostgreSQL). The default reads nothing.
  virtual Result<std::uint64_t> Prewarm();

  // A new connection to the same database for reads only: it does no schema work, and the
  // database refuses it any write (SQLite: query_only; PostgreSQL: a read-only session). Every
  // read method works on it; LoadState reads the head (null for a store not yet initialised).
  // kFailedPrecondition where the database cannot be shared (the default; SQLite in memory).
  virtual Result<std::unique_ptr<Store>> OpenReader();
};

struct SqliteOptions {
  std::string path = ":memory:";  // a file path or ":memory:"
  bool synchronous_full = true;   // WAL + synchronous=FULL: every commit is durable
  // The connection's page cache (SQLite's default is 2 MiB). Pages read stay in the process, so a
  // node's working set does not depend on the kernel keeping the file's pages cached (hosts that
  // reclaim idle page cache, as DAMON does on this project's machines, make those reads disk
  // reads). Memory is taken as pages are read, up to this bound.
  std::size_t cache_mib = 64;
  // Writes each transaction's WAL frames with one system call instead of two a page (a VFS over
  // the default one; docs/notes/ledger.md, "WAL writes"). Off only to measure what it saves.
  bool coalesce_wal_writes = true;
  // The log is copied into the database (a checkpoint, inside the commit that crosses this many
  // pages) at 16,384 pages (64 MiB of 4 KiB pages) instead of SQLite's 1,000: a checkpoint writes
  // each page once however often the log holds it, so rarer checkpoints write less per block,
  // and one falls on about one commit in 700 instead of one in 40 (p99 of a one-entity block
  // 4.6-5.2 ms -> 1.6-1.9 ms; docs/performance.md). A background checkpointing thread measured
  // worse on this machine class: its database fsyncs queue behind the commits' log fsyncs.
  int wal_checkpoint_pages = 16384;
  // The page size of a new file (a power of two from 512 to 65,536; an existing file keeps its
  // own). SQLite's default, 4 KiB, measured best overall: 2 KiB pages took 4-9% off a one-entity
  // write in three runs (about 24 changed pages a block, most of them one row in a random leaf,
  // each a frame of the log) and cost reads 0-21% at 10^6 entities (docs/performance.md,
  // "2 KiB SQLite pages").
  int page_size = 4096;
};

Result<std::unique_ptr<Store>> OpenSqliteStore(const SqliteOptions& options);

struct PostgresOptions {
  std::string url;  // libpq conninfo or URL: "postgresql://user@127.0.0.1:5432/db"
  // The schema holding the tables (created if absent; the session's search_path); empty: the
  // server's default search_path. Several chains (or test cases) may share one database in
  // separate schemas.
  std::string schema;
  // How many shapes of the block statement (which parts a block has) a connection keeps
  // prepared; past it they are all deallocated and prepared again as they recur. At least 1.
  std::size_t block_shapes = 128;
};

// Connects, creates the schema if absent and prepares the write statements. The database must
// be UTF8.
Result<std::unique_ptr<Store>> OpenPostgresStore(const PostgresOptions& options);

// The status of an Apply that lost the race for the next block: kUnavailable, message starting
// "chain head moved". Nothing was written; reload the head and execute again.
Status HeadConflict(const std::string& detail);
bool IsHeadConflict(const Status& s);

}  // namespace veil::ledger
