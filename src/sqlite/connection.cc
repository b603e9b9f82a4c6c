// The SQLite connection and its statement cache (connection.h).
#include "veil/sqlite/connection.h"

namespace veil::sqlite {

Connection::~Connection() {
  ClearCache();
  sqlite3_close(db_);
}

void Connection::ClearCache() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  cache_.clear();
}

Status Connection::Open(const std::string& path, int flags, const char* vfs) {
  VEIL_CHECK_MSG(db_ == nullptr, "sqlite::Connection::Open on an open connection");
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags, vfs) != SQLITE_OK) {
    std::string m = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Unavailable("cannot open " + path + ": " + m);
  }
  db_ = db;
  return Status::Ok();
}

Result<Statement> Connection::Prepare(const std::string& sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    if (cache_.size() >= kMaxCachedStatements && live_ == 0) ClearCache();
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()),
                           SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK) {
      return Internal(std::string("sqlite prepare: ") + sqlite3_errmsg(db_));
    }
    it = cache_.emplace(sql, stmt).first;
  }
  return Statement(db_, it->second, &live_);
}

Status Connection::Exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string m = err != nullptr ? err : "unknown";
    sqlite3_free(err);
    return Internal("sqlite: " + m);
  }
  return Status::Ok();
}

}  // namespace veil::sqlite
