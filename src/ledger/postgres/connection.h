// The PostgreSQL backend's connection (postgres_store.cc): one libpq session, its statements in
// binary format, the prepared statements of reads cached by their text, pipelines (every step
// sent, one Sync, every result read: one round trip), and the mapping of the server's errors to
// Status. It knows nothing of the ledger's tables; the store sets the session up after each
// (re)connect and decides when a broken session is reset.
//
// Internal to the ledger's PostgreSQL store. Thread safety: none; one user at a time, as the
// store it belongs to.
#pragma once

#include <libpq-fe.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "postgres/wire.h"
#include "veil/ledger/store.h"

namespace veil::ledger::pg {

// The name of the prepared write statement number `i` (PrepareWriteStatements; Step::stmt).
inline std::string WriteStmtName(int i) { return "veil_w" + std::to_string(i); }

// A statement prepared once per connection: its text and its parameters' types.
struct StmtDef {
  std::string sql;
  std::vector<Oid> types;
};

// One statement of a pipeline: a prepared write statement and its parameters; or, when set, the
// prepared statement `name` (a cached read) or the parameterless SQL `sql`.
struct Step {
  Step() = default;
  Step(int s, std::vector<PgParam> p) : stmt(s), params(std::move(p)) {}
  int stmt = 0;  // WriteStmt
  std::vector<PgParam> params;
  std::string name;
  const char* sql = nullptr;
};

// Where a pipeline failed: the step and the server's SQLSTATE and constraint.
struct PipelineError {
  std::size_t step = 0;
  std::string sqlstate;
  std::string constraint;
  std::string message;
};

// libpq's parameter arrays over `ps` (binary format; the values point into ps).
struct ParamArrays {
  std::vector<Oid> types;
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;
  explicit ParamArrays(const std::vector<PgParam>& ps) {
    for (const auto& p : ps) {
      types.push_back(p.type);
      values.push_back(p.data.data());
      lengths.push_back(static_cast<int>(p.data.size()));
      formats.push_back(1);
    }
  }
};

class PgConnection {
 public:
  PgConnection() = default;
  ~PgConnection() {
    if (conn_ != nullptr) PQfinish(conn_);
  }
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Starts connecting to `url`; whether it succeeded is PQstatus(get()), which the set-up checks.
  Status Connect(const std::string& url) {
    conn_ = PQconnectdb(url.c_str());
    if (conn_ == nullptr) return Unavailable("postgres: out of memory");
    return Status::Ok();
  }
  PGconn* get() const { return conn_; }
  // Statements sent and answered (Store::RoundTrips).
  std::uint64_t round_trips() const { return round_trips_; }

  // Whether the session needs a reset (and the store's set-up) before the next use: a pipeline
  // broke off, or a set-up did not complete.
  bool broken() const { return broken_; }
  void set_broken(bool broken) { broken_ = broken; }
  // Connected, and not broken.
  bool Usable() const { return !broken_ && PQstatus(conn_) == CONNECTION_OK; }
  // Reconnects (libpq's PQreset: the session's prepared statements and settings are gone).
  void Reset() { PQreset(conn_); }

  // An error of the connection itself, with libpq's message.
  Status Error(const std::string& what) const {
    return Unavailable("postgres: " + what + ": " + PQerrorMessage(conn_));
  }
  // A bad query input (a regex PostgreSQL refuses, text it cannot hold) is the caller's error;
  // a statement stopped by statement_timeout is WorkBudgetExceeded; anything else is ours or the
  // server's.
  static Status ResultError(const PGresult* r);
  // The error of a read pipeline that failed at err.step.
  static Status ReadFailure(const std::vector<ResultPtr>& results, const PipelineError& err);

  // Simple-protocol script (several statements; no parameters; no results kept). A failure
  // inside an explicit transaction rolls it back.
  Status ExecScript(const std::string& sql);
  // ROLLBACK (one round trip), its result ignored.
  void Rollback() {
    ++round_trips_;
    ResultPtr rb(PQexec(conn_, "ROLLBACK"));
  }
  // One statement, unnamed (planned with its parameters).
  Result<ResultPtr> Exec(const std::string& sql, const std::vector<PgParam>& params, bool binary) {
    ParamArrays a(params);
    ++round_trips_;
    ResultPtr r(PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), a.types.data(),
                             a.values.data(), a.lengths.data(), a.formats.data(), binary ? 1 : 0));
    return Checked(std::move(r));
  }
  // The prepared statement `name` with `params` (binary results).
  Result<ResultPtr> ExecPrepared(const std::string& name, const std::vector<PgParam>& params) {
    ParamArrays a(params);
    ++round_trips_;
    ResultPtr r(PQexecPrepared(conn_, name.c_str(), static_cast<int>(params.size()),
                               a.values.data(), a.lengths.data(), a.formats.data(), 1));
    return Checked(std::move(r));
  }

  // Prepares `sql` as `name` for parameters of `params`' types (one round trip).
  Status Prepare(const std::string& name, const std::string& sql,
                 const std::vector<PgParam>& params);
  // Prepares defs[i] as WriteStmtName(i), all in one pipeline (one round trip).
  Status PrepareWriteStatements(std::span<const StmtDef> defs);

  // The name of the prepared statement for `sql`, preparing it on first use (one round trip per
  // distinct query shape).
  Result<std::string> Prepared(const std::string& sql, const std::vector<PgParam>& params) {
    auto it = read_cache_.find(sql);
    if (it != read_cache_.end()) return it->second;
    return PrepareRead(sql, params);
  }
  // Whether the statements `sqls` fit in the bounded cache of prepared reads as it is.
  bool HasRoomFor(const std::vector<std::string_view>& sqls) const {
    std::size_t needed = 0;
    for (std::string_view sql : sqls) {
      needed += read_cache_.count(std::string(sql)) == 0 ? std::size_t{1} : 0;
    }
    return read_cache_.size() + needed <= kReadCacheSize;
  }
  // Forgets the cached reads (a new session has none).
  void ClearReadCache() { read_cache_.clear(); }

  // Sends every step, one sync, then reads every result: one round trip. false (with *err
  // filled) when a statement failed: the server skipped the rest and the transaction was rolled
  // back. Errors: the connection (which is then marked broken, to be reset before its next use).
  // With a gate (Store::CommitGate), the statements go to the server before it runs, so they
  // execute while it does, and the Sync that commits is sent once it has passed (two sends, still
  // one round trip); when it fails, a statement that raises an error goes before the Sync, so the
  // transaction rolls back, and the gate's error is returned.
  Result<bool> RunPipeline(const std::vector<Step>& steps, std::vector<ResultPtr>* results,
                           PipelineError* err, const Store::CommitGate& gate = {});

 private:
  static constexpr std::size_t kReadCacheSize = 512;
  Result<ResultPtr> Checked(ResultPtr r) const {
    if (r == nullptr) return Error("exec");
    const auto st = PQresultStatus(r.get());
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) return ResultError(r.get());
    return r;
  }
  Result<std::string> PrepareRead(const std::string& sql, const std::vector<PgParam>& params);

  PGconn* conn_ = nullptr;
  std::unordered_map<std::string, std::string> read_cache_;  // SQL text -> statement name
  std::uint64_t next_read_stmt_ = 0;
  std::uint64_t round_trips_ = 0;
  bool broken_ = false;
};

}  // namespace veil::ledger::pg
