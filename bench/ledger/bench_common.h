// Shared pieces of the ledger benchmarks (ledger_bench.cc, engine_bench.cc): the environment
// variables, the scratch directory, per-iteration latency percentiles, the benchmark entity and a
// small libpq connection wrapper. The variables are documented at the top of ledger_bench.cc and
// in docs/notes/ledger.md ("Benchmarks").
#pragma once

#include <benchmark/benchmark.h>
#include <dirent.h>
#include <libpq-fe.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "latencies.h"
#include "support/scratch_dir.h"
#include "veil/base/bytes.h"

namespace veil::bench_ledger {

// The PostgreSQL URL from VEIL_BENCH_POSTGRES_URL, or null: then no PostgreSQL row is registered.
inline const char* PostgresUrl() {
  const char* url = std::getenv("VEIL_BENCH_POSTGRES_URL");
  return url != nullptr && *url != '\0' ? url : nullptr;
}

// The process's scratch directory (fresh SQLite databases of the write rows, the fdatasync file),
// removed at exit; it must be a real disk, and a warning says so on tmpfs
// (tests/support/scratch_dir.h).
using veil::testing::ScratchDir;

inline void RemoveSqliteFiles(const std::filesystem::path& db) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::remove(db.string() + suffix, ec);
  }
}

// The SQLite write rows measure a database in its steady state. A fresh database's log grows by
// every commit, and then fdatasync must also write the file's new size (an inode write, a second
// disk round trip): on this machine class that costs a one-entity commit 40-50% more than one
// that overwrites log frames in place, which every commit does once SQLite has checkpointed the
// log and restarted it from its start (the file keeps its size). WarmUpSqliteLog runs write()
// again and again (untimed) until the log at db + "-wal" has kept its size for kSteadyCommits
// commits in a row, at most max_commits, and counts them in the counter warmup_tx; false (the
// run skipped with an error) if a write failed.
// The FirstFill rows skip it and measure the growing log.
template <class Write>
bool WarmUpSqliteLog(benchmark::State& state, const std::filesystem::path& db, Write write,
                     std::uint64_t max_commits = 5000) {
  constexpr std::uint64_t kSteadyCommits = 32;
  const std::string wal = db.string() + "-wal";
  std::uintmax_t last = 0;
  std::uint64_t steady = 0;
  std::uint64_t i = 0;
  while (i < max_commits && steady < kSteadyCommits) {
    ++i;
    if (!write()) {
      state.SkipWithError("warm-up: a write failed");
      return false;
    }
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(wal, ec);
    steady = !ec && size == last && size > 0 ? steady + 1 : 0;
    if (!ec) last = size;
  }
  state.counters["warmup_tx"] = static_cast<double>(i);
  return true;
}

// Times each iteration itself (the benchmarks use UseManualTime, so untimed set-up in the loop,
// such as signing the next transaction, stays out of the figure); bench/latencies.h.
using veil::bench::Latencies;

// splitmix64: the deterministic source of every generated value (payloads, scores, read keys).
inline std::uint64_t Mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The benchmark entity i: a payload of kPayloadBytes and 8 attributes, 4 numeric and 4 string
// (both attribute tables get rows, as in any real mix):
//   bucket = i % 1000, idx = i (unique), score = Mix(i) % 10^9 (uniform), version = 1,
//   kind = "doc", name = "e" + i (unique), region = "r00".."r15" (i % 16), status = one of 4.
inline constexpr std::size_t kPayloadBytes = 320;
inline constexpr std::uint64_t kScoreRange = 1'000'000'000;
inline constexpr std::uint64_t kBuckets = 1000;
inline constexpr std::uint64_t kRegions = 16;

inline Bytes Payload(std::uint64_t i) {
  Bytes out(kPayloadBytes);
  for (std::size_t j = 0; j < out.size(); j += 8) {
    const std::uint64_t w = Mix(i * 64 + j);
    for (std::size_t k = 0; k < 8 && j + k < out.size(); ++k) {
      out[j + k] = static_cast<std::uint8_t>(w >> (8 * k));
    }
  }
  return out;
}
inline std::uint64_t Score(std::uint64_t i) { return Mix(i ^ 0x5c0e) % kScoreRange; }
inline std::string Name(std::uint64_t i) { return "e" + std::to_string(i); }
inline std::string Region(std::uint64_t i) {
  const std::uint64_t r = i % kRegions;
  return std::string("r") + static_cast<char>('0' + r / 10) + static_cast<char>('0' + r % 10);
}
inline const char* StatusOf(std::uint64_t i) {
  static const char* const kStatus[] = {"active", "archived", "draft", "review"};
  return kStatus[i % 4];
}

// The bytes the ledger stores for entity i's one-entity create (ledger_bench.cc, from the
// ledger's own encoders): the signed transaction as a block keeps it, and the entity row's copy
// of its attributes. The raw rows that write the ledger's data model (engine_bench.cc) use them so
// that their rows are the ledger's sizes.
Bytes LedgerTxBody(std::uint64_t i);
Bytes LedgerStoredAttributes(std::uint64_t i);

// A raw program's one-entity PostgreSQL transaction, for a ledger row that times it in the same
// run, interleaved with the ledger's own transactions (ledger_bench.cc,
// BM_Ledger_Write_OneEntity_Paired): the rows of engine_bench.cc's BM_Engine_Pg_PipelineOneEntity
// (the entity row and its 8 attribute rows) or, with `lean`, of its _LeanRows (the rows
// of the store's format 4, one plain statement each). Each object writes in a fresh schema of
// its own, dropped with it.
class RawPgOneEntity {
 public:
  virtual ~RawPgOneEntity() = default;
  virtual bool ok() const = 0;
  virtual const std::string& error() const = 0;
  // Entity i's rows in one durable transaction, pipelined (one round trip); false with error()
  // set if it failed. Each i once, from 0 up.
  virtual bool Write(std::uint64_t i) = 0;
};
std::unique_ptr<RawPgOneEntity> OpenRawPgOneEntity(bool lean);

// u64 values as the ledger's SQLite store keeps them (v XOR 2^63, so that signed order is u64
// order): for the raw programs that write or read the same rows.
inline std::int64_t Biased(std::uint64_t v) { return static_cast<std::int64_t>(v ^ (1ULL << 63)); }

// A libpq connection for set-up, clean-up and the raw baselines.
class PgConn {
 public:
  explicit PgConn(const char* url) : conn_(PQconnectdb(url)) {
    if (ok()) Exec("SET client_min_messages = warning");
  }
  ~PgConn() { PQfinish(conn_); }
  PgConn(const PgConn&) = delete;
  PgConn& operator=(const PgConn&) = delete;

  bool ok() const { return PQstatus(conn_) == CONNECTION_OK; }
  std::string error() const { return PQerrorMessage(conn_); }
  PGconn* get() { return conn_; }
  // Runs one or more statements (simple protocol); false and error() on failure.
  bool Exec(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    const auto st = PQresultStatus(r);
    const bool good = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!good) last_error_ = PQresultErrorMessage(r);
    PQclear(r);
    return good;
  }
  const std::string& last_error() const { return last_error_; }

 private:
  PGconn* conn_;
  std::string last_error_;
};

// Round trips to PostgreSQL, counted on the client from the kernel's TCP counters (TCP_INFO,
// summed over every socket connected to the server's port, whichever thread or connection used
// it): the data segments this process sent to the server (tcpi_data_segs_out) and received from
// it (tcpi_data_segs_in), and of the two, over an operation, the smaller. Each round trip sends at
// least one segment and receives at least one, so neither count is below the round trips; a
// request larger than libpq's 8 KiB buffer (a pipeline of 20 entities) goes out in several
// segments, a large answer (a page of 200 entities) comes back in several, and a pipeline whose
// statements go out before its Sync (a commit gate, Store::CommitGate) is two sends before one
// answer: the smaller count stays exact unless both sides of a round trip were split. libpq sets
// TCP_NODELAY and loopback's MSS is 64 KiB. The benchmarks read the counts before and after their
// loop (nothing else talks to the server meanwhile) and report pg_round_trips per operation;
// nullopt when no TCP connection is found (a unix socket).
class PgRoundTrips {
 public:
  struct Segments {
    std::uint64_t out = 0;  // sent to the server
    std::uint64_t in = 0;   // received from it
  };
  static std::optional<Segments> Now() {
    const int port = ServerPort();
    if (port <= 0) return std::nullopt;
    DIR* dir = ::opendir("/proc/self/fd");
    if (dir == nullptr) return std::nullopt;
    Segments total;
    bool found = false;
    while (const dirent* d = ::readdir(dir)) {
      const int fd = std::atoi(d->d_name);
      struct stat st {};
      if (d->d_name[0] == '.' || ::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
      sockaddr_storage peer{};
      socklen_t len = sizeof(peer);
      if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) continue;
      int peer_port = -1;
      if (peer.ss_family == AF_INET) {
        peer_port = ntohs(reinterpret_cast<const sockaddr_in*>(&peer)->sin_port);
      } else if (peer.ss_family == AF_INET6) {
        peer_port = ntohs(reinterpret_cast<const sockaddr_in6*>(&peer)->sin6_port);
      }
      tcp_info info{};
      socklen_t info_len = sizeof(info);
      if (peer_port != port || ::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &info_len) != 0) {
        continue;
      }
      total.out += info.tcpi_data_segs_out;
      total.in += info.tcpi_data_segs_in;
      found = true;
    }
    ::closedir(dir);
    return found ? std::optional<Segments>(total) : std::nullopt;
  }

  // Sets counters["pg_round_trips"] to the round trips per operation since `before`.
  static void Report(benchmark::State& state, std::optional<Segments> before,
                     std::uint64_t operations) {
    const auto after = Now();
    if (!before || !after || after->out < before->out || after->in < before->in ||
        operations == 0) {
      return;
    }
    const std::uint64_t trips = std::min(after->out - before->out, after->in - before->in);
    state.counters["pg_round_trips"] = static_cast<double>(trips) / static_cast<double>(operations);
  }

 private:
  static int ServerPort() {
    static const int port = [] {
      if (PostgresUrl() == nullptr) return -1;
      PgConn pg(PostgresUrl());
      const char* host = pg.ok() ? PQhost(pg.get()) : nullptr;
      if (host == nullptr || host[0] == '/') return -1;  // a unix socket
      return std::atoi(PQport(pg.get()));
    }();
    return port;
  }
};

inline std::string QuoteIdent(const std::string& name) { return "\"" + name + "\""; }

// Drops a schema and everything in it (a scratch schema of a write row).
inline void DropSchema(const std::string& schema) {
  PgConn pg(PostgresUrl());
  if (!pg.ok() || !pg.Exec("DROP SCHEMA IF EXISTS " + QuoteIdent(schema) + " CASCADE")) {
    std::fprintf(stderr, "veil_bench_ledger: could not drop schema %s: %s%s\n", schema.c_str(),
                 pg.error().c_str(), pg.last_error().c_str());
  }
}

// A fresh schema name for a write row or a raw baseline: veil_bench_<what>_<pid>_<seq>.
inline std::string ScratchSchema(const std::string& what) {
  static std::atomic<int> seq{0};
  return "veil_bench_" + what + "_" + std::to_string(::getpid()) + "_" +
         std::to_string(seq.fetch_add(1));
}

}  // namespace veil::bench_ledger
