// Benchmarks of the ledger (ledger/ledger.h) on SQLite and PostgreSQL side by side, and through
// the veil-ledger node's HTTP/JSON-RPC API; the engines' raw limits they are divided by are in
// engine_bench.cc (same binary, same run). docs/notes/ledger.md ("Benchmarks") has the table.
//
// Environment:
//   VEIL_BENCH_POSTGRES_URL   a PostgreSQL database (libpq URL); without it no PostgreSQL row is
//                             registered. `scripts/pg-cluster start DIR` prints one.
//   VEIL_BENCH_LEDGER_MAX_N   the largest read population, default 1000000; the read rows run at
//                             N = 10^4, 10^5 and 10^6 up to this cap (10000: a smoke run).
//   VEIL_BENCH_LEDGER_DATA    where the populated SQLite databases are cached, default
//                             build/bench-data/ in the source tree.
//   TMPDIR                    where the write rows' fresh SQLite databases and the fdatasync file
//                             go (default /tmp); it must be a real disk, not tmpfs.
//
// Rows (wall time per operation, UseManualTime: each iteration times itself; p50_us and p99_us
// counters are the per-operation percentiles), each for BACKEND in {sqlite, postgres}:
//   BM_Ledger_Write_OneEntity/BACKEND   Submit of a transaction creating one entity (320-byte
//                                       payload, 8 attributes), Ed25519-signed, instant mode
//                                       (one block per transaction), durable (SQLite: WAL,
//                                       synchronous=FULL on a file; PostgreSQL: synchronous
//                                       commit). The transaction is signed in the loop outside
//                                       the timed interval; Submit's decoding and signature
//                                       verification (about 25 us, a prepared key) are inside
//                                       it. items/s counts entities. A fresh database (file or
//                                       schema) per run;
//                                       on SQLite the run first writes untimed until the log
//                                       is reused in place (WarmUpSqliteLog, bench_common.h;
//                                       counter warmup_tx).
//   BM_Ledger_Write_OneEntity/postgres-check-first   the same with the signature checked before
//                                       the transaction joins a block, not at the commit gate
//                                       while the server runs its statements (SignatureCheck).
//   BM_Ledger_Write_OneEntity_Paired/postgres, /postgres-check-first   the one-entity write
//                                       interleaved in one run with the raw programs it is
//                                       measured against (rounds of 16 each, BM_WritePaired):
//                                       counters raw_us, lean_us, raw_ratio, lean_ratio,
//                                       ledger_over_lean, tx_per_s, switch_us, *_cpu_us.
//   BM_Ledger_Write_OneEntity_FirstFill/sqlite   the same without the warm-up: a fresh log
//                                       that grows by every commit.
//   BM_Ledger_Write_Batch20/BACKEND     the same with 20 creates per transaction; items/s counts
//                                       entities (20 per transaction).
//   BM_Ledger_Write_Concurrent/BACKEND/K  K clients (threads) submitting one-entity transactions
//                                       back to back, each waiting for its receipt: rounds of
//                                       32 per client; counters tx_per_s, p50_us / p99_us (a
//                                       client's Submit), blocks_per_write (group commit).
//   BM_Ledger_Write_ColdSenders/BACKEND/K  the same, each transaction from a sender the node has
//                                       never seen: its account must be read before it runs.
//   BM_Ledger_GetDuringWrites/BACKEND/R Get(key) while another thread submits one-entity
//                                       transactions back to back, with R reader connections
//                                       (LedgerOptions::read_connections; 0: reads wait for the
//                                       writer's mutex); counter writes_per_s, the writer's rate.
//   BM_Ledger_<Read>/BACKEND/N          reads over a cached population of N entities (below):
//     GetByKey            Get(key), full projection
//     GetByAttribute      Query(`idx = I`): an equality returning 1 entity with its payload
//     RangeQuery          Query(`score >= A && score < B`) with B - A sized for about 50 matches
//                         at every N (score is uniform and independent of the id order)
//     Page200             Query(`idx >= A && idx < A + 200`), limit 200: a page of 200 entities
//                         with payloads and attributes
//     BroadPage200        Query(`region = "rXX"`), limit 200: the first page of a filter that
//                         matches N/16 entities
//     BroadRangePage200   Query(`score >= A`) with A in the lower quarter of the scores, limit
//                         200: the first page of a lone range that matches 3/4 to all of N
//     BroadGlobPage200    Query(`region ~ "r*"`), limit 200: the first page of a glob that
//                         matches every entity
//     BroadAndPage200     Query(`score >= A && idx >= B`), A as in BroadRangePage200 and B in the
//                         lower quarter of the ids, limit 200: two broad ranges, neither narrow
//                         enough to drive (3/5 to all of N match)
//     MetaAndPage200      Query(`score >= A && $createdAtBlock < 3`), A as in BroadRangePage200,
//                         limit 200: a broad range beside a narrow meta field whose 400
//                         matches are the oldest entities (the walk from the top finds none)
//     OwnerAndPage200     Query(`$owner = P && score >= A`), P the population's one owner:
//                         a broad meta field beside a broad range
//     OwnerInAndPage200   Query(`$owner IN (P, Q) && score >= A`), Q an address without an
//                         account: the same as an IN list
//     BroadOrPage200      Query(`region = "rXX" || region = "rYY"`), limit 200: the first
//                         page of an OR of two equalities that match N/8 together
//     NotPage200          Query(`NOT (region = "rXX")`), limit 200: the first page of a
//                         negation (15/16 of N match), which has no index to drive it
//     ContentTypePage200  Query(`$contentType = "application/octet-stream"`), limit 200: the
//                         first page of a meta field without an index (every entity matches)
//     In20                Query(`$key IN (20 keys)`): one statement
//     CountSelective      Count(`bucket = B`): N/1000 matches
//     CountBroad          Count(`kind = "doc"`): every entity; stops at the count cap (10,000)
//                         above N = 10^4
//     CountBroadRange     Count(`score >= A`), A as in BroadRangePage200: capped above N = 10^4
//     CountBroadAnd       Count of BroadAndPage200's filter: capped above N = 10^4
//     CountMetaAnd        Count of MetaAndPage200's filter: 300-400 matches at every N
//     CountOwnerIn        Count(`$owner IN (P, Q)`): every entity; capped above N = 10^4
//   BM_Ledger_CountBacklog/BACKEND/F    counts beside 10,000 expired, unswept entities (at
//                                       BM_CountBacklog)
//   BM_Engine_Sqlite_<Read>/N           for GetByAttribute, RangeQuery and Page200: the same reads
//                                       over the same file by a bare SQLite connection, one
//                                       statement, columns copied out (BM_EngineRead): the engine's
//                                       floor under the ledger's row, and its growth with N
//   Counters: rows (entities returned per call), count and capped (1 when the count hit the
//   cap) for the counts, ns_per_row (mean latency / entities returned or counted, where a call
//   covers more than one); on PostgreSQL pg_round_trips, the round trips per operation counted
//   from the client's TCP segments (bench_common.h, PgRoundTrips: the smaller of the segments
//   sent and received; the engine rows check it: 1 for SELECT 1 and a one-entity pipeline, 11
//   for statement per row).
//   BM_Json_Page200_{WriteText,WriteDom,Read,ReadDom}: the JSON of one page of 200 entities
//   (SQLite, N = 10^4) without the network: written as text (the node), through the DOM
//   (before), read back without a DOM (the client, QueryPageFromJsonText) and through the DOM
//   (before: parse, then QueryPageFromJson). Counter page_bytes.
//   BM_Http_Write_OneEntity/BACKEND, BM_Http_<Read>/BACKEND/N: the same operations through an
//   in-process HttpServer with the node's arkiv_* methods (apps/veil-ledger/node.h) and a
//   RemoteLedger over a JsonRpcClient on 127.0.0.1: the service's own overhead. Built only when
//   the veil_ledger_node library exists.
//
// Population (deterministic: the same bytes every time): entity i for i in [0, N) as in
// bench_common.h, created by one Ed25519 key derived from a fixed label through the Ledger in
// transactions of 200 creates, with a fixed block clock. SQLite: VEIL_BENCH_LEDGER_DATA/
// ledger-vV-nN.db; PostgreSQL: schema veil_bench_ledger_vV_nN (V = kDataVersion). A cache is reused
// when its live count is N, rebuilt otherwise (absent or interrupted); bump kDataVersion when the
// population or its stored form changes (2: entities.attrs on SQLite). Populating 10^6 entities
// takes minutes per backend and is reported on stderr.
#include <sqlite3.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench_common.h"
#include "veil/crypto/hash.h"
#include "veil/ledger/client.h"
#include "veil/ledger/ledger.h"
#include "veil/ledger/transaction.h"

#if VEIL_BENCH_LEDGER_HTTP
#include "node.h"
#include "veil/ledger/json.h"
#include "veil/ledger/local.h"
#include "veil/ledger/remote.h"
#include "veil/net/http_server.h"
#include "veil/net/json_rpc.h"
#endif

namespace veil::bench_ledger {
namespace {

using namespace veil::ledger;

// kSqlitePlainVfs: SQLite on its default VFS (SqliteOptions::coalesce_wal_writes off), a write
// row beside kSqlite's so the coalescing VFS's effect is measured in the same run.
// kPostgresCheckFirst: PostgreSQL with every signature checked before its transaction joins a
// block (SignatureCheck::kFirst), a write row beside kPostgres's (whose lone transactions have
// theirs checked at the commit gate) so the deferred check's effect is measured in the same run.
// kSqlitePage2K: SQLite with 2 KiB pages instead of SqliteOptions' (and SQLite's) 4 KiB, a write
// row and the read rows (over populations of their own, ledger-vV-nN-p2k.db) beside kSqlite's so
// the page size's effect is measured in the same run. (bench-ledger-17 to -20 ran while the default
// was 2 KiB: there this row, named sqlite-page4k, measured 4 KiB.)
enum class Backend { kSqlite, kSqlitePlainVfs, kSqlitePage2K, kPostgres, kPostgresCheckFirst };

const char* NameOf(Backend b) {
  switch (b) {
    case Backend::kSqlite:
      return "sqlite";
    case Backend::kSqlitePlainVfs:
      return "sqlite-plain-vfs";
    case Backend::kSqlitePage2K:
      return "sqlite-page2k";
    case Backend::kPostgres:
      return "postgres";
    case Backend::kPostgresCheckFirst:
      return "postgres-check-first";
  }
  return "?";
}
bool IsSqlite(Backend b) {
  return b == Backend::kSqlite || b == Backend::kSqlitePlainVfs || b == Backend::kSqlitePage2K;
}

constexpr std::uint64_t kChainId = 7;
constexpr std::uint64_t kExpires = 1'000'000'000;  // far beyond any head a run reaches
constexpr int kDataVersion = 5;  // part of the cache names (3 had 2 KiB pages; 4, SQLite format 3)
constexpr std::uint64_t kPopulateOps = 200;  // creates per population transaction
constexpr std::uint64_t kRangeMatches = 50;  // expected matches of RangeQuery
// Reads model a node whose working set fits its caches: Ledger::Prewarm loads the population into
// SQLite's connection cache (3 GiB, the whole file: the 10^6 file is 1.7 GiB at 4 KiB pages and
// 1.8 at 2 KiB, whose pages also carry twice the cache's per-page headers; at 1 GiB a page of 200
// at 10^6 read evicted pages back through the kernel: at 2 KiB, 519 against 396 us in
// bench-ledger-18/-19) or PostgreSQL's
// shared_buffers (start the cluster with PG_SHARED_BUFFERS=4GB; scripts/pg-cluster). This host's
// kernel reclaims idle page cache within seconds (DAMON), so the kernel's cache alone does not.
constexpr std::size_t kSqliteCacheMib = 3072;
constexpr double kReadWarmUpSeconds = 0.5;

std::uint64_t MaxN() {
  const char* v = std::getenv("VEIL_BENCH_LEDGER_MAX_N");
  if (v == nullptr || *v == '\0') return 1'000'000;
  return std::strtoull(v, nullptr, 10);
}

std::filesystem::path DataDir() {
  const char* v = std::getenv("VEIL_BENCH_LEDGER_DATA");
  return v != nullptr && *v != '\0' ? std::filesystem::path(v)
                                    : std::filesystem::path(VEIL_BENCH_DATA_DIR);
}

CreateOp MakeCreate(std::uint64_t i, std::uint64_t expires_block = kExpires) {
  CreateOp c;
  c.expires_block = expires_block;
  c.content_type = "application/octet-stream";
  c.payload = Payload(i);
  c.attributes = {Attribute::Num("bucket", i % kBuckets), Attribute::Num("idx", i),
                  Attribute::Str("kind", "doc"),          Attribute::Str("name", Name(i)),
                  Attribute::Str("region", Region(i)),    Attribute::Num("score", Score(i)),
                  Attribute::Str("status", StatusOf(i)),  Attribute::Num("version", 1)};
  return c;
}

// An Ed25519 key from a label, and its transactions with consecutive nonces: the nonces are the
// offline Client's (the benchmarks sign outside their timed intervals and submit the bytes
// through the interface they measure).
class Sender {
 public:
  explicit Sender(std::string_view label)
      : client_(Client::Offline(
            ledger::Signer(
                crypto::Ed25519SigningKey::FromSeedBytes(crypto::Sha256(AsBytes(label))).value()),
            kChainId)) {}
  Address address() const { return client_.address(); }
  // A transaction creating entities [first, first + count), with the next nonce.
  Result<Bytes> SignCreates(std::uint64_t first, std::uint64_t count,
                            std::uint64_t expires_block = kExpires) {
    std::vector<Operation> ops;
    for (std::uint64_t i = first; i < first + count; ++i) {
      ops.push_back(MakeCreate(i, expires_block));
    }
    VEIL_ASSIGN_OR_RETURN(PreparedTx tx, client_.SignNext(std::move(ops)));
    return std::move(tx.encoded);
  }

 private:
  Client client_;
};

}  // namespace

Bytes LedgerTxBody(std::uint64_t i) {
  Sender signer("veil.bench.ledger.raw-rows.v1");
  return signer.SignCreates(i, 1).value();
}
Bytes LedgerStoredAttributes(std::uint64_t i) {
  return EncodeStoredAttributes(MakeCreate(i).attributes);
}

namespace {

constexpr std::string_view kPopulationLabel = "veil.bench.ledger.population.v1";

const Address& PopulationAddress() {
  static const Address a = Sender(kPopulationLabel).address();
  return a;
}

// SQLite: a file path; PostgreSQL: a schema in VEIL_BENCH_POSTGRES_URL's database.
// count_cap: QueryLimits::count_cap when not 0 (else Arkiv's profile's).
Result<std::shared_ptr<Ledger>> OpenLedger(Backend b, const std::string& where,
                                           std::size_t read_connections = 0,
                                           std::uint64_t count_cap = 0) {
  Result<std::unique_ptr<Store>> store = Internal("unset");
  if (IsSqlite(b)) {
    SqliteOptions o;
    o.path = where;
    o.cache_mib = kSqliteCacheMib;
    o.coalesce_wal_writes = b != Backend::kSqlitePlainVfs;
    if (b == Backend::kSqlitePage2K) o.page_size = 2048;
    store = OpenSqliteStore(o);
  } else {
    PostgresOptions o;
    o.url = PostgresUrl();
    o.schema = where;
    store = OpenPostgresStore(o);
  }
  if (!store.ok()) return store.status();
  LedgerOptions lo;
  lo.chain_id = kChainId;
  lo.read_connections = read_connections;
  if (count_cap != 0) lo.limits.query.count_cap = count_cap;
  if (b == Backend::kPostgresCheckFirst) lo.signature_check = SignatureCheck::kFirst;
  // The rows give expiries as block numbers (kExpires, the backlog's).
  lo.expiry_clock = ExpiryClock::kBlocks;
  // A fixed block clock, so the population's block hashes are the same every time.
  lo.clock_ms = [t = std::make_shared<std::atomic<std::uint64_t>>(1'700'000'000'000)] {
    return t->fetch_add(2000);
  };
  VEIL_ASSIGN_OR_RETURN(auto ledger, Ledger::Open(std::move(store).value(), lo));
  return std::shared_ptr<Ledger>(std::move(ledger));
}

// A fresh, empty ledger for one run of a write row: a new SQLite file in the scratch directory or
// a new PostgreSQL schema; both are removed when the run ends.
class ScratchLedger {
 public:
  explicit ScratchLedger(Backend b, std::size_t read_connections = 0, std::uint64_t count_cap = 0)
      : backend_(b) {
    where_ = IsSqlite(b) ? ScratchDir::NewFile("ledger").string() + ".db" : ScratchSchema("write");
    auto l = OpenLedger(b, where_, read_connections, count_cap);
    if (l.ok()) {
      ledger_ = std::move(l).value();
    } else {
      status_ = l.status();
    }
  }
  ~ScratchLedger() {
    ledger_.reset();
    if (IsSqlite(backend_)) {
      RemoveSqliteFiles(where_);
    } else {
      DropSchema(where_);
    }
  }
  ScratchLedger(const ScratchLedger&) = delete;
  ScratchLedger& operator=(const ScratchLedger&) = delete;

  const Status& status() const { return status_; }
  const std::shared_ptr<Ledger>& ledger() const { return ledger_; }
  const std::string& where() const { return where_; }

 private:
  Backend backend_;
  std::string where_;
  Status status_;
  std::shared_ptr<Ledger> ledger_;
};

#if VEIL_BENCH_LEDGER_HTTP
// The node's JSON-RPC methods over a ledger, served on 127.0.0.1 (a free port) with the node's
// default server options, and a RemoteLedger client talking to it.
class HttpFront {
 public:
  static Result<std::unique_ptr<HttpFront>> Start(std::shared_ptr<Ledger> ledger) {
    std::unique_ptr<HttpFront> f(new HttpFront());
    f->api_ = std::make_shared<LocalLedger>(std::move(ledger));
    f->server_ = std::make_unique<net::HttpServer>(net::HttpServerOptions{});
    f->dispatcher_ = std::make_unique<net::JsonRpcDispatcher>(net::JsonRpcDispatcherOptions{},
                                                              f->server_->shared_metrics());
    VEIL_RETURN_IF_ERROR(
        ledger_node::RegisterLedgerMethods(*f->dispatcher_, f->api_, f->server_->shared_metrics()));
    f->dispatcher_->Mount(*f->server_, "/rpc");
    VEIL_RETURN_IF_ERROR(f->server_->Start());
    VEIL_ASSIGN_OR_RETURN(
        f->client_,
        ledger_node::ConnectRemote("http://127.0.0.1:" + std::to_string(f->server_->port())));
    return f;
  }
  ~HttpFront() {
    client_.reset();
    if (server_) (void)server_->Stop();
    server_.reset();
    dispatcher_.reset();
    api_.reset();
  }
  HttpFront(const HttpFront&) = delete;
  HttpFront& operator=(const HttpFront&) = delete;

  RemoteLedger& client() { return *client_; }

 private:
  HttpFront() = default;
  std::shared_ptr<LedgerAdmin> api_;
  std::unique_ptr<net::HttpServer> server_;
  std::unique_ptr<net::JsonRpcDispatcher> dispatcher_;
  std::unique_ptr<RemoteLedger> client_;
};
#endif

// ---------------------------------------------------------------------------------------------
// Writes

// Api: Ledger or RemoteLedger (both have Submit(ByteView) -> Result<TxReceipt>).
// sqlite_db: the SQLite file whose log is warmed up first (WarmUpSqliteLog), or empty.
template <class Api>
void WriteLoop(benchmark::State& state, Api& api, Backend b, std::uint64_t batch,
               const std::string& sqlite_db) {
  Sender signer("veil.bench.ledger.writer.v1");
  std::uint64_t next = 0;
  if (!sqlite_db.empty()) {
    const bool warm = WarmUpSqliteLog(state, sqlite_db, [&] {
      auto tx = signer.SignCreates(next, batch);
      if (!tx.ok()) return false;
      auto r = api.Submit(*tx);
      next += batch;
      return r.ok() && r->status.ok();
    });
    if (!warm) return;
  }
  const std::uint64_t first = next;
  Latencies lat(state);
  const auto trips = !IsSqlite(b) ? PgRoundTrips::Now() : std::nullopt;
  for (auto _ : state) {
    auto tx = signer.SignCreates(next, batch);  // outside the timed interval
    if (!tx.ok()) {
      state.SkipWithError(("sign: " + tx.status().ToString()).c_str());
      break;
    }
    auto r = lat.Time([&] { return api.Submit(*tx); });
    if (!r.ok() || !r->status.ok()) {
      state.SkipWithError(
          ("submit: " + (r.ok() ? r->status.ToString() : r.status().ToString())).c_str());
      break;
    }
    next += batch;
  }
  PgRoundTrips::Report(state, trips, (next - first) / batch);
  lat.Report();
  state.SetItemsProcessed(static_cast<std::int64_t>(next - first));
}

// first_fill: time the SQLite rows from a fresh log instead of from its steady state.
void BM_Write(benchmark::State& state, Backend b, std::uint64_t batch, bool http, bool first_fill) {
  ScratchLedger scratch(b);
  if (!scratch.status().ok()) {
    state.SkipWithError(("open: " + scratch.status().ToString()).c_str());
    return;
  }
  const std::string warm = IsSqlite(b) && !first_fill ? scratch.where() : std::string();
  if (!http) {
    WriteLoop(state, *scratch.ledger(), b, batch, warm);
    return;
  }
#if VEIL_BENCH_LEDGER_HTTP
  auto front = HttpFront::Start(scratch.ledger());
  if (!front.ok()) {
    state.SkipWithError(("http: " + front.status().ToString()).c_str());
    return;
  }
  WriteLoop(state, (*front)->client(), b, batch, warm);
#endif
}

// The PostgreSQL one-entity write and the raw programs it is measured against, in one run:
// rounds of kPairedRun ledger transactions (signed before the round), kPairedRun of the raw
// program's transactions on the rows and kPairedRun on the lean rows (the rows of the
// store's format 4 as plain statements), each transaction timed alone and the three in a rotating
// order. The separate rows' means moved 10-40% between runs minutes apart on this host
// (bench-ledger-45, -48, -49), more than the gaps they were to measure; here every arm sees the
// same minutes. Each arm's turn starts with one untimed transaction: the first after another
// arm's turn took milliseconds (its server process and connection had gone idle), which a
// separate row does not pay. The iteration time is the round's ledger time. Counters: raw_us,
// lean_us (the raw programs' means a transaction), raw_ratio (the ledger's throughput over the
// raw issue rows', the ratio), lean_ratio (the lean rows' over the raw issue rows': the
// data model's share), ledger_over_lean (the ledger's over its own rows': the code's share),
// tx_per_s (the ledger's), p50_us / p99_us (the ledger's transactions), switch_us (the mean of
// the untimed first transactions, all arms), ledger_cpu_us / raw_cpu_us / lean_cpu_us (this
// thread's CPU a timed transaction of each arm). Also for postgres-check-first.
constexpr std::uint64_t kPairedRun = 16;

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

void BM_WritePaired(benchmark::State& state, Backend b) {
  ScratchLedger scratch(b);
  if (!scratch.status().ok()) {
    state.SkipWithError(("open: " + scratch.status().ToString()).c_str());
    return;
  }
  const std::unique_ptr<RawPgOneEntity> raw = OpenRawPgOneEntity(false);
  const std::unique_ptr<RawPgOneEntity> lean = OpenRawPgOneEntity(true);
  for (const auto* r : {raw.get(), lean.get()}) {
    if (!r->ok()) {
      state.SkipWithError(("raw PostgreSQL set-up failed: " + r->error()).c_str());
      return;
    }
  }
  Ledger& ledger = *scratch.ledger();
  Sender signer("veil.bench.ledger.paired.v1");
  Latencies lat(state);
  using Clock = std::chrono::steady_clock;
  std::vector<Bytes> txs(kPairedRun + 1);
  std::uint64_t written[3] = {0, 0, 0};  // each arm's entities so far
  double total[3] = {0, 0, 0};           // each arm's timed seconds
  double cpu[3] = {0, 0, 0};             // and this thread's CPU seconds in them
  double switch_s = 0;
  std::uint64_t round = 0;
  std::string failed;
  // One transaction of arm a (0 the ledger, 1 raw, 2 lean; txs[k] for the ledger): its seconds,
  // or a negative value if it failed (`failed` says why).
  const auto one = [&](int a, std::uint64_t k) -> double {
    const double c0 = ThreadCpuSeconds();
    const auto t0 = Clock::now();
    bool good = false;
    if (a == 0) {
      auto r = ledger.Submit(txs[k]);
      good = r.ok() && r->status.ok();
      if (!good) failed = "submit: " + (r.ok() ? r->status.ToString() : r.status().ToString());
    } else {
      RawPgOneEntity& w = a == 1 ? *raw : *lean;
      good = w.Write(written[a]);
      if (!good) failed = "raw write: " + w.error();
    }
    ++written[a];
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (k != 0) cpu[a] += ThreadCpuSeconds() - c0;
    return good ? s : -1;
  };
  for (auto _ : state) {
    for (auto& tx : txs) {
      auto signed_tx =
          signer.SignCreates(written[0] + static_cast<std::uint64_t>(&tx - &txs[0]), 1);
      if (!signed_tx.ok()) {
        state.SkipWithError(("sign: " + signed_tx.status().ToString()).c_str());
        return;
      }
      tx = std::move(signed_tx).value();
    }
    double ledger_round = 0;
    for (int j = 0; j < 3; ++j) {
      const int a = static_cast<int>((round + static_cast<std::uint64_t>(j)) % 3);
      for (std::uint64_t k = 0; k <= kPairedRun; ++k) {
        const double s = one(a, k);
        if (s < 0) {
          state.SkipWithError(failed.c_str());
          return;
        }
        if (k == 0) {
          switch_s += s;
          continue;
        }
        total[a] += s;
        if (a == 0) {
          ledger_round += s;
          lat.Add(s * 1e6);
        }
      }
    }
    state.SetIterationTime(ledger_round);
    ++round;
  }
  if (round == 0) return;
  const double n = static_cast<double>(round * kPairedRun);
  state.counters["raw_us"] = total[1] / n * 1e6;
  state.counters["lean_us"] = total[2] / n * 1e6;
  state.counters["raw_ratio"] = total[1] / total[0];
  state.counters["lean_ratio"] = total[1] / total[2];
  state.counters["ledger_over_lean"] = total[2] / total[0];
  state.counters["tx_per_s"] = n / total[0];
  state.counters["switch_us"] = switch_s / static_cast<double>(round * 3) * 1e6;
  state.counters["ledger_cpu_us"] = cpu[0] / n * 1e6;
  state.counters["raw_cpu_us"] = cpu[1] / n * 1e6;
  state.counters["lean_cpu_us"] = cpu[2] / n * 1e6;
  lat.Report();
  state.SetItemsProcessed(static_cast<std::int64_t>(n));
}

// K clients (threads) submitting one-entity transactions back to back, each waiting for its
// receipt before the next: what the node sustains when transactions arrive concurrently (in
// instant mode they share durable writes, Ledger's group commit). One iteration is a round of
// kRoundPerClient transactions from every client, signed before the round starts; its wall time
// is the iteration time. Counters: tx_per_s (durable one-entity transactions a second over all
// clients), p50_us / p99_us (one Submit's latency as its client sees it), blocks_per_write (the
// mean group size: blocks over store writes, from the store's own count of block writes).
constexpr std::size_t kRoundPerClient = 32;

// cold: every transaction comes from a sender the node has never seen (a fresh key), so its
// account is read before it executes (PrefetchLocked reads a group's in one call).
void BM_WriteConcurrent(benchmark::State& state, Backend b, bool cold) {
  const auto clients = static_cast<std::size_t>(state.range(0));
  ScratchLedger scratch(b);
  if (!scratch.status().ok()) {
    state.SkipWithError(("open: " + scratch.status().ToString()).c_str());
    return;
  }
  Ledger& ledger = *scratch.ledger();
  std::vector<Sender> signers;
  for (std::size_t c = 0; c < clients; ++c) {
    signers.emplace_back("veil.bench.ledger.client." + std::to_string(c) + ".v1");
  }
  if (IsSqlite(b)) {
    // The same steady state of the log as the one-client rows (WarmUpSqliteLog).
    std::uint64_t next = 0;
    const bool warm = WarmUpSqliteLog(state, scratch.where(), [&] {
      auto tx = signers[0].SignCreates(std::uint64_t{1} << 40 | next++, 1);
      auto r = tx.ok() ? ledger.Submit(*tx) : Result<TxReceipt>(tx.status());
      return r.ok() && r->status.ok();
    });
    if (!warm) return;
  }
  const std::uint64_t head0 = ledger.Head().number, writes0 = ledger.BlockWrites();
  Latencies latencies(state);
  std::uint64_t round = 0, done = 0;
  double seconds = 0;
  Status failure;
  for (auto _ : state) {
    std::vector<std::vector<Bytes>> txs(clients);
    for (std::size_t c = 0; c < clients; ++c) {
      for (std::size_t i = 0; i < kRoundPerClient && failure.ok(); ++i) {
        const std::uint64_t id =
            (static_cast<std::uint64_t>(c) << 32) | (round * kRoundPerClient + i);
        auto tx =
            cold ? Sender("veil.bench.ledger.cold." + std::to_string(id) + ".v1").SignCreates(id, 1)
                 : signers[c].SignCreates(id, 1);
        if (!tx.ok()) failure = tx.status();
        if (tx.ok()) txs[c].push_back(std::move(tx).value());
      }
    }
    if (!failure.ok()) break;
    std::vector<std::vector<double>> lat(clients);
    std::vector<Status> errors(clients);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (std::size_t c = 0; c < clients; ++c) {
      threads.emplace_back([&, c] {
        for (const Bytes& tx : txs[c]) {
          const auto s0 = std::chrono::steady_clock::now();
          auto r = ledger.Submit(tx);
          lat[c].push_back(
              std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s0)
                  .count());
          if (!r.ok() || !r->status.ok()) {
            errors[c] = r.ok() ? r->status : r.status();
            return;
          }
        }
      });
    }
    for (auto& t : threads) t.join();
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(secs);
    for (const Status& e : errors) {
      if (!e.ok()) failure = e;
    }
    if (!failure.ok()) break;
    for (const auto& l : lat) {
      for (double us : l) latencies.Add(us);
    }
    seconds += secs;
    done += clients * kRoundPerClient;
    ++round;
  }
  if (!failure.ok()) {
    state.SkipWithError(("submit: " + failure.ToString()).c_str());
    return;
  }
  if (done == 0) return;
  latencies.Report();  // p50_us, p99_us
  state.counters["tx_per_s"] = static_cast<double>(done) / seconds;
  state.counters["clients"] = static_cast<double>(clients);
  const std::uint64_t blocks = ledger.Head().number - head0;
  const std::uint64_t writes = ledger.BlockWrites() - writes0;
  if (writes != 0) {
    state.counters["blocks_per_write"] = static_cast<double>(blocks) / static_cast<double>(writes);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(done));
}

// Get by key while another thread submits one-entity transactions back to back: what a read
// waits for a write in progress, with `readers` reader connections (0: reads share the writer's
// connection and mutex). Counters: the reads' p50/p99, and writes_per_s, the writer's rate
// meanwhile.
void BM_GetDuringWrites(benchmark::State& state, Backend b) {
  const auto readers = static_cast<std::size_t>(state.range(0));
  ScratchLedger scratch(b, readers);
  if (!scratch.status().ok()) {
    state.SkipWithError(("open: " + scratch.status().ToString()).c_str());
    return;
  }
  Ledger& ledger = *scratch.ledger();
  Sender reads_signer("veil.bench.ledger.read-target.v1");
  auto seed = reads_signer.SignCreates(0, 1);
  auto seeded = seed.ok() ? ledger.Submit(*seed) : Result<TxReceipt>(seed.status());
  if (!seeded.ok() || !seeded->status.ok() || seeded->created.size() != 1) {
    state.SkipWithError("seed entity");
    return;
  }
  const EntityKey key = seeded->created[0];
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> writes{0};
  Status writer_status;
  std::thread writer([&] {
    Sender signer("veil.bench.ledger.writer.v1");
    for (std::uint64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
      auto tx = signer.SignCreates(i, 1);
      auto r = tx.ok() ? ledger.Submit(*tx) : Result<TxReceipt>(tx.status());
      if (!r.ok() || !r->status.ok()) {
        writer_status = r.ok() ? r->status : r.status();
        return;
      }
      writes.fetch_add(1, std::memory_order_relaxed);
    }
  });
  Latencies lat(state);
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t w0 = writes.load();
  for (auto _ : state) {
    auto r = lat.Time([&] { return ledger.Get(key); });
    if (!r.ok() || !r->has_value()) {
      state.SkipWithError(("get: " + r.status().ToString()).c_str());
      break;
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::uint64_t w1 = writes.load();
  stop = true;
  writer.join();
  if (!writer_status.ok()) {
    state.SkipWithError(("writer: " + writer_status.ToString()).c_str());
    return;
  }
  lat.Report();
  state.counters["writes_per_s"] = static_cast<double>(w1 - w0) / secs;
}

// ---------------------------------------------------------------------------------------------
// The cached populations

struct Population {
  std::shared_ptr<Ledger> ledger;
#if VEIL_BENCH_LEDGER_HTTP
  std::unique_ptr<HttpFront> http;  // started on first use
#endif
};

Status Populate(Ledger& ledger, Backend b, std::uint64_t n) {
  std::fprintf(stderr, "veil_bench_ledger: populating %s with %llu entities...\n", NameOf(b),
               static_cast<unsigned long long>(n));
  const auto t0 = std::chrono::steady_clock::now();
  Sender signer(kPopulationLabel);
  std::uint64_t reported = 0;
  for (std::uint64_t first = 0; first < n; first += kPopulateOps) {
    VEIL_ASSIGN_OR_RETURN(auto tx, signer.SignCreates(first, std::min(kPopulateOps, n - first)));
    VEIL_ASSIGN_OR_RETURN(auto r, ledger.Submit(tx));
    VEIL_RETURN_IF_ERROR(r.status);
    if ((first + kPopulateOps) * 10 / n > reported) {
      reported = (first + kPopulateOps) * 10 / n;
      std::fprintf(stderr, "  %llu%%\n", static_cast<unsigned long long>(reported * 10));
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "veil_bench_ledger: populated %s with %llu entities in %.1f s (%.0f/s)\n",
               NameOf(b), static_cast<unsigned long long>(n), s, static_cast<double>(n) / s);
  return Status::Ok();
}

// Where the population of N entities on backend b is cached: a SQLite file under DataDir(), a
// PostgreSQL schema.
std::string PopulationWhere(Backend b, std::uint64_t n) {
  const std::string v = std::to_string(kDataVersion), ns = std::to_string(n);
  if (!IsSqlite(b)) return "veil_bench_ledger_v" + v + "_n" + ns;
  std::error_code ec;
  std::filesystem::create_directories(DataDir(), ec);
  const char* page = b == Backend::kSqlitePage2K ? "-p2k" : "";
  return (DataDir() / ("ledger-v" + v + "-n" + ns + page + ".db")).string();
}

// The population of N entities on backend b: opened from the cache, or built.
Result<Population*> GetPopulation(Backend b, std::uint64_t n) {
  static std::map<std::pair<Backend, std::uint64_t>, std::unique_ptr<Population>> cache;
  auto& slot = cache[{b, n}];
  if (slot) return slot.get();
  const std::string where = PopulationWhere(b, n);
  VEIL_ASSIGN_OR_RETURN(auto ledger, OpenLedger(b, where));
  VEIL_ASSIGN_OR_RETURN(auto live, ledger->Count("*"));
  if (live.count != n || live.capped) {
    if (live.count != 0) {
      std::fprintf(stderr, "veil_bench_ledger: %s holds %llu entities, not %llu: rebuilding\n",
                   where.c_str(), static_cast<unsigned long long>(live.count),
                   static_cast<unsigned long long>(n));
    }
    ledger.reset();
    if (IsSqlite(b)) {
      RemoveSqliteFiles(where);
    } else {
      DropSchema(where);
    }
    VEIL_ASSIGN_OR_RETURN(ledger, OpenLedger(b, where));
    VEIL_RETURN_IF_ERROR(Populate(*ledger, b, n));
  }
  // Reads measure the engine with its working set in memory (see kSqliteCacheMib).
  const auto t0 = std::chrono::steady_clock::now();
  auto warm = ledger->Prewarm();
  if (warm.ok()) {
    std::fprintf(stderr, "veil_bench_ledger: prewarmed %s: %.0f MB in %.1f s\n", where.c_str(),
                 static_cast<double>(*warm) / 1e6,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  } else {
    std::fprintf(stderr, "veil_bench_ledger: could not prewarm %s: %s\n", where.c_str(),
                 warm.status().ToString().c_str());
  }
  slot = std::make_unique<Population>();
  slot->ledger = std::move(ledger);
  return slot.get();
}

// ---------------------------------------------------------------------------------------------
// Reads

enum class Read {
  kGetByKey,
  kGetByAttribute,
  kRangeQuery,
  kPage200,
  kBroadPage200,
  kBroadRangePage200,
  kBroadGlobPage200,
  kBroadAndPage200,
  kMetaAndPage200,
  kOwnerAndPage200,
  kOwnerInAndPage200,
  kBroadOrPage200,
  kNotPage200,
  kContentTypePage200,
  kIn20,
  kCountSelective,
  kCountBroad,
  kCountBroadRange,
  kCountBroadAnd,
  kCountMetaAnd,
  kCountOwnerIn,
};

constexpr std::pair<Read, const char*> kReads[] = {
    {Read::kGetByKey, "GetByKey"},
    {Read::kGetByAttribute, "GetByAttribute"},
    {Read::kRangeQuery, "RangeQuery"},
    {Read::kPage200, "Page200"},
    {Read::kBroadPage200, "BroadPage200"},
    {Read::kBroadRangePage200, "BroadRangePage200"},
    {Read::kBroadGlobPage200, "BroadGlobPage200"},
    {Read::kBroadAndPage200, "BroadAndPage200"},
    {Read::kMetaAndPage200, "MetaAndPage200"},
    {Read::kOwnerAndPage200, "OwnerAndPage200"},
    {Read::kOwnerInAndPage200, "OwnerInAndPage200"},
    {Read::kBroadOrPage200, "BroadOrPage200"},
    {Read::kNotPage200, "NotPage200"},
    {Read::kContentTypePage200, "ContentTypePage200"},
    {Read::kIn20, "In20"},
    {Read::kCountSelective, "CountSelective"},
    {Read::kCountBroad, "CountBroad"},
    {Read::kCountBroadRange, "CountBroadRange"},
    {Read::kCountBroadAnd, "CountBroadAnd"},
    {Read::kCountMetaAnd, "CountMetaAnd"},
    {Read::kCountOwnerIn, "CountOwnerIn"},
};

bool IsCount(Read kind) {
  return kind == Read::kCountSelective || kind == Read::kCountBroad ||
         kind == Read::kCountBroadRange || kind == Read::kCountBroadAnd ||
         kind == Read::kCountMetaAnd || kind == Read::kCountOwnerIn;
}

// The population's owner and an address that has no account, as an IN list's values.
std::string OwnerInList() {
  return "$owner IN (0x" + ToHex(PopulationAddress()) + ", 0x" + std::string(40, '7') + ")";
}

std::string KeyHex(std::uint64_t i) {
  return "0x" + ToHex(DeriveEntityKey(kChainId, PopulationAddress(), i));
}

// The query of one iteration and the number of entities it must return (-1: any).
// For the attribute reads (GetByAttribute, RangeQuery, Page200), the attribute and the value
// range [lo, hi) the text selects, which the engine's rows (BM_EngineRead) bind.
struct QueryCase {
  std::string text;
  QueryOptions options;
  long expect = -1;
  const char* attribute = nullptr;
  std::uint64_t lo = 0, hi = 0;
};

QueryCase MakeQuery(Read kind, std::uint64_t n, std::uint64_t& rng) {
  QueryCase q;
  const std::uint64_t i = Mix(rng++) % n;
  switch (kind) {
    case Read::kGetByAttribute:
      q.text = "idx = " + std::to_string(i);
      q.expect = 1;
      q.attribute = "idx";
      q.lo = i;
      q.hi = i + 1;
      break;
    case Read::kRangeQuery: {
      const std::uint64_t width = kScoreRange / n * kRangeMatches;
      q.attribute = "score";
      q.lo = Mix(rng++) % (kScoreRange - width);
      q.hi = q.lo + width;
      q.text = "score >= " + std::to_string(q.lo) + " && score < " + std::to_string(q.hi);
      break;
    }
    case Read::kPage200: {
      q.attribute = "idx";
      q.lo = n > 200 ? i % (n - 200) : 0;
      q.hi = q.lo + 200;
      q.text = "idx >= " + std::to_string(q.lo) + " && idx < " + std::to_string(q.hi);
      q.expect = static_cast<long>(std::min<std::uint64_t>(n, 200));
      break;
    }
    case Read::kBroadPage200:
      q.text = "region = \"" + Region(i) + "\"";
      q.expect = static_cast<long>(std::min<std::uint64_t>(n / kRegions, 200));
      break;
    case Read::kBroadRangePage200:
    case Read::kCountBroadRange:
      q.attribute = "score";
      q.lo = Mix(rng++) % (kScoreRange / 4);
      q.text = "score >= " + std::to_string(q.lo);
      q.expect = static_cast<long>(std::min<std::uint64_t>(n, 200));
      break;
    case Read::kBroadGlobPage200:
      q.text = "region ~ \"r*\"";
      q.expect = static_cast<long>(std::min<std::uint64_t>(n, 200));
      break;
    case Read::kBroadAndPage200:
    case Read::kCountBroadAnd: {
      const std::uint64_t score = Mix(rng++) % (kScoreRange / 4);
      const std::uint64_t idx = n >= 4 ? Mix(rng++) % (n / 4) : 0;
      q.text = "score >= " + std::to_string(score) + " && idx >= " + std::to_string(idx);
      q.expect = static_cast<long>(std::min<std::uint64_t>(n / 2, 200));
      break;
    }
    case Read::kMetaAndPage200:
    case Read::kCountMetaAnd:
      q.text =
          "score >= " + std::to_string(Mix(rng++) % (kScoreRange / 4)) + " && $createdAtBlock < 3";
      break;
    case Read::kOwnerAndPage200:
      q.text = "$owner = 0x" + ToHex(PopulationAddress()) +
               " && score >= " + std::to_string(Mix(rng++) % (kScoreRange / 4));
      q.expect = static_cast<long>(std::min<std::uint64_t>(n / 2, 200));
      break;
    case Read::kOwnerInAndPage200:
      q.text = OwnerInList() + " && score >= " + std::to_string(Mix(rng++) % (kScoreRange / 4));
      q.expect = static_cast<long>(std::min<std::uint64_t>(n / 2, 200));
      break;
    case Read::kCountOwnerIn:
      q.text = OwnerInList();
      break;
    case Read::kBroadOrPage200:
      q.text = "region = \"" + Region(i) + "\" || region = \"" + Region(i + 1) + "\"";
      q.expect = static_cast<long>(std::min<std::uint64_t>(n / kRegions * 2, 200));
      break;
    case Read::kNotPage200:
      q.text = "NOT (region = \"" + Region(i) + "\")";
      q.expect = static_cast<long>(std::min<std::uint64_t>(n - n / kRegions, 200));
      break;
    case Read::kContentTypePage200:
      q.text = "$contentType = \"application/octet-stream\"";
      q.expect = static_cast<long>(std::min<std::uint64_t>(n, 200));
      break;
    case Read::kIn20:
      q.text = "$key IN (";
      for (int k = 0; k < 20; ++k) q.text += (k == 0 ? "" : ", ") + KeyHex(Mix(rng++) % n);
      q.text += ")";
      q.expect = -1;  // 20 unless two picks collide
      break;
    case Read::kCountSelective:
      q.text = "bucket = " + std::to_string(i % kBuckets);
      break;
    case Read::kCountBroad:
      q.text = "kind = \"doc\"";
      break;
    case Read::kGetByKey:
      break;
  }
  q.options.limit = 200;
  return q;
}

// Api: Ledger or RemoteLedger (the same Get/Query/Count signatures).
template <class Api>
void ReadLoop(benchmark::State& state, Api& api, Backend b, Read kind, std::uint64_t n) {
  Latencies lat(state);
  std::uint64_t rng = 1;
  std::uint64_t rows = 0;
  std::uint64_t capped = 0;
  const auto trips = !IsSqlite(b) ? PgRoundTrips::Now() : std::nullopt;
  for (auto _ : state) {
    if (kind == Read::kGetByKey) {
      const EntityKey key = DeriveEntityKey(kChainId, PopulationAddress(), Mix(rng++) % n);
      auto r = lat.Time([&] { return api.Get(key, Projection::All()); });
      if (!r.ok() || !r->has_value()) {
        state.SkipWithError(r.ok() ? "entity not found" : r.status().ToString().c_str());
        break;
      }
      ++rows;
    } else if (IsCount(kind)) {
      const QueryCase q = MakeQuery(kind, n, rng);
      auto r = lat.Time([&] { return api.Count(q.text); });
      if (!r.ok()) {
        state.SkipWithError(r.status().ToString().c_str());
        break;
      }
      rows += r->count;
      if (r->capped) ++capped;
    } else {
      const QueryCase q = MakeQuery(kind, n, rng);
      auto r = lat.Time([&] { return api.Query(q.text, q.options); });
      if (!r.ok()) {
        state.SkipWithError(r.status().ToString().c_str());
        break;
      }
      if (q.expect >= 0 && r->entities.size() != static_cast<std::size_t>(q.expect)) {
        state.SkipWithError(("unexpected row count for " + q.text).c_str());
        break;
      }
      rows += r->entities.size();
    }
  }
  PgRoundTrips::Report(state, trips, static_cast<std::uint64_t>(state.iterations()));
  lat.Report();
  const double seconds = lat.total_seconds();
  const auto iters = static_cast<double>(state.iterations());
  if (iters > 0) {
    const bool counting = IsCount(kind);
    state.counters[counting ? "count" : "rows"] = static_cast<double>(rows) / iters;
    if (counting) state.counters["capped"] = static_cast<double>(capped) / iters;
    // Per entity returned or counted, where a call covers more than one.
    if (static_cast<double>(rows) > iters) {
      state.counters["ns_per_row"] = seconds * 1e9 / static_cast<double>(rows);
    }
  }
}

void BM_Read(benchmark::State& state, Backend b, Read kind, bool http) {
  const auto n = static_cast<std::uint64_t>(state.range(0));
  auto pop = GetPopulation(b, n);
  if (!pop.ok()) {
    state.SkipWithError(("population: " + pop.status().ToString()).c_str());
    return;
  }
  if (!http) {
    ReadLoop(state, *(*pop)->ledger, b, kind, n);
    return;
  }
#if VEIL_BENCH_LEDGER_HTTP
  if (!(*pop)->http) {
    auto front = HttpFront::Start((*pop)->ledger);
    if (!front.ok()) {
      state.SkipWithError(("http: " + front.status().ToString()).c_str());
      return;
    }
    (*pop)->http = std::move(front).value();
  }
  ReadLoop(state, (*pop)->http->client(), b, kind, n);
#endif
}

// Counts beside a backlog of expired entities the sweeper has not removed yet: a scratch ledger
// of 2 * kBacklog entities (MakeCreate's), the first kBacklog created to expire at block
// kBacklogExpiry, which the head has passed, the rest live. A driven count subtracts the
// filter's matches among the entities that are not live (CompileDrivenCount's D): from its
// matches' rows when the driver has no more entries than the backlog (F = 0, 2), else found
// through the expiry index (F = 1), at a cost that follows the backlog.
//   BM_Ledger_CountBacklog/BACKEND/F   F = 0: Count(`bucket = 3`), 10 live matches of 20;
//                                      F = 1: Count(`kind = "doc"`), kBacklog live matches
//                                      (the cap: not capped);
//                                      F = 2: Count(`status = "active"`), kBacklog / 4 live
//                                      matches of kBacklog / 2 (fewer than the backlog);
//                                      F = 3: Count(`kind = "doc"`) with a count cap of
//                                      kBacklog / 10: capped (a backlog above the cap).
constexpr std::uint64_t kBacklog = 10'000;
constexpr std::uint64_t kBacklogExpiry = kBacklog / kPopulateOps + 10;

void BM_CountBacklog(benchmark::State& state, Backend b) {
  const auto f = static_cast<std::size_t>(state.range(0));
  const std::uint64_t cap = f == 3 ? kBacklog / 10 : 0;
  ScratchLedger scratch(b, 0, cap);
  if (!scratch.status().ok()) {
    state.SkipWithError(("open: " + scratch.status().ToString()).c_str());
    return;
  }
  Ledger& ledger = *scratch.ledger();
  Sender signer("veil.bench.ledger.backlog.v1");
  for (std::uint64_t first = 0; first < 2 * kBacklog; first += kPopulateOps) {
    auto tx = signer.SignCreates(first, kPopulateOps, first < kBacklog ? kBacklogExpiry : kExpires);
    auto r = tx.ok() ? ledger.Submit(*tx) : Result<TxReceipt>(tx.status());
    if (!r.ok() || !r->status.ok()) {
      state.SkipWithError(("populate: " + (r.ok() ? r->status : r.status()).ToString()).c_str());
      return;
    }
  }
  if (ledger.Head().number <= kBacklogExpiry) {
    state.SkipWithError("the head has not passed the backlog's expiry");
    return;
  }
  static const char* const kText[] = {"bucket = 3", "kind = \"doc\"", "status = \"active\"",
                                      "kind = \"doc\""};
  const std::uint64_t kWant[] = {2 * kBacklog / kBuckets / 2, kBacklog, kBacklog / 4, cap};
  const std::string text = kText[f];
  const std::uint64_t want = kWant[f];
  const bool capped = cap != 0;
  Latencies lat(state);
  for (auto _ : state) {
    auto r = lat.Time([&] { return ledger.Count(text); });
    if (!r.ok() || r->count != want || r->capped != capped) {
      state.SkipWithError(
          ("count: " + (r.ok() ? std::to_string(r->count) + " matches" : r.status().ToString()))
              .c_str());
      break;
    }
  }
  lat.Report();
  state.counters["count"] = static_cast<double>(want);
}

// The engine's own reads over the same population file, for the attribute reads: a bare SQLite
// connection (its own cache of kSqliteCacheMib, prewarmed over the entity table and the numeric
// attribute index) runs the one statement a minimal program needs for the same rows (the
// attribute index over [lo, hi), each entity row by id with the same liveness terms, id order,
// at most 201) and copies out every column the ledger returns (key, payload, content type, the
// attribute copy, the blocks): no decoding, no Entity objects, no account addresses. The ledger
// rows over it (BM_Ledger_<Read>/sqlite/N) are the ledger's cost; what both share is the
// engine's, and so is its growth with N (docs/performance.md, "flat as N grows").
//   BM_Engine_Sqlite_<Read>/N for GetByAttribute, RangeQuery, Page200; counter rows as above.
void BM_EngineRead(benchmark::State& state, Read kind) {
  const auto n = static_cast<std::uint64_t>(state.range(0));
  if (auto pop = GetPopulation(Backend::kSqlite, n); !pop.ok()) {
    state.SkipWithError(("population: " + pop.status().ToString()).c_str());
    return;
  }
  sqlite3* db = nullptr;
  const std::string path = PopulationWhere(Backend::kSqlite, n);
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    state.SkipWithError(("open: " + std::string(sqlite3_errmsg(db))).c_str());
    sqlite3_close(db);
    return;
  }
  const auto run = [&](const std::string& sql) {
    return sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
  };
  std::int64_t head = 0;
  sqlite3_stmt* st = nullptr;
  bool ok = run("PRAGMA cache_size = -" + std::to_string(kSqliteCacheMib * 1024)) &&
            run("SELECT count(*) FROM entities NOT INDEXED") &&
            run("SELECT count(*) FROM attr_num INDEXED BY attr_num_nv WHERE name IS NOT NULL") &&
            sqlite3_prepare_v2(db, "SELECT max(number) FROM blocks", -1, &st, nullptr) == SQLITE_OK;
  if (ok && sqlite3_step(st) == SQLITE_ROW) head = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  st = nullptr;
  ok = ok && sqlite3_prepare_v2(db,
                                "SELECT e.id, e.key, e.owner_id, e.creator_id, e.created_block, "
                                "e.updated_block, e.expires_block, e.content_type, e.payload, "
                                "e.attrs FROM entities e WHERE e.id IN (SELECT entity_id FROM "
                                "attr_num WHERE name = ?1 AND value >= ?2 AND value < ?3) AND "
                                "+e.expires_block > ?4 AND +e.created_block <= ?4 ORDER BY e.id "
                                "DESC LIMIT 201",
                                -1, &st, nullptr) == SQLITE_OK;
  if (!ok) {
    state.SkipWithError(("engine read: " + std::string(sqlite3_errmsg(db))).c_str());
    sqlite3_finalize(st);
    sqlite3_close(db);
    return;
  }
  struct Row {
    std::int64_t id = 0, owner = 0, creator = 0, created = 0, updated = 0, expires = 0;
    std::array<std::uint8_t, 32> key{};
    std::string content_type;
    Bytes payload, attrs;
  };
  std::vector<Row> rows(201);
  const auto blob = [&](int i, Bytes* out) {
    const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(st, i));
    out->assign(p, p + sqlite3_column_bytes(st, i));
  };
  Latencies lat(state);
  std::uint64_t rng = 1, returned = 0;
  for (auto _ : state) {
    const QueryCase q = MakeQuery(kind, n, rng);
    sqlite3_bind_text(st, 1, q.attribute, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, Biased(q.lo));
    sqlite3_bind_int64(st, 3, Biased(q.hi));
    sqlite3_bind_int64(st, 4, head);
    const long got = lat.Time([&] {
      long k = 0;
      for (; sqlite3_step(st) == SQLITE_ROW; ++k) {
        Row& r = rows[static_cast<std::size_t>(k)];
        r.id = sqlite3_column_int64(st, 0);
        std::memcpy(r.key.data(), sqlite3_column_blob(st, 1), r.key.size());
        r.owner = sqlite3_column_int64(st, 2);
        r.creator = sqlite3_column_int64(st, 3);
        r.created = sqlite3_column_int64(st, 4);
        r.updated = sqlite3_column_int64(st, 5);
        r.expires = sqlite3_column_int64(st, 6);
        r.content_type.assign(reinterpret_cast<const char*>(sqlite3_column_text(st, 7)),
                              static_cast<std::size_t>(sqlite3_column_bytes(st, 7)));
        blob(8, &r.payload);
        blob(9, &r.attrs);
      }
      sqlite3_reset(st);
      return k;
    });
    benchmark::DoNotOptimize(rows.data());
    if (q.expect >= 0 && got != q.expect) {
      state.SkipWithError(("unexpected row count for " + q.text).c_str());
      break;
    }
    returned += static_cast<std::uint64_t>(got);
  }
  lat.Report();
  const auto iters = static_cast<double>(state.iterations());
  if (iters > 0) {
    state.counters["rows"] = static_cast<double>(returned) / iters;
    if (static_cast<double>(returned) > iters) {
      state.counters["ns_per_row"] = lat.total_seconds() * 1e9 / static_cast<double>(returned);
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
}

#if VEIL_BENCH_LEDGER_HTTP
// The JSON of one page of 200 entities (the Page200 row's first page at N = 10^4 on SQLite),
// without the network: how the node writes it (text, ledger/json.h ToJsonText), how it used to
// (the DOM, then its dump), and how the client reads it (parse, then QueryPageFromJson).
enum class JsonStep { kWriteText, kWriteDom, kRead, kReadDom };

void BM_JsonPage(benchmark::State& state, JsonStep step) {
  auto pop = GetPopulation(Backend::kSqlite, 10'000);
  if (!pop.ok()) {
    state.SkipWithError(("population: " + pop.status().ToString()).c_str());
    return;
  }
  const QueryOptions options;
  auto page = (*pop)->ledger->Query("idx >= 0 && idx < 200", options);
  if (!page.ok() || page->entities.size() != 200) {
    state.SkipWithError("the page of 200 did not come back");
    return;
  }
  namespace lj = ledger::json;
  const std::string text = lj::ToJsonText(*page, options.projection);
  std::size_t bytes = 0;
  for (auto _ : state) {
    switch (step) {
      case JsonStep::kWriteText: {
        std::string out = lj::ToJsonText(*page, options.projection);
        bytes += out.size();
        benchmark::DoNotOptimize(out);
        break;
      }
      case JsonStep::kWriteDom: {
        std::string out = net::DumpJson(lj::ToJson(*page, options.projection));
        bytes += out.size();
        benchmark::DoNotOptimize(out);
        break;
      }
      case JsonStep::kRead:
      case JsonStep::kReadDom: {
        auto back = step == JsonStep::kRead
                        ? lj::QueryPageFromJsonText(text, options.projection)
                        : lj::QueryPageFromJson(nlohmann::json::parse(text, nullptr, false),
                                                options.projection);
        if (!back.ok() || back->entities.size() != 200) {
          state.SkipWithError("the page did not read back");
          return;
        }
        bytes += text.size();
        benchmark::DoNotOptimize(back);
        break;
      }
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
  state.counters["page_bytes"] = static_cast<double>(text.size());
}
#endif

// ---------------------------------------------------------------------------------------------
// Registration: the PostgreSQL rows only with VEIL_BENCH_POSTGRES_URL, N up to the cap.

void RegisterEngineReads() {
  for (const auto& [kind, name] : kReads) {
    if (kind != Read::kGetByAttribute && kind != Read::kRangeQuery && kind != Read::kPage200) {
      continue;
    }
    auto* bm = benchmark::RegisterBenchmark((std::string("BM_Engine_Sqlite_") + name).c_str(),
                                            BM_EngineRead, kind);
    bm->UseManualTime()->Unit(benchmark::kMicrosecond)->MinWarmUpTime(kReadWarmUpSeconds);
    for (std::int64_t n : {10'000, 100'000, 1'000'000}) {
      if (static_cast<std::uint64_t>(n) <= MaxN()) bm->Arg(n);
    }
  }
}

void RegisterAll(const std::string& prefix, bool http) {
  std::vector<Backend> backends = {Backend::kSqlite};
  if (!http) backends.push_back(Backend::kSqlitePlainVfs);
  if (!http) backends.push_back(Backend::kSqlitePage2K);
  if (PostgresUrl() != nullptr) backends.push_back(Backend::kPostgres);
  if (PostgresUrl() != nullptr && !http) backends.push_back(Backend::kPostgresCheckFirst);
  std::vector<std::int64_t> sizes;
  for (std::int64_t n : {10'000, 100'000, 1'000'000}) {
    if (static_cast<std::uint64_t>(n) <= MaxN()) sizes.push_back(n);
  }
  for (Backend b : backends) {
    const std::string suffix = std::string("/") + NameOf(b);
    benchmark::RegisterBenchmark((prefix + "_Write_OneEntity" + suffix).c_str(), BM_Write, b,
                                 std::uint64_t{1}, http, false)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
    const auto register_reads = [&] {
      for (const auto& [kind, name] : kReads) {
        if (sizes.empty()) break;
        auto* bm = benchmark::RegisterBenchmark((prefix + "_" + name + suffix).c_str(), BM_Read, b,
                                                kind, http);
        bm->UseManualTime()->Unit(benchmark::kMicrosecond)->MinWarmUpTime(kReadWarmUpSeconds);
        for (std::int64_t n : sizes) bm->Arg(n);
      }
    };
    if ((b == Backend::kPostgres || b == Backend::kPostgresCheckFirst) && !http) {
      benchmark::RegisterBenchmark((prefix + "_Write_OneEntity_Paired" + suffix).c_str(),
                                   BM_WritePaired, b)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
    if (b == Backend::kPostgresCheckFirst) continue;  // the one-entity row only
    if (b == Backend::kSqlitePage2K) {                // and the reads
      register_reads();
      continue;
    }
    if (!http) {
      benchmark::RegisterBenchmark((prefix + "_Write_Batch20" + suffix).c_str(), BM_Write, b,
                                   std::uint64_t{20}, http, false)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
    if (!http && b != Backend::kSqlitePlainVfs) {
      benchmark::RegisterBenchmark((prefix + "_Write_Concurrent" + suffix).c_str(),
                                   BM_WriteConcurrent, b, false)
          ->Arg(1)
          ->Arg(4)
          ->Arg(16)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark((prefix + "_Write_ColdSenders" + suffix).c_str(),
                                   BM_WriteConcurrent, b, true)
          ->Arg(1)
          ->Arg(16)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark((prefix + "_GetDuringWrites" + suffix).c_str(),
                                   BM_GetDuringWrites, b)
          ->Arg(0)
          ->Arg(4)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
    if (!http && b == Backend::kSqlite) {
      benchmark::RegisterBenchmark((prefix + "_Write_OneEntity_FirstFill" + suffix).c_str(),
                                   BM_Write, b, std::uint64_t{1}, http, true)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
    if (b != Backend::kSqlitePlainVfs) register_reads();
    if (!http && b != Backend::kSqlitePlainVfs) {
      benchmark::RegisterBenchmark((prefix + "_CountBacklog" + suffix).c_str(), BM_CountBacklog, b)
          ->DenseRange(0, 3)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

const bool kRegistered = [] {
  RegisterAll("BM_Ledger", false);
  RegisterEngineReads();
#if VEIL_BENCH_LEDGER_HTTP
  RegisterAll("BM_Http", true);
  benchmark::RegisterBenchmark("BM_Json_Page200_WriteText", BM_JsonPage, JsonStep::kWriteText)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Json_Page200_WriteDom", BM_JsonPage, JsonStep::kWriteDom)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Json_Page200_Read", BM_JsonPage, JsonStep::kRead)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Json_Page200_ReadDom", BM_JsonPage, JsonStep::kReadDom)
      ->Unit(benchmark::kMicrosecond);
#endif
  return true;
}();

}  // namespace
}  // namespace veil::bench_ledger
