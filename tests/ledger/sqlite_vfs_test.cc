// The coalescing WAL VFS (src/ledger/sqlite_vfs.h): a transaction's frames reach the file in one
// write, and nothing a second connection, a rollback or a checkpoint sees is different from
// SQLite's own VFS.
#include "../../src/ledger/sqlite_vfs.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/scratch_dir.h"

namespace veil::ledger {
namespace {

using internal::CoalescingWalVfsName;
using internal::GetCoalescingWalStats;

class Db {
 public:
  Db(const std::string& path, const char* vfs) {
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db_, flags, vfs), SQLITE_OK);
  }
  ~Db() { sqlite3_close(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  void Exec(const std::string& sql) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    ASSERT_EQ(rc, SQLITE_OK) << sql << ": " << (err != nullptr ? err : "");
    sqlite3_free(err);
  }
  std::int64_t Int(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql;
    std::int64_t v = -1;
    if (sqlite3_step(s) == SQLITE_ROW) v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
  }
  std::string Text(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql;
    std::string v;
    if (sqlite3_step(s) == SQLITE_ROW) {
      v = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    }
    sqlite3_finalize(s);
    return v;
  }
  // Rows id, id + 1, ... with a blob of `bytes` derived from the id, in one transaction.
  void InsertRows(std::int64_t first, std::int64_t count, std::int64_t bytes) {
    const std::string n = std::to_string(bytes);
    Exec("WITH RECURSIVE s(v) AS (SELECT " + std::to_string(first) +
         " UNION ALL SELECT v + 1 "
         "FROM s WHERE v < " +
         std::to_string(first + count - 1) +
         ") INSERT INTO t(id, body) "
         "SELECT v, substr(replace(hex(zeroblob(" +
         n + ")), '00', printf('%02x', v % 256)), 1, " + n + ") FROM s");
  }

 private:
  sqlite3* db_ = nullptr;
};

class SqliteVfsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(CoalescingWalVfsName(), nullptr);
    path_ = (dir_.path() / "t.db").string();
  }

  veil::testing::ScratchDir dir_{"veil-vfs-test"};
  std::string path_;
};

// Each row's body is a function of its id; the check reads every row back.
std::string ExpectedChecksum(Db& db, const std::string& table) {
  return db.Text(
      "SELECT count(*) || ':' || coalesce(sum(length(body)), 0) || ':' || "
      "coalesce(sum(CASE WHEN body = substr(replace(hex(zeroblob(length(body))), '00', "
      "printf('%02x', id % 256)), 1, length(body)) THEN 1 ELSE 0 END), 0) FROM " +
      table);
}

TEST_F(SqliteVfsTest, ATransactionsFramesReachTheFileInOneWrite) {
  Db w(path_, CoalescingWalVfsName());
  w.Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
  w.Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  w.Exec("CREATE INDEX t_body ON t(substr(body, 1, 8), id)");
  const auto before = GetCoalescingWalStats();
  // About 20 pages: 20 rows of 3 KiB, each on its own page, plus the index.
  w.InsertRows(1, 20, 3000);
  const auto after = GetCoalescingWalStats();
  const auto asked = after.wal_writes - before.wal_writes;
  const auto done = after.real_writes - before.real_writes;
  EXPECT_GE(asked, 40u) << "SQLite writes a frame as a header and a page";
  EXPECT_LE(done, 2u) << asked << " WAL writes became " << done << " file writes";
  // Another connection on SQLite's own VFS sees the committed rows.
  Db r(path_, nullptr);
  EXPECT_EQ(ExpectedChecksum(r, "t"), "20:60000:20");
  EXPECT_EQ(r.Text("PRAGMA integrity_check"), "ok");
}

// With synchronous=NORMAL SQLite does not sync at a commit: the frames must still be in the file
// before the commit is published to other connections.
TEST_F(SqliteVfsTest, CommitsAreVisibleWithoutASync) {
  Db w(path_, CoalescingWalVfsName());
  w.Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
  w.Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  Db r(path_, nullptr);
  for (int round = 0; round < 20; ++round) {
    w.InsertRows(round * 10 + 1, 10, 700 + 100 * round);
    EXPECT_EQ(r.Int("SELECT count(*) FROM t"), (round + 1) * 10) << round;
  }
  EXPECT_EQ(r.Text("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(ExpectedChecksum(r, "t").substr(0, 4), "200:");
}

// A transaction larger than the gathering limit and than one write of the real VFS; then a
// checkpoint, a reopen, and the same rows.
TEST_F(SqliteVfsTest, LargeTransactionsAndCheckpoints) {
  {
    Db w(path_, CoalescingWalVfsName());
    w.Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
    w.Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    w.InsertRows(1, 600, 10000);  // about 6 MiB in one transaction
    Db r(path_, nullptr);
    EXPECT_EQ(ExpectedChecksum(r, "t"), "600:6000000:600");
    w.Exec("PRAGMA wal_checkpoint(TRUNCATE)");
    w.InsertRows(601, 5, 200);
    EXPECT_EQ(ExpectedChecksum(r, "t"), "605:6001000:605");
  }
  Db again(path_, CoalescingWalVfsName());
  EXPECT_EQ(again.Text("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(ExpectedChecksum(again, "t"), "605:6001000:605");
}

// A small page cache makes SQLite spill an open transaction's pages into the WAL before the
// commit; a rollback must leave no trace, and the next commit must read the spilled frames back
// correctly.
TEST_F(SqliteVfsTest, SpilledTransactionsRollBackAndCommit) {
  Db w(path_, CoalescingWalVfsName());
  w.Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_size=8;");
  w.Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  w.InsertRows(1, 10, 500);
  w.Exec("BEGIN");
  w.InsertRows(11, 300, 3000);
  w.Exec("UPDATE t SET body = body WHERE id % 7 = 0");
  w.Exec("ROLLBACK");
  Db r(path_, nullptr);
  EXPECT_EQ(ExpectedChecksum(r, "t"), "10:5000:10");
  w.Exec("BEGIN");
  w.InsertRows(11, 300, 3000);
  w.Exec("DELETE FROM t WHERE id % 5 = 0");
  w.Exec("COMMIT");
  EXPECT_EQ(r.Int("SELECT count(*) FROM t"), 248);
  EXPECT_EQ(ExpectedChecksum(r, "t"), ExpectedChecksum(w, "t"));
  EXPECT_EQ(r.Text("PRAGMA integrity_check"), "ok");
}

}  // namespace
}  // namespace veil::ledger
