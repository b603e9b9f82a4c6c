// PgConnection (connection.h): statements, prepared statements and pipelines over one libpq
// session.
#include "postgres/connection.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace veil::ledger::pg {
namespace {

// Sent in place of a pipeline's commit when its CommitGate fails: an error, which rolls the
// pipeline's implicit transaction back at the Sync.
constexpr const char* kRefuseCommit =
    "DO $$BEGIN RAISE EXCEPTION 'veil: the write was refused before its commit'; END$$";

}  // namespace

Status PgConnection::ResultError(const PGresult* r) {
  const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  const std::string m = PQresultErrorMessage(r);
  if (state != nullptr && (std::strcmp(state, "2201B") == 0 || std::strcmp(state, "22021") == 0 ||
                           std::strcmp(state, "22P05") == 0)) {
    return InvalidArgument("query: " + m);
  }
  // query_canceled: the read's statement_timeout (BudgetScope; nothing else cancels ours).
  if (state != nullptr && std::strcmp(state, "57014") == 0) {
    return WorkBudgetExceeded("PostgreSQL statement_timeout");
  }
  return Internal("postgres: " + m);
}

Status PgConnection::ReadFailure(const std::vector<ResultPtr>& results, const PipelineError& err) {
  if (err.step < results.size()) return ResultError(results[err.step].get());
  return Internal("postgres: " + err.message);
}

Status PgConnection::ExecScript(const std::string& sql) {
  ++round_trips_;
  ResultPtr r(PQexec(conn_, sql.c_str()));
  if (r == nullptr) return Error("exec");
  const auto st = PQresultStatus(r.get());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    const std::string m = PQresultErrorMessage(r.get());
    if (PQtransactionStatus(conn_) == PQTRANS_INERROR) Rollback();
    return Internal("postgres: " + m);
  }
  return Status::Ok();
}

Status PgConnection::Prepare(const std::string& name, const std::string& sql,
                             const std::vector<PgParam>& params) {
  ParamArrays a(params);
  ++round_trips_;
  ResultPtr p(
      PQprepare(conn_, name.c_str(), sql.c_str(), static_cast<int>(params.size()), a.types.data()));
  if (p == nullptr || PQstatus(conn_) != CONNECTION_OK) return Error("prepare");
  if (PQresultStatus(p.get()) != PGRES_COMMAND_OK) return ResultError(p.get());
  return Status::Ok();
}

Status PgConnection::PrepareWriteStatements(std::span<const StmtDef> defs) {
  if (PQenterPipelineMode(conn_) != 1) return Error("pipeline mode");
  for (std::size_t i = 0; i < defs.size(); ++i) {
    const StmtDef& d = defs[i];
    if (PQsendPrepare(conn_, WriteStmtName(static_cast<int>(i)).c_str(), d.sql.c_str(),
                      static_cast<int>(d.types.size()), d.types.data()) != 1) {
      return Error("prepare");
    }
  }
  ++round_trips_;
  if (PQpipelineSync(conn_) != 1) return Error("pipeline sync");
  std::string failure;
  for (std::size_t i = 0; i < defs.size(); ++i) {
    while (PGresult* raw = PQgetResult(conn_)) {
      ResultPtr r(raw);
      if (PQresultStatus(raw) != PGRES_COMMAND_OK && failure.empty()) {
        failure = PQresultErrorMessage(raw);
      }
    }
  }
  ResultPtr sync(PQgetResult(conn_));
  if (sync == nullptr || PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC) {
    return Error("pipeline sync result");
  }
  if (PQexitPipelineMode(conn_) != 1) return Error("pipeline exit");
  if (!failure.empty()) return Internal("postgres: prepare: " + failure);
  return Status::Ok();
}

Result<std::string> PgConnection::PrepareRead(const std::string& sql,
                                              const std::vector<PgParam>& params) {
  const std::string name = "veil_r" + std::to_string(next_read_stmt_++);
  VEIL_RETURN_IF_ERROR(Prepare(name, sql, params));
  read_cache_.emplace(sql, name);
  return name;
}

Result<bool> PgConnection::RunPipeline(const std::vector<Step>& steps,
                                       std::vector<ResultPtr>* results, PipelineError* err,
                                       const Store::CommitGate& gate) {
  broken_ = true;  // until the pipeline completes
  if (PQenterPipelineMode(conn_) != 1) return Error("pipeline mode");
  for (const auto& s : steps) {
    ParamArrays a(s.params);
    const int n = static_cast<int>(s.params.size());
    const int ok =
        s.sql != nullptr
            ? PQsendQueryParams(conn_, s.sql, n, a.types.data(), a.values.data(), a.lengths.data(),
                                a.formats.data(), 1)
            : PQsendQueryPrepared(conn_, (s.name.empty() ? WriteStmtName(s.stmt) : s.name).c_str(),
                                  n, a.values.data(), a.lengths.data(), a.formats.data(), 1);
    if (ok != 1) return Error("pipeline send");
  }
  Status gate_status;
  std::size_t sent = steps.size();
  if (gate) {
    if (PQflush(conn_) != 0) return Error("pipeline flush");
    try {
      gate_status = gate();
    } catch (...) {
      // The transaction is open on the server with the chain's write lock: drop the
      // connection, which rolls it back, rather than leave it until the next call.
      PQreset(conn_);
      throw;
    }
    if (!gate_status.ok()) {
      if (PQsendQueryParams(conn_, kRefuseCommit, 0, nullptr, nullptr, nullptr, nullptr, 1) != 1) {
        return Error("pipeline send");
      }
      ++sent;
    }
  }
  ++round_trips_;
  if (PQpipelineSync(conn_) != 1) return Error("pipeline sync");
  bool failed = false;
  auto note_failure = [&](const PGresult* raw, std::size_t step) {
    if (failed || PQresultStatus(raw) != PGRES_FATAL_ERROR) return;
    failed = true;
    err->step = step;
    const char* state = PQresultErrorField(raw, PG_DIAG_SQLSTATE);
    const char* constraint = PQresultErrorField(raw, PG_DIAG_CONSTRAINT_NAME);
    err->sqlstate = state != nullptr ? state : "";
    err->constraint = constraint != nullptr ? constraint : "";
    err->message = PQresultErrorMessage(raw);
    while (!err->message.empty() && err->message.back() == '\n') err->message.pop_back();
  };
  results->clear();
  for (std::size_t i = 0; i < sent; ++i) {
    ResultPtr kept;
    while (PGresult* raw = PQgetResult(conn_)) {
      ResultPtr r(raw);
      note_failure(raw, i);
      if (kept == nullptr) kept = std::move(r);
    }
    if (kept == nullptr) return Error("pipeline result");
    results->push_back(std::move(kept));
  }
  // The Sync commits the implicit transaction; a commit that fails reports its error before
  // the Sync's own result (as step steps.size(), "the commit").
  ResultPtr sync;
  for (int k = 0; k < 4; ++k) {
    sync.reset(PQgetResult(conn_));
    if (sync == nullptr) continue;  // the end of the failed commit's results
    if (PQresultStatus(sync.get()) == PGRES_PIPELINE_SYNC) break;
    note_failure(sync.get(), steps.size());
  }
  if (sync == nullptr || PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC) {
    return Error("pipeline sync result");
  }
  if (PQexitPipelineMode(conn_) != 1) return Error("pipeline exit");
  broken_ = false;
  if (!gate_status.ok()) {
    // (The refusing statement's failure, noted as step steps.size() like a failed commit,
    // is superseded by the gate's error.)
    results->resize(steps.size());
    return gate_status;
  }
  if (!failed) return true;
  // The Sync has rolled the implicit transaction back. A transaction still open (a pipeline
  // that began one explicitly, which ours do not) is ended here, at the cost of a round trip.
  if (PQtransactionStatus(conn_) != PQTRANS_IDLE) {
    Rollback();
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) broken_ = true;
  }
  return false;
}

}  // namespace veil::ledger::pg
