// The PostgreSQL backend (docs/notes/ledger.md, "The PostgreSQL backend").
//
// One libpq connection per store. Parameters and results travel in binary format, so bytes,
// integers and arrays need no quoting or escaping. A block is written in ONE round trip: the
// chain's write lock and the block's statement (its rows as data-modifying CTEs of the INSERT of
// its row) are sent as one pipeline with one sync, over statements prepared once per connection;
// any failure rolls the whole transaction back. Several stores (nodes) may share one database:
// every block write takes the chain's write lock for its transaction, and its row goes in only
// where its parent is the highest block (the head), so the database serialises writers and
// refuses stale ones (HeadConflict). Each read is one statement; GetEntities takes its keys as
// one array parameter.
//
// The store is one class (postgres/store.h) over these files, one concern each:
// - postgres_store.cc (this file): opening the store, the session's set-up after each
//   (re)connect, and how the store sends its statements (cached prepared reads, per-call plans,
//   the read budget, the head's state carried with a read);
// - postgres/wire.h: parameters and result rows in binary format;
// - postgres/connection.{h,cc}: PgConnection, the libpq session, its statement cache, pipelines
//   and the mapping of the server's errors;
// - postgres/schema.{h,cc}: the tables, their set-up and the format-3 migration;
// - postgres/block_statement.{h,cc} and postgres/writer.cc: the block writer;
// - postgres/reads.cc: reads by key, by block and by transaction, and entity rows;
// - postgres/query.cc: filtered reads (Query, Count, Explain) and their planning.
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "postgres/block_statement.h"
#include "postgres/schema.h"
#include "postgres/store.h"
#include "veil/ledger/store.h"

namespace veil::ledger {
namespace pg {

Status PostgresStore::Init() {
  VEIL_RETURN_IF_ERROR(pg_.Connect(options_.url));
  return Setup();
}

Result<std::unique_ptr<Store>> PostgresStore::OpenReader() {
  auto r = std::make_unique<PostgresStore>(options_, /*reader=*/true);
  VEIL_RETURN_IF_ERROR(r->Init());
  return std::unique_ptr<Store>(std::move(r));
}

void PostgresStore::SetReadBudget(const ReadBudget& budget) {
  budget_ = budget;
  budget_sql_ =
      "SELECT set_config('statement_timeout', '" + std::to_string(budget.max_ms) + "', true)";
  budget_generic_sql_ = budget_sql_ + ", set_config('plan_cache_mode', 'force_generic_plan', true)";
}

// Runs after (re)connecting: session settings, schema, the write statements.
Status PostgresStore::Setup() {
  // A reconnect inside a budgeted read sets the session up without the read's budget.
  struct Unarm {
    bool& armed;
    bool was = armed;
    ~Unarm() { armed = was; }
  } unarm{budget_armed_};
  budget_armed_ = false;
  pg_.set_broken(true);  // until setup completes
  if (PQstatus(pg_.get()) != CONNECTION_OK) return pg_.Error("connect");
  PQsetNoticeProcessor(
      pg_.get(), [](void*, const char*) {}, nullptr);
  if (PQsetClientEncoding(pg_.get(), "UTF8") != 0) return pg_.Error("client encoding");
  pg_.ClearReadCache();
  block_cache_.clear();
  one_statement_shapes_ = 0;
  account_cache_.clear();
  // No parallel workers and no JIT: a ledger read returns at most a page, and starting worker
  // processes or compiling the plan costs more than the page (a driven page of 200 took 58 ms
  // with one worker and 7 ms without).
  std::string setup =
      "SET client_min_messages = warning; SET max_parallel_workers_per_gather = 0; SET jit = "
      "off;";
  if (!options_.schema.empty()) {
    char* quoted = PQescapeIdentifier(pg_.get(), options_.schema.c_str(), options_.schema.size());
    if (quoted == nullptr) return pg_.Error("schema name");
    const std::string q = quoted;
    PQfreemem(quoted);
    if (!reader_) setup += "CREATE SCHEMA IF NOT EXISTS " + q + ";";
    setup += "SET search_path TO " + q + ";";
  }
  if (reader_) setup += "SET default_transaction_read_only = on;";
  VEIL_RETURN_IF_ERROR(pg_.ExecScript(setup));
  {
    VEIL_ASSIGN_OR_RETURN(auto r, pg_.Exec("SHOW server_encoding", {}, /*binary=*/false));
    if (std::string(PQgetvalue(r.get(), 0, 0)) != "UTF8") {
      return FailedPrecondition("postgres: the database encoding must be UTF8");
    }
  }
  if (reader_) {
    pg_.set_broken(false);
    return Status::Ok();
  }
  VEIL_RETURN_IF_ERROR(SetUpSchema(pg_));
  // Every write statement, prepared in one pipeline (one round trip).
  VEIL_RETURN_IF_ERROR(pg_.PrepareWriteStatements(WriteStmtDefs()));
  pg_.set_broken(false);
  return Status::Ok();
}

// One statement, unnamed (planned with its parameters).
Result<ResultPtr> PostgresStore::Exec(const std::string& sql, const std::vector<PgParam>& params,
                                      bool binary) {
  VEIL_RETURN_IF_ERROR(EnsureConnected());
  return ExecOnSession(sql, params, binary);
}

Result<ResultPtr> PostgresStore::ExecOnSession(const std::string& sql,
                                               const std::vector<PgParam>& params, bool binary) {
  if (budget_armed_ && binary) {
    std::vector<Step> steps;
    VEIL_RETURN_IF_ERROR(AddSettingsStep(&steps, /*generic=*/false));
    steps.emplace_back();
    steps.back().sql = sql.c_str();
    steps.back().params = params;
    std::vector<ResultPtr> results;
    PipelineError err;
    VEIL_ASSIGN_OR_RETURN(const bool ok, RunPipeline(steps, &results, &err));
    if (ok) return std::move(results.back());
    return PgConnection::ReadFailure(results, err);
  }
  return pg_.Exec(sql, params, binary);
}

// A filtered read: planned for its own parameters every time (an unnamed statement). A cached
// prepared statement switches to a generic plan after five executions, and for a filter the
// generic plan cannot know a range's width or a liveness bound's selectivity: a two-sided
// range at 10^6 entities took 139 ms generic (a parallel bitmap scan) against 2.3 ms custom,
// and a driven count's correction a full scan (seconds) against a 0.3 ms index probe. Planning
// costs about 1 ms, paid for a plan that fits.
// With `before` (a cached statement, its result in *before_result), that statement goes first
// in the same round trip.
Result<ResultPtr> PostgresStore::ExecPlannedPerCall(const std::string& sql,
                                                    const std::vector<PgParam>& params,
                                                    const char* before,
                                                    std::vector<PgParam> before_params,
                                                    ResultPtr* before_result) {
  if (!carry_state_ && before == nullptr) return Exec(sql, params);
  VEIL_RETURN_IF_ERROR(EnsureConnected());
  std::vector<std::string_view> cached;
  if (carry_state_) cached.emplace_back(kLoadStateSql);
  if (before != nullptr) cached.emplace_back(before);
  VEIL_RETURN_IF_ERROR(MakeRoom(cached));
  std::string state;
  if (carry_state_) {
    VEIL_ASSIGN_OR_RETURN(state, pg_.Prepared(kLoadStateSql, {}));
  }
  Step first;
  if (before != nullptr) {
    VEIL_ASSIGN_OR_RETURN(first.name, pg_.Prepared(before, before_params));
    first.params = std::move(before_params);
  }
  Step read;
  read.sql = sql.c_str();
  read.params = params;
  return ExecReadSteps(std::move(read), /*generic=*/false, carry_state_ ? &state : nullptr,
                       before != nullptr ? &first : nullptr, before_result);
}

// A read as one pipeline (one round trip): the state's statement first when `state` names it
// (its result kept for TakeCarriedState), then, for a reader's named read (`generic`), a
// transaction-local force_generic_plan (the Sync ends the implicit transaction and the
// setting, so the session's unnamed statements keep their per-call plans), then the read.
// The named reads are index probes whose plan does not depend on the values; left to choose,
// a reader's fresh session re-planned a key lookup at every call (180-230 us a Get against 89
// on the writer's session, which had settled on the generic plan).
Result<ResultPtr> PostgresStore::ExecReadSteps(Step read, bool generic, const std::string* state,
                                               Step* before, ResultPtr* before_result) {
  std::vector<Step> steps;
  if (state != nullptr) {
    carry_state_ = false;
    steps.emplace_back();
    steps.back().name = *state;
  }
  const std::size_t before_at = steps.size();
  if (before != nullptr) steps.push_back(std::move(*before));
  VEIL_RETURN_IF_ERROR(AddSettingsStep(&steps, generic));
  steps.push_back(std::move(read));
  std::vector<ResultPtr> results;
  PipelineError err;
  VEIL_ASSIGN_OR_RETURN(const bool ok, RunPipeline(steps, &results, &err));
  if (state != nullptr && (ok || err.step > 0)) carried_ = std::move(results[0]);
  if (ok && before != nullptr) *before_result = std::move(results[before_at]);
  if (ok) return std::move(results.back());
  return PgConnection::ReadFailure(results, err);
}

// The one statement that sets what the read after it in the pipeline needs, for the
// pipeline's transaction only: within a BudgetScope, the read budget (statement_timeout); with
// `generic`, the generic plan. One prepared statement for both, since each statement of a
// pipeline costs server time (a second unnamed set_config cost a budgeted read about 50 us).
Status PostgresStore::AddSettingsStep(std::vector<Step>* steps, bool generic) {
  static constexpr const char* kGeneric =
      "SELECT set_config('plan_cache_mode', 'force_generic_plan', true)";
  const std::string* sql = nullptr;
  if (budget_armed_) sql = generic ? &budget_generic_sql_ : &budget_sql_;
  const std::string generic_only = kGeneric;
  if (sql == nullptr && generic) sql = &generic_only;
  if (sql == nullptr) return Status::Ok();
  VEIL_ASSIGN_OR_RETURN(const std::string name, pg_.Prepared(*sql, {}));
  steps->emplace_back();
  steps->back().name = name;
  return Status::Ok();
}

// One statement through a prepared statement cached by its SQL text; with the state's
// statement before it in the same round trip when CarryStateWithNextRead asked (`may_carry`:
// false for the state's own read).
Result<ResultPtr> PostgresStore::ExecCached(const std::string& sql,
                                            const std::vector<PgParam>& params, bool may_carry,
                                            bool force_generic) {
  VEIL_RETURN_IF_ERROR(EnsureConnected());
  const bool carry = may_carry && carry_state_;
  VEIL_RETURN_IF_ERROR(carry ? MakeRoom({sql, kLoadStateSql}) : MakeRoom({sql}));
  std::string state;
  if (carry) {
    VEIL_ASSIGN_OR_RETURN(state, pg_.Prepared(kLoadStateSql, {}));
  }
  VEIL_ASSIGN_OR_RETURN(const std::string name, pg_.Prepared(sql, params));
  // Without parameters there is only the generic plan.
  const bool generic = (reader_ || force_generic) && !params.empty();
  if (carry || generic || budget_armed_) {
    Step read;
    read.name = name;
    read.params = params;
    return ExecReadSteps(std::move(read), generic, carry ? &state : nullptr);
  }
  return pg_.ExecPrepared(name, params);
}

// Several reads through their cached prepared statements in one pipeline (one round trip);
// one read alone as ExecCached.
Result<std::vector<ResultPtr>> PostgresStore::ExecCachedAll(const std::vector<Compiled>& reads) {
  std::vector<ResultPtr> results;
  if (reads.size() == 1) {
    VEIL_ASSIGN_OR_RETURN(ResultPtr r, ExecCached(reads[0].sql, reads[0].params));
    results.push_back(std::move(r));
    return results;
  }
  VEIL_RETURN_IF_ERROR(EnsureConnected());
  std::vector<std::string_view> sqls;
  for (const Compiled& c : reads) sqls.push_back(c.sql);
  VEIL_RETURN_IF_ERROR(MakeRoom(sqls));
  std::vector<Step> steps(reads.size());
  for (std::size_t i = 0; i < reads.size(); ++i) {
    VEIL_ASSIGN_OR_RETURN(steps[i].name, pg_.Prepared(reads[i].sql, reads[i].params));
    steps[i].params = reads[i].params;
  }
  PipelineError err;
  VEIL_ASSIGN_OR_RETURN(const bool ok, RunPipeline(steps, &results, &err));
  if (ok) return results;
  return PgConnection::ReadFailure(results, err);
}

}  // namespace pg

Result<std::unique_ptr<Store>> OpenPostgresStore(const PostgresOptions& options) {
  if (options.url.empty()) return InvalidArgument("postgres: no connection URL");
  if (options.block_shapes == 0)
    return InvalidArgument("postgres: block_shapes must be at least 1");
  auto store = std::make_unique<pg::PostgresStore>(options);
  VEIL_RETURN_IF_ERROR(store->Init());
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace veil::ledger
