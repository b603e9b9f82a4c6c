// What the ledger's test files share (ledger_test.cc, persistent_ledger_test.cc,
// postgres_ledger_test.cc, counting_ledger_test.cc, client_test.cc): the backends the suites
// run on, the fixtures and their helpers, and a Store that counts what reaches it.
//
// The suites are parameterised over the backends, so the same tests run against every Store:
// SQLite (a file and :memory:) always, PostgreSQL when VEIL_TEST_POSTGRES_URL names a database
// (scripts/test starts a throwaway cluster and sets it; without it, no PostgreSQL test is
// registered and one line on stderr says so). Each PostgreSQL test works in a schema of its own,
// dropped at the end, so parallel test processes share the database without colliding.
//
// Suites: LedgerTest runs on every backend; PersistentLedgerTest (reopen, tampering through a
// second connection) on the persistent ones; PostgresLedgerTest (several nodes on one database, a
// failing pipeline, the head guard) on PostgreSQL only; CountingLedgerTest (group commit, the
// reads and writes that reach the store) on every backend.
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "support/scratch_dir.h"
#include "veil/base/encoding.h"
#include "veil/ledger/api.h"
#include "veil/ledger/client.h"
#include "veil/ledger/ledger.h"
#include "veil/ledger/local.h"

namespace veil::ledger {

enum class BackendKind { kSqliteFile, kSqliteMemory, kPostgres };

struct Backend {
  std::string name;
  BackendKind kind = BackendKind::kSqliteMemory;
  bool persistent = false;  // supports reopen and tampering through a second connection
};

inline void PrintTo(const Backend& b, std::ostream* os) { *os << b.name; }

inline const char* PostgresUrl() {
  const char* url = std::getenv("VEIL_TEST_POSTGRES_URL");
  return url != nullptr && *url != '\0' ? url : nullptr;
}

inline const Backend kSqliteFile{"SqliteFile", BackendKind::kSqliteFile, true};
inline const Backend kSqliteMemory{"SqliteMemory", BackendKind::kSqliteMemory, false};
inline const Backend kPostgres{"Postgres", BackendKind::kPostgres, true};

inline std::vector<Backend> Backends(bool persistent_only, bool postgres_only) {
  static const bool kNoticed = [] {
    if (PostgresUrl() == nullptr) {
      std::fprintf(stderr,
                   "ledger tests: VEIL_TEST_POSTGRES_URL is not set: the PostgreSQL backend "
                   "tests are NOT run\n");
    }
    return true;
  }();
  (void)kNoticed;
  std::vector<Backend> out;
  if (!postgres_only) {
    out.push_back(kSqliteFile);
    if (!persistent_only) out.push_back(kSqliteMemory);
  }
  if (PostgresUrl() != nullptr) out.push_back(kPostgres);
  return out;
}

// A second PostgreSQL connection into the test's schema (for tampering and inspection).
class PgPeek {
 public:
  explicit PgPeek(const std::string& schema) : conn_(PQconnectdb(PostgresUrl())) {
    if (PQstatus(conn_) == CONNECTION_OK && !schema.empty()) {
      Exec("SET client_min_messages = warning");
      Exec("SET search_path TO \"" + schema + "\"");
    }
  }
  ~PgPeek() { PQfinish(conn_); }
  PgPeek(const PgPeek&) = delete;
  PgPeek& operator=(const PgPeek&) = delete;
  bool ok() const { return PQstatus(conn_) == CONNECTION_OK; }
  // Runs `sql` (text results); returns the affected or returned row count, -1 on error.
  long Exec(const std::string& sql, std::string* first_value = nullptr) {
    PGresult* r = PQexec(conn_, sql.c_str());
    long n = -1;
    const auto st = PQresultStatus(r);
    if (st == PGRES_TUPLES_OK) {
      n = PQntuples(r);
      if (first_value != nullptr && n > 0) *first_value = PQgetvalue(r, 0, 0);
    } else if (st == PGRES_COMMAND_OK) {
      const char* t = PQcmdTuples(r);
      n = *t != '\0' ? std::atol(t) : 0;
    } else {
      ADD_FAILURE() << sql << ": " << PQresultErrorMessage(r);
    }
    PQclear(r);
    return n;
  }
  std::string Value(const std::string& sql) {
    std::string v;
    EXPECT_EQ(Exec(sql, &v), 1) << sql;
    return v;
  }

 private:
  PGconn* conn_;
};

// A key. Its nonces are counted by a Client (LedgerTest::ClientOf, or one a test makes).
struct Wallet {
  crypto::Ed25519SigningKey key = crypto::Ed25519SigningKey::Generate();
  Address address() const { return AddressOf(SigScheme::kEd25519, key.public_key()); }
  // A Signer over a copy of the key.
  Signer signer() const { return Signer(crypto::Ed25519SigningKey::FromSeed(key.seed())); }
};

// A LedgerApi over `ledger`, which the caller keeps open for as long as the api lives.
inline std::unique_ptr<LocalLedger> ApiOver(Ledger& ledger) {
  // The aliasing constructor with no owner: a shared_ptr that does not own the ledger.
  return std::make_unique<LocalLedger>(std::shared_ptr<Ledger>(std::shared_ptr<Ledger>(), &ledger));
}

inline CreateOp Create(std::uint64_t expires, std::vector<Attribute> attrs = {},
                       Bytes payload = {1}) {
  CreateOp c;
  c.expires_block = expires;
  c.content_type = "application/octet-stream";
  c.payload = std::move(payload);
  c.attributes = std::move(attrs);
  return c;
}

class LedgerTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '_');
    path_ = (scratch_.path() / (name + ".db")).string();
    // Unique across the parallel test processes sharing the database.
    std::random_device rd;
    schema_ = "veil_test_" + std::to_string(::getpid()) + "_" + std::to_string(rd() % 1000000);
    ResetStorage();
    limits_ = Limits::Arkiv();
    limits_.query.cursor_lifetime_blocks = 5;
  }
  void TearDown() override {
    Close();
    ResetStorage();
  }
  bool IsPostgres() const { return GetParam().kind == BackendKind::kPostgres; }
  // Removes everything the test stored (the database file, or the PostgreSQL schema).
  void ResetStorage() {
    if (IsPostgres()) {
      PgPeek pg("");
      ASSERT_TRUE(pg.ok());
      pg.Exec("SET client_min_messages = warning");
      pg.Exec("DROP SCHEMA IF EXISTS \"" + schema_ + "\" CASCADE");
      return;
    }
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }

  // A new store over the test's storage (another connection, for PostgreSQL).
  Result<std::unique_ptr<Store>> OpenStore() {
    switch (GetParam().kind) {
      case BackendKind::kSqliteFile: {
        SqliteOptions o;
        o.path = path_;
        o.page_size = sqlite_page_size_;
        return OpenSqliteStore(o);
      }
      case BackendKind::kSqliteMemory:
        return OpenSqliteStore(SqliteOptions{});
      case BackendKind::kPostgres: {
        PostgresOptions o;
        o.url = PostgresUrl();
        if (!pg_session_options_.empty()) {
          // libpq's `options` keyword, percent-encoded into the URL's query.
          std::string enc;
          for (char c : pg_session_options_) {
            enc += c == ' '   ? std::string("%20")
                   : c == '=' ? std::string("%3D")
                              : std::string(1, c);
          }
          o.url += (o.url.find('?') == std::string::npos ? "?options=" : "&options=") + enc;
        }
        o.schema = schema_;
        if (pg_block_shapes_ != 0) o.block_shapes = pg_block_shapes_;
        return OpenPostgresStore(o);
      }
    }
    return Internal("unknown backend");
  }

  Result<std::unique_ptr<Ledger>> OpenLedger(BlockMode mode = BlockMode::kInstant) {
    VEIL_ASSIGN_OR_RETURN(auto store, OpenStore());
    LedgerOptions o;
    o.chain_id = 42;
    o.limits = limits_;
    o.mode = mode;
    o.clock_ms = [this] { return ++clock_; };
    o.expiry_clock = expiry_clock_;
    o.nominal_block_time_ms = nominal_block_time_ms_;
    // Reads on reader connections wherever the store has them (a file, PostgreSQL), so every
    // read test covers them; SqliteMemory covers reads on the writer's connection.
    o.read_connections = GetParam().kind == BackendKind::kSqliteMemory ? 0 : 2;
    if (read_connections_) o.read_connections = *read_connections_;
    return Ledger::Open(std::move(store), o);
  }

  void Open(BlockMode mode = BlockMode::kInstant) {
    Close();
    auto l = OpenLedger(mode);
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    ledger_ = std::move(l).value();
  }

  // Plan tests run on a handful of rows, where PostgreSQL rightly prefers a sequential scan.
  // With enable_seqscan off a sequential scan only costs more, so it still appears when no index
  // path exists: the plan then shows whether the compiled SQL can use the index at all.
  void PlansPreferIndexes() { pg_session_options_ = "-c enable_seqscan=off"; }
  // PostgresOptions::block_shapes for the stores opened after it (0: the default).
  void KeepBlockShapes(std::size_t n) { pg_block_shapes_ = n; }

  // Closes the ledger and the clients over it.
  void Close() {
    clients_.clear();
    api_.reset();
    api_of_ = nullptr;
    ledger_.reset();
  }

  // The Client that signs `w`'s transactions on the open ledger and counts its nonce, made on
  // first use for each ledger opened. It does not wait for receipts: the timed tests seal their
  // blocks themselves. A key this test has not used before starts at nonce 0 without reading its
  // account, so the counting tests see only the ledger's own reads.
  Client& ClientOf(const Wallet& w) {
    if (api_of_ != ledger_.get()) {
      clients_.clear();
      api_ = ApiOver(*ledger_);
      api_of_ = ledger_.get();
    }
    std::unique_ptr<Client>& c = clients_[w.address()];
    if (!c) {
      ClientOptions o;
      o.limits = limits_;
      o.wait_for_receipt = false;
      c = std::make_unique<Client>(*api_, w.signer(), o);
      if (used_keys_.insert(w.address()).second) c->SetNextNonce(0);
    }
    return *c;
  }
  std::uint64_t NextNonce(const Wallet& w) {
    auto n = ClientOf(w).NextNonce();
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : 0;
  }

  // Signs with `nonce`, whatever the wallet's count: replays, gaps, other nodes.
  Bytes Sign(Wallet& w, std::vector<Operation> ops, std::uint64_t nonce) {
    Transaction tx;
    tx.chain_id = 42;
    tx.nonce = nonce;
    tx.ops = std::move(ops);
    auto enc = SignEd25519(tx, w.key, limits_);
    EXPECT_TRUE(enc.ok()) << enc.status().ToString();
    return enc.ok() ? std::move(enc).value() : Bytes{};
  }

  // Signs with the wallet's next nonce (its Client's count) and submits.
  TxReceipt Submit(Wallet& w, std::vector<Operation> ops) {
    auto r = ClientOf(w).Submit(std::move(ops));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : TxReceipt{};
  }

  EntityKey MustCreate(Wallet& w, CreateOp c) {
    auto r = Submit(w, {std::move(c)});
    EXPECT_TRUE(r.status.ok()) << r.status.ToString();
    return r.created.empty() ? EntityKey{} : r.created[0];
  }

  std::uint64_t Head() { return ledger_->Head().number; }
  void Advance(std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) ASSERT_TRUE(ledger_->SealBlock().ok());
  }

  // 140 entities `g = 1` of `a`'s that expire two blocks on, and the chain past their expiry: a
  // backlog above sql::kCountRowsBacklog (PostgreSQL compiles the rows form too) for the driven
  // counts' tests.
  void ExpireGOnes(Wallet& a) {
    std::vector<Operation> ops;
    for (int i = 0; i < 140; ++i) ops.push_back(Create(Head() + 2, {Attribute::Num("g", 1)}));
    ASSERT_TRUE(Submit(a, ops).status.ok());
    Advance(2);
  }

  // Count(q) twice (the second at the same head, from PostgreSQL's cached backlog): `count` and
  // `capped` both times.
  void ExpectCountTwice(const std::string& q, std::uint64_t count, bool capped) {
    for (int round = 0; round < 2; ++round) {
      auto c = ledger_->Count(q);
      ASSERT_TRUE(c.ok()) << q << ": " << c.status().ToString();
      EXPECT_EQ(c->count, count) << q << " " << round;
      EXPECT_EQ(c->capped, capped) << q << " " << round;
    }
  }
  std::optional<Entity> Get(const EntityKey& k) {
    auto r = ledger_->Get(k);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::nullopt;
  }
  std::uint64_t CountOf(const std::string& q) {
    auto r = ledger_->Count(q);
    EXPECT_TRUE(r.ok()) << q << ": " << r.status().ToString();
    return r.ok() ? r->count : 0;
  }
  // The keys of every page of `q` (pages of `limit`, through their cursors, at most `max_pages`),
  // each page checked: no more than `limit` entities, ids descending across pages (no repeats);
  // `each` sees every entity.
  std::set<EntityKey> PageThrough(const std::string& q, std::size_t limit, int max_pages,
                                  const std::function<void(const Entity&)>& each) {
    QueryOptions o;
    o.limit = limit;
    std::set<EntityKey> seen;
    std::int64_t last = INT64_MAX;
    for (int pages = 0; pages < max_pages; ++pages) {
      auto page = ledger_->Query(q, o);
      EXPECT_TRUE(page.ok()) << q << ": " << page.status().ToString();
      if (!page.ok()) break;
      EXPECT_LE(page->entities.size(), limit) << q;
      for (const auto& e : page->entities) {
        EXPECT_LT(e.id, last) << q;
        last = e.id;
        each(e);
        seen.insert(e.key);
      }
      if (page->cursor.empty()) break;
      o.cursor = page->cursor;
    }
    return seen;
  }
  std::set<EntityKey> Keys(const std::string& q) {
    std::set<EntityKey> out;
    QueryOptions o;
    o.projection = Projection::KeysOnly();
    while (true) {
      auto r = ledger_->Query(q, o);
      EXPECT_TRUE(r.ok()) << q << ": " << r.status().ToString();
      if (!r.ok()) break;
      for (const auto& e : r->entities) out.insert(e.key);
      if (r->cursor.empty()) break;
      o.cursor = r->cursor;
    }
    return out;
  }

  veil::testing::ScratchDir scratch_{"veil-ledger"};  // the SQLite files' directory
  std::string path_;
  std::string schema_;
  std::string pg_session_options_;
  std::size_t pg_block_shapes_ = 0;
  std::optional<std::size_t> read_connections_;  // set: LedgerOptions::read_connections
  int sqlite_page_size_ = SqliteOptions{}.page_size;
  Limits limits_;
  std::atomic<std::uint64_t> clock_ = 1000;
  // Most tests count expiry in blocks (each transaction a block); the lease-clock tests set
  // kSlots and move clock_ themselves.
  ExpiryClock expiry_clock_ = ExpiryClock::kBlocks;
  std::uint64_t nominal_block_time_ms_ = 2000;
  std::unique_ptr<Ledger> ledger_;
  // ClientOf's: an api over ledger_ (made for api_of_), the clients over it by address, and the
  // keys this test has used.
  std::unique_ptr<LocalLedger> api_;
  const Ledger* api_of_ = nullptr;
  std::map<Address, std::unique_ptr<Client>> clients_;
  std::set<Address> used_keys_;
};

class PersistentLedgerTest : public LedgerTest {
 protected:
  // After a store of format 3 holding tests/data/ledger's chain (format3.db, pg-format3.sql) was
  // opened: the head, its hash and the live count are those the old ledger reported
  // (format3.json), the chain verifies, every transaction's receipt is found in its place (the
  // second and third of block 1 through tx_index); the chain goes on, and the store reopens as
  // it is.
  void ExpectFormat3ChainGoesOn(const nlohmann::json& expect) {
    EXPECT_EQ(Head(), expect["head"].get<std::uint64_t>());
    EXPECT_EQ(ToHex(ledger_->Head().hash), expect["head_hash"].get<std::string>());
    EXPECT_EQ(CountOf("*"), expect["live"].get<std::uint64_t>());
    EXPECT_TRUE(ledger_->VerifyChain().ok());
    std::set<std::pair<std::uint64_t, std::uint32_t>> places;
    for (const auto& hex : expect["txs"]) {
      Hash32 h{};
      ASSERT_TRUE(HexDecodeInto(hex.get<std::string>(), h).ok()) << hex;
      auto r = ledger_->GetReceipt(h);
      ASSERT_TRUE(r.ok() && r->has_value()) << hex;
      EXPECT_TRUE((*r)->status.ok());
      places.emplace((*r)->block, (*r)->index.value_or(99));
    }
    const std::set<std::pair<std::uint64_t, std::uint32_t>> want = {{1, 0}, {1, 1}, {1, 2}, {2, 0},
                                                                    {2, 1}, {3, 0}, {3, 1}};
    EXPECT_EQ(places, want);
    Wallet a;
    MustCreate(a, Create(1000, {Attribute::Num("n", 6)}));
    EXPECT_EQ(CountOf("*"), expect["live"].get<std::uint64_t>() + 1);
    EXPECT_TRUE(ledger_->VerifyChain().ok());
    Open();
    EXPECT_EQ(Head(), expect["head"].get<std::uint64_t>() + 1);
    EXPECT_EQ(CountOf("*"), expect["live"].get<std::uint64_t>() + 1);
    EXPECT_EQ(CountOf("n = 5"), 1u);
    EXPECT_TRUE(ledger_->VerifyChain().ok());
  }
};
class PostgresLedgerTest : public LedgerTest {};

inline std::string Hex(ByteView b) { return "0x" + ToHex(b); }

// Counts the validation reads and block writes that reach a store, forwarding everything. For
// the group-commit tests it also records how many blocks each write carried, can hold the next
// write at a gate until released, and can fail every write that carries a given transaction.
class CountingStore : public Store {
 public:
  explicit CountingStore(std::unique_ptr<Store> inner) : inner_(std::move(inner)) {}
  int reads = 0;                         // GetAccount, GetEntities and GetForValidation calls
  int writes = 0;                        // ApplyBlocks calls
  int gated_writes = 0;                  // ApplyBlocks calls with a commit gate
  std::vector<std::size_t> group_sizes;  // blocks per ApplyBlocks call
  std::optional<Hash32> fail_tx;         // a write carrying it fails, writing nothing

  // The next write waits at the gate until Release(); WaitAtGate() returns once it does.
  void Hold() {
    std::lock_guard<std::mutex> lock(gate_mu_);
    hold_ = true;
  }
  void WaitAtGate() {
    std::unique_lock<std::mutex> lock(gate_mu_);
    gate_cv_.wait(lock, [&] { return at_gate_; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(gate_mu_);
    hold_ = false;
    gate_cv_.notify_all();
  }

  Result<std::optional<ChainState>> LoadState() override { return inner_->LoadState(); }
  using Store::ApplyBlocks;
  Status ApplyBlocks(std::span<const BlockWrite> w, const CommitGate& gate) override {
    ++writes;
    if (gate) ++gated_writes;
    group_sizes.push_back(w.size());
    {
      std::unique_lock<std::mutex> lock(gate_mu_);
      at_gate_ = hold_;
      gate_cv_.notify_all();
      gate_cv_.wait(lock, [&] { return !hold_; });
      at_gate_ = false;
    }
    for (const BlockWrite& b : w) {
      for (const StoredTx& t : b.txs) {
        if (fail_tx && t.hash == *fail_tx) return Internal("planted write failure");
      }
    }
    return inner_->ApplyBlocks(w, gate);
  }
  bool MayHaveOtherWriters() const override { return inner_->MayHaveOtherWriters(); }
  bool CommitGateOverlaps() const override { return inner_->CommitGateOverlaps(); }
  Result<std::vector<Entity>> GetEntities(const std::vector<EntityKey>& keys) override {
    ++reads;
    return inner_->GetEntities(keys);
  }
  Result<Account> GetAccount(const Address& a) override {
    ++reads;
    return inner_->GetAccount(a);
  }
  Result<ValidationReads> GetForValidation(const std::vector<EntityKey>& keys,
                                           const std::vector<Address>& addresses) override {
    ++reads;
    return inner_->GetForValidation(keys, addresses);
  }
  std::uint64_t RoundTrips() const override { return inner_->RoundTrips(); }
  Result<StorePage> Query(const QueryRequest& r) override { return inner_->Query(r); }
  Result<StoreCount> Count(const query::Expr& f, ReadPoint at, std::uint64_t cap) override {
    return inner_->Count(f, at, cap);
  }
  Result<std::uint64_t> LiveCount(std::uint64_t at) override { return inner_->LiveCount(at); }
  Result<std::string> Explain(const QueryRequest& r) override { return inner_->Explain(r); }
  Result<std::string> ExplainCount(const query::Expr& f, ReadPoint at, std::uint64_t cap) override {
    return inner_->ExplainCount(f, at, cap);
  }
  Result<std::uint64_t> Sweep(std::uint64_t up_to, std::size_t max_rows) override {
    return inner_->Sweep(up_to, max_rows);
  }
  Result<std::optional<std::uint64_t>> LoadExpiryClock() override {
    return inner_->LoadExpiryClock();
  }
  Status RecordExpiryClock(std::uint64_t ms) override { return inner_->RecordExpiryClock(ms); }
  Result<std::optional<BlockHeader>> GetBlock(std::uint64_t n) override {
    return inner_->GetBlock(n);
  }
  // Block reads (GetBlockTxs: VerifyChain reads each block's) so far, and how long each one
  // takes beyond the store's own time (a slow disk, for the verify's test).
  std::atomic<int> block_reads{0};
  std::atomic<int> block_read_delay_ms{0};
  Result<std::vector<StoredTx>> GetBlockTxs(std::uint64_t n) override {
    ++block_reads;
    std::this_thread::sleep_for(std::chrono::milliseconds(block_read_delay_ms.load()));
    return inner_->GetBlockTxs(n);
  }
  Result<std::vector<Change>> GetBlockChanges(std::uint64_t n) override {
    return inner_->GetBlockChanges(n);
  }
  Result<std::vector<Entity>> ScanEntities(std::int64_t after, std::size_t max_rows) override {
    return inner_->ScanEntities(after, max_rows);
  }
  Result<std::optional<StoredTx>> FindTx(const Hash32& hash, std::uint64_t head) override {
    return inner_->FindTx(hash, head);
  }
  Result<std::vector<std::optional<TxLocation>>> LocateTxs(std::span<const Hash32> hashes,
                                                           std::uint64_t head) override {
    return inner_->LocateTxs(hashes, head);
  }
  Result<StoredRows> CountStoredRows() override { return inner_->CountStoredRows(); }

 private:
  std::unique_ptr<Store> inner_;
  std::mutex gate_mu_;
  std::condition_variable gate_cv_;
  bool hold_ = false;
  bool at_gate_ = false;
};

}  // namespace veil::ledger
