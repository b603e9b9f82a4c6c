// The SQLite wrapper: bind, step, columns, reset on release, the statement cache, and errors
// that carry SQLite's message.
#include "veil/sqlite/connection.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "support/scratch_dir.h"

namespace veil::sqlite {
namespace {

constexpr int kFlags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;

class ConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(db_.Open((dir_.path() / "test.db").string(), kFlags).ok());
    ASSERT_TRUE(db_.Exec("CREATE TABLE t(i INTEGER PRIMARY KEY, b BLOB, s TEXT)").ok());
  }

  veil::testing::ScratchDir dir_{"veil-sqlite"};
  Connection db_;
};

TEST_F(ConnectionTest, BindsStepsAndReadsColumns) {
  {
    auto ins = db_.Prepare("INSERT INTO t(i, b, s) VALUES(?, ?, ?)");
    ASSERT_TRUE(ins.ok()) << ins.status().ToString();
    EXPECT_TRUE(ins->Int(1, -7).Blob(2, Bytes{1, 2, 3}).Text(3, "seven").Run().ok());
    EXPECT_EQ(db_.changes(), 1);
  }
  auto sel = db_.Prepare("SELECT i, b, s, i FROM t WHERE i = ?");
  ASSERT_TRUE(sel.ok());
  sel->Int(1, -7);
  ASSERT_TRUE(sel->Step());
  EXPECT_EQ(sel->ColInt(0), -7);
  EXPECT_EQ(sel->ColU64(3), static_cast<std::uint64_t>(std::int64_t{-7}));
  const ByteView b = sel->ColBlob(1);
  EXPECT_EQ(Bytes(b.begin(), b.end()), (Bytes{1, 2, 3}));
  EXPECT_EQ(sel->ColText(2), "seven");
  EXPECT_EQ(sel->ColArray<3>(1), (std::array<std::uint8_t, 3>{1, 2, 3}));
  EXPECT_TRUE(sel->status().ok());
  EXPECT_FALSE(sel->Step());
  EXPECT_TRUE(sel->status().ok());
}

TEST_F(ConnectionTest, AnEmptyBlobIsABlobNotNull) {
  auto s = db_.Prepare("SELECT typeof(?), length(?)");
  ASSERT_TRUE(s.ok());
  s->Blob(1, {}).Blob(2, {});
  ASSERT_TRUE(s->Step());
  EXPECT_EQ(s->ColText(0), "blob");
  EXPECT_EQ(s->ColInt(1), 0);
}

TEST_F(ConnectionTest, AColumnOfTheWrongLengthIsDataLoss) {
  auto s = db_.Prepare("SELECT x'0102'");
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->Step());
  EXPECT_EQ(s->ColArray<3>(0), (std::array<std::uint8_t, 3>{}));
  EXPECT_EQ(s->status().code(), Code::kDataLoss);
  EXPECT_FALSE(s->Step());  // the error sticks
}

// A released handle leaves its statement reset and unbound; the next Prepare of the same text
// hands out the same compiled statement.
TEST_F(ConnectionTest, ReleaseResetsAndTheCacheReusesTheStatement) {
  sqlite3_stmt* first = nullptr;
  {
    auto s = db_.Prepare("SELECT ?");
    ASSERT_TRUE(s.ok());
    first = s->raw();
    s->Int(1, 42);
    ASSERT_TRUE(s->Step());  // left mid-way: a row is pending
    EXPECT_EQ(s->ColInt(0), 42);
    EXPECT_TRUE(sqlite3_stmt_busy(first));
  }
  EXPECT_FALSE(sqlite3_stmt_busy(first));
  auto again = db_.Prepare("SELECT ?");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->raw(), first);
  ASSERT_TRUE(again->Step());
  EXPECT_EQ(sqlite3_column_type(again->raw(), 0), SQLITE_NULL);  // the binding was cleared
}

TEST_F(ConnectionTest, AMovedHandleResetsOnce) {
  auto s = db_.Prepare("SELECT 1");
  ASSERT_TRUE(s.ok());
  sqlite3_stmt* raw = s->raw();
  {
    Statement moved = std::move(*s);
    ASSERT_TRUE(moved.Step());
    EXPECT_TRUE(sqlite3_stmt_busy(raw));
  }
  EXPECT_FALSE(sqlite3_stmt_busy(raw));
}

TEST_F(ConnectionTest, ErrorsCarrySqlitesMessage) {
  Status exec = db_.Exec("CREAT TABLE u(x)");
  EXPECT_EQ(exec.code(), Code::kInternal);
  EXPECT_EQ(exec.message(), "sqlite: near \"CREAT\": syntax error");

  auto prepare = db_.Prepare("SELECT * FROM nope");
  EXPECT_EQ(prepare.status().code(), Code::kInternal);
  EXPECT_EQ(prepare.status().message(), "sqlite prepare: no such table: nope");

  auto bind = db_.Prepare("SELECT ?");
  ASSERT_TRUE(bind.ok());
  bind->Int(2, 1);
  EXPECT_EQ(bind->status().message(), "sqlite bind: column index out of range");
  EXPECT_FALSE(bind->Step());  // nothing runs after an error
  EXPECT_EQ(bind->Run().code(), Code::kInternal);

  ASSERT_TRUE(db_.Exec("INSERT INTO t(i) VALUES(1)").ok());
  auto dup = db_.Prepare("INSERT INTO t(i) VALUES(?)");
  ASSERT_TRUE(dup.ok());
  const Status step = dup->Int(1, 1).Run();
  EXPECT_EQ(step.code(), Code::kInternal);
  EXPECT_EQ(step.message(), "sqlite: UNIQUE constraint failed: t.i");
}

TEST(Connection, OpenFailureIsUnavailableAndNamesThePath) {
  veil::testing::ScratchDir dir("veil-sqlite");
  Connection db;
  const std::string path = (dir.path() / "absent" / "x.db").string();
  const Status s = db.Open(path, kFlags);
  EXPECT_EQ(s.code(), Code::kUnavailable);
  EXPECT_EQ(s.message().rfind("cannot open " + path + ": ", 0), 0u) << s.message();
  EXPECT_FALSE(db.is_open());
}

std::size_t PreparedStatements(sqlite3* db) {
  std::size_t n = 0;
  for (sqlite3_stmt* s = sqlite3_next_stmt(db, nullptr); s != nullptr;
       s = sqlite3_next_stmt(db, s)) {
    ++n;
  }
  return n;
}

// Past kMaxCachedStatements texts the cache is emptied, but never under a live handle.
TEST_F(ConnectionTest, TheCacheIsBoundedAndNeverDropsALiveStatement) {
  const std::size_t kMax = Connection::kMaxCachedStatements;
  {
    auto held = db_.Prepare("SELECT 'held'");
    ASSERT_TRUE(held.ok());
    for (std::size_t i = 0; i < kMax + 10; ++i) {
      auto s = db_.Prepare("SELECT " + std::to_string(i));
      ASSERT_TRUE(s.ok());
      ASSERT_TRUE(s->Step());
      ASSERT_EQ(s->ColU64(0), i);
    }
    EXPECT_EQ(PreparedStatements(db_.get()), kMax + 11);  // nothing dropped under `held`
    ASSERT_TRUE(held->Step());
    EXPECT_EQ(held->ColText(0), "held");
  }
  for (std::size_t i = 0; i < kMax + 10; ++i) {
    auto s = db_.Prepare("SELECT 'x" + std::to_string(i) + "'");
    ASSERT_TRUE(s.ok());
  }
  EXPECT_LE(PreparedStatements(db_.get()), kMax);
}

}  // namespace
}  // namespace veil::sqlite
