// The engines' own limits, measured in the same binary and run as the ledger rows
// (ledger_bench.cc), so performance.md takes ratios within one run. Every write row here is what
// the issue calls "an entity row plus 8 indexed attribute rows" per durable transaction, keyed by
// a sequential integer id, with nothing else of the ledger (no blocks, transactions, changes,
// accounts, hashing or signatures), except the _LedgerRows and _LeanRows rows (RawModel):
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
//   BM_Engine_Sqlite_OneEntity_LedgerRows, _LeanRows
//                                       every row the ledger writes for a one-entity create
//                                       block, in its schema, and a leaner model's (RawModel)
//   BM_Engine_Sqlite_Batch20            20 entities (180 rows) per transaction, same statements
//   (both after an untimed warm-up that leaves the log reused in place, WarmUpSqliteLog;
//   BM_Engine_Sqlite_OneEntity_FirstFill without it)
//   BM_Engine_Pg_RoundTrip              a prepared SELECT 1 (one round trip over loopback)
//   BM_Engine_Pg_StatementPerRow        one entity, BEGIN + 9 single-row INSERTs + COMMIT, each
//                                       its own round trip (11): the cap without pipelining
//   BM_Engine_Pg_PipelineOneEntity      one entity: BEGIN, entity, 4 string and 4 numeric
//                                       attribute rows (two multi-row INSERTs), COMMIT, as one
//                                       libpq pipeline (one round trip)
//   BM_Engine_Pg_PipelineOneEntity_LedgerRows, _LeanRows
//                                       the rows of a one-entity create block in the store's
//                                       schema format 3 and in the leaner model (close to
//                                       format 4, which the store writes), one plain
//                                       statement a row, one pipeline
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
#include "veil/ledger/store.h"

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

// Hash `which` of the block the model rows (RawModel) write for entity i: 32 bytes, distinct
// per entity and `which` (1 the entity hash, 2 the transaction's, 3.. the header's).
std::array<std::uint8_t, 32> RowHash(std::uint64_t i, std::uint64_t which) {
  return RandomKey(i * 8 + which + (1ULL << 40));
}

// The lean model's block row columns for entity i's block, in the SQLite store's own packing
// (store.h, EncodeBlockTxs and EncodeBlockChanges): its one transaction, `body`, and its one
// change, the entity's create.
struct LeanBlockColumns {
  Bytes txs, changes;
};
LeanBlockColumns LeanColumns(std::uint64_t i, const Bytes& body) {
  ledger::StoredTx t;
  t.hash = RowHash(i, 2);
  t.gas = 1000;
  t.encoded = body;
  ledger::Change c;
  c.kind = ledger::ChangeKind::kCreate;
  c.key = RandomKey(i);
  c.entity_hash = RowHash(i, 1);
  return {ledger::EncodeBlockTxs({&t, 1}), ledger::EncodeBlockChanges({&c, 1})};
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

// The rows a raw program writes for each entity.
enum class RawModel {
  // The entity row and its 8 attribute rows: the raw program.
  kMinimal,
  // Every row the ledger writes for a one-entity create block, in the ledger's schema (the
  // tables of the store's kSchema that a create touches), each by the cheapest plain
  // statement: the head row and the sender's account updated, the entity row with its meta
  // columns and indexes, the 8 attribute rows, the expiry bucket, the change, the transaction
  // and the block. What the ledger's data model costs the engine, without the ledger.
  kLedgerRows,
  // The same block with the block's transactions and changes kept in its own row (a transaction
  // found by its hash through an index on the row) and the head's counters there too: no head,
  // transaction or change rows. What it would save, measured before the stores took it (SQLite's
  // file format 4, PostgreSQL's schema format 4); now close to their rows.
  kLeanRows,
};

// The SQLite ledger's tables beside the entity and attribute rows (src/ledger/sqlite_store.cc,
// kSchema), and the lean model's block table (RawModel).
constexpr const char* kSqliteModelSchema =
    "CREATE TABLE accounts(id INTEGER PRIMARY KEY, address BLOB NOT NULL UNIQUE, tx_nonce "
    "INTEGER NOT NULL, create_nonce INTEGER NOT NULL);"
    "INSERT INTO accounts VALUES (1, x'01', 0, 0);"
    "CREATE INDEX entities_owner ON entities(owner_id);"
    "CREATE INDEX entities_creator ON entities(creator_id);"
    "CREATE INDEX entities_expires ON entities(expires_block);"
    "CREATE INDEX entities_created ON entities(created_block);"
    "CREATE TABLE expiry(block INTEGER PRIMARY KEY, n INTEGER NOT NULL);";
constexpr const char* kSqliteLedgerRowsSchema =
    "CREATE TABLE meta(name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE blocks(number INTEGER PRIMARY KEY, chain_id INTEGER NOT NULL, parent BLOB NOT "
    "NULL, timestamp_ms INTEGER NOT NULL, tx_root BLOB NOT NULL, changeset BLOB NOT NULL, "
    "tx_count INTEGER NOT NULL, change_count INTEGER NOT NULL, gas_used INTEGER NOT NULL, hash "
    "BLOB NOT NULL);"
    "CREATE TABLE txs(block INTEGER NOT NULL, idx INTEGER NOT NULL, hash BLOB NOT NULL, body BLOB "
    "NOT NULL, gas INTEGER NOT NULL, PRIMARY KEY(block, idx)) WITHOUT ROWID;"
    "CREATE INDEX txs_hash ON txs(hash);"
    "CREATE TABLE changes(seq INTEGER PRIMARY KEY, block INTEGER NOT NULL, kind INTEGER NOT NULL, "
    "key BLOB NOT NULL, entity_hash BLOB NOT NULL);"
    "CREATE INDEX changes_block ON changes(block);";
constexpr const char* kSqliteLeanRowsSchema =
    "CREATE TABLE blocks(number INTEGER PRIMARY KEY, chain_id INTEGER NOT NULL, parent BLOB NOT "
    "NULL, timestamp_ms INTEGER NOT NULL, tx_root BLOB NOT NULL, changeset BLOB NOT NULL, "
    "tx_count INTEGER NOT NULL, change_count INTEGER NOT NULL, gas_used INTEGER NOT NULL, hash "
    "BLOB NOT NULL, next_entity_id INTEGER NOT NULL, next_change_seq INTEGER NOT NULL, "
    "stored_entities INTEGER NOT NULL, tx_hash BLOB NOT NULL, txs BLOB NOT NULL, changes BLOB NOT "
    "NULL);"
    "CREATE INDEX blocks_tx_hash ON blocks(tx_hash);";

class RawSqlite {
 public:
  // page_size 0: SQLite's default (4 KiB), the raw program the issue measured.
  explicit RawSqlite(int page_size = 0, RawModel model = RawModel::kMinimal)
      : path_(ScratchDir::NewFile("raw-sqlite").string() + ".db"), model_(model) {
    const std::string page = "PRAGMA page_size=" + std::to_string(page_size);
    const bool minimal = model == RawModel::kMinimal;
    ok_ =
        sqlite3_open(path_.c_str(), &db_) == SQLITE_OK && (page_size == 0 || Exec(page.c_str())) &&
        Exec("PRAGMA journal_mode=WAL") && Exec("PRAGMA synchronous=FULL") &&
        Exec(minimal ? "CREATE TABLE entities(id INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, "
                       "payload BLOB NOT NULL);"
                     : "CREATE TABLE entities(id INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, "
                       "owner_id INTEGER NOT NULL, creator_id INTEGER NOT NULL, content_type "
                       "TEXT NOT NULL, attrs BLOB, payload BLOB NOT NULL, created_block INTEGER "
                       "NOT NULL, updated_block INTEGER NOT NULL, expires_block INTEGER NOT "
                       "NULL, last_change INTEGER NOT NULL, flags INTEGER NOT NULL DEFAULT 0);") &&
        Exec(
            "CREATE TABLE attr_str(entity_id INTEGER NOT NULL, name TEXT NOT NULL, "
            "value TEXT NOT NULL, PRIMARY KEY(entity_id, name)) WITHOUT ROWID;"
            "CREATE INDEX attr_str_nv ON attr_str(name, value, entity_id);"
            "CREATE TABLE attr_num(entity_id INTEGER NOT NULL, name TEXT NOT NULL, "
            "value INTEGER NOT NULL, PRIMARY KEY(entity_id, name)) WITHOUT ROWID;"
            "CREATE INDEX attr_num_nv ON attr_num(name, value, entity_id);") &&
        Prepare("BEGIN IMMEDIATE", &begin_) && Prepare("COMMIT", &commit_) &&
        (minimal ? Prepare("INSERT INTO entities(id, key, payload) VALUES(?, ?, ?)", &entity_)
                 : PrepareModel()) &&
        Prepare("INSERT INTO attr_str(entity_id, name, value) VALUES(?, ?, ?)", &str_) &&
        Prepare("INSERT INTO attr_num(entity_id, name, value) VALUES(?, ?, ?)", &num_);
  }
  ~RawSqlite() {
    for (sqlite3_stmt* s :
         {begin_, commit_, entity_, str_, num_, account_, expiry_, change_, tx_, block_, meta_}) {
      sqlite3_finalize(s);
    }
    sqlite3_close(db_);
    RemoveSqliteFiles(path_);
  }
  RawSqlite(const RawSqlite&) = delete;
  RawSqlite& operator=(const RawSqlite&) = delete;

  bool ok() const { return ok_; }
  const std::string& path() const { return path_; }
  // One durable transaction holding entities [first, first + count).
  bool Write(std::uint64_t first, std::uint64_t count) {
    if (model_ != RawModel::kMinimal) return count == 1 && WriteModel(first);
    if (!Step(begin_)) return false;
    for (std::uint64_t i = first; i < first + count; ++i) {
      const auto id = static_cast<sqlite3_int64>(i + 1);
      const auto key = RandomKey(i);
      const Bytes payload = Payload(i);
      sqlite3_bind_int64(entity_, 1, id);
      sqlite3_bind_blob(entity_, 2, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
      sqlite3_bind_blob(entity_, 3, payload.data(), static_cast<int>(payload.size()),
                        SQLITE_TRANSIENT);
      if (!Step(entity_) || !WriteAttributes(id, i)) return false;
    }
    return Step(commit_);
  }

 private:
  bool PrepareModel() {
    const bool lean = model_ == RawModel::kLeanRows;
    body_ = LedgerTxBody(0);
    attrs_ = LedgerStoredAttributes(0);
    return Exec(kSqliteModelSchema) &&
           Exec(lean ? kSqliteLeanRowsSchema : kSqliteLedgerRowsSchema) &&
           Prepare("UPDATE accounts SET tx_nonce = ?, create_nonce = ? WHERE id = 1", &account_) &&
           Prepare(
               "INSERT INTO entities(id, key, owner_id, creator_id, content_type, payload, "
               "created_block, updated_block, expires_block, last_change, attrs, flags) "
               "VALUES(?, ?, 1, 1, 'application/octet-stream', ?, ?, ?, ?, ?, ?, 0)",
               &entity_) &&
           Prepare(
               "INSERT INTO expiry(block, n) VALUES(?, 1) ON CONFLICT(block) DO UPDATE SET "
               "n = n + excluded.n",
               &expiry_) &&
           (lean || Prepare("INSERT INTO changes(seq, block, kind, key, entity_hash) "
                            "VALUES(?, ?, 1, ?, ?)",
                            &change_)) &&
           (lean || Prepare("INSERT INTO txs(block, idx, hash, body, gas) VALUES(?, 0, ?, ?, 1000)",
                            &tx_)) &&
           (lean || Prepare("INSERT INTO meta(name, value) VALUES('head', ?), ('next_entity_id', "
                            "?), ('next_change_seq', ?), ('stored_entities', ?) ON CONFLICT(name) "
                            "DO UPDATE SET value = excluded.value",
                            &meta_)) &&
           Prepare(lean ? "INSERT INTO blocks VALUES(?, 7, ?, ?, ?, ?, 1, 1, 1000, ?, ?, ?, ?, ?, "
                          "?, ?)"
                        : "INSERT INTO blocks VALUES(?, 7, ?, ?, ?, ?, 1, 1, 1000, ?)",
                   &block_);
  }

  // The rows of a one-entity create block for entity `i` in one durable transaction (RawModel;
  // the sizes as in RawPg::PipelineModelWrite).
  bool WriteModel(std::uint64_t i) {
    const bool lean = model_ == RawModel::kLeanRows;
    const auto n = static_cast<sqlite3_int64>(i + 1);
    const auto hash = [&](std::uint64_t which) { return RowHash(i, which); };
    const auto blob = [](sqlite3_stmt* s, int col, ByteView b) {
      sqlite3_bind_blob(s, col, b.data(), static_cast<int>(b.size()), SQLITE_TRANSIENT);
    };
    constexpr sqlite3_int64 kExpiresBlock = 1'000'000'000;
    if (!Step(begin_)) return false;
    sqlite3_bind_int64(account_, 1, n);
    sqlite3_bind_int64(account_, 2, n);
    if (!Step(account_)) return false;
    const auto key = RandomKey(i);
    sqlite3_bind_int64(entity_, 1, n);
    blob(entity_, 2, key);
    blob(entity_, 3, Payload(i));
    sqlite3_bind_int64(entity_, 4, n);
    sqlite3_bind_int64(entity_, 5, n);
    sqlite3_bind_int64(entity_, 6, kExpiresBlock);
    sqlite3_bind_int64(entity_, 7, n);
    blob(entity_, 8, attrs_);
    if (!Step(entity_) || !WriteAttributes(n, i)) return false;
    sqlite3_bind_int64(expiry_, 1, kExpiresBlock);
    if (!Step(expiry_)) return false;
    if (!lean) {
      sqlite3_bind_int64(change_, 1, n);
      sqlite3_bind_int64(change_, 2, n);
      blob(change_, 3, key);
      blob(change_, 4, hash(1));
      sqlite3_bind_int64(tx_, 1, n);
      blob(tx_, 2, hash(2));
      blob(tx_, 3, body_);
      if (!Step(change_) || !Step(tx_)) return false;
    }
    sqlite3_bind_int64(block_, 1, n);
    blob(block_, 2, hash(3));
    sqlite3_bind_int64(block_, 3, n);
    blob(block_, 4, hash(4));
    blob(block_, 5, hash(5));
    blob(block_, 6, hash(6));
    if (lean) {
      sqlite3_bind_int64(block_, 7, n + 1);
      sqlite3_bind_int64(block_, 8, n + 1);
      sqlite3_bind_int64(block_, 9, n);
      blob(block_, 10, hash(2));
      const LeanBlockColumns columns = LeanColumns(i, body_);
      blob(block_, 11, columns.txs);
      blob(block_, 12, columns.changes);
    }
    if (!Step(block_)) return false;
    if (!lean) {
      for (int c = 1; c <= 4; ++c) sqlite3_bind_int64(meta_, c, n + (c == 4 ? 0 : 1));
      if (!Step(meta_)) return false;
    }
    return Step(commit_);
  }

  // Entity i's 8 attribute rows, under id.
  bool WriteAttributes(sqlite3_int64 id, std::uint64_t i) {
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
    return true;
  }

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
  RawModel model_;
  Bytes body_, attrs_;  // the ledger's transaction and attribute copy (kLedgerRows, kLeanRows)
  sqlite3_stmt* account_ = nullptr;
  sqlite3_stmt* expiry_ = nullptr;
  sqlite3_stmt* change_ = nullptr;
  sqlite3_stmt* tx_ = nullptr;
  sqlite3_stmt* block_ = nullptr;
  sqlite3_stmt* meta_ = nullptr;
};

void BM_Engine_Sqlite(benchmark::State& state, std::uint64_t batch, bool first_fill, int page_size,
                      RawModel model = RawModel::kMinimal) {
  RawSqlite db(page_size, model);
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
                               false, 0, RawModel::kMinimal)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Engine_Sqlite_OneEntity_LedgerRows", BM_Engine_Sqlite,
                               std::uint64_t{1}, false, 0, RawModel::kLedgerRows)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Engine_Sqlite_OneEntity_LeanRows", BM_Engine_Sqlite,
                               std::uint64_t{1}, false, 0, RawModel::kLeanRows)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Engine_Sqlite_OneEntity_Page2K", BM_Engine_Sqlite,
                               std::uint64_t{1}, false, 2048, RawModel::kMinimal)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Engine_Sqlite_Batch20", BM_Engine_Sqlite, std::uint64_t{20},
                               false, 0, RawModel::kMinimal)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Engine_Sqlite_OneEntity_FirstFill", BM_Engine_Sqlite,
                               std::uint64_t{1}, true, 0, RawModel::kMinimal)
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

// The ledger's tables that a one-entity create wrote in schema format 3 (src/ledger/
// postgres_store.cc before format 4), and the lean model's block table (format 4's, without its
// sweeper count and parent check).
constexpr const char* kLedgerRowsSchema =
    "CREATE TABLE chain_head(id smallint PRIMARY KEY CHECK (id = 1), number bigint NOT NULL, "
    "hash bytea NOT NULL, next_entity_id bigint NOT NULL, next_change_seq bigint NOT NULL, "
    "stored_entities bigint NOT NULL);"
    "INSERT INTO chain_head VALUES (1, 0, '\\x00', 1, 1, 0);"
    "CREATE TABLE blocks(number bigint PRIMARY KEY, chain_id bigint NOT NULL, parent bytea NOT "
    "NULL, timestamp_ms bigint NOT NULL, tx_root bytea NOT NULL, changeset bytea NOT NULL, "
    "tx_count integer NOT NULL, change_count integer NOT NULL, gas_used bigint NOT NULL, hash "
    "bytea NOT NULL);"
    "CREATE TABLE txs(block bigint NOT NULL, idx integer NOT NULL, hash bytea NOT NULL, body "
    "bytea NOT NULL, gas bigint NOT NULL, PRIMARY KEY(block, idx));"
    "CREATE INDEX txs_hash ON txs(hash);"
    "CREATE TABLE changes(seq bigint PRIMARY KEY, block bigint NOT NULL, kind smallint NOT NULL, "
    "key bytea NOT NULL, entity_hash bytea NOT NULL);"
    "CREATE INDEX changes_block ON changes(block);";
constexpr const char* kLeanRowsSchema =
    "CREATE TABLE blocks(number bigint PRIMARY KEY, chain_id bigint NOT NULL, parent bytea NOT "
    "NULL, timestamp_ms bigint NOT NULL, tx_root bytea NOT NULL, changeset bytea NOT NULL, "
    "tx_count integer NOT NULL, change_count integer NOT NULL, gas_used bigint NOT NULL, hash "
    "bytea NOT NULL, next_entity_id bigint NOT NULL, next_change_seq bigint NOT NULL, "
    "stored_entities bigint NOT NULL, tx_hash bytea NOT NULL, txs bytea NOT NULL, changes bytea "
    "NOT NULL);"
    "CREATE INDEX blocks_tx_hash ON blocks(tx_hash);";
constexpr const char* kModelRowsSchema =
    "CREATE TABLE accounts(id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, address bytea "
    "NOT NULL UNIQUE, tx_nonce bigint NOT NULL, create_nonce bigint NOT NULL);"
    "INSERT INTO accounts(id, address, tx_nonce, create_nonce) VALUES (1, '\\x01', 0, 0);"
    "CREATE TABLE entities(id bigint PRIMARY KEY, key bytea NOT NULL UNIQUE, owner_id bigint NOT "
    "NULL, creator_id bigint NOT NULL, content_type text NOT NULL, payload bytea NOT NULL, "
    "created_block bigint NOT NULL, updated_block bigint NOT NULL, expires_block bigint NOT "
    "NULL, last_change bigint NOT NULL, attrs bytea, flags smallint NOT NULL DEFAULT 0);"
    "CREATE INDEX entities_owner ON entities(owner_id);"
    "CREATE INDEX entities_creator ON entities(creator_id);"
    "CREATE INDEX entities_expires ON entities(expires_block);"
    "CREATE TABLE attr_str(entity_id bigint NOT NULL, name text COLLATE \"C\" NOT NULL, value "
    "text COLLATE \"C\" NOT NULL, PRIMARY KEY(entity_id, name));"
    "CREATE INDEX attr_str_nv ON attr_str(name, value, entity_id);"
    "CREATE TABLE attr_num(entity_id bigint NOT NULL, name text COLLATE \"C\" NOT NULL, value "
    "bigint NOT NULL, PRIMARY KEY(entity_id, name));"
    "CREATE INDEX attr_num_nv ON attr_num(name, value, entity_id);"
    "CREATE TABLE expiry(block bigint PRIMARY KEY, n bigint NOT NULL);";

class RawPg {
 public:
  explicit RawPg(int batch, RawModel model = RawModel::kMinimal)
      : pg_(PostgresUrl()), schema_(ScratchSchema("raw")), batch_(batch), model_(model) {
    const std::string s = QuoteIdent(schema_);
    if (model != RawModel::kMinimal) {
      ok_ = pg_.ok() && pg_.Exec("CREATE SCHEMA " + s) && pg_.Exec("SET search_path TO " + s) &&
            pg_.Exec(kModelRowsSchema) && PrepareModel();
      return;
    }
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
    if (model_ != RawModel::kMinimal) return PipelineModelWrite(first);
    PgParams e, s, n;
    Fill(first, static_cast<std::uint64_t>(batch_), e, s, n);
    bool sent = Send("BEGIN") && SendPrepared("entity", e) && SendPrepared("str", s) &&
                SendPrepared("num", n) && Send("COMMIT") && PQpipelineSync(c) == 1;
    if (!sent) return Fail();
    return Collect(5);
  }

  // BEGIN, `steps`' statements, COMMIT in one pipeline; then their results.
  bool PipelineSteps(std::vector<std::pair<const char*, PgParams>>& steps) {
    bool sent = Send("BEGIN");
    for (auto& [name, p] : steps) {
      p.Finish();
      sent = sent && SendPrepared(name, p);
    }
    sent = sent && Send("COMMIT") && PQpipelineSync(pg_.get()) == 1;
    if (!sent) return Fail();
    return Collect(static_cast<int>(steps.size()) + 2);
  }

  // `results` results (each followed by a null), then the sync.
  bool Collect(int results) {
    PGconn* c = pg_.get();
    bool good = true;
    for (int i = 0; i < results; ++i) {
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
  bool PrepareModel() {
    const bool lean = model_ == RawModel::kLeanRows;
    body_ = LedgerTxBody(0);
    attrs_ = LedgerStoredAttributes(0);
    return pg_.Exec(lean ? kLeanRowsSchema : kLedgerRowsSchema) &&
           (lean || Prepare("head",
                            "UPDATE chain_head SET number = $1, hash = $2, next_entity_id = $3, "
                            "next_change_seq = $4, stored_entities = $5 WHERE id = 1")) &&
           Prepare("account",
                   "UPDATE accounts SET tx_nonce = $1, create_nonce = $2 WHERE id = 1") &&
           Prepare("entity",
                   "INSERT INTO entities(id, key, owner_id, creator_id, content_type, payload, "
                   "created_block, updated_block, expires_block, last_change, attrs, flags) "
                   "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 0)") &&
           Prepare("str", MultiRowInsert("INSERT INTO attr_str(entity_id, name, value)", 4, 3)) &&
           Prepare("num", MultiRowInsert("INSERT INTO attr_num(entity_id, name, value)", 4, 3)) &&
           Prepare("expiry",
                   "INSERT INTO expiry(block, n) VALUES ($1, $2) ON CONFLICT (block) DO UPDATE "
                   "SET n = expiry.n + excluded.n") &&
           (lean || Prepare("change",
                            "INSERT INTO changes(seq, block, kind, key, entity_hash) VALUES ($1, "
                            "$2, $3::int8, $4, $5)")) &&
           (lean || Prepare("tx",
                            "INSERT INTO txs(block, idx, hash, body, gas) VALUES ($1, $2::int8, "
                            "$3, $4, $5)")) &&
           Prepare("block", lean ? "INSERT INTO blocks VALUES ($1, $2, $3, $4, $5, $6, $7::int8, "
                                   "$8::int8, $9, $10, $11, $12, $13, $14, $15, $16)"
                                 : "INSERT INTO blocks VALUES ($1, $2, $3, $4, $5, $6, $7::int8, "
                                   "$8::int8, $9, $10)");
  }

  // The rows of a one-entity create block for entity `i` (block i + 1, change i + 1), of the
  // ledger's sizes: its transaction's bytes and its attributes' copy (those of entity 0, made
  // once, untimed), 32-byte hashes.
  bool PipelineModelWrite(std::uint64_t i) {
    const bool lean = model_ == RawModel::kLeanRows;
    const auto n = static_cast<std::int64_t>(i + 1);
    const auto hash = [&](std::uint64_t which) { return RowHash(i, which); };
    const auto key = RandomKey(i);
    const Bytes& body = body_;
    const Bytes& attrs = attrs_;
    const std::string content_type = "application/octet-stream";
    constexpr std::int64_t kExpiresBlock = 1'000'000'000;
    std::vector<std::pair<const char*, PgParams>> steps;
    steps.reserve(16);  // step() hands out references into it
    auto step = [&](const char* name) -> PgParams& {
      return steps.emplace_back(name, PgParams{}).second;
    };
    if (!lean) {
      PgParams& h = step("head");
      h.Int8(n);
      h.Blob(hash(0));
      h.Int8(n + 1);
      h.Int8(n + 1);
      h.Int8(n);
    }
    PgParams& a = step("account");
    a.Int8(n);
    a.Int8(n);
    PgParams& e = step("entity");
    e.Int8(n);
    e.Blob(key);
    e.Int8(1);
    e.Int8(1);
    e.Text(content_type);
    e.Blob(Payload(i));
    e.Int8(n);
    e.Int8(n);
    e.Int8(kExpiresBlock);
    e.Int8(n);
    e.Blob(attrs);
    PgParams& str = step("str");
    AddAttributeRows(n, i, str, step("num"));
    PgParams& x = step("expiry");
    x.Int8(kExpiresBlock);
    x.Int8(1);
    if (!lean) {
      PgParams& ch = step("change");
      ch.Int8(n);
      ch.Int8(n);
      ch.Int8(1);
      ch.Blob(key);
      ch.Blob(hash(1));
      PgParams& t = step("tx");
      t.Int8(n);
      t.Int8(0);
      t.Blob(hash(2));
      t.Blob(body);
      t.Int8(1000);
    }
    PgParams& b = step("block");
    b.Int8(n);
    b.Int8(7);
    b.Blob(hash(3));
    b.Int8(n);
    b.Blob(hash(4));
    b.Blob(hash(5));
    b.Int8(1);
    b.Int8(1);
    b.Int8(1000);
    b.Blob(hash(6));
    if (lean) {
      b.Int8(n + 1);
      b.Int8(n + 1);
      b.Int8(n);
      b.Blob(hash(2));
      const LeanBlockColumns columns = LeanColumns(i, body);
      b.Blob(columns.txs);
      b.Blob(columns.changes);
    }
    return PipelineSteps(steps);
  }

  // Entity i's attribute rows under `id`: (id, name, value) for each, strings to s, numbers
  // to n.
  static void AddAttributeRows(std::int64_t id, std::uint64_t i, PgParams& s, PgParams& n) {
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
  static void Fill(std::uint64_t first, std::uint64_t count, PgParams& e, PgParams& s,
                   PgParams& n) {
    for (std::uint64_t i = first; i < first + count; ++i) {
      const auto id = static_cast<std::int64_t>(i + 1);
      const auto key = RandomKey(i);
      e.Int8(id);
      e.Blob(key);
      e.Blob(Payload(i));
      AddAttributeRows(id, i, s, n);
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
  RawModel model_;
  Bytes body_, attrs_;  // the ledger's transaction and attribute copy (kLedgerRows, kLeanRows)
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

void BM_Engine_Pg_Pipeline(benchmark::State& state, int batch, RawModel model) {
  RawPg pg(batch, model);
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
  benchmark::RegisterBenchmark("BM_Engine_Pg_PipelineOneEntity", BM_Engine_Pg_Pipeline, 1,
                               RawModel::kMinimal)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Engine_Pg_PipelineOneEntity_LedgerRows", BM_Engine_Pg_Pipeline,
                               1, RawModel::kLedgerRows)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Engine_Pg_PipelineOneEntity_LeanRows", BM_Engine_Pg_Pipeline, 1,
                               RawModel::kLeanRows)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Engine_Pg_PipelineBatch20", BM_Engine_Pg_Pipeline, 20,
                               RawModel::kMinimal)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  return true;
}();

// OpenRawPgOneEntity's object: RawPg with one entity a transaction.
class RawPgOneEntityRows final : public RawPgOneEntity {
 public:
  explicit RawPgOneEntityRows(bool lean)
      : pg_(1, lean ? RawModel::kLeanRows : RawModel::kMinimal) {}
  bool ok() const override { return pg_.ok(); }
  const std::string& error() const override { return pg_.error(); }
  bool Write(std::uint64_t i) override { return pg_.PipelineWrite(i); }

 private:
  RawPg pg_;
};

}  // namespace

std::unique_ptr<RawPgOneEntity> OpenRawPgOneEntity(bool lean) {
  return std::make_unique<RawPgOneEntityRows>(lean);
}

}  // namespace veil::bench_ledger
