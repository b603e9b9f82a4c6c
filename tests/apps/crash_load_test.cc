// Crash safety and a bounded load test against the real `veil-ledger serve` binary.
//
// Crash: a thread streams transactions of three creates each (one marker per transaction) while
// the test SIGKILLs the server at a random moment; after a restart on the same SQLite file every
// transaction is wholly present or wholly absent, every acknowledged one is present, and the
// hash chain verifies. Load: several client threads submit concurrently; no transaction is lost
// or duplicated; throughput and p50/p99 latency are printed (only correctness is asserted).
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <random>

#include "apps_test_util.h"
#include "net/net_test_util.h"
#include "support/scratch_dir.h"
#include "veil/ledger/api.h"

namespace veil::ledger_node::testing {
namespace {

using ledger::Attribute;

// marker -> number of live entities carrying it, over every page of `query`.
std::map<std::uint64_t, int> CountByMarker(ledger::LedgerApi& api, const std::string& query,
                                           const std::string& attr) {
  std::map<std::uint64_t, int> out;
  ledger::QueryOptions o;
  o.projection = ledger::Projection::KeysOnly();
  o.projection.attributes = true;
  while (true) {
    auto page = api.Query(query, o);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    if (!page.ok()) break;
    for (const auto& e : page->entities) {
      for (const auto& a : e.attributes) {
        if (a.name == attr) ++out[std::get<std::uint64_t>(a.value)];
      }
    }
    if (page->cursor.empty()) break;
    o.cursor = page->cursor;
  }
  return out;
}

// Streams transactions of three creates each, stops the server with `sig` at a random moment,
// restarts it on the same file and checks all-or-nothing, acknowledged-present and the chain.
void StopMidStream(int sig) {
  const veil::testing::ScratchDir scratch("veil-apps-crash" + std::to_string(sig));
  const std::filesystem::path& dir = scratch.path();
  const std::string store = "sqlite:" + (dir / "chain.db").string();
  std::mt19937 rng(std::random_device{}());
  ServerProcess server;
  ASSERT_TRUE(server.Start(dir, {"--store", store})) << server.Log();

  Wallet w;
  std::atomic<std::uint64_t> acked{0};  // markers 0..acked-1 were acknowledged as landed
  std::atomic<std::uint64_t> sent{0};
  std::thread client([&] {
    auto api = ConnectRemote(server.url());
    if (!api.ok()) return;
    for (std::uint64_t m = 0;; ++m) {
      std::vector<ledger::Operation> ops;
      for (std::uint64_t i = 0; i < 3; ++i) {
        ops.push_back(Create(100'000, {Attribute::Num("marker", m), Attribute::Num("part", i)},
                             Bytes(64, static_cast<std::uint8_t>(m))));
      }
      sent = m + 1;
      auto r = (*api)->Submit(Sign(w, ops));
      if (!r.ok()) {  // the server is gone
        std::printf("client stopped at transaction %llu: %s\n", static_cast<unsigned long long>(m),
                    r.status().ToString().c_str());
        return;
      }
      if (!r->status.ok()) return;
      acked = m + 1;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300 + rng() % 1200));
  EXPECT_EQ(server.Signal(sig), sig == SIGKILL ? 128 + SIGKILL : 0) << server.Log();
  client.join();
  ASSERT_GT(acked.load(), 0u) << "no transaction landed before the kill";

  ServerProcess again;
  // arkiv_verifyChain is an operator's call: served only with --operator-rpc.
  ASSERT_TRUE(again.Start(dir, {"--store", store, "--operator-rpc"})) << again.Log();
  auto api = ConnectRemote(again.url());
  ASSERT_TRUE(api.ok());
  const auto counts = CountByMarker(**api, "marker >= 0", "marker");
  for (const auto& [marker, n] : counts) {
    EXPECT_EQ(n, 3) << "transaction " << marker << " is partly present";
    EXPECT_LT(marker, sent.load());
  }
  for (std::uint64_t m = 0; m < acked.load(); ++m) {
    EXPECT_EQ(counts.count(m), 1u) << "acknowledged transaction " << m << " is missing";
  }
  // Landed transactions form a prefix: nonces are sequential.
  EXPECT_TRUE(counts.empty() || counts.rbegin()->first + 1 == counts.size());
  // A graceful stop answers every request it served: nothing lands unacknowledged.
  if (sig == SIGTERM) {
    EXPECT_EQ(counts.size(), acked.load()) << server.Log();
  }
  EXPECT_TRUE((*api)->VerifyChain().ok());
  std::printf("stop with signal %d: %llu acknowledged, %zu present after restart, %llu sent\n", sig,
              static_cast<unsigned long long>(acked.load()), counts.size(),
              static_cast<unsigned long long>(sent.load()));
  EXPECT_EQ(again.Signal(SIGTERM), 0);
  std::string out;
  EXPECT_EQ(RunCli({"verify-chain", "--store", store}, &out), 0) << out;
  std::filesystem::remove_all(dir);
}

TEST(CrashSafety, SigkillDuringAStreamOfMultiOperationTransactions) { StopMidStream(SIGKILL); }

// A graceful stop under load: in-flight requests finish, the process exits 0, nothing is torn.
TEST(CrashSafety, SigtermDuringAStreamOfMultiOperationTransactions) { StopMidStream(SIGTERM); }

TEST(Load, ConcurrentClientsLoseAndDuplicateNothing) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 250;
  const veil::testing::ScratchDir scratch("veil-apps-load");
  const std::filesystem::path& dir = scratch.path();
  ServerProcess server;
  ASSERT_TRUE(
      server.Start(dir, {"--store", "sqlite:" + (dir / "chain.db").string(), "--operator-rpc"}))
      << server.Log();
  std::mutex mu;
  std::vector<double> latencies_ms;
  std::atomic<int> failures{0};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto api = ConnectRemote(server.url());
      if (!api.ok()) {
        failures += kPerThread;
        return;
      }
      Wallet w;
      std::vector<double> mine;
      for (int i = 0; i < kPerThread; ++i) {
        const std::uint64_t marker =
            static_cast<std::uint64_t>(t) * 1000000 + static_cast<std::uint64_t>(i);
        const Bytes tx = Sign(w, {Create(100'000, {Attribute::Num("load", marker)})});
        const auto t0 = std::chrono::steady_clock::now();
        auto r = (*api)->Submit(tx);
        mine.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
        if (!r.ok() || !r->status.ok()) ++failures;
      }
      std::lock_guard<std::mutex> lock(mu);
      latencies_ms.insert(latencies_ms.end(), mine.begin(), mine.end());
    });
  }
  for (auto& t : threads) t.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(failures.load(), 0);

  auto api = ConnectRemote(server.url());
  ASSERT_TRUE(api.ok());
  const auto counts = CountByMarker(**api, "load >= 0", "load");
  EXPECT_EQ(counts.size(), static_cast<std::size_t>(kThreads * kPerThread));  // none lost
  for (const auto& [marker, n] : counts) EXPECT_EQ(n, 1) << "marker " << marker << " duplicated";
  EXPECT_EQ((*api)->Count("load >= 0")->count, static_cast<std::uint64_t>(kThreads * kPerThread));
  EXPECT_EQ((*api)->Head()->number, static_cast<std::uint64_t>(kThreads * kPerThread));
  EXPECT_TRUE((*api)->VerifyChain().ok());
  // Group commit: the clients' blocks went to the store in at most as many writes as blocks
  // (fewer when transactions arrived during a write), as the node's metrics count them.
  auto http = net::HttpClient::Create(net::Opts(server.url()));
  ASSERT_TRUE(http.ok());
  const auto scrape = http->Get("/metrics");
  ASSERT_TRUE(scrape.ok() && scrape->status == 200);
  const double writes = net::MetricSample(scrape->body, "veil_ledger_block_writes_total");
  EXPECT_GE(writes, 1);
  EXPECT_LE(writes, kThreads * kPerThread);
  EXPECT_EQ(net::MetricSample(scrape->body, "veil_ledger_head_block"), kThreads * kPerThread);

  std::sort(latencies_ms.begin(), latencies_ms.end());
  auto pct = [&](double p) {
    return latencies_ms.empty()
               ? 0.0
               : latencies_ms[std::min(
                     latencies_ms.size() - 1,
                     static_cast<std::size_t>(p * static_cast<double>(latencies_ms.size())))];
  };
  std::printf(
      "load: %d clients x %d txs in %.2f s: %.0f tx/s, p50 %.2f ms, p99 %.2f ms, %.2f blocks a "
      "write (this build: %s)\n",
      kThreads, kPerThread, seconds, kThreads * kPerThread / seconds, pct(0.50), pct(0.99),
      writes > 0 ? kThreads * kPerThread / writes : 0.0, "sanitizers, debug -O1");
  EXPECT_EQ(server.Signal(SIGTERM), 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace veil::ledger_node::testing
