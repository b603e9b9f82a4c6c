// Ledger: the in-process entity chain (Arkiv's model) over a Store.
//
// Transactions arrive encoded (transaction.h). In instant mode each successful transaction is
// executed and sealed into its own block at once; transactions submitted concurrently share one
// durable store write (group commit: consecutive blocks, one transaction each, one WAL flush
// for all of them; up to kMaxGroupBlocks), and each Submit returns once its block is durable. In
// timed mode Submit checks everything that
// needs no state (encoding, limits, signature, gas) and queues, and SealBlock (called by the
// server's clock, or by tests) executes the queue in order into one block, up to the block gas
// limit; the rest waits for the next block. Execution runs in memory over a few reads (the named
// entities, the sender's account); a failed transaction changes nothing and its receipt names the
// operation and the reason; a successful block reaches the store as one atomic write.
//
// Reads see only live entities: expires_block > the block read at. Query pages hold at most
// Limits::query.max_page entities in descending id order; the cursor is pinned to the block of the
// first page, so pages stay stable while entities expire (the sweeper keeps expired rows for
// Limits::query.cursor_lifetime_blocks). Every transaction and query reports its cost.
//
// Several Ledger objects ("nodes", in one process or many) may share one store database
// (PostgreSQL). The database admits one block per parent: a node that built on a stale head gets
// HeadConflict from the store, reloads the head and executes its transactions again (at most
// kMaxHeadConflictRetries times), so every node makes progress and the chain never forks. Reads
// on such a node first reload the head from the store (one statement), so they see every block
// committed before the read began (read committed; a read that takes several statements, such as
// VerifyChain, may see blocks committed while it runs, beyond the head it started from). Head()
// returns the head as of the node's last call.
//
// Reads (Get, Query, Count, Explain, GetAccount, GetBlock, GetReceipt) run on reader connections
// when LedgerOptions::read_connections is positive and the store can open them (a SQLite file,
// PostgreSQL; Store::OpenReader), so they do not wait for a write in progress (a durable commit
// is a disk round trip) or for each other. A read there sees every block committed before it
// began: the head it reads at is the writer's last (or, on a shared store, the database's), and
// it may also see a block committed while it runs (read committed, as on a shared store). Without
// reader connections every read takes the writer's mutex and store.
//
// Thread safety: every method is safe from any thread; one mutex serialises the writes and the
// reads that have no reader connection.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "veil/base/result.h"
#include "veil/ledger/chain.h"
#include "veil/ledger/entity.h"
#include "veil/ledger/limits.h"
#include "veil/ledger/store.h"
#include "veil/ledger/transaction.h"
#include "veil/ledger/types.h"

namespace veil::ledger {

enum class BlockMode : std::uint8_t { kInstant, kTimed };

// Instant mode: when a transaction's signature is checked (LedgerOptions::signature_check).
//   kFirst: before the transaction joins a block.
//   kDeferWhenIdle: on a store whose commit gate runs while the database executes the write
//     (Store::CommitGateOverlaps: PostgreSQL, where the block's statements are on the server
//     by then), a transaction that finds no block being sealed and none waiting (a lone client,
//     an idle node) has its signature checked at the gate, so the check (an Ed25519
//     verification, about 46 us) overlaps the server's work instead of preceding it; the block
//     commits only once it has passed. One that fails takes no block, changes nothing and gets
//     the signature's error, as with kFirst. Only a transaction sealed alone is checked at the
//     gate: one that found the ledger idle but was joined by others before its group was taken
//     is checked before the group executes, and those that arrive while a block is being sealed
//     are checked first, so a forged transaction costs at most one rolled-back write of its own.
//     Elsewhere (SQLite) as kFirst.
//   kDeferAlways: every transaction sealed alone at the gate, on any store (for tests of the
//     path above).
enum class SignatureCheck { kFirst, kDeferWhenIdle, kDeferAlways };

// The expiry clock of a chain this node creates (ExpiryHeight in types.h; docs/architecture.md,
// "The lease clock"). A chain keeps the clock it was created with: the option counts only at
// genesis, and a chain made before the clock existed counts on its block numbers.
//   kAuto: slots of nominal_block_time_ms for an instant chain, block numbers for a timed one.
//   kBlocks: block numbers in either mode (Arkiv's rule, under which an instant chain's block
//     count is a transaction count: for tests that count expiry in transactions).
//   kSlots: slots of nominal_block_time_ms in either mode.
enum class ExpiryClock { kAuto, kBlocks, kSlots };

struct LedgerOptions {
  std::uint64_t chain_id = 1;
  Limits limits = Limits::Arkiv();
  BlockMode mode = BlockMode::kInstant;
  std::size_t max_queued_txs = 10'000;  // timed mode
  // Block timestamps; the default reads the system clock. Tests pass a fixed function.
  std::function<std::uint64_t()> clock_ms;
  // Reader connections, opened as reads need them up to this many (0: reads share the writer's
  // connection). Each is a connection to the database (SQLite: with its own page cache of
  // SqliteOptions::cache_mib, filled as it reads; PostgreSQL: a server process).
  std::size_t read_connections = 0;
  SignatureCheck signature_check = SignatureCheck::kDeferWhenIdle;
  // The block time the chain declares (ChainInfo): in timed mode the period at which its
  // SealBlock calls come (the node's --block-time sets it); in instant mode a nominal one, for
  // clients that turn lifetimes in blocks into durations (the node's --nominal-block-time;
  // Arkiv's blocks come every 2 s). Positive.
  std::uint64_t nominal_block_time_ms = 2000;
  ExpiryClock expiry_clock = ExpiryClock::kAuto;
};

struct SealResult {
  BlockHeader header;
  std::vector<TxReceipt> receipts;  // every transaction taken from the queue, failed ones too
  std::size_t still_queued = 0;     // left for the next block (gas limit)
};

struct LedgerStats {
  std::uint64_t head = 0;
  std::uint64_t live_entities = 0;
  std::uint64_t stored_entities = 0;
  std::size_t queued_txs = 0;
  std::size_t queued_bytes = 0;  // timed mode: QueuedTxBytes of the queued transactions
};

// The memory a transaction holds while it waits in the timed mode's queue, estimated from above
// (QueueLimits counts this): its encoding and its decoded form (every heap block at its
// capacity plus 16 bytes of allocator header and rounding: payloads, strings past the small-string
// buffer, the operation and attribute arrays, key and signature) and the queue entry's fixed part.
// A 4 MiB transaction of payloads holds them twice (the encoding and the decoded payloads).
std::size_t QueuedTxBytes(const SignedTransaction& stx, const Bytes& encoded);

class Ledger {
 public:
  // Executions of one block (timed mode) or one group (instant mode) against a moved head before
  // Submit/SealBlock gives up (kUnavailable; the transactions stay queued in timed mode).
  static constexpr int kMaxHeadConflictRetries = 64;
  // Instant mode: the most blocks one store write carries (group commit).
  static constexpr std::size_t kMaxGroupBlocks = 64;

  // Opens (or creates, with a genesis block) the chain in `store`.
  static Result<std::unique_ptr<Ledger>> Open(std::unique_ptr<Store> store, LedgerOptions options);
  ~Ledger();
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // A malformed, over-limit, wrongly-signed or wrong-chain transaction is an error and is not
  // queued; otherwise the receipt tells the result (instant) or that it is pending (timed).
  Result<TxReceipt> Submit(ByteView encoded);
  // Seals one block: the queued transactions (timed) or none (instant: advances the chain).
  Result<SealResult> SealBlock();
  // Instant mode on a slot clock: seals an empty block when an entity live at the head has
  // expired by now (the clock's slot has reached its expires_block), so that on an idle chain it
  // leaves reads within one slot of its time; true if it sealed. The node calls it every slot;
  // in timed mode (and on block numbers) it does nothing, as the blocks come anyway.
  Result<bool> SealIfExpiryDue();

  Result<std::optional<Entity>> Get(const EntityKey& key,
                                    const Projection& projection = Projection::All());
  Result<QueryPage> Query(std::string_view query, const QueryOptions& options = {});
  // "*" (or "$all") comes from the counters and is exact; a filter stops at the count cap.
  Result<CountResult> Count(std::string_view query);
  Result<std::string> Explain(std::string_view query, const QueryOptions& options = {});
  // Count's plan: the counters for "*", else the count statement and the database's plan.
  Result<std::string> ExplainCount(std::string_view query);

  // Removes up to `max_rows` entities that expired at least cursor_lifetime_blocks ago.
  Result<std::uint64_t> Sweep(std::size_t max_rows);
  // Recomputes every block, transaction, change-set and live-entity hash from the stored rows,
  // looks every transaction up by its hash as a receipt does, and compares the stored-entity
  // counter with the entity table's rows; kDataLoss naming the first block (or entity and
  // block) that does not match. As long as the chain: an operator's call (the node does not
  // serve it to clients by default). It never holds the writer's mutex for more than one block
  // or one batch of 256 entities (it reads on a reader connection when there is one), so writes
  // go on while it runs; the blocks written meanwhile are verified too when an entity it meets
  // was changed by one of them.
  Status VerifyChain();

  // The head as of the last call (see above for shared stores); it does not wait for a write in
  // progress.
  BlockHeader Head() const;
  // Instant mode: transactions waiting for a group commit to take them (not counting those of
  // the group being written); it does not wait for a write in progress.
  std::size_t WaitingTxs() const;
  // Block writes sent to the store since Open, including those that failed or lost a race (one
  // a block in timed mode; instant mode's group commit puts several blocks in one): blocks over
  // writes is the mean group size when writes do not fail.
  std::uint64_t BlockWrites() const { return block_writes_.load(std::memory_order_relaxed); }
  // The head a read would use now: on a shared store reloaded from the database (on a reader
  // connection when there are any), otherwise Head().
  Result<BlockHeader> FreshHead();
  Result<Account> GetAccount(const Address& address);
  EntityKey PredictKey(const Address& creator, std::uint64_t create_nonce) const;
  Result<LedgerStats> Stats();
  // Loads the store's tables and indexes into its cache (Store::Prewarm), so that reads after a
  // start do not wait on the disk; returns the bytes cached (see there). With reader connections
  // it opens all of them and loads each one's cache too (SQLite; PostgreSQL's is shared).
  Result<std::uint64_t> Prewarm();
  // Reads for the node (ledger_reads.cc). GetBlock: nullopt past the head. GetReceipt: the
  // receipt of a landed transaction, rebuilt from the stored block (status ok, block, created
  // keys, cost); nullopt for a hash that never landed: failed transactions change nothing and
  // are not stored, and pending ones (timed mode) are not yet in a block.
  Result<std::optional<BlockInfo>> GetBlock(std::uint64_t number);
  Result<std::optional<TxReceipt>> GetReceipt(const Hash32& tx_hash);
  const Limits& limits() const { return options_.limits; }
  BlockMode mode() const { return options_.mode; }
  std::uint64_t chain_id() const { return options_.chain_id; }
  std::uint64_t nominal_block_time_ms() const { return options_.nominal_block_time_ms; }
  // The chain's expiry clock, as stored at its genesis (0: block numbers).
  std::uint64_t expiry_clock_ms() const { return expiry_clock_ms_; }
  std::uint64_t ExpiryHeightOf(const BlockHeader& h) const {
    return ExpiryHeight(h, expiry_clock_ms_);
  }

 private:
  struct Pending {
    SignedTransaction stx;
    Bytes encoded;
    Hash32 hash{};
    TxCost cost;
    Address sender{};        // timed mode: set when queued
    std::size_t memory = 0;  // timed mode: QueuedTxBytes, counted in queued_bytes_
  };
  class BlockBuilder;
  // Instant mode: a submitted transaction waiting for its block (group commit).
  struct InstantSlot {
    Pending pending;
    // The signature's check, once made (at Submit, or at the commit gate: SignatureCheck).
    std::optional<Status> signature;
    Result<TxReceipt> result = Status(Code::kInternal, "not sealed");
    bool done = false;  // set under instant_mu_ once `result` is final
  };
  Ledger(std::unique_ptr<Store> store, LedgerOptions options);
  // Decodes and checks a transaction; its signature too unless `check_signature` is false.
  Result<Pending> Check(ByteView encoded, bool check_signature = true) const;
  // Whether a transaction submitted now has its signature checked at its write's commit gate.
  bool DefersSignatureCheck() const;
  // The slot's signature check, made now if it was deferred.
  const Status& SlotSignature(InstantSlot* slot) const;
  // Timed mode: the queue's memory, in all and by sender (QueueLimits); under mu_. A
  // transaction's bytes are counted from its Submit to the block that takes it.
  std::size_t queued_bytes_ = 0;
  std::map<Address, std::size_t> queued_sender_bytes_;
  void UnqueuedLocked(const Pending& p);
  // Timed mode: executes the queue into one block.
  Result<SealResult> SealLocked(std::deque<Pending>& queue);
  // Instant mode: seals the waiting transactions (up to kMaxGroupBlocks, oldest first), each in
  // its own block, with one store write; fills in their results and marks them done.
  void SealInstantGroupLocked();
  // Seals `slots` in one store write and fills in their results; on a store error nothing is
  // written, their results are left as they were (but for a forged one's, below) and the error
  // is returned. A transaction whose signature fails its check at the commit gate gets that
  // error, and any others, checked then, are sealed again without it.
  Status SealSlotsLocked(std::span<InstantSlot* const> slots);
  // One attempt of the above; the transactions whose signatures failed at the commit gate (the
  // write then refused) are added to `forged`.
  Status SealSlotsOnceLocked(std::span<InstantSlot* const> slots,
                             std::vector<InstantSlot*>* forged);
  // Reads into the cache, in one store call (one round trip on PostgreSQL), the accounts and
  // entities that `txs` will need and the cache lacks, so that executing them reads nothing.
  // Best effort: on a failure the transactions read what they need themselves.
  void PrefetchLocked(std::span<const Pending* const> txs);
  class RetryLock;
  // Query's page from `store` with the head it reads at.
  Result<QueryPage> QueryAt(Store& store, const BlockHeader& head, const query::Expr& expr,
                            const Hash32& digest, const QueryOptions& options) const;
  // Runs `read(store, head)` on a reader connection with the head it reads at, or on the writer's
  // store under mu_ where there is none (ledger_reads.cc). `read` may run twice (the second run
  // at a newer head), so it must set every output it has, not add to it.
  using ReadFn = std::function<Status(Store&, const BlockHeader&)>;
  Status RunRead(const ReadFn& read);
  // Shared stores: `read` at the head this node knows, with the database's state read in the
  // same round trip (Store::CarryStateWithNextRead); when the database's head is another, the
  // state goes to `adopt` and `read` runs again at that head.
  Status ReadCarryingState(Store& store, const BlockHeader& known, const ReadFn& read,
                           const std::function<void(const ChainState&)>& adopt);
  // A reader connection from the pool (opened if the pool is below read_connections; waits for
  // one otherwise), or null: the store has none, or read_connections is 0.
  std::unique_ptr<Store> TakeReader();
  void ReturnReader(std::unique_ptr<Store> reader);
  // Shared stores: reloads state_ from the store; *moved tells whether the head changed.
  Status RefreshLocked(bool* moved = nullptr);
  // One block of VerifyChain, read from `store`.
  Status VerifyBlock(Store& store, std::uint64_t n, std::uint64_t head, Hash32* prev_hash,
                     Hash32* changeset) const;
  // One step of VerifyChain: `step` on a reader connection, or on the writer's store under mu_
  // for the step alone, after the writers waiting for mu_ (LockForWrite).
  Status VerifyStep(const std::function<Status(Store&)>& step);
  // mu_ for a write (Submit, SealBlock, Sweep), counted in writers_waiting_ while it waits.
  std::unique_lock<std::mutex> LockForWrite();
  std::atomic<int> writers_waiting_{0};
  // Sets state_ and publishes its head (Head(), the reads on reader connections).
  void SetStateLocked(const ChainState& st);
  // Shared stores: the state as `store` holds it (the chain checked); AdoptStateLocked takes it
  // as state_, clearing the cache when the head moved.
  Result<ChainState> LoadSharedState(Store& store) const;
  Result<ChainState> CheckSharedState(Result<std::optional<ChainState>> loaded) const;
  void AdoptStateLocked(const ChainState& st);
  std::uint64_t NowMs() const;
  // The read budget of the limits (QueryLimits::max_read_steps, max_read_ms), which every store
  // this ledger reads through gets.
  ReadBudget ReadBudgetOf() const {
    return {options_.limits.query.max_read_steps, options_.limits.query.max_read_ms};
  }

  mutable std::mutex mu_;
  std::unique_ptr<Store> store_;
  LedgerOptions options_;
  std::uint64_t expiry_clock_ms_ = 0;  // set once by Open
  ChainState state_;
  // state_.head as of the last change, readable without waiting for a write in progress.
  mutable std::mutex head_mu_;
  BlockHeader published_head_;
  std::deque<Pending> queue_;
  // Instant mode: the transactions waiting for a block. A Submit adds its slot here; if no other
  // Submit leads, it leads (takes mu_ and seals all that wait), else it sleeps on instant_done_
  // until its slot is done or the leader has finished.
  mutable std::mutex instant_mu_;
  std::condition_variable instant_done_;
  bool instant_leader_ = false;
  std::deque<InstantSlot*> instant_;
  std::atomic<std::uint64_t> block_writes_{0};
  // Reader connections: the idle ones, and how many exist (idle or lent); `none` once the store
  // has said it cannot open one.
  struct Readers {
    std::mutex mu;
    std::condition_variable returned;
    std::vector<std::unique_ptr<Store>> idle;
    std::size_t open = 0;
    bool none = false;
    // After a failed open, reads use the writer's connection until then (no connection storm
    // against a database that refuses connections).
    std::chrono::steady_clock::time_point retry_after{};
  };
  std::mutex prewarm_mu_;  // one Prewarm at a time (each takes every reader)
  Readers readers_;
  // The accounts and entities this node's own blocks wrote, as of state_.head: the validation
  // reads of the next transactions come from here when they can (ledger.cc).
  struct WriteCache;
  std::unique_ptr<WriteCache> cache_;
  // Signature checks, with the prepared keys of recurring senders.
  SignatureVerifier verifier_;
};

}  // namespace veil::ledger
