// The PostgreSQL store (postgres_store.cc says how it works and which file holds what): one class,
// its members defined across postgres_store.cc (opening, the session, sending statements),
// postgres/writer.cc (the block writer), postgres/reads.cc (reads) and postgres/query.cc
// (filtered reads and their planning), over a PgConnection (connection.h).
//
// Internal to the ledger's PostgreSQL store. Thread safety: as Store's (one caller at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "postgres/connection.h"
#include "postgres/wire.h"
#include "sql_filter.h"
#include "veil/ledger/store.h"

namespace veil::ledger::pg {

// Where a read takes an entity's attributes from. kRowCopy: entities.attrs alone, which every row
// written since the column exists has; the statement then plans and runs no aggregation (two
// lateral subqueries cost 0.3-0.6 ms of a page's 2.3 ms of server time, planning included).
// kRowOrIndex: the copy, and the attr_* rows' aggregation for a row without one (a row written
// before the column; a read that met one under kRowCopy is read again this way). kBoth: the
// aggregation for every row, compared with the copy (VerifyChain's scan).
enum class AttrSource { kRowCopy, kRowOrIndex, kBoth };

// A statement and its parameters, as a read or a count compiles it.
struct Compiled {
  std::string sql;
  std::vector<PgParam> params;
  bool driven = false;  // CompileCount: a driven count (whose form the backlog chooses)
  // Appends a parameter and returns its placeholder.
  std::string Add(PgParam p) {
    params.push_back(std::move(p));
    return "$" + std::to_string(params.size());
  }
};

// The entity columns over `inner` (a SELECT of entity rows), in `order` (reads.cc).
std::string EntitySelect(const std::string& inner, const std::string& order, const Projection& p,
                         AttrSource src = AttrSource::kRowCopy, bool account_ids = false);

// The statements of a range's page (PostgresStore::RangeSelect, query.cc).
enum class RangePlan { kProbe, kWalk, kCollect };

class PostgresStore final : public Store {
 public:
  // reader: a connection for reads only (OpenReader): no schema work and no write statements,
  // in a read-only session.
  explicit PostgresStore(PostgresOptions o, bool reader = false)
      : options_(std::move(o)), reader_(reader) {}

  // Connects and sets the session up (Setup).
  Status Init();

  bool MayHaveOtherWriters() const override { return true; }
  std::uint64_t RoundTrips() const override { return pg_.round_trips(); }
  Result<std::unique_ptr<Store>> OpenReader() override;
  void SetReadBudget(const ReadBudget& budget) override;

  // The block writer (writer.cc).
  Status LockWriters() override;
  Status UnlockWriters() override;
  // The gate runs once the pipeline's statements are on their way to the server (RunPipeline).
  bool CommitGateOverlaps() const override { return true; }
  using Store::ApplyBlocks;
  Status ApplyBlocks(std::span<const BlockWrite> writes, const CommitGate& gate) override;
  Result<std::uint64_t> Sweep(std::uint64_t up_to_block, std::size_t max_rows) override;

  // Reads (reads.cc).
  // Prepared once: every read of a node that may share the chain refreshes the head with it, and
  // planning the join on each call cost more than running it.
  // The head is the highest block; its row holds the counters after it.
  static constexpr const char* kLoadStateSql =
      "SELECT b.number, b.next_entity_id, b.next_change_seq, b.entities_net - (SELECT n FROM swept "
      "WHERE id = 1), b.chain_id, b.number, b.parent, b.timestamp_ms, b.tx_root, b.changeset, "
      "b.tx_count, b.change_count, b.gas_used, b.hash FROM blocks b ORDER BY b.number DESC LIMIT "
      "1";

  Result<std::optional<ChainState>> LoadState() override;
  void CarryStateWithNextRead() override;
  void ForgetCarriedState() override;
  Result<std::optional<ChainState>> TakeCarriedState() override;
  Result<std::vector<Entity>> GetEntities(const std::vector<EntityKey>& keys) override;
  Result<ValidationReads> GetForValidation(const std::vector<EntityKey>& keys,
                                           const std::vector<Address>& addresses) override;
  Result<Account> GetAccount(const Address& address) override;
  Result<std::uint64_t> LiveCount(std::uint64_t expiry) override;
  Result<std::optional<std::uint64_t>> LoadExpiryClock() override;
  Status RecordExpiryClock(std::uint64_t ms) override;
  Result<std::uint64_t> Prewarm() override;
  Result<std::optional<BlockHeader>> GetBlock(std::uint64_t number) override;
  Result<std::vector<StoredTx>> GetBlockTxs(std::uint64_t number) override;
  Result<std::optional<StoredTx>> FindTx(const Hash32& hash, std::uint64_t head) override;
  Result<std::vector<std::optional<TxLocation>>> LocateTxs(std::span<const Hash32> hashes,
                                                           std::uint64_t head) override;
  Result<StoredRows> CountStoredRows() override;
  Result<std::vector<Change>> GetBlockChanges(std::uint64_t number) override;
  Result<std::vector<Entity>> ScanEntities(std::int64_t after_id, std::size_t max_rows) override;

  // Filtered reads (query.cc).
  Result<StorePage> Query(const QueryRequest& r) override;
  Result<StoreCount> Count(const query::Expr& filter, ReadPoint at, std::uint64_t cap) override;
  Result<std::string> Explain(const QueryRequest& r) override;
  Result<std::string> ExplainCount(const query::Expr& filter, ReadPoint at,
                                   std::uint64_t cap) override;

 private:
  // The read budget (ReadBudget::max_ms) over one filtered read: while it lives, every statement
  // the read sends goes in a pipeline behind a transaction-local statement_timeout
  // (AddSettingsStep; the pipeline's Sync ends the implicit transaction and the setting, so writes
  // and the other reads on the session run without it). A statement stopped by it (SQLSTATE 57014)
  // is WorkBudgetExceeded (ResultError); Map names the budget.
  class BudgetScope {
   public:
    explicit BudgetScope(PostgresStore& s) : s_(s) { s_.budget_armed_ = s_.budget_.max_ms > 0; }
    ~BudgetScope() { s_.budget_armed_ = false; }
    BudgetScope(const BudgetScope&) = delete;
    BudgetScope& operator=(const BudgetScope&) = delete;
    template <typename T>
    Result<T> Map(Result<T> read) const {
      if (read.ok() || !IsWorkBudgetExceeded(read.status())) return read;
      return WorkBudgetExceeded(std::to_string(s_.budget_.max_ms) +
                                " ms for a statement on PostgreSQL");
    }

   private:
    PostgresStore& s_;
  };
  // ---- The session and its statements (postgres_store.cc). ----

  // Runs after (re)connecting: session settings, schema, the write statements.
  Status Setup();
  // Reconnects (and sets up again) after the connection dropped or a pipeline broke off.
  Status EnsureConnected() {
    if (pg_.Usable()) return Status::Ok();
    pg_.Reset();
    return Setup();
  }
  // Query shapes vary (filters); the cache of prepared reads is bounded: when the statements
  // `sqls` would not fit, the session starts afresh (no prepared statements; Setup prepares the
  // write statements again).
  Status MakeRoom(const std::vector<std::string_view>& sqls) {
    if (pg_.HasRoomFor(sqls)) return Status::Ok();
    pg_.Reset();
    return Setup();
  }
  // One statement, unnamed (planned with its parameters); within a BudgetScope, behind the
  // budget's setting.
  Result<ResultPtr> Exec(const std::string& sql, const std::vector<PgParam>& params,
                         bool binary = true);
  Result<ResultPtr> ExecOnSession(const std::string& sql, const std::vector<PgParam>& params,
                                  bool binary);
  Result<ResultPtr> ExecPlannedPerCall(const std::string& sql, const std::vector<PgParam>& params,
                                       const char* before = nullptr,
                                       std::vector<PgParam> before_params = {},
                                       ResultPtr* before_result = nullptr);
  Result<ResultPtr> ExecReadSteps(Step read, bool generic, const std::string* state,
                                  Step* before = nullptr, ResultPtr* before_result = nullptr);
  Status AddSettingsStep(std::vector<Step>* steps, bool generic);
  Result<ResultPtr> ExecCached(const std::string& sql, const std::vector<PgParam>& params,
                               bool may_carry = true, bool force_generic = false);
  Result<std::vector<ResultPtr>> ExecCachedAll(const std::vector<Compiled>& reads);
  // PgConnection::RunPipeline on a session set up.
  Result<bool> RunPipeline(const std::vector<Step>& steps, std::vector<ResultPtr>* results,
                           PipelineError* err, const CommitGate& gate = {}) {
    VEIL_RETURN_IF_ERROR(EnsureConnected());
    return pg_.RunPipeline(steps, results, err, gate);
  }

  // ---- The block writer (writer.cc). ----

  Status AppendBlockSteps(const BlockWrite& w, std::span<const BlockWrite> earlier,
                          std::uint64_t from_number, const Hash32& from_hash,
                          std::vector<Step>* out);
  // The most accounts a block writes inside its block statement (AppendBlockSteps).
  static constexpr std::size_t kAccountsInBlockStatement = 16;
  // The most rows (all parts together) of a block written in the one-statement form, and the
  // most shapes of that form a connection prepares (AppendBlockSteps). A one-entity create with
  // 8 attributes has 15 rows.
  static constexpr long kOneStatementRows = 64;
  static constexpr std::size_t kOneStatementShapes = 32;

  Result<std::string> PreparedBlock(const std::vector<std::uint32_t>& key,
                                    const std::vector<PgParam>& params);

  // ---- Reads and entity rows (reads.cc). ----

  Result<std::vector<Entity>> EntitiesByKeyFrom(const PGresult* r,
                                                const std::vector<EntityKey>& keys);
  Result<std::vector<Entity>> ReadEntities(const PGresult* r, const Projection& p, AttrSource src,
                                           bool* lacks_copy = nullptr, bool account_ids = false);
  Status ResolveAccounts(const std::vector<std::pair<std::int64_t, std::int64_t>>& ids,
                         const Projection& p, std::vector<Entity>* out);

  // ---- Filtered reads and their plans (query.cc). ----

  Result<StorePage> QueryRead(const QueryRequest& r);
  Result<StoreCount> CountRead(const query::Expr& filter, ReadPoint at, std::uint64_t cap);
  Result<std::string> ExplainRead(const QueryRequest& r);
  Result<std::string> ExplainCompiled(const Compiled& c, bool generic = false);
  Result<Compiled> CompileCount(const query::Expr& filter, ReadPoint at, std::uint64_t cap);
  Result<std::string> Literal(const PgParam& p);
  Result<std::string> ArrayLiteral(const PgParam& p);
  Result<std::vector<Entity>> QueryRows(const QueryRequest& r, AttrSource src, bool* lacks_copy);
  Result<std::optional<std::size_t>> FewestBelow(const std::vector<sql::Driver>& drivers,
                                                 std::int64_t before_id, std::uint64_t limit);
  Result<std::vector<std::uint64_t>> CountsBelow(const std::vector<sql::Driver>& drivers,
                                                 std::int64_t before_id, std::uint64_t limit,
                                                 bool top = false);
  Result<Compiled> WalkSelect(const QueryRequest& r, AttrSource src, sql::WalkWindow window);
  Result<std::optional<std::vector<Entity>>> UndrivenRows(const QueryRequest& r, AttrSource src,
                                                          bool* lacks_copy);
  Result<std::vector<Entity>> RangeRows(const QueryRequest& r, std::vector<sql::Driver>& drivers,
                                        std::size_t which, AttrSource src, bool* lacks_copy);
  Result<Compiled> RangeSelect(const QueryRequest& r, const sql::Driver& driver, AttrSource src,
                               RangePlan plan, sql::WalkWindow window = {});
  Result<Compiled> CompileSelect(const QueryRequest& r, AttrSource src = AttrSource::kRowCopy,
                                 const sql::Driver* equality = nullptr);

  PostgresOptions options_;
  bool reader_ = false;
  PgConnection pg_;
  // Account id -> address, as ResolveAccounts read them (bounded: cleared when full; Setup
  // clears it too).
  static constexpr std::size_t kAccountCacheSize = 4096;
  std::unordered_map<std::int64_t, Address> account_cache_;
  // BlockStatement::Key -> the prepared statement's name; how many of them are one-statement
  // shapes.
  std::map<std::vector<std::uint32_t>, std::string> block_cache_;
  std::size_t one_statement_shapes_ = 0;
  bool carry_state_ = false;  // CarryStateWithNextRead: the next read carries the state
  ReadBudget budget_;
  std::string budget_sql_;  // AddSettingsStep's statements
  std::string budget_generic_sql_;
  bool budget_armed_ = false;  // inside a BudgetScope
  // (block, expired entities not yet swept at it) as of this connection's last count.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> backlog_;
  ResultPtr carried_;  // the state's result from the read that carried it
};

}  // namespace veil::ledger::pg
