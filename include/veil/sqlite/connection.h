// One SQLite connection with its prepared statements, cached by SQL text, and the statement
// handle that binds, steps and reads them: the one wrapper under every SQLite store (the ledger's
// SqliteStore, the guardian's share store).
//
// Connection::Prepare compiles a statement the first time its text is seen (SQLite's
// PREPARE_PERSISTENT) and hands out the cached one afterwards, so a hot path prepares nothing
// after warm-up. A Statement is a handle on the cached statement for one use: bind, step, read
// columns; when it goes, the statement is reset and its bindings cleared for the next use. The
// handle is returned by value (no allocation) and every call on it is inline (no virtual call).
// The cache holds at most kMaxCachedStatements texts (query shapes vary); when full, it is
// emptied at the next new text while no handle is alive.
//
// Errors: SQLite's failures are kInternal carrying SQLite's own message: "sqlite prepare: ...",
// "sqlite bind: ...", "sqlite: ..." (a step or Exec); a statement's first error sticks in
// status(), and after it Step returns false. Opening is kUnavailable ("cannot open PATH: ...").
// A blob column of the wrong length (ColArray) is kDataLoss.
//
// Thread safety: none; one thread at a time uses a connection and its handles (open it with
// SQLITE_OPEN_NOMUTEX). A handle must not outlive its connection.
#pragma once

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "veil/base/bytes.h"
#include "veil/base/result.h"

namespace veil::sqlite {

class Statement {
 public:
  // `live` counts the handles alive on the statement's connection (Connection::Prepare).
  Statement(sqlite3* db, sqlite3_stmt* stmt, int* live) : db_(db), stmt_(stmt), live_(live) {
    ++*live_;
  }
  Statement(Statement&& other) noexcept
      : db_(other.db_),
        stmt_(std::exchange(other.stmt_, nullptr)),
        live_(std::exchange(other.live_, nullptr)),
        status_(std::move(other.status_)) {}
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;
  ~Statement() {
    if (stmt_ == nullptr) return;
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    --*live_;
  }

  // Parameters are numbered from 1, as in SQLite.
  Statement& Int(int i, std::int64_t v) {
    Check(sqlite3_bind_int64(stmt_, i, v));
    return *this;
  }
  // An empty blob binds as a zero-length blob, not NULL.
  Statement& Blob(int i, ByteView b) {
    Check(sqlite3_bind_blob(stmt_, i, b.empty() ? "" : static_cast<const void*>(b.data()),
                            static_cast<int>(b.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& Text(int i, std::string_view t) {
    Check(sqlite3_bind_text(stmt_, i, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT));
    return *this;
  }

  // true: a row is ready; false: done, or failed (status() says which).
  bool Step() {
    if (!status_.ok()) return false;
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) status_ = Internal(std::string("sqlite: ") + sqlite3_errmsg(db_));
    return false;
  }
  // Steps to the end; the first error, if any.
  Status Run() {
    while (Step()) {
    }
    return status_;
  }
  const Status& status() const { return status_; }

  // Columns are numbered from 0, as in SQLite.
  std::int64_t ColInt(int i) { return sqlite3_column_int64(stmt_, i); }
  std::uint64_t ColU64(int i) { return static_cast<std::uint64_t>(sqlite3_column_int64(stmt_, i)); }
  // Valid until the next step or reset.
  ByteView ColBlob(int i) {
    const void* p = sqlite3_column_blob(stmt_, i);
    const int n = sqlite3_column_bytes(stmt_, i);
    if (p == nullptr || n <= 0) return {};
    return {static_cast<const std::uint8_t*>(p), static_cast<std::size_t>(n)};
  }
  std::string ColText(int i) {
    const auto* p = sqlite3_column_text(stmt_, i);
    const int n = sqlite3_column_bytes(stmt_, i);
    if (p == nullptr || n <= 0) return {};
    return std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n));
  }
  // A blob of exactly N bytes; otherwise zeros, and status() becomes kDataLoss.
  template <std::size_t N>
  std::array<std::uint8_t, N> ColArray(int i) {
    std::array<std::uint8_t, N> out{};
    const ByteView b = ColBlob(i);
    if (b.size() == N) {
      std::copy(b.begin(), b.end(), out.begin());
    } else if (status_.ok()) {
      status_ = DataLoss("stored value has the wrong length");
    }
    return out;
  }

  sqlite3_stmt* raw() { return stmt_; }

 private:
  void Check(int rc) {
    if (rc != SQLITE_OK && status_.ok()) {
      status_ = Internal(std::string("sqlite bind: ") + sqlite3_errmsg(db_));
    }
  }

  sqlite3* db_;
  sqlite3_stmt* stmt_;
  int* live_;
  Status status_;
};

class Connection {
 public:
  static constexpr std::size_t kMaxCachedStatements = 512;

  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  // Finalizes the cached statements and closes the connection.
  ~Connection();

  // sqlite3_open_v2(path, flags, vfs); on failure the connection stays closed.
  Status Open(const std::string& path, int flags, const char* vfs = nullptr);
  bool is_open() const { return db_ != nullptr; }
  sqlite3* get() const { return db_; }

  Result<Statement> Prepare(const std::string& sql);
  // Runs one or more statements that return no rows (sqlite3_exec).
  Status Exec(const char* sql);
  Status Exec(const std::string& sql) { return Exec(sql.c_str()); }
  // Rows the last INSERT, UPDATE or DELETE changed.
  std::int64_t changes() const { return sqlite3_changes64(db_); }

 private:
  void ClearCache();

  sqlite3* db_ = nullptr;
  std::unordered_map<std::string, sqlite3_stmt*> cache_;
  int live_ = 0;  // Statement handles alive; the cache is only emptied when none is
};

}  // namespace veil::sqlite
