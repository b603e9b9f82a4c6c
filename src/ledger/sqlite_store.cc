// The SQLite backend (schema and indexes in docs/notes/ledger.md, "SQL schema").
//
// One connection, WAL, synchronous=FULL; prepared statements are cached by their SQL text, so
// the write path prepares nothing after warm-up. Attribute rows are keyed by the integer entity
// id, and owners and creators by an integer account id, so no index but the key's own holds a
// random 32-byte value. u64 values are stored biased (v XOR 2^63) as signed 64-bit integers, which
// keeps their order in SQLite's INTEGER comparisons.
#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "sql_filter.h"
#include "sqlite_vfs.h"
#include "veil/ledger/store.h"
#include "veil/sqlite/connection.h"

namespace veil::ledger {
namespace {

constexpr std::uint64_t kBias = std::uint64_t{1} << 63;
std::int64_t Biased(std::uint64_t v) { return static_cast<std::int64_t>(v ^ kBias); }
std::uint64_t Unbiased(std::int64_t v) { return static_cast<std::uint64_t>(v) ^ kBias; }
std::int64_t I64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

// File format 4: a block's row holds its transactions and changes (store.h, EncodeBlockTxs and
// EncodeBlockChanges) and the chain's counters after it, so a one-entity block writes the
// b-trees of its rows and their indexes and one more: the block's (tx_hash finds a block's first
// transaction; tx_index the others of a block of several). meta keeps the format and the
// sweeper's count of the rows it removed ('swept'): the stored rows are the head block's
// entities_net (creates minus deletes over the chain) minus it. Format 3 kept the head's
// counters in meta and each transaction and change in its own row and index entries (txs,
// changes): 1.26-1.42x fewer one-entity writes a second by a raw program
// (artifacts/bench-ledger-35-model-rows/). MigrateBlocks turns a format-3 file into this.
// The stored rows as the counters give them (above): the head block's entities_net minus the
// sweeper's count, as one SQL expression (LiveCount, CountStoredRows).
constexpr const char* kStoredEntitiesSql =
    "coalesce((SELECT entities_net FROM blocks ORDER BY number DESC LIMIT 1), 0) - "
    "coalesce((SELECT value FROM meta WHERE name = 'swept'), 0)";
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS blocks(
  number INTEGER PRIMARY KEY, chain_id INTEGER NOT NULL, parent BLOB NOT NULL,
  timestamp_ms INTEGER NOT NULL, tx_root BLOB NOT NULL, changeset BLOB NOT NULL,
  tx_count INTEGER NOT NULL, change_count INTEGER NOT NULL, gas_used INTEGER NOT NULL,
  hash BLOB NOT NULL, next_entity_id INTEGER, next_change_seq INTEGER, entities_net INTEGER,
  tx_hash BLOB, txs BLOB, changes BLOB);
CREATE TABLE IF NOT EXISTS accounts(
  id INTEGER PRIMARY KEY, address BLOB NOT NULL UNIQUE, tx_nonce INTEGER NOT NULL,
  create_nonce INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS entities(
  id INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, owner_id INTEGER NOT NULL,
  creator_id INTEGER NOT NULL, content_type TEXT NOT NULL, attrs BLOB, payload BLOB NOT NULL,
  created_block INTEGER NOT NULL, updated_block INTEGER NOT NULL,
  expires_block INTEGER NOT NULL, last_change INTEGER NOT NULL, flags INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS entities_owner ON entities(owner_id);
CREATE INDEX IF NOT EXISTS entities_creator ON entities(creator_id);
CREATE INDEX IF NOT EXISTS entities_expires ON entities(expires_block);
CREATE INDEX IF NOT EXISTS entities_created ON entities(created_block);
CREATE TABLE IF NOT EXISTS attr_str(
  entity_id INTEGER NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY(entity_id, name)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS attr_str_nv ON attr_str(name, value, entity_id);
CREATE TABLE IF NOT EXISTS attr_num(
  entity_id INTEGER NOT NULL, name TEXT NOT NULL, value INTEGER NOT NULL,
  PRIMARY KEY(entity_id, name)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS attr_num_nv ON attr_num(name, value, entity_id);
CREATE TABLE IF NOT EXISTS expiry(block INTEGER PRIMARY KEY, n INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tx_index(
  hash BLOB NOT NULL, block INTEGER NOT NULL, idx INTEGER NOT NULL,
  PRIMARY KEY(hash, block, idx)) WITHOUT ROWID;
)sql";
// After MigrateBlocks (the column it indexes exists only from format 4).
constexpr const char* kSchemaBlockIndexes =
    "CREATE INDEX IF NOT EXISTS blocks_tx_hash ON blocks(tx_hash);";

using Param = std::variant<std::int64_t, std::string, Bytes>;

// A ledger value as a statement parameter (the SQL compiler's output, sql_filter.h).
void Bind(sqlite::Statement& s, int i, const Param& p) {
  if (const auto* n = std::get_if<std::int64_t>(&p)) {
    s.Int(i, *n);
  } else if (const auto* t = std::get_if<std::string>(&p)) {
    s.Text(i, *t);
  } else {
    s.Blob(i, std::get<Bytes>(p));
  }
}

Result<std::unique_ptr<Store>> OpenSqlite(const SqliteOptions& options, bool reader);

class SqliteStore final : public Store {
 public:
  // Opens the file. reader: a connection for reads only (OpenReader): the writer has made the
  // schema and the log mode; this one only sets its cache and refuses writes.
  Status Init(const SqliteOptions& o, bool reader = false) {
    options_ = o;
    reader_ = reader;
    // A reader opens an existing file (the writer created it) read-write: a WAL database's
    // readers write the shared-memory index.
    const int flags =
        SQLITE_OPEN_READWRITE | (reader ? 0 : SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX;
    VEIL_RETURN_IF_ERROR(db_.Open(
        o.path, flags, o.coalesce_wal_writes ? internal::CoalescingWalVfsName() : nullptr));
    if (reader) {
      VEIL_RETURN_IF_ERROR(Exec("PRAGMA query_only=1"));
      VEIL_RETURN_IF_ERROR(Exec(
          ("PRAGMA cache_size=-" + std::to_string(std::max<std::size_t>(o.cache_mib, 1) * 1024))
              .c_str()));
      sqlite3_busy_timeout(db_.get(), 5000);
      return Status::Ok();
    }
    // Takes effect only while the file is new (SQLite fixes the page size with the first table).
    VEIL_RETURN_IF_ERROR(Exec(("PRAGMA page_size=" + std::to_string(o.page_size)).c_str()));
    VEIL_RETURN_IF_ERROR(Exec("PRAGMA journal_mode=WAL"));
    VEIL_RETURN_IF_ERROR(
        Exec(o.synchronous_full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL"));
    VEIL_RETURN_IF_ERROR(Exec("PRAGMA foreign_keys=OFF"));
    VEIL_RETURN_IF_ERROR(
        Exec(("PRAGMA cache_size=-" + std::to_string(std::max<std::size_t>(o.cache_mib, 1) * 1024))
                 .c_str()));
    VEIL_RETURN_IF_ERROR(
        Exec(("PRAGMA wal_autocheckpoint=" + std::to_string(o.wal_checkpoint_pages)).c_str()));
    sqlite3_busy_timeout(db_.get(), 5000);
    // The schema, and what a file from an older version lacks, in one write transaction (two
    // processes opening one old file do not both add the column).
    VEIL_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
    Status s = Migrate();
    s = s.ok() ? Exec("COMMIT") : s;
    if (!s.ok()) Exec("ROLLBACK").IgnoreError();
    return s;
  }

  // File formats: 1, the first; 2, entities.attrs (store.h, EncodeStoredAttributes); 3,
  // entities.flags (creation flags); 4, a block's transactions, changes and counters in its row
  // (kSchema). An older file gets the columns it lacks: attrs NULL in its old rows, whose reads
  // take the attributes from the attr_* rows; flags 0, which every entity written before flags
  // existed has; its blocks rewritten (MigrateBlocks). A file of a later format than this code
  // knows is refused: that code may keep state this code would not maintain (an older binary
  // writing to a format-2 file would leave the copies stale, VerifyChain would report it; this
  // one refuses format 5).
  static constexpr std::int64_t kFormat = 4;
  Status Migrate() {
    VEIL_RETURN_IF_ERROR(Exec(kSchema));
    std::int64_t format = 1;
    {
      VEIL_ASSIGN_OR_RETURN(auto f, Prepare("SELECT value FROM meta WHERE name = 'format'"));
      if (f.Step()) format = f.ColInt(0);
      VEIL_RETURN_IF_ERROR(f.status());
    }
    if (format > kFormat) {
      return FailedPrecondition("ledger file format " + std::to_string(format) +
                                " is newer than this build's (" + std::to_string(kFormat) + ")");
    }
    const std::tuple<const char*, const char*, const char*> added[] = {
        {"entities", "attrs", "ALTER TABLE entities ADD COLUMN attrs BLOB"},
        {"entities", "flags", "ALTER TABLE entities ADD COLUMN flags INTEGER NOT NULL DEFAULT 0"},
        {"blocks", "next_entity_id", "ALTER TABLE blocks ADD COLUMN next_entity_id INTEGER"},
        {"blocks", "next_change_seq", "ALTER TABLE blocks ADD COLUMN next_change_seq INTEGER"},
        {"blocks", "entities_net", "ALTER TABLE blocks ADD COLUMN entities_net INTEGER"},
        {"blocks", "tx_hash", "ALTER TABLE blocks ADD COLUMN tx_hash BLOB"},
        {"blocks", "txs", "ALTER TABLE blocks ADD COLUMN txs BLOB"},
        {"blocks", "changes", "ALTER TABLE blocks ADD COLUMN changes BLOB"}};
    for (const auto& [table, column, ddl] : added) {
      bool present = false;
      {  // the statement is reset before the DDL runs
        VEIL_ASSIGN_OR_RETURN(auto has,
                              Prepare("SELECT count(*) FROM pragma_table_info(?) WHERE name = ?"));
        has.Text(1, table).Text(2, column);
        present = has.Step() && has.ColInt(0) == 1;
        VEIL_RETURN_IF_ERROR(has.status());
      }
      if (!present) VEIL_RETURN_IF_ERROR(Exec(ddl));
    }
    if (format < 4) VEIL_RETURN_IF_ERROR(MigrateBlocks());
    VEIL_RETURN_IF_ERROR(Exec(kSchemaBlockIndexes));
    return Exec(("INSERT INTO meta(name, value) VALUES('format', " + std::to_string(kFormat) +
                 "), ('swept', 0) ON CONFLICT(name) DO UPDATE SET value = CASE name WHEN "
                 "'format' THEN excluded.value ELSE value END")
                    .c_str());
  }

  // A file of format 3 or older: each block's transactions and changes packed into its row,
  // with the sequence number after its changes; the head's counters from meta into the head's
  // row (swept 0: meta's stored_entities already counted the sweeps); the old tables and meta
  // rows dropped. One pass over the blocks in order, in Init's transaction: rows that do not
  // add up (a gap, a count other than the header's, counters other than meta's) refuse the
  // file, which the rollback leaves as it was.
  Status MigrateBlocks() {
    {
      VEIL_ASSIGN_OR_RETURN(auto t, Prepare("SELECT count(*) FROM sqlite_master WHERE type = "
                                            "'table' AND name IN ('txs', 'changes')"));
      const std::int64_t old_tables = t.Step() ? t.ColInt(0) : 0;
      VEIL_RETURN_IF_ERROR(t.status());
      if (old_tables == 0) return Status::Ok();  // a new file (kSchema made format 4's tables)
      if (old_tables != 2) return DataLoss("ledger file has one of txs and changes, not both");
    }
    std::vector<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>> blocks;
    {
      VEIL_ASSIGN_OR_RETURN(auto b, Prepare("SELECT number, tx_count, change_count FROM blocks "
                                            "ORDER BY number"));
      while (b.Step()) {
        blocks.emplace_back(b.ColU64(0), static_cast<std::uint32_t>(b.ColInt(1)),
                            static_cast<std::uint32_t>(b.ColInt(2)));
      }
      VEIL_RETURN_IF_ERROR(b.status());
    }
    std::uint64_t next_seq = 1;
    for (const auto& [n, tx_count, change_count] : blocks) {
      std::vector<StoredTx> txs;
      {
        VEIL_ASSIGN_OR_RETURN(
            auto s, Prepare("SELECT idx, hash, body, gas FROM txs WHERE block = ? ORDER BY idx"));
        s.Int(1, I64(n));
        while (s.Step()) {
          StoredTx t;
          t.block = n;
          t.index = static_cast<std::uint32_t>(s.ColInt(0));
          t.hash = s.ColArray<32>(1);
          const ByteView body = s.ColBlob(2);
          t.encoded.assign(body.begin(), body.end());
          t.gas = s.ColU64(3);
          if (t.index != txs.size()) return DataLoss("block " + std::to_string(n) + ": txs gap");
          txs.push_back(std::move(t));
        }
        VEIL_RETURN_IF_ERROR(s.status());
      }
      std::vector<Change> changes;
      {
        VEIL_ASSIGN_OR_RETURN(auto s, Prepare("SELECT seq, block, kind, key, entity_hash FROM "
                                              "changes WHERE block = ? ORDER BY seq"));
        s.Int(1, I64(n));
        while (s.Step()) {
          Change c;
          c.seq = s.ColU64(0);
          c.block = s.ColU64(1);
          const std::int64_t kind = s.ColInt(2);
          if (kind < static_cast<std::int64_t>(ChangeKind::kCreate) ||
              kind > static_cast<std::int64_t>(ChangeKind::kDelete)) {
            return DataLoss("block " + std::to_string(n) + ": unknown change kind " +
                            std::to_string(kind));
          }
          c.kind = static_cast<ChangeKind>(kind);
          c.key = s.ColArray<32>(3);
          c.entity_hash = s.ColArray<32>(4);
          if (c.seq != next_seq) {
            return DataLoss("block " + std::to_string(n) + ": change " + std::to_string(c.seq) +
                            " out of sequence");
          }
          ++next_seq;
          changes.push_back(c);
        }
        VEIL_RETURN_IF_ERROR(s.status());
      }
      if (txs.size() != tx_count || changes.size() != change_count) {
        return DataLoss("block " + std::to_string(n) + ": " + std::to_string(txs.size()) +
                        " transactions and " + std::to_string(changes.size()) +
                        " changes where the header says " + std::to_string(tx_count) + " and " +
                        std::to_string(change_count));
      }
      {
        VEIL_ASSIGN_OR_RETURN(auto u, Prepare("UPDATE blocks SET next_change_seq = ?, txs = ?, "
                                              "changes = ?, tx_hash = ? WHERE number = ?"));
        u.Int(1, I64(next_seq)).Blob(2, EncodeBlockTxs(txs)).Blob(3, EncodeBlockChanges(changes));
        if (!txs.empty()) u.Blob(4, txs[0].hash);  // else NULL
        u.Int(5, I64(n));
        VEIL_RETURN_IF_ERROR(u.Run());
      }
      for (std::size_t i = 1; i < txs.size(); ++i) VEIL_RETURN_IF_ERROR(IndexTx(txs[i]));
    }
    std::optional<std::int64_t> head, next_id, meta_seq, stored;
    {
      VEIL_ASSIGN_OR_RETURN(auto s, Prepare("SELECT name, value FROM meta"));
      while (s.Step()) {
        const std::string name = s.ColText(0);
        if (name == "head") head = s.ColInt(1);
        if (name == "next_entity_id") next_id = s.ColInt(1);
        if (name == "next_change_seq") meta_seq = s.ColInt(1);
        if (name == "stored_entities") stored = s.ColInt(1);
      }
      VEIL_RETURN_IF_ERROR(s.status());
    }
    if (head.has_value() != !blocks.empty()) {
      return DataLoss("ledger meta table and blocks disagree about the head");
    }
    if (head) {
      if (!next_id || !meta_seq || !stored) return DataLoss("ledger meta table is incomplete");
      if (*head != I64(std::get<0>(blocks.back())) || *meta_seq != I64(next_seq) || *stored < 0) {
        return DataLoss("ledger meta table disagrees with the blocks (head " +
                        std::to_string(*head) + ", next change " + std::to_string(*meta_seq) +
                        ", after " + std::to_string(next_seq - 1) + " changes)");
      }
      VEIL_ASSIGN_OR_RETURN(auto u, Prepare("UPDATE blocks SET next_entity_id = ?, entities_net = "
                                            "? WHERE number = ?"));
      u.Int(1, *next_id).Int(2, *stored).Int(3, *head);
      VEIL_RETURN_IF_ERROR(u.Run());
      if (db_.changes() != 1) return DataLoss("head block missing");
    }
    return Exec(
        "DROP TABLE txs; DROP TABLE changes; DELETE FROM meta WHERE name IN ('head', "
        "'next_entity_id', 'next_change_seq', 'stored_entities')");
  }

  // The head is the highest block; its row holds the counters after it.
  Result<std::optional<ChainState>> LoadState() override {
    std::optional<std::uint64_t> head;
    std::optional<std::int64_t> next_id, next_seq, net;
    {
      VEIL_ASSIGN_OR_RETURN(auto s, Prepare("SELECT number, next_entity_id, next_change_seq, "
                                            "entities_net FROM blocks ORDER BY number DESC "
                                            "LIMIT 1"));
      if (s.Step()) {
        head = s.ColU64(0);
        if (sqlite3_column_type(s.raw(), 1) != SQLITE_NULL) next_id = s.ColInt(1);
        if (sqlite3_column_type(s.raw(), 2) != SQLITE_NULL) next_seq = s.ColInt(2);
        if (sqlite3_column_type(s.raw(), 3) != SQLITE_NULL) net = s.ColInt(3);
      }
      VEIL_RETURN_IF_ERROR(s.status());
    }
    if (!head) return std::optional<ChainState>();
    if (!next_id || !next_seq || !net) {
      return DataLoss("head block " + std::to_string(*head) + " lacks the chain's counters");
    }
    VEIL_ASSIGN_OR_RETURN(const std::int64_t swept, Swept());
    if (swept > *net) return DataLoss("more entities swept than created");
    ChainState st;
    VEIL_ASSIGN_OR_RETURN(auto h, GetBlock(*head));
    if (!h) return DataLoss("head block missing");
    st.head = *h;
    st.next_entity_id = *next_id;
    st.next_change_seq = static_cast<std::uint64_t>(*next_seq);
    st.stored_entities = static_cast<std::uint64_t>(*net - swept);
    return std::optional<ChainState>(st);
  }

  using Store::ApplyBlocks;
  Status ApplyBlocks(std::span<const BlockWrite> writes, const CommitGate& gate) override {
    if (writes.empty()) return Status::Ok();
    VEIL_RETURN_IF_ERROR(CheckConsecutive(writes));
    VEIL_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
    // A group (group commit): the rows of one block over the group's net effect, and every
    // block's row with its own transactions, changes and counters.
    Status s = writes.size() == 1 ? ApplyInTx(writes[0]) : ApplyInTx(NetBlockWrite(writes));
    std::int64_t swept = 0;
    if (s.ok()) {
      auto sw = Swept();
      s = sw.status();
      if (sw.ok()) swept = *sw;
    }
    for (const BlockWrite& w : writes) {
      if (!s.ok()) break;
      s = InsertBlockRow(w, swept);
    }
    if (s.ok() && gate) {
      try {
        s = gate();
      } catch (...) {
        Exec("ROLLBACK").IgnoreError();
        throw;
      }
    }
    if (s.ok()) s = Exec("COMMIT");
    if (!s.ok()) Exec("ROLLBACK").IgnoreError();
    return s;
  }

  // One read snapshot for a read of several statements (entity rows, then their attributes) on a
  // reader connection, which the writer may commit between (the writer's own reads run under
  // the Ledger's mutex, with no write between them). A no-op inside a transaction.
  class ReadSnapshot {
   public:
    explicit ReadSnapshot(SqliteStore& s)
        : s_(s.reader_ && sqlite3_get_autocommit(s.db_.get()) != 0 && s.Exec("BEGIN").ok()
                 ? &s
                 : nullptr) {}
    ~ReadSnapshot() {
      if (s_ != nullptr) (void)s_->Exec("COMMIT");
    }
    ReadSnapshot(const ReadSnapshot&) = delete;
    ReadSnapshot& operator=(const ReadSnapshot&) = delete;

   private:
    SqliteStore* s_;
  };

  Result<std::vector<Entity>> GetEntities(const std::vector<EntityKey>& keys) override {
    ReadSnapshot snapshot(*this);
    std::vector<Entity> out;
    if (keys.empty()) return out;
    std::string sql = std::string(kEntityColumns) + " WHERE e.key IN (";
    for (std::size_t i = 0; i < keys.size(); ++i) sql += i ? ",?" : "?";
    sql += ") ORDER BY e.id";
    VEIL_ASSIGN_OR_RETURN(auto s, Prepare(sql));
    for (std::size_t i = 0; i < keys.size(); ++i) s.Blob(static_cast<int>(i + 1), keys[i]);
    VEIL_RETURN_IF_ERROR(ReadEntities(s, Projection::All(), keys.size(), &out));
    return out;
  }

  Result<Account> GetAccount(const Address& address) override {
    Account a;
    a.address = address;
    VEIL_ASSIGN_OR_RETURN(auto s,
                          Prepare("SELECT tx_nonce, create_nonce FROM accounts WHERE address = ?"));
    s.Blob(1, address);
    if (s.Step()) {
      a.tx_nonce = s.ColU64(0);
      a.create_nonce = s.ColU64(1);
    }
    VEIL_RETURN_IF_ERROR(s.status());
    return a;
  }

  using Window = sql::WalkWindow;  // a walk's ids, walked down, each entity probed
  // A statement's text and its parameters, in order.
  struct Compiled {
    std::string sql;
    std::vector<Param> params;
  };

  // How a page is read (sql_filter.h, Drivers and kRangeProbeLimit; docs/notes/ledger.md,
  // "Query plans").
  struct Plan {
    // The index that drives: an equality's entries walked down in id order (joined), or a
    // range's entries collected and sorted; the rest of the filter probed on each. None: the
    // filter's id subqueries collected and sorted.
    std::optional<sql::Driver> driver;
    // First a walk of these ids down, the whole filter probed on each entity; when it holds no
    // page and does not reach id 0, the driver's collection (without a driver, the filter's own).
    std::optional<Window> window;
    // The rest tested by probes of each candidate's rows (a driver chosen by its count, so few
    // candidates, or a walk); false: by the rest's id subqueries, which the planner may collect
    // once while an equality's index is walked down (the rest of a filter whose drivers are all
    // equalities: other equalities, a NOT, an OR, `$contentType`).
    bool probe_rest = true;
  };

  void SetReadBudget(const ReadBudget& budget) override { budget_ = budget; }

  // The read budget (ReadBudget::max_steps) over one filtered read: while it lives, SQLite calls
  // OnProgress every kStepsPerCheck virtual machine instructions, which interrupts the running
  // statement (SQLITE_INTERRUPT) once the read has used its steps; Map then turns the read's
  // error into WorkBudgetExceeded. Declared after the read's ReadSnapshot, so it is gone before
  // the snapshot's COMMIT runs.
  static constexpr int kStepsPerCheck = 1000;
  class BudgetScope {
   public:
    explicit BudgetScope(SqliteStore& s) : s_(s) {
      s_.steps_ = 0;
      s_.over_budget_ = false;
      if (s_.budget_.max_steps > 0) {
        sqlite3_progress_handler(s_.db_.get(), kStepsPerCheck, &SqliteStore::OnProgress, &s_);
      }
    }
    ~BudgetScope() { sqlite3_progress_handler(s_.db_.get(), 0, nullptr, nullptr); }
    BudgetScope(const BudgetScope&) = delete;
    BudgetScope& operator=(const BudgetScope&) = delete;
    template <typename T>
    Result<T> Map(Result<T> read) const {
      if (!s_.over_budget_) return read;
      return WorkBudgetExceeded(std::to_string(s_.budget_.max_steps) + " SQLite steps");
    }

   private:
    SqliteStore& s_;
  };
  static int OnProgress(void* p) {
    auto* s = static_cast<SqliteStore*>(p);
    s->steps_ += kStepsPerCheck;
    if (s->steps_ <= s->budget_.max_steps) return 0;
    s->over_budget_ = true;
    return 1;
  }

  Result<StorePage> Query(const QueryRequest& r) override {
    ReadSnapshot snapshot(*this);
    BudgetScope budget(*this);
    return budget.Map(QueryRead(r));
  }

  Result<StorePage> QueryRead(const QueryRequest& r) {
    std::uint64_t scanned = 0;
    VEIL_ASSIGN_OR_RETURN(Plan plan, ChoosePlan(r, &scanned));
    StorePage page;
    VEIL_RETURN_IF_ERROR(ReadPage(r, CompileSelect(r, plan), &page, &scanned));
    if (plan.window && !page.more && plan.window->low > 0) {
      VEIL_RETURN_IF_ERROR(ChooseCollection(r, &plan, &scanned));
      VEIL_RETURN_IF_ERROR(ReadPage(r, CompileSelect(r, plan), &page, &scanned));
    }
    page.stats.rows_scanned = scanned + page.entities.size();
    for (const auto& e : page.entities) page.stats.bytes_returned += ReturnedBytes(e);
    return page;
  }

  // The driver with the fewest index entries below the cursor when one has fewer than `limit`
  // (counted up to `limit` each; *fewest_count, when given, their number), else nullopt.
  Result<std::optional<std::size_t>> FewestBelow(const std::vector<sql::Driver>& drivers,
                                                 std::int64_t before_id, std::uint64_t limit,
                                                 std::uint64_t* scanned,
                                                 std::uint64_t* fewest_count = nullptr) {
    std::optional<std::size_t> best;
    std::uint64_t fewest = limit;
    for (std::size_t i = 0; i < drivers.size(); ++i) {
      std::vector<Param> params;
      Dialect d(&params);
      sql::DriverRows rows;
      Check(sql::CompileDriverRows(drivers[i], d, &rows));
      if (before_id > 0) {
        rows.conditions += " AND " + rows.id + " < ?";
        params.push_back(before_id);
      }
      VEIL_ASSIGN_OR_RETURN(auto s, Prepare("SELECT count(*) FROM (SELECT 1 FROM " + rows.table +
                                            " a WHERE " + rows.conditions + " LIMIT ?)"));
      params.push_back(static_cast<std::int64_t>(std::min<std::uint64_t>(fewest, INT64_MAX)));
      BindAll(s, params);
      const std::uint64_t n = s.Step() ? s.ColU64(0) : 0;
      VEIL_RETURN_IF_ERROR(s.status());
      *scanned += Scanned(s);
      if (n < fewest) {
        fewest = n;
        best = i;
      }
    }
    if (fewest_count != nullptr) *fewest_count = fewest;
    return best;
  }

  // The collection after a walk whose window held no page, when every driver has at least
  // kRangeProbeLimit entries: the driver with the fewest, whose collection probes M entities
  // (against the 2 * drivers * M index entries its choice reads).
  Status ChooseCollection(const QueryRequest& r, Plan* plan, std::uint64_t* scanned) {
    plan->window.reset();
    std::vector<sql::Driver> drivers = sql::Drivers(*r.filter);
    if (drivers.size() < 2) return Status::Ok();
    VEIL_ASSIGN_OR_RETURN(
        const std::optional<std::size_t> best,
        sql::FewestByDoubling(2 * sql::kRangeProbeLimit, [&](std::uint64_t limit) {
          return FewestBelow(drivers, r.before_id, limit, scanned);
        }));
    if (best) plan->driver = std::move(drivers[*best]);
    return Status::Ok();
  }

  Status ReadPage(const QueryRequest& r, const Compiled& c, StorePage* page,
                  std::uint64_t* scanned) {
    VEIL_ASSIGN_OR_RETURN(auto s, Prepare(c.sql));
    BindAll(s, c.params);
    *page = StorePage{};
    VEIL_RETURN_IF_ERROR(ReadEntities(s, r.projection, r.limit, &page->entities, &page->more));
    *scanned += Scanned(s);
    return Status::Ok();
  }

  // A page's plan. A filter without any driver (a NOT at the top, an OR with a branch that has
  // none, `$contentType` alone) walks the window below the cursor, then collects. A lone
  // attribute equality drives by its index, and $key's unique index (sql::BoundedDriver)
  // without a count. Otherwise each driver's index entries (an attribute's
  // or a meta field's) below the cursor are counted up to kRangeProbeLimit: the one with the
  // fewest drives, unless every one has that many, when a range's page (a meta field's among
  // them) comes from a walk of the entities (few are walked when the filter is broad;
  // RangeWalkWindow bounds the waste when it is not), and an attribute equality's from its
  // index walked down.
  Result<Plan> ChoosePlan(const QueryRequest& r, std::uint64_t* scanned) {
    Plan plan;
    if (r.filter == nullptr) return plan;
    std::vector<sql::Driver> drivers = sql::Drivers(*r.filter);
    if (drivers.empty()) {
      if (r.filter->kind == query::Expr::Kind::kAll) return plan;
      // An OR whose branches each have a driver (sql::BranchDrivers): the planner collects it
      // when its branches' fewest drivers have fewer than kRangeProbeLimit entries in all,
      // else the entities are walked, the whole filter probed on each. A filter without any
      // driver (a NOT at the top, an OR with a branch that has none, `$contentType` alone)
      // has no index to count, so it is walked first: its collection reads every match.
      const auto branches = sql::BranchDrivers(*r.filter);
      if (branches.empty()) {
        VEIL_ASSIGN_OR_RETURN(plan.window, WindowBelow(r));
        return plan;
      }
      std::uint64_t total = 0;
      for (const auto& branch : branches) {
        std::uint64_t n = 0;
        VEIL_ASSIGN_OR_RETURN(
            const std::optional<std::size_t> best,
            FewestBelow(branch, r.before_id, sql::kRangeProbeLimit - total, scanned, &n));
        if (!best) {
          VEIL_ASSIGN_OR_RETURN(plan.window, WindowBelow(r));
          return plan;
        }
        total += n;
      }
      return plan;
    }
    if (drivers.size() == 1 && drivers[0].equality) {
      plan.driver = std::move(drivers[0]);
      plan.probe_rest = false;
      return plan;
    }
    // $key's unique index: at most as many entries as its values, no count needed.
    if (const auto bounded = sql::BoundedDriver(drivers)) {
      plan.driver = std::move(drivers[*bounded]);
      return plan;
    }
    VEIL_ASSIGN_OR_RETURN(const std::optional<std::size_t> best,
                          FewestBelow(drivers, r.before_id, sql::kRangeProbeLimit, scanned));
    if (best) {
      plan.driver = std::move(drivers[*best]);
      return plan;
    }
    const auto range = sql::WalkDriver(drivers);
    if (range == drivers.end()) {
      plan.driver = std::move(drivers[0]);
      plan.probe_rest = false;
      return plan;
    }
    plan.driver = std::move(*range);
    VEIL_ASSIGN_OR_RETURN(plan.window, WindowBelow(r));
    return plan;
  }

  // A walk's window below its top: the cursor, but never above the highest id + 1 (a cursor is
  // a digest, not a secret, and may name any id).
  Result<Window> WindowBelow(const QueryRequest& r) {
    VEIL_ASSIGN_OR_RETURN(auto s, Prepare("SELECT COALESCE(max(id), 0) + 1 FROM entities"));
    std::int64_t top = s.Step() ? s.ColInt(0) : 1;
    VEIL_RETURN_IF_ERROR(s.status());
    if (r.before_id > 0) top = std::min(top, r.before_id);
    return sql::RangeWalkWindow(top, static_cast<std::uint64_t>(r.limit) + 1);
  }

  // Count's statement: by the driver with the fewest index entries (choosing it reads up to
  // cap + 1 entries of each; `scanned` adds them), else a scan of the live entities.
  Result<Compiled> CompileCount(const query::Expr& filter, ReadPoint at, std::uint64_t cap,
                                std::uint64_t* scanned, bool* driven) {
    Compiled c;
    std::vector<sql::Driver> drivers = sql::Drivers(filter);
    *driven = !drivers.empty();
    if (*driven) {
      VEIL_ASSIGN_OR_RETURN(const std::size_t which,
                            sql::CountDriver(drivers, cap + 1, [&](std::uint64_t limit) {
                              return FewestBelow(drivers, 0, limit, scanned);
                            }));
      // From the driver's index, the rest probed (sql_filter.h, CompileDrivenCount).
      Dialect d(&c.params);
      // Always reading the rows of few matches: the longer statement costs SQLite 1-4 us.
      Check(sql::CompileDrivenCount(filter, drivers[which], d, at, cap + 1,
                                    /*read_rows=*/true, &c.sql));
    } else {
      c.sql =
          "SELECT count(*) FROM (SELECT 1 FROM entities e WHERE +e.expires_block > ? AND "
          "+e.created_block <= ? AND (";
      c.params = {I64(at.expiry), I64(at.block)};
      CompileExpr(filter, &c);
      c.sql += ") LIMIT ?)";
      c.params.push_back(I64(cap + 1));
    }
    return c;
  }

  Result<StoreCount> Count(const query::Expr& filter, ReadPoint at, std::uint64_t cap) override {
    BudgetScope budget(*this);
    return budget.Map(CountRead(filter, at, cap));
  }

  Result<StoreCount> CountRead(const query::Expr& filter, ReadPoint at, std::uint64_t cap) {
    std::uint64_t scanned = 0;
    bool driven = false;
    VEIL_ASSIGN_OR_RETURN(const Compiled c, CompileCount(filter, at, cap, &scanned, &driven));
    std::uint64_t nonlive = 0;
    VEIL_ASSIGN_OR_RETURN(auto s, Prepare(c.sql));
    BindAll(s, c.params);
    StoreCount out;
    if (s.Step()) {
      out.count = s.ColU64(0);
      if (driven) nonlive = s.ColU64(1);
    }
    VEIL_RETURN_IF_ERROR(s.status());
    if (nonlive > out.count) return DataLoss("count: more non-live matches than matches");
    out.count -= nonlive;
    out.stats.rows_scanned = scanned + Scanned(s) + out.count + nonlive;
    if (out.count > cap) {
      out.count = cap;
      out.capped = true;
    }
    return out;
  }

  Result<std::uint64_t> LiveCount(std::uint64_t expiry) override {
    // One statement, so one snapshot of both counters (a reader connection runs beside the
    // writer). The expiry sum is bounded: the sweeper removes buckets more than
    // cursor_lifetime_blocks old.
    std::uint64_t stored = 0, expired = 0;
    static const std::string kSql = std::string("SELECT ") + kStoredEntitiesSql +
                                    ", (SELECT coalesce(sum(n), 0) FROM expiry WHERE block <= ?)";
    VEIL_ASSIGN_OR_RETURN(auto s, Prepare(kSql));
    s.Int(1, I64(expiry));
    if (s.Step()) {
      if (s.ColInt(0) < 0) return DataLoss("more entities swept than created");
      stored = s.ColU64(0);
      expired = s.ColU64(1);
    }
    VEIL_RETURN_IF_ERROR(s.status());
    if (expired > stored) return DataLoss("expiry counters exceed the entity count");
    return stored - expired;
  }

  // Every b-tree read through this connection: each table scanned whole, each index walked over
  // its first column (IS NOT NULL is a range the index serves).
  Result<std::unique_ptr<Store>> OpenReader() override {
    const std::string& p = options_.path;
    if (p.empty() || p == ":memory:" || p.rfind("file::memory:", 0) == 0 ||
        p.find("mode=memory") != std::string::npos) {
      return FailedPrecondition("an in-memory SQLite database has no reader connections");
    }
    return OpenSqlite(options_, /*reader=*/true);
  }

  Result<std::uint64_t> Prewarm() override {
    std::vector<std::pair<std::string, std::string>> trees;  // (statement, name)
    {
      VEIL_ASSIGN_OR_RETURN(auto s,
                            Prepare("SELECT type, name, tbl_name FROM sqlite_schema WHERE "
                                    "type IN ('table', 'index') AND name NOT LIKE 'sqlite_stat%'"));
      while (s.Step()) {
        const std::string type = s.ColText(0), name = s.ColText(1), table = s.ColText(2);
        if (type == "table") {
          trees.emplace_back("SELECT count(*) FROM \"" + name + "\" NOT INDEXED", name);
        } else {
          trees.emplace_back("", name + "\x1f" + table);
        }
      }
      VEIL_RETURN_IF_ERROR(s.status());
    }
    for (auto& [sql, name] : trees) {
      if (!sql.empty()) continue;
      const auto sep = name.find('\x1f');
      const std::string index = name.substr(0, sep), table = name.substr(sep + 1);
      VEIL_ASSIGN_OR_RETURN(auto info,
                            Prepare("SELECT name FROM pragma_index_info(?) WHERE seqno = 0"));
      info.Text(1, index);
      if (!info.Step()) continue;  // an expression index: none here
      const std::string first = info.ColText(0);
      sql = "SELECT count(*) FROM \"" + table + "\" INDEXED BY \"" + index + "\" WHERE \"" + first +
            "\" IS NOT NULL";
    }
    for (const auto& [sql, name] : trees) {
      if (sql.empty()) continue;
      VEIL_ASSIGN_OR_RETURN(auto s, Prepare(sql));
      while (s.Step()) {
      }
      VEIL_RETURN_IF_ERROR(s.status());
    }
    int used = 0, high = 0;
    sqlite3_db_status(db_.get(), SQLITE_DBSTATUS_CACHE_USED, &used, &high, 0);
    return static_cast<std::uint64_t>(used);
  }

  Result<std::string> Explain(const QueryRequest& r) override {
    ReadSnapshot snapshot(*this);
    BudgetScope budget(*this);
    return budget.Map(ExplainRead(r));
  }

  Result<std::string> ExplainRead(const QueryRequest& r) {
    std::uint64_t scanned = 0;
    VEIL_ASSIGN_OR_RETURN(Plan plan, ChoosePlan(r, &scanned));
    std::string out;
    if (plan.window) {
      // The walk, and the collection that serves the page when the window holds none.
      VEIL_ASSIGN_OR_RETURN(out, ExplainCompiled(CompileSelect(r, plan)));
      out = "walk of ids [" + std::to_string(plan.window->low) + ", " +
            std::to_string(plan.window->top) + "), else the collection:\n" + out;
      VEIL_RETURN_IF_ERROR(ChooseCollection(r, &plan, &scanned));
    }
    VEIL_ASSIGN_OR_RETURN(std::string collect, ExplainCompiled(CompileSelect(r, plan)));
    return out + collect;
  }

  Result<std::string> ExplainCount(const query::Expr& filter, ReadPoint at,
                                   std::uint64_t cap) override {
    ReadSnapshot snapshot(*this);
    BudgetScope budget(*this);
    return budget.Map([&]() -> Result<std::string> {
      std::uint64_t scanned = 0;
      bool driven = false;
      VEIL_ASSIGN_OR_RETURN(const Compiled c, CompileCount(filter, at, cap, &scanned, &driven));
      return ExplainCompiled(c);
    }());
  }

  Result<std::string> ExplainCompiled(const Compiled& c) {
    std::string out = "sql: " + c.sql + "\nparams:";
    for (const auto& p : c.params) {
      if (const auto* n = std::get_if<std::int64_t>(&p)) {
        out += " " + std::to_string(*n);
      } else if (const auto* t = std::get_if<std::string>(&p)) {
        out += " '" + *t + "'";
      } else {
        out += " x'" + ToHex(std::get<Bytes>(p)) + "'";
      }
    }
    out += "\nplan:\n";
    VEIL_ASSIGN_OR_RETURN(auto s, Prepare("EXPLAIN QUERY PLAN " + c.sql));
    BindAll(s, c.params);
    std::unordered_map<std::int64_t, int> depth;
    while (s.Step()) {
      const std::int64_t id = s.ColInt(0);
      const std::int64_t parent = s.ColInt(1);
      const int d = parent == 0 ? 0 : depth[parent] + 1;
      depth[id] = d;
      out += std::string(2 * static_cast<std::size_t>(d) + 2, ' ') + s.ColText(3) + "\n";
    }
    VEIL_RETURN_IF_ERROR(s.status());
    return out;
  }

  // The expiry clock in meta ('expiry_clock_ms').
  Result<std::optional<std::uint64_t>> LoadExpiryClock() override {
    VEIL_ASSIGN_OR_RETURN(auto s, Prepare("SELECT value FROM meta WHERE name = 'expiry_clock_ms'"));
    std::optional<std::uint64_t> out;
    if (s.Step()) {
      if (s.ColInt(0) < 0) return DataLoss("ledger meta table: negative expiry clock");
      out = s.ColU64(0);
    }
    VEIL_RETURN_IF_ERROR(s.status());
    return out;
  }

  Status RecordExpiryClock(std::uint64_t ms) override {
    VEIL_ASSIGN_OR_RETURN(auto s, Prepare("INSERT INTO meta(name, value) VALUES('expiry_clock_ms', "
                                          "?) ON CONFLICT(name) DO NOTHING"));
    s.Int(1, I64(ms));
    (void)s.Step();
    return s.status();
  }

  Result<std::uint64_t> Sweep(std::uint64_t up_to_block, std::size_t max_rows) override {
    if (max_rows == 0) return std::uint64_t{0};
    VEIL_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
    auto r = SweepInTx(up_to_block, max_rows);
    Status s = r.status();
    if (s.ok()) s = Exec("COMMIT");
    if (!s.ok()) {
      Exec("ROLLBACK").IgnoreError();
      return s;
    }
    return r;
  }

  Result<std::optional<BlockHeader>> GetBlock(std::uint64_t number) override {
    VEIL_ASSIGN_OR_RETURN(
        auto s, Prepare("SELECT chain_id, number, parent, timestamp_ms, tx_root, changeset, "
                        "tx_count, change_count, gas_used, hash FROM blocks WHERE number = ?"));
    s.Int(1, I64(number));
    std::optional<BlockHeader> out;
    if (s.Step()) {
      BlockHeader h;
      h.chain_id = s.ColU64(0);
      h.number = s.ColU64(1);
      h.parent = s.ColArray<32>(2);
      h.timestamp_ms = s.ColU64(3);
      h.tx_root = s.ColArray<32>(4);
      h.changeset = s.ColArray<32>(5);
      h.tx_count = static_cast<std::uint32_t>(s.ColInt(6));
      h.change_count = static_cast<std::uint32_t>(s.ColInt(7));
      h.gas_used = s.ColU64(8);
      h.hash = s.ColArray<32>(9);
      out = h;
    }
    VEIL_RETURN_IF_ERROR(s.status());
    return out;
  }

  Result<std::vector<StoredTx>> GetBlockTxs(std::uint64_t number) override {
    VEIL_ASSIGN_OR_RETURN(auto s, Prepare("SELECT tx_count, txs FROM blocks WHERE number = ?"));
    s.Int(1, I64(number));
    if (!s.Step()) {
      VEIL_RETURN_IF_ERROR(s.status());
      return std::vector<StoredTx>();
    }
    const auto count = static_cast<std::uint32_t>(s.ColInt(0));
    if (sqlite3_column_type(s.raw(), 1) == SQLITE_NULL) {
      return DataLoss("block " + std::to_string(number) + ": no stored transactions");
    }
    return DecodeBlockTxs(s.ColBlob(1), number, count);
  }

  // One index probe: the block whose first transaction it is (blocks_tx_hash), else the block
  // and position of a later one (tx_index); then that block's transactions.
  Result<std::optional<StoredTx>> FindTx(const Hash32& hash, std::uint64_t head) override {
    VEIL_ASSIGN_OR_RETURN(const std::optional<TxLocation> at, LocateTx(hash, head));
    if (!at) return std::optional<StoredTx>();
    VEIL_ASSIGN_OR_RETURN(auto txs, GetBlockTxs(at->block));
    if (at->index >= txs.size() || txs[at->index].hash != hash) {
      return DataLoss("block " + std::to_string(at->block) + ": transaction index disagrees");
    }
    return std::optional<StoredTx>(std::move(txs[at->index]));
  }

  Result<std::vector<std::optional<TxLocation>>> LocateTxs(std::span<const Hash32> hashes,
                                                           std::uint64_t head) override {
    std::vector<std::optional<TxLocation>> out;
    for (const Hash32& h : hashes) {
      VEIL_ASSIGN_OR_RETURN(const std::optional<TxLocation> at, LocateTx(h, head));
      out.push_back(at);
    }
    return out;
  }

  // A transaction's block and index by its hash: a block's first through the block row's
  // tx_hash, the others through tx_index.
  Result<std::optional<TxLocation>> LocateTx(const Hash32& hash, std::uint64_t head) {
    VEIL_ASSIGN_OR_RETURN(
        auto s, Prepare("SELECT block, idx FROM (SELECT number AS block, 0 AS idx FROM blocks "
                        "WHERE tx_hash = ?1 AND number <= ?2 UNION ALL SELECT block, idx FROM "
                        "tx_index WHERE hash = ?1 AND block <= ?2) ORDER BY block LIMIT 1"));
    s.Blob(1, hash).Int(2, I64(head));
    std::optional<TxLocation> at;
    if (s.Step()) at = TxLocation{s.ColU64(0), static_cast<std::uint32_t>(s.ColInt(1))};
    VEIL_RETURN_IF_ERROR(s.status());
    return at;
  }

  Result<StoredRows> CountStoredRows() override {
    ReadSnapshot snapshot(*this);
    static const std::string kSql =
        std::string("SELECT ") + kStoredEntitiesSql + ", (SELECT count(*) FROM entities)";
    VEIL_ASSIGN_OR_RETURN(auto s, Prepare(kSql));
    StoredRows out;
    if (s.Step()) {
      if (s.ColInt(0) < 0) return DataLoss("more entities swept than created");
      out.counted = s.ColU64(0);
      out.rows = s.ColU64(1);
    }
    VEIL_RETURN_IF_ERROR(s.status());
    return out;
  }

  Result<std::vector<Change>> GetBlockChanges(std::uint64_t number) override {
    VEIL_ASSIGN_OR_RETURN(
        auto s,
        Prepare("SELECT change_count, next_change_seq, changes FROM blocks WHERE number = ?"));
    s.Int(1, I64(number));
    if (!s.Step()) {
      VEIL_RETURN_IF_ERROR(s.status());
      return std::vector<Change>();
    }
    const auto count = static_cast<std::uint32_t>(s.ColInt(0));
    if (sqlite3_column_type(s.raw(), 1) == SQLITE_NULL ||
        sqlite3_column_type(s.raw(), 2) == SQLITE_NULL || s.ColU64(1) < count + 1ULL) {
      return DataLoss("block " + std::to_string(number) + ": no stored changes");
    }
    return DecodeBlockChanges(s.ColBlob(2), number, s.ColU64(1) - count, count);
  }

  Result<std::vector<Entity>> ScanEntities(std::int64_t after_id, std::size_t max_rows) override {
    ReadSnapshot snapshot(*this);
    VEIL_ASSIGN_OR_RETURN(
        auto s, Prepare(std::string(kEntityColumns) + " WHERE e.id > ? ORDER BY e.id LIMIT ?"));
    s.Int(1, after_id).Int(2, static_cast<std::int64_t>(max_rows));
    std::vector<Entity> out;
    VEIL_RETURN_IF_ERROR(
        ReadEntities(s, Projection::All(), max_rows, &out, nullptr, /*compare_copies=*/true));
    return out;
  }

 private:
  static constexpr const char* kEntityColumns =
      "SELECT e.id, e.key, e.owner_id, e.creator_id, e.created_block, "
      "e.updated_block, e.expires_block, e.content_type, e.payload, e.last_change, e.attrs, "
      "e.flags FROM entities e";

  Result<sqlite::Statement> Prepare(const std::string& sql) { return db_.Prepare(sql); }
  Status Exec(const char* sql) { return db_.Exec(sql); }

  static void BindAll(sqlite::Statement& s, const std::vector<Param>& params) {
    for (std::size_t i = 0; i < params.size(); ++i) Bind(s, static_cast<int>(i + 1), params[i]);
  }

  static std::uint64_t Scanned(sqlite::Statement& s) {
    return static_cast<std::uint64_t>(
        sqlite3_stmt_status(s.raw(), SQLITE_STMTSTATUS_FULLSCAN_STEP, 1));
  }

  // Columns as in kEntityColumns (the query select uses the same order); the owner's and the
  // creator's account ids (columns 2 and 3) are resolved to addresses by ReadEntities.
  static Entity ReadEntity(sqlite::Statement& s, const Projection& p) {
    Entity e;
    e.id = s.ColInt(0);
    e.key = s.ColArray<32>(1);
    if (p.blocks) {
      e.created_block = s.ColU64(4);
      e.updated_block = s.ColU64(5);
      e.expires_block = s.ColU64(6);
    }
    if (p.content_type) e.content_type = s.ColText(7);
    if (p.payload) {
      const ByteView b = s.ColBlob(8);
      e.payload.assign(b.begin(), b.end());
    }
    e.last_change = s.ColU64(9);
    if (p.flags) e.flags = static_cast<std::uint8_t>(s.ColInt(11));
    return e;
  }

  // Reads up to `limit` entity rows of `s` (columns as in kEntityColumns) into *out (replacing what
  // it held); *more (if given) tells whether a further row exists. Attributes, when projected, come
  // from the row's copy (entities.attrs); a row written before the copy existed takes them from the
  // attr_* rows, and with compare_copies every row does, and a copy that differs is kDataLoss
  // (VerifyChain).
  Status ReadEntities(sqlite::Statement& s, const Projection& p, std::size_t limit,
                      std::vector<Entity>* out, bool* more = nullptr, bool compare_copies = false) {
    out->clear();
    out->reserve(std::min<std::size_t>(limit, 256));
    // Rows whose attributes come from (or are checked against) the attr_* rows: the index into
    // *out, and whether the row had its own copy.
    std::vector<std::pair<std::size_t, bool>> from_index;
    // The rows' owner and creator account ids, resolved once each after the rows are read (a
    // page has few distinct accounts; a scalar subquery a row cost two b-tree descents a row).
    std::vector<std::pair<std::int64_t, std::int64_t>> account_ids;
    if (p.owner || p.creator) account_ids.reserve(out->capacity());
    while (s.Step()) {
      if (out->size() == limit) {
        if (more != nullptr) *more = true;
        break;
      }
      Entity e = ReadEntity(s, p);
      if (p.owner || p.creator) {
        account_ids.emplace_back(p.owner ? s.ColInt(2) : 0, p.creator ? s.ColInt(3) : 0);
      }
      const bool copy = p.attributes && sqlite3_column_type(s.raw(), 10) != SQLITE_NULL;
      if (copy) {
        VEIL_ASSIGN_OR_RETURN(e.attributes, DecodeStoredAttributes(s.ColBlob(10), e.key));
      }
      if (p.attributes && (!copy || compare_copies)) from_index.emplace_back(out->size(), copy);
      out->push_back(std::move(e));
    }
    VEIL_RETURN_IF_ERROR(s.status());
    if (!account_ids.empty()) {
      VEIL_RETURN_IF_ERROR(ResolveAccounts(account_ids, p, /*cached=*/!compare_copies, out));
    }
    if (from_index.empty()) return Status::Ok();
    std::vector<std::int64_t> ids;
    for (const auto& [i, copy] : from_index) ids.push_back((*out)[i].id);
    VEIL_ASSIGN_OR_RETURN(auto indexed, LoadAttributes(ids));
    for (const auto& [i, copy] : from_index) {
      Entity& e = (*out)[i];
      if (copy) {
        VEIL_RETURN_IF_ERROR(CheckAttributeCopies(e, indexed[e.id]));
      } else {
        e.attributes = std::move(indexed[e.id]);
      }
    }
    return Status::Ok();
  }

  // Sets (*out)[i]'s owner and creator from the account ids in ids[i] (as projected), from
  // account_cache_ or one lookup per distinct id. A committed account is never deleted and its
  // id keeps its address, so the cache never goes stale; it takes only what a read outside a
  // write transaction saw (a reader, or the writer in autocommit), since a rolled-back account's
  // id can be given to another address. Without `cached` (VerifyChain's scan) every id is read
  // from the table, so that a tampered address is seen.
  Status ResolveAccounts(const std::vector<std::pair<std::int64_t, std::int64_t>>& ids,
                         const Projection& p, bool cached, std::vector<Entity>* out) {
    const bool committed = cached && (reader_ || sqlite3_get_autocommit(db_.get()) != 0);
    std::unordered_map<std::int64_t, Address> local;  // this call's, when not cached
    auto& known = cached ? account_cache_ : local;
    const auto address = [&](std::int64_t id, const Entity& e) -> Result<Address> {
      if (auto it = known.find(id); it != known.end()) return it->second;
      VEIL_ASSIGN_OR_RETURN(auto s, Prepare("SELECT address FROM accounts WHERE id = ?"));
      s.Int(1, id);
      if (!s.Step()) {
        VEIL_RETURN_IF_ERROR(s.status());
        return UnknownAccount(e, id);
      }
      const Address a = s.ColArray<20>(0);
      if (committed || !cached) {
        if (known.size() >= kAccountCacheSize) known.clear();
        known.emplace(id, a);
      }
      return a;
    };
    return SetAccounts(ids, p, address, out);
  }

  // The attributes of the given entities from the attr_* rows, sorted by name.
  Result<std::unordered_map<std::int64_t, std::vector<Attribute>>> LoadAttributes(
      const std::vector<std::int64_t>& ids) {
    std::unordered_map<std::int64_t, std::vector<Attribute>> by_id;
    std::string in = "(";
    for (std::size_t i = 0; i < ids.size(); ++i) {
      in += i ? ",?" : "?";
      by_id[ids[i]];
    }
    in += ")";
    for (int table = 0; table < 2; ++table) {
      VEIL_ASSIGN_OR_RETURN(
          auto s, Prepare(std::string("SELECT entity_id, name, value FROM ") +
                          (table == 0 ? "attr_num" : "attr_str") + " WHERE entity_id IN " + in));
      for (std::size_t i = 0; i < ids.size(); ++i) s.Int(static_cast<int>(i + 1), ids[i]);
      while (s.Step()) {
        auto it = by_id.find(s.ColInt(0));
        if (it == by_id.end()) continue;
        if (table == 0) {
          it->second.push_back(Attribute::Num(s.ColText(1), Unbiased(s.ColInt(2))));
        } else {
          it->second.push_back(Attribute::Str(s.ColText(1), s.ColText(2)));
        }
      }
      VEIL_RETURN_IF_ERROR(s.status());
    }
    for (auto& [id, attrs] : by_id) {
      std::sort(attrs.begin(), attrs.end(),
                [](const Attribute& a, const Attribute& b) { return a.name < b.name; });
    }
    return by_id;
  }

  // Moves the count of entities expiring at `block` by delta (nonzero); a bucket that reaches
  // zero is removed.
  Status ExpiryDelta(std::uint64_t block, std::int64_t delta) {
    VEIL_ASSIGN_OR_RETURN(auto s, Prepare("INSERT INTO expiry(block, n) VALUES(?, ?) "
                                          "ON CONFLICT(block) DO UPDATE SET n = n + excluded.n"));
    s.Int(1, I64(block)).Int(2, delta);
    VEIL_RETURN_IF_ERROR(s.Run());
    if (delta > 0) return Status::Ok();
    VEIL_ASSIGN_OR_RETURN(auto d, Prepare("DELETE FROM expiry WHERE block = ? AND n = 0"));
    d.Int(1, I64(block));
    return d.Run();
  }

  Status EnsureAccount(const Address& a) {
    VEIL_ASSIGN_OR_RETURN(auto s, Prepare("INSERT INTO accounts(address, tx_nonce, create_nonce) "
                                          "VALUES(?, 0, 0) ON CONFLICT(address) DO NOTHING"));
    s.Blob(1, a);
    return s.Run();
  }

  Status DeleteAttributes(std::int64_t id) {
    for (const char* sql :
         {"DELETE FROM attr_str WHERE entity_id = ?", "DELETE FROM attr_num WHERE entity_id = ?"}) {
      VEIL_ASSIGN_OR_RETURN(auto s, Prepare(sql));
      s.Int(1, id);
      VEIL_RETURN_IF_ERROR(s.Run());
    }
    return Status::Ok();
  }

  Status InsertAttributes(const Entity& e) {
    for (const auto& a : e.attributes) {
      if (a.type() == AttrType::kNumeric) {
        VEIL_ASSIGN_OR_RETURN(
            auto s, Prepare("INSERT INTO attr_num(entity_id, name, value) VALUES(?, ?, ?)"));
        s.Int(1, e.id).Text(2, a.name).Int(3, Biased(std::get<std::uint64_t>(a.value)));
        VEIL_RETURN_IF_ERROR(s.Run());
      } else {
        VEIL_ASSIGN_OR_RETURN(
            auto s, Prepare("INSERT INTO attr_str(entity_id, name, value) VALUES(?, ?, ?)"));
        s.Int(1, e.id).Text(2, a.name).Text(3, std::get<std::string>(a.value));
        VEIL_RETURN_IF_ERROR(s.Run());
      }
    }
    return Status::Ok();
  }

  // One block's rows. Accounts are made once per block (a sender's row is already written by
  // the nonce upsert), and the expiry buckets' deltas are summed per bucket and written at the end
  // (a batch of creates with one expiry moves its bucket once).
  Status ApplyInTx(const BlockWrite& w) {
    std::set<Address> known;  // accounts that have a row in this transaction
    for (const auto& a : w.accounts) {
      VEIL_ASSIGN_OR_RETURN(
          auto s, Prepare("INSERT INTO accounts(address, tx_nonce, create_nonce) VALUES(?, ?, ?) "
                          "ON CONFLICT(address) DO UPDATE SET tx_nonce = excluded.tx_nonce, "
                          "create_nonce = excluded.create_nonce"));
      s.Blob(1, a.address).Int(2, I64(a.tx_nonce)).Int(3, I64(a.create_nonce));
      VEIL_RETURN_IF_ERROR(s.Run());
      known.insert(a.address);
    }
    const auto ensure = [&](const Address& a) {
      return known.insert(a).second ? EnsureAccount(a) : Status::Ok();
    };
    std::map<std::uint64_t, std::int64_t> expiry;  // bucket -> delta
    for (const auto& ew : w.entities) {
      const Entity& e = ew.entity;
      switch (ew.kind) {
        case EntityWrite::Kind::kInsert: {
          VEIL_RETURN_IF_ERROR(ensure(e.owner));
          VEIL_RETURN_IF_ERROR(ensure(e.creator));
          VEIL_ASSIGN_OR_RETURN(
              auto s,
              Prepare("INSERT INTO entities(id, key, owner_id, creator_id, content_type, payload, "
                      "created_block, updated_block, expires_block, last_change, attrs, flags) "
                      "VALUES(?, ?, (SELECT id FROM accounts WHERE address = ?), (SELECT id FROM "
                      "accounts WHERE address = ?), ?, ?, ?, ?, ?, ?, ?, ?)"));
          s.Int(1, e.id).Blob(2, e.key).Blob(3, e.owner).Blob(4, e.creator);
          s.Text(5, e.content_type).Blob(6, e.payload).Int(7, I64(e.created_block));
          s.Int(8, I64(e.updated_block)).Int(9, I64(e.expires_block)).Int(10, I64(e.last_change));
          s.Blob(11, EncodeStoredAttributes(e.attributes)).Int(12, e.flags);
          VEIL_RETURN_IF_ERROR(s.Run());
          VEIL_RETURN_IF_ERROR(InsertAttributes(e));
          ++expiry[e.expires_block];
          break;
        }
        case EntityWrite::Kind::kUpdate: {
          VEIL_RETURN_IF_ERROR(ensure(e.owner));
          VEIL_ASSIGN_OR_RETURN(
              auto s, Prepare("UPDATE entities SET owner_id = (SELECT id FROM accounts WHERE "
                              "address = ?), content_type = ?, payload = ?, updated_block = ?, "
                              "expires_block = ?, last_change = ?, attrs = ? WHERE id = ?"));
          s.Blob(1, e.owner).Text(2, e.content_type).Blob(3, e.payload);
          s.Int(4, I64(e.updated_block)).Int(5, I64(e.expires_block)).Int(6, I64(e.last_change));
          s.Blob(7, EncodeStoredAttributes(e.attributes)).Int(8, e.id);
          VEIL_RETURN_IF_ERROR(s.Run());
          if (ew.attributes_changed) {
            VEIL_RETURN_IF_ERROR(DeleteAttributes(e.id));
            VEIL_RETURN_IF_ERROR(InsertAttributes(e));
          }
          if (ew.old_expires_block != e.expires_block) {
            --expiry[ew.old_expires_block];
            ++expiry[e.expires_block];
          }
          break;
        }
        case EntityWrite::Kind::kDelete: {
          VEIL_RETURN_IF_ERROR(DeleteAttributes(e.id));
          VEIL_ASSIGN_OR_RETURN(auto s, Prepare("DELETE FROM entities WHERE id = ?"));
          s.Int(1, e.id);
          VEIL_RETURN_IF_ERROR(s.Run());
          --expiry[ew.old_expires_block];
          break;
        }
      }
    }
    for (const auto& [bucket, delta] : expiry) {
      if (delta != 0) VEIL_RETURN_IF_ERROR(ExpiryDelta(bucket, delta));
    }
    return Status::Ok();
  }

  // The sweeper's count of the entity rows it removed (meta 'swept').
  Result<std::int64_t> Swept() {
    VEIL_ASSIGN_OR_RETURN(auto s, Prepare("SELECT value FROM meta WHERE name = 'swept'"));
    const std::int64_t swept = s.Step() ? s.ColInt(0) : 0;
    VEIL_RETURN_IF_ERROR(s.status());
    return swept;
  }

  // A block's row: its header, transactions, changes and the counters after it (kSchema);
  // `swept` as Swept() reads it in the same transaction.
  Status InsertBlockRow(const BlockWrite& w, std::int64_t swept) {
    const BlockHeader& h = w.header;
    if (w.txs.size() != h.tx_count || w.changes.size() != h.change_count) {
      return Internal("block " + std::to_string(h.number) + ": rows and header disagree");
    }
    VEIL_ASSIGN_OR_RETURN(
        auto s, Prepare("INSERT INTO blocks(number, chain_id, parent, timestamp_ms, tx_root, "
                        "changeset, tx_count, change_count, gas_used, hash, next_entity_id, "
                        "next_change_seq, entities_net, tx_hash, txs, changes) VALUES(?, ?, ?, ?, "
                        "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    s.Int(1, I64(h.number)).Int(2, I64(h.chain_id)).Blob(3, h.parent).Int(4, I64(h.timestamp_ms));
    s.Blob(5, h.tx_root).Blob(6, h.changeset).Int(7, h.tx_count).Int(8, h.change_count);
    s.Int(9, I64(h.gas_used)).Blob(10, h.hash).Int(11, w.state_after.next_entity_id);
    s.Int(12, I64(w.state_after.next_change_seq));
    s.Int(13, I64(w.state_after.stored_entities) + swept);
    if (!w.txs.empty()) s.Blob(14, w.txs[0].hash);  // else NULL: no transaction to find
    s.Blob(15, EncodeBlockTxs(w.txs)).Blob(16, EncodeBlockChanges(w.changes));
    VEIL_RETURN_IF_ERROR(s.Run());
    for (std::size_t i = 1; i < w.txs.size(); ++i) VEIL_RETURN_IF_ERROR(IndexTx(w.txs[i]));
    return Status::Ok();
  }

  // A transaction after its block's first, found by its hash (FindTx).
  Status IndexTx(const StoredTx& t) {
    VEIL_ASSIGN_OR_RETURN(auto s,
                          Prepare("INSERT INTO tx_index(hash, block, idx) VALUES(?, ?, ?)"));
    s.Blob(1, t.hash).Int(2, I64(t.block)).Int(3, t.index);
    return s.Run();
  }

  Result<std::uint64_t> SweepInTx(std::uint64_t up_to_block, std::size_t max_rows) {
    std::vector<std::pair<std::int64_t, std::uint64_t>> victims;
    {
      VEIL_ASSIGN_OR_RETURN(auto s, Prepare("SELECT id, expires_block FROM entities WHERE "
                                            "expires_block <= ? ORDER BY expires_block LIMIT ?"));
      s.Int(1, I64(up_to_block)).Int(2, static_cast<std::int64_t>(max_rows));
      while (s.Step()) victims.emplace_back(s.ColInt(0), s.ColU64(1));
      VEIL_RETURN_IF_ERROR(s.status());
    }
    std::map<std::uint64_t, std::int64_t> expiry;  // bucket -> delta
    for (const auto& [id, expires] : victims) {
      VEIL_RETURN_IF_ERROR(DeleteAttributes(id));
      VEIL_ASSIGN_OR_RETURN(auto s, Prepare("DELETE FROM entities WHERE id = ?"));
      s.Int(1, id);
      VEIL_RETURN_IF_ERROR(s.Run());
      --expiry[expires];
    }
    for (const auto& [bucket, delta] : expiry) VEIL_RETURN_IF_ERROR(ExpiryDelta(bucket, delta));
    if (!victims.empty()) {
      VEIL_ASSIGN_OR_RETURN(auto s, Prepare("UPDATE meta SET value = value + ? WHERE name = "
                                            "'swept'"));
      s.Int(1, static_cast<std::int64_t>(victims.size()));
      VEIL_RETURN_IF_ERROR(s.Run());
      if (db_.changes() != 1) return DataLoss("ledger meta table lacks 'swept'");
    }
    return static_cast<std::uint64_t>(victims.size());
  }

  // ---- Query compilation: AST -> SQL with bound parameters only. ----

  // A page's statement for `plan` (ChoosePlan).
  Compiled CompileSelect(const QueryRequest& r, const Plan& plan) {
    Compiled c;
    Dialect d(&c.params);
    const bool walk = plan.window.has_value();
    // An equality's index is the outer loop, walked down in id order; a range's matches are
    // collected through its id subquery and sorted.
    const bool joined = !walk && plan.driver && plan.driver->equality;
    const Projection& p = r.projection;
    c.sql = "SELECT e.id, e.key, ";
    // Owner and creator addresses as scalar subqueries, not joins: a join lets the planner start
    // from accounts (a handful of rows) and walk entities_owner, which is every entity when one
    // account owns most of them.
    c.sql += p.owner ? "e.owner_id, " : "NULL, ";
    c.sql += p.creator ? "e.creator_id, " : "NULL, ";
    c.sql += p.blocks ? "e.created_block, e.updated_block, e.expires_block, " : "0, 0, 0, ";
    c.sql += p.content_type ? "e.content_type, " : "NULL, ";
    c.sql += p.payload ? "e.payload, " : "NULL, ";
    c.sql += p.attributes ? "e.last_change, e.attrs, " : "e.last_change, NULL, ";
    c.sql += p.flags ? "e.flags FROM " : "0 FROM ";
    sql::DriverRows rows;
    if (joined) {
      Check(sql::CompileDriverRows(*plan.driver, d, &rows));
      // CROSS JOIN fixes the order: the driver's index is the outer loop.
      c.sql += rows.table + " a CROSS JOIN entities e ON e.id = " + rows.id;
    } else {
      c.sql += "entities e";
    }
    c.sql += " WHERE ";
    if (joined) c.sql += rows.conditions + " AND ";
    // The unary + keeps the planner off the expiry and creation indexes for the liveness terms,
    // which match nearly every row; the filter's own predicates choose the index.
    c.sql += "+e.expires_block > ? AND +e.created_block <= ?";
    c.params.push_back(I64(r.at.expiry));
    c.params.push_back(I64(r.at.block));
    const char* id = joined ? "a.entity_id" : "e.id";
    if (walk) {
      c.sql += " AND e.id < ? AND e.id >= ?";
      c.params.push_back(plan.window->top);
      c.params.push_back(plan.window->low);
    } else if (r.before_id > 0) {
      c.sql += std::string(" AND ") + id + " < ?";
      c.params.push_back(r.before_id);
    }
    // Probes of one entity's rows by its id compare values as expressions, so that a value
    // index, which would walk the whole range for every probe, is never the one chosen.
    const auto probe = [&](const query::Expr& e) {
      if (e.kind == query::Expr::Kind::kAll) return;
      c.sql += " AND (";
      Check(sql::CompileFilter(e, d, &c.sql, sql::ProbeRef("e.id")));
      c.sql += ")";
    };
    if (walk) {
      probe(*r.filter);
    } else if (plan.driver) {
      if (!joined) {
        c.sql += " AND ";
        Check(sql::CompileFilter(plan.driver->index, d, &c.sql));
      }
      if (plan.probe_rest) {
        probe(plan.driver->rest);
      } else if (plan.driver->rest.kind != query::Expr::Kind::kAll) {
        c.sql += " AND (";
        Check(sql::CompileFilter(plan.driver->rest, d, &c.sql));
        c.sql += ")";
      }
    } else if (r.filter != nullptr && r.filter->kind != query::Expr::Kind::kAll) {
      c.sql += " AND (";
      Check(sql::CompileFilter(*r.filter, d, &c.sql));
      c.sql += ")";
    }
    c.sql += std::string(" ORDER BY ") + id + " DESC LIMIT ?";
    c.params.push_back(static_cast<std::int64_t>(r.limit + 1));
    return c;
  }

  // The parser has type-checked every value, so SQLite's dialect cannot fail.
  static void Check(const Status& st) { VEIL_CHECK_MSG(st.ok(), st.ToString().c_str()); }

  // SQLite's side of the shared filter compiler: `?` placeholders, IN lists, GLOB, and meta
  // fields through an id subquery (otherwise the planner prefers walking the rowid in ORDER BY
  // order over the field's index).
  class Dialect final : public sql::SqlDialect {
   public:
    explicit Dialect(std::vector<Param>* params) : params_(params) {}
    Result<std::string> Bind(const query::Literal& v, bool biased) override {
      // emplace_back with the alternative named: GCC 12 -O2 misreads push_back of a converted
      // temporary variant as reading uninitialised storage (-Wmaybe-uninitialized).
      if (const auto* n = std::get_if<std::uint64_t>(&v)) {
        params_->emplace_back(std::in_place_type<std::int64_t>, biased ? Biased(*n) : I64(*n));
      } else if (const auto* t = std::get_if<std::string>(&v)) {
        params_->emplace_back(std::in_place_type<std::string>, *t);
      } else {
        params_->emplace_back(std::in_place_type<Bytes>, std::get<Bytes>(v));
      }
      return std::string("?");
    }
    Result<std::string> InList(const std::string& column, const std::vector<query::Literal>& values,
                               bool biased) override {
      std::string out = column + " IN (";
      for (std::size_t i = 0; i < values.size(); ++i) {
        out += i ? ",?" : "?";
        (void)Bind(values[i], biased);
      }
      return out + ")";
    }
    Result<std::string> GlobMatch(const std::string& column, const std::string& pattern) override {
      params_->push_back(pattern);
      return column + " GLOB ?";
    }
    // SQLite compares TEXT bytewise: drop trailing 0xff bytes, bump the last.
    std::string PrefixUpperBound(std::string prefix) const override {
      while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xff) {
        prefix.pop_back();
      }
      if (!prefix.empty()) {
        prefix.back() = static_cast<char>(static_cast<unsigned char>(prefix.back()) + 1);
      }
      return prefix;
    }
    const char* True() const override { return "1"; }
    std::string Bytewise(const std::string& column) const override { return column; }  // BINARY
    bool MetaViaIdSubquery() const override { return true; }
    std::string Unindexed(const std::string& column, bool /*numeric*/) const override {
      return "+" + column;  // SQLite's unary plus: the value, and no index
    }

   private:
    std::vector<Param>* params_;
  };

  static void CompileExpr(const query::Expr& e, Compiled* c) {
    Dialect d(&c->params);
    Check(sql::CompileFilter(e, d, &c->sql));
  }

  sqlite::Connection db_;
  SqliteOptions options_;
  bool reader_ = false;
  ReadBudget budget_;
  std::uint64_t steps_ = 0;   // the current read's instructions, as OnProgress counted them
  bool over_budget_ = false;  // the current read was interrupted for its budget
  // Account id -> address, as ResolveAccounts read them (bounded: cleared when full).
  static constexpr std::size_t kAccountCacheSize = 4096;
  std::unordered_map<std::int64_t, Address> account_cache_;
};

// Before SQLite initialises in this process (later, sqlite3_config refuses and nothing changes):
// no bulk allocation of 20 pages for each new page cache. A statement's materialised CTEs and
// other ephemeral tables each open one, and their bulks, freed at the statement's end, made the
// heap shrink and grow back each call: a driven count with three CTEs took 0.37-0.5 ms instead
// of 15-23 us, in page faults and TLB flushes (artifacts/bench-ledger-43-count-few-matches).
// Pages are then allocated one at a time, as the caches fill.
void ConfigureSqliteOnce() {
  static std::once_flag once;
  std::call_once(once, [] { sqlite3_config(SQLITE_CONFIG_PAGECACHE, nullptr, 0, 0); });
}
// Also when the program starts, in any program this file is linked into (a program that opens
// ledger stores): something else in the process, such as the guardian's store, may open SQLite
// before the first ledger store does, and sqlite3_config would then be refused.
[[maybe_unused]] const bool kSqliteConfiguredAtStart = (ConfigureSqliteOnce(), true);

Result<std::unique_ptr<Store>> OpenSqlite(const SqliteOptions& options, bool reader) {
  ConfigureSqliteOnce();
  const int ps = options.page_size;
  if (ps < 512 || ps > 65536 || (ps & (ps - 1)) != 0) {
    return InvalidArgument("sqlite: page_size must be a power of two from 512 to 65536, not " +
                           std::to_string(ps));
  }
  auto store = std::make_unique<SqliteStore>();
  VEIL_RETURN_IF_ERROR(store->Init(options, reader));
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace

Result<std::unique_ptr<Store>> OpenSqliteStore(const SqliteOptions& options) {
  return OpenSqlite(options, /*reader=*/false);
}

}  // namespace veil::ledger
