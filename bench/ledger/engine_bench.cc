// The engines' own limits, measured in the same binary and run as the ledger rows
// (ledger_bench.cc), so performance.md takes ratios within one run. Every write row here is what
// the issue calls "an entity row plus 8 indexed attribute rows" per durable transaction, keyed by
// a sequential integer id, with nothing else of the ledger (no blocks, transactions, changes,
// accounts, hashing or signatures):
//
//   entities(id integer primary key, key blob unique, payload blob)      -- 32-byte random key
//   attr_str / attr_num(entity_id, name, value, primary key(entity_id, name)),
//     index (name, value, entity_id)                                     -- the ledger's shapes
//
// Rows (wall time, UseManualTime; items/s counts entities; p50_us/p99_us per transaction):
//   BM_Engine_Fdatasync4K               pwrite of 4 KiB at offset 0 + fdatasync, in the scratch
//                                       directory (the filesystem of the SQLite write rows)
//   BM_Engine_Sqlite_OneEntity          one entity per transaction: BEGIN IMMEDIATE, 9 prepared
//                                       inserts, COMMIT; WAL, synchronous=FULL
//   BM_Engine_Sqlite_OneEntity_Page2K   the same with 2 KiB pages instead of SQLite's 4 KiB
//                                       (beside the ledger's sqlite-page2k row)
//   BM_Engine_Sqlite_Batch20            20 entities (180 rows) per transaction, same statements
//   (both after an untimed warm-up that leaves the log reused in place, WarmUpSqliteLog;
//   BM_Engine_Sqlite_OneEntity_FirstFill without it)
//   BM_Engine_Pg_RoundTrip              a prepared SELECT 1 (one round trip over loopback)
//   BM_Engine_Pg_StatementPerRow        one entity, BEGIN + 9 single-row INSERTs + COMMIT, each
//                                       its own round trip (11): the cap without pipelining
//   BM_Engine_Pg_PipelineOneEntity      one entity: BEGIN, entity, 4 string and 4 numeric
//                                       attribute rows (two multi-row INSERTs), COMMIT, as one
//                                       libpq pipeline (one round trip)
//   BM_Engine_Pg_PipelineBatch20        20 entities per transaction, the same 5 statements with
//                                       20 / 80 / 80 rows, one pipeline
// The PostgreSQL rows exist only with VEIL_BENCH_POSTGRES_URL; each run makes a fresh schema and
// drops it afterwards. Parameters go in binary format, as in the ledger's PostgreSQL store.
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.h"

namespace veil::bench_ledger {
namespace {

// The attribute rows of entity i, in the same values as the ledger rows' entities.
struct AttrRows {
  std::array<std::pair<const char*, std::string>, 4> str;
  std::array<std::pair<const char*, std::int64_t>, 4> num;
};

AttrRows RowsOf(std::uint64_t i) {
  return {{{{"kind", "doc"}, {"name", Name(i)}, {"region", Region(i)}, {"status", StatusOf(i)}}},
          {{{"bucket", Biased(i % kBuckets)},
            {"idx", Biased(i)},
            {"score", Biased(Score(i))},
            {"version", Biased(1)}}}};
}

std::array<std::uint8_t, 32> RandomKey(std::uint64_t i) {
  std::array<std::uint8_t, 32> k{};
  for (std::size_t j = 0; j < k.size(); j += 8) {
    const std::uint64_t w = Mix(i * 4 + j + 0x6b6579);
    std::memcpy(k.data() + j, &w, 8);
  }
  return k;
}

// ---------------------------------------------------------------------------------------------
// fdatasync

void BM_Engine_Fdatasync4K(benchmark::State& state) {
  const std::string path = ScratchDir::NewFile("fdatasync").string();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    state.SkipWithError("open failed");
    return;
  }
  std::vector<std::uint8_t> block(4096, 0x5a);
  // Allocate the block first, so the timed fdatasync writes data only (no size change).
  if (::pwrite(fd, block.data(), block.size(), 0) != 4096 || ::fsync(fd) != 0) {
    state.SkipWithError("pwrite/fsync failed");
  }
  Latencies lat(state);
  std::uint8_t n = 0;
  for (auto _ : state) {
    block[0] = ++n;
    const bool good = lat.Time([&] {
      return ::pwrite(fd, block.data(), block.size(), 0) == 4096 && ::fdatasync(fd) == 0;
    });
    if (!good) {
      state.SkipWithError("pwrite/fdatasync failed");
      break;
    }
  }
  lat.Report();
  ::close(fd);
  ::unlink(path.c_str());
}
BENCHMARK(BM_Engine_Fdatasync4K)->UseManualTime()->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------------------------------------
// SQLite

class RawSqlite {
 public:
  // page_size 0: SQLite's default (4 KiB), the raw program the issue measured.
  explicit RawSqlite(int page_size = 0)
      : path_(ScratchDir::NewFile("raw-sqlite").string() + ".db") {
    const std::string page = "PRAGMA page_size=" + std::to_string(page_size);
    ok_ = sqlite3_open(path_.c_str(), &db_) == SQLITE_OK &&
          (page_size == 0 || Exec(page.c_str())) && Exec("PRAGMA journal_mode=WAL") &&
          Exec("PRAGMA synchronous=FULL") &&
          Exec(
              "CREATE TABLE entities(id INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, "
              "payload BLOB NOT NULL);"
              "CREATE TABLE attr_str(entity_id INTEGER NOT NULL, name TEXT NOT NULL, "
              "value TEXT NOT NULL, PRIMARY KEY(entity_id, name)) WITHOUT ROWID;"
              "CREATE INDEX attr_str_nv ON attr_str(name, value, entity_id);"
              "CREATE TABLE attr_num(entity_id INTEGER NOT NULL, name TEXT NOT NULL, "
              "value INTEGER NOT NULL, PRIMARY KEY(entity_id, name)) WITHOUT ROWID;"
              "CREATE INDEX attr_num_nv ON attr_num(name, value, entity_id);") &&
          Prepare("BEGIN IMMEDIATE", &begin_) && Prepare("COMMIT", &commit_) &&
          Prepare("INSERT INTO entities(id, key, payload) VALUES(?, ?, ?)", &entity_) &&
          Prepare("INSERT INTO attr_str(entity_id, name, value) VALUES(?, ?, ?)", &str_) &&
          Prepare("INSERT INTO attr_num(entity_id, name, value) VALUES(?, ?, ?)", &num_);
  }
  ~RawSqlite() {
    for (sqlite3_stmt* s : {begin_, commit_, entity_, str_, num_}) sqlite3_finalize(s);
    sqlite3_close(db_);
    RemoveSqliteFiles(path_);
  }
  RawSqlite(const RawSqlite&) = delete;
  RawSqlite& operator=(const RawSqlite&) = delete;

  bool ok() const { return ok_; }
  const std::string& path() const { return path_; }
  // One durable transaction holding entities [first, first + count).
  bool Write(std::uint64_t first, std::uint64_t count) {
    if (!Step(begin_)) return false;
    for (std::uint64_t i = first; i < first + count; ++i) {
      const auto id = static_cast<sqlite3_int64>(i + 1);
      const auto key = RandomKey(i);
      const Bytes payload = Payload(i);
      sqlite3_bind_int64(entity_, 1, id);
      sqlite3_bind_blob(entity_, 2, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
      sqlite3_bind_blob(entity_, 3, payload.data(), static_cast<int>(payload.size()),
                        SQLITE_TRANSIENT);
      if (!Step(entity_)) return false;
      const AttrRows rows = RowsOf(i);
      for (const auto& [name, value] : rows.str) {
        sqlite3_bind_int64(str_, 1, id);
        sqlite3_bind_text(str_, 2, name, -1, SQLITE_STATIC);
        sqlite3_bind_text(str_, 3, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
        if (!Step(str_)) return false;
      }
      for (const auto& [name, value] : rows.num) {
        sqlite3_bind_int64(num_, 1, id);
        sqlite3_bind_text(num_, 2, name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(num_, 3, value);
        if (!Step(num_)) return false;
      }
    }
    return Step(commit_);
  }

 private:
  bool Exec(const char* sql) {
    return sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
  }
  bool Prepare(const char* sql, sqlite3_stmt** out) {
    return sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, out, nullptr) == SQLITE_OK;
  }
  static bool Step(sqlite3_stmt* s) {
    const int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE;
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  bool ok_ = false;
  sqlite3_stmt* begin_ = nullptr;
  sqlite3_stmt* commit_ = nullptr;
  sqlite3_stmt* entity_ = nullptr;
  sqlite3_stmt* str_ = nullptr;
  sqlite3_stmt* num_ = nullptr;
};

void BM_Engine_Sqlite(benchmark::State& state, std::uint64_t batch, bool first_fill,
                      int page_size) {
  RawSqlite db(page_size);
  if (!db.ok()) {
    state.SkipWithError("raw SQLite set-up failed");
    return;
  }
  std::uint64_t next = 0;
  if (!first_fill) {
    const bool warm = WarmUpSqliteLog(state, db.path(), [&] {
      const bool ok = db.Write(next, batch);
      next += batch;
      return ok;
    });
    if (!warm) return;
  }
  const std::uint64_t first = next;
  Latencies lat(state);
  for (auto _ : state) {
    if (!lat.Time([&] { return db.Write(next, batch); })) {
      state.SkipWithError("raw SQLite write failed");
      break;
    }
    next += batch;
  }
  lat.Report();
  state.SetItemsProcessed(static_cast<std::int64_t>(next - first));
}
const bool kSqliteRegistered = [] {
  benchmark::RegisterBenchmark("BM_Engine_Sqlite_OneEntity", BM_Engine_Sqlite, std::uint64_t{1},
                               false, 0)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Engine_Sqlite_OneEntity_Page2K", BM_Engine_Sqlite,
                               std::uint64_t{1}, false, 2048)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Engine_Sqlite_Batch20", BM_Engine_Sqlite, std::uint64_t{20},
                               false, 0)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Engine_Sqlite_OneEntity_FirstFill", BM_Engine_Sqlite,
                               std::uint64_t{1}, true, 0)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  return true;
}();

// ---------------------------------------------------------------------------------------------
// PostgreSQL

// Binary parameters of one prepared statement.
class PgParams {
 public:
  void Int8(std::int64_t v) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i) {
      s[static_cast<std::size_t>(i)] =
          static_cast<char>(static_cast<std::uint64_t>(v) >> (56 - 8 * i));
    }
    Add(std::move(s));
  }
  void Text(std::string s) { Add(std::move(s)); }
  void Blob(ByteView b) { Add(std::string(b.begin(), b.end())); }
  int size() const { return static_cast<int>(values_.size()); }
  // Pointers stay valid while the object lives and nothing is added.
  void Finish() {
    ptrs_.clear();
    lengths_.clear();
    for (const auto& v : values_) {
      ptrs_.push_back(v.data());
      lengths_.push_back(static_cast<int>(v.size()));
    }
    formats_.assign(values_.size(), 1);
  }
  const char* const* values() const { return ptrs_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  void Add(std::string s) { values_.push_back(std::move(s)); }
  std::vector<std::string> values_;
  std::vector<const char*> ptrs_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
};

// "INSERT INTO t(cols) VALUES($1, $2, $3), ($4, ...)" for `rows` rows of `cols` columns.
std::string MultiRowInsert(const std::string& head, int rows, int cols) {
  std::string sql = head + " VALUES";
  int p = 1;
  for (int r = 0; r < rows; ++r) {
    sql += r == 0 ? "(" : ", (";
    for (int c = 0; c < cols; ++c) sql += (c == 0 ? "$" : ", $") + std::to_string(p++);
    sql += ")";
  }
  return sql;
}

class RawPg {
 public:
  explicit RawPg(int batch) : pg_(PostgresUrl()), schema_(ScratchSchema("raw")), batch_(batch) {
    const std::string s = QuoteIdent(schema_);
    ok_ = pg_.ok() && pg_.Exec("CREATE SCHEMA " + s) && pg_.Exec("SET search_path TO " + s) &&
          pg_.Exec(
              "CREATE TABLE entities(id bigint PRIMARY KEY, key bytea NOT NULL UNIQUE, "
              "payload bytea NOT NULL);"
              "CREATE TABLE attr_str(entity_id bigint NOT NULL, name text COLLATE \"C\" "
              "NOT NULL, value text COLLATE \"C\" NOT NULL, PRIMARY KEY(entity_id, name));"
              "CREATE INDEX attr_str_nv ON attr_str(name, value, entity_id);"
              "CREATE TABLE attr_num(entity_id bigint NOT NULL, name text COLLATE \"C\" "
              "NOT NULL, value bigint NOT NULL, PRIMARY KEY(entity_id, name));"
              "CREATE INDEX attr_num_nv ON attr_num(name, value, entity_id);") &&
          Prepare("one", "SELECT 1") &&
          Prepare("entity", MultiRowInsert("INSERT INTO entities(id, key, payload)", batch, 3)) &&
          Prepare("str",
                  MultiRowInsert("INSERT INTO attr_str(entity_id, name, value)", 4 * batch, 3)) &&
          Prepare("num",
                  MultiRowInsert("INSERT INTO attr_num(entity_id, name, value)", 4 * batch, 3)) &&
          Prepare("entity1", MultiRowInsert("INSERT INTO entities(id, key, payload)", 1, 3)) &&
          Prepare("str1", MultiRowInsert("INSERT INTO attr_str(entity_id, name, value)", 1, 3)) &&
          Prepare("num1", MultiRowInsert("INSERT INTO attr_num(entity_id, name, value)", 1, 3));
  }
  ~RawPg() {
    if (PQpipelineStatus(pg_.get()) != PQ_PIPELINE_OFF) PQexitPipelineMode(pg_.get());
    DropSchema(schema_);
  }
  RawPg(const RawPg&) = delete;
  RawPg& operator=(const RawPg&) = delete;

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }

  bool SelectOne() {
    PGresult* r = PQexecPrepared(pg_.get(), "one", 0, nullptr, nullptr, nullptr, 1);
    const bool good = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
    PQclear(r);
    return good;
  }

  // One transaction of batch_ entities starting at `first`, pipelined: one round trip.
  bool PipelineWrite(std::uint64_t first) {
    PGconn* c = pg_.get();
    if (PQpipelineStatus(c) == PQ_PIPELINE_OFF && PQenterPipelineMode(c) != 1) return Fail();
    PgParams e, s, n;
    Fill(first, static_cast<std::uint64_t>(batch_), e, s, n);
    bool sent = Send("BEGIN") && SendPrepared("entity", e) && SendPrepared("str", s) &&
                SendPrepared("num", n) && Send("COMMIT") && PQpipelineSync(c) == 1;
    if (!sent) return Fail();
    // Five results (each followed by a null), then the sync.
    bool good = true;
    for (int i = 0; i < 5; ++i) {
      PGresult* r = PQgetResult(c);
      if (r == nullptr) return false;
      if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        if (good) error_ = PQresultErrorMessage(r);
        good = false;
      }
      PQclear(r);
      PQclear(PQgetResult(c));  // the null that ends this query's results
    }
    PGresult* sync = PQgetResult(c);
    good = good && sync != nullptr && PQresultStatus(sync) == PGRES_PIPELINE_SYNC;
    PQclear(sync);
    return good;
  }

  // One entity in one transaction, one statement (one round trip) per row.
  bool StatementPerRow(std::uint64_t i) {
    if (!ExecParams("BEGIN")) return false;
    const AttrRows rows = RowsOf(i);
    const auto id = static_cast<std::int64_t>(i + 1);
    {
      PgParams p;
      p.Int8(id);
      const auto key = RandomKey(i);
      p.Blob(key);
      p.Blob(Payload(i));
      if (!ExecPrepared("entity1", p)) return false;
    }
    for (const auto& [name, value] : rows.str) {
      PgParams p;
      p.Int8(id);
      p.Text(name);
      p.Text(value);
      if (!ExecPrepared("str1", p)) return false;
    }
    for (const auto& [name, value] : rows.num) {
      PgParams p;
      p.Int8(id);
      p.Text(name);
      p.Int8(value);
      if (!ExecPrepared("num1", p)) return false;
    }
    return ExecParams("COMMIT");
  }

 private:
  static void Fill(std::uint64_t first, std::uint64_t count, PgParams& e, PgParams& s,
                   PgParams& n) {
    for (std::uint64_t i = first; i < first + count; ++i) {
      const auto id = static_cast<std::int64_t>(i + 1);
      const auto key = RandomKey(i);
      e.Int8(id);
      e.Blob(key);
      e.Blob(Payload(i));
      const AttrRows rows = RowsOf(i);
      for (const auto& [name, value] : rows.str) {
        s.Int8(id);
        s.Text(name);
        s.Text(value);
      }
      for (const auto& [name, value] : rows.num) {
        n.Int8(id);
        n.Text(name);
        n.Int8(value);
      }
    }
    e.Finish();
    s.Finish();
    n.Finish();
  }
  bool Prepare(const char* name, const std::string& sql) {
    PGresult* r = PQprepare(pg_.get(), name, sql.c_str(), 0, nullptr);
    const bool good = PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!good) error_ = PQresultErrorMessage(r);
    PQclear(r);
    return good;
  }
  bool Send(const char* sql) {
    return PQsendQueryParams(pg_.get(), sql, 0, nullptr, nullptr, nullptr, nullptr, 1) == 1;
  }
  bool SendPrepared(const char* name, const PgParams& p) {
    return PQsendQueryPrepared(pg_.get(), name, p.size(), p.values(), p.lengths(), p.formats(),
                               1) == 1;
  }
  bool ExecParams(const char* sql) {
    PGresult* r = PQexecParams(pg_.get(), sql, 0, nullptr, nullptr, nullptr, nullptr, 1);
    return Check(r);
  }
  bool ExecPrepared(const char* name, PgParams& p) {
    p.Finish();
    PGresult* r =
        PQexecPrepared(pg_.get(), name, p.size(), p.values(), p.lengths(), p.formats(), 1);
    return Check(r);
  }
  bool Check(PGresult* r) {
    const bool good = PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!good) error_ = PQresultErrorMessage(r);
    PQclear(r);
    return good;
  }
  bool Fail() {
    error_ = PQerrorMessage(pg_.get());
    return false;
  }

  PgConn pg_;
  std::string schema_;
  int batch_;
  bool ok_ = false;
  std::string error_;
};

void BM_Engine_Pg_RoundTrip(benchmark::State& state) {
  RawPg pg(1);
  if (!pg.ok()) {
    state.SkipWithError(("raw PostgreSQL set-up failed: " + pg.error()).c_str());
    return;
  }
  Latencies lat(state);
  const auto trips = PgRoundTrips::Now();
  for (auto _ : state) {
    if (!lat.Time([&] { return pg.SelectOne(); })) {
      state.SkipWithError("SELECT 1 failed");
      break;
    }
  }
  PgRoundTrips::Report(state, trips, static_cast<std::uint64_t>(state.iterations()));
  lat.Report();
}

void BM_Engine_Pg_StatementPerRow(benchmark::State& state) {
  RawPg pg(1);
  if (!pg.ok()) {
    state.SkipWithError(("raw PostgreSQL set-up failed: " + pg.error()).c_str());
    return;
  }
  Latencies lat(state);
  const auto trips = PgRoundTrips::Now();
  std::uint64_t next = 0;
  for (auto _ : state) {
    if (!lat.Time([&] { return pg.StatementPerRow(next); })) {
      state.SkipWithError(("insert failed: " + pg.error()).c_str());
      break;
    }
    ++next;
  }
  PgRoundTrips::Report(state, trips, next);
  lat.Report();
  state.SetItemsProcessed(static_cast<std::int64_t>(next));
}

void BM_Engine_Pg_Pipeline(benchmark::State& state, int batch) {
  RawPg pg(batch);
  if (!pg.ok()) {
    state.SkipWithError(("raw PostgreSQL set-up failed: " + pg.error()).c_str());
    return;
  }
  Latencies lat(state);
  const auto trips = PgRoundTrips::Now();
  std::uint64_t next = 0;
  for (auto _ : state) {
    if (!lat.Time([&] { return pg.PipelineWrite(next); })) {
      state.SkipWithError(("pipelined insert failed: " + pg.error()).c_str());
      break;
    }
    next += static_cast<std::uint64_t>(batch);
  }
  PgRoundTrips::Report(state, trips, next / static_cast<std::uint64_t>(batch));
  lat.Report();
  state.SetItemsProcessed(static_cast<std::int64_t>(next));
}

const bool kPostgresRegistered = [] {
  if (PostgresUrl() == nullptr) return false;
  benchmark::RegisterBenchmark("BM_Engine_Pg_RoundTrip", BM_Engine_Pg_RoundTrip)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Engine_Pg_StatementPerRow", BM_Engine_Pg_StatementPerRow)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Engine_Pg_PipelineOneEntity", BM_Engine_Pg_Pipeline, 1)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Engine_Pg_PipelineBatch20", BM_Engine_Pg_Pipeline, 20)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace
}  // namespace veil::bench_ledger
