// The hostile-client suite: the attacks of the core review, each run against the real daemons on
// loopback, `veil-ledger serve` (SQLite) and `kalypso-guardian`, with the attacker on 127.0.0.2
// and a watcher on 127.0.0.1 (both loopback: 127.0.0.0/8). For every attack:
//   - /health answers within kHealthDeadline all through it (a watcher thread polls it);
//   - the daemon's peak resident memory (VmHWM) stays under kMemoryBoundMiB;
//   - the attack gets its documented error (docs/notes/net.md, guardian.md, veil-ledger.md).
// Bounded: every attack sends a fixed amount and every wait has a deadline.
//
// The daemons run under the dev build's AddressSanitizer; its quarantine of freed memory is capped
// for them (ASAN_OPTIONS below) so that the resident-memory bound measures the daemon, not the
// sanitizer's bookkeeping.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "apps/apps_test_util.h"
#include "apps/guardian_process.h"
#include "guardian/guardian_test_util.h"
#include "net/raw_connection.h"
#include "support/scratch_dir.h"
#include "veil/base/encoding.h"
#include "veil/guardian/client.h"
#include "veil/guardian/protocol.h"
#include "veil/ledger/json.h"
#include "veil/net/error_map.h"

namespace veil::hostile {
namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;
using std::chrono::milliseconds;

constexpr auto kHealthDeadline = milliseconds(1500);
constexpr long kMemoryBoundMiB = 256;  // peak resident set of a daemon under ASan, whole test
const char* const kAttacker = "127.0.0.2";

// Sets the daemons' sanitizer options before any is started.
class Environment : public ::testing::Environment {
 public:
  void SetUp() override { ::setenv("ASAN_OPTIONS", "quarantine_size_mb=16:detect_leaks=0", 1); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Environment);

// Polls GET /health from 127.0.0.1 every 100 ms on a fresh connection until stopped; remembers
// the slowest answer and any failure.
class HealthWatcher {
 public:
  explicit HealthWatcher(int port) : port_(port), thread_([this] { Run(); }) {}
  ~HealthWatcher() { Stop(); }
  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  milliseconds slowest() const { return milliseconds(slowest_ms_.load()); }
  int failures() const { return failures_.load(); }
  int polls() const { return polls_.load(); }

 private:
  void Run() {
    do {
      const auto t0 = Clock::now();
      net::RawConnection c(static_cast<std::uint16_t>(port_));
      const bool sent =
          c.connected() && c.Send("GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
      const std::string reply = sent ? c.ReadToEnd() : std::string();
      const auto ms = std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
      if (reply.rfind("HTTP/1.1 200", 0) != 0) failures_.fetch_add(1);
      slowest_ms_.store(std::max<long>(slowest_ms_.load(), static_cast<long>(ms)));
      polls_.fetch_add(1);
      std::this_thread::sleep_for(milliseconds(100));
    } while (!stop_.load());
  }
  int port_;
  std::atomic<bool> stop_{false};
  std::atomic<long> slowest_ms_{0};
  std::atomic<int> failures_{0};
  std::atomic<int> polls_{0};
  std::thread thread_;
};

// What every attack ends with: health held, memory held.
void ExpectHeld(HealthWatcher& watcher, const veil::testing::DaemonProcess& daemon,
                const std::string& what) {
  watcher.Stop();
  EXPECT_GT(watcher.polls(), 0) << what;
  EXPECT_EQ(watcher.failures(), 0) << what << ": /health failed while under attack";
  EXPECT_LT(watcher.slowest(), kHealthDeadline) << what << ": /health was slow";
  const long peak_kib = daemon.StatusKiB("VmHWM");
  EXPECT_GT(peak_kib, 0);
  EXPECT_LT(peak_kib, kMemoryBoundMiB * 1024) << what << ": peak resident memory";
  std::printf("[ hostile  ] %s: peak resident %ld MiB, slowest /health %ld ms, %d polls\n",
              what.c_str(), peak_kib / 1024, static_cast<long>(watcher.slowest().count()),
              watcher.polls());
}

// with_signature: a well-formed (and wrong) guardian signature header, so that the guardian reads
// the body.
std::string Post(const std::string& path, const std::string& body, bool with_signature = false) {
  std::string head = "POST " + path + " HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n";
  if (with_signature) {
    head += std::string(guardian::kSignatureHeader) + ": " + Base64Encode(Bytes(64, 0)) + "\r\n";
  }
  return head + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string StatusLine(const std::string& reply) { return reply.substr(0, reply.find("\r\n")); }

std::string BodyOf(const std::string& reply) {
  const auto at = reply.find("\r\n\r\n");
  return at == std::string::npos ? std::string() : reply.substr(at + 4);
}

// A JSON array of empty objects filling `bytes`: the shape that made the old parser quadratic.
std::string EmptyObjectArray(std::size_t bytes) {
  std::string s = "[";
  s.reserve(bytes);
  while (s.size() + 4 < bytes) s += "{},";
  s += "{}]";
  return s;
}

// Both daemons behind one interface: the port, the process and the path that takes JSON.
struct Target {
  std::string name;
  int port = 0;
  const veil::testing::DaemonProcess* process = nullptr;
  std::string json_path;     // where a JSON body is parsed
  std::size_t max_body = 0;  // the daemon's default body limit
};

class HostileTest : public ::testing::TestWithParam<std::string> {
 protected:
  // Starts the daemon the test is parameterized with, on its defaults plus `extra` flags.
  Target Start(std::vector<std::string> extra = {}) {
    Target t;
    t.name = GetParam();
    if (t.name == "ledger") {
      std::vector<std::string> args = {"--store", "sqlite:" + (dir_ / "chain.db").string()};
      args.insert(args.end(), extra.begin(), extra.end());
      EXPECT_TRUE(ledger_.Start(dir_, args)) << ledger_.Log();
      t.port = ledger_.port();
      t.process = &ledger_.process();
      t.json_path = "/rpc";
      t.max_body = 9u << 20;
    } else {
      guardian_ = std::make_unique<guardian::testing::GuardianProcess>(dir_);
      EXPECT_TRUE(guardian_->Start(extra)) << guardian_->Log();
      t.port = guardian_->port();
      t.process = &guardian_->process();
      t.json_path = "/v1/put";
      t.max_body = 4u << 20;
    }
    return t;
  }

  veil::testing::ScratchDir tmp_{"veil-hostile"};
  const std::filesystem::path dir_ = tmp_.path();
  ledger_node::testing::ServerProcess ledger_;
  std::unique_ptr<guardian::testing::GuardianProcess> guardian_;
};

// Large JSON arrays: bodies at the body limit, `[{},{},...]`, four at once from four addresses
// (one address may have one such body in flight: the server's per-client body budget). The parse
// stops at the first value past 65,536 (linear, bounded memory) and says so; the old parser held
// a worker for minutes on one of them. The guardian parses before it checks the signature, so
// the attacker needs only a well-formed signature header.
TEST_P(HostileTest, LargeJsonArraysAreRefusedAtTheValueLimit) {
  const Target t = Start();
  HealthWatcher watcher(t.port);
  const std::string body = EmptyObjectArray(t.max_body - 1024);
  std::vector<std::thread> attackers;
  std::vector<std::string> replies(4);
  const auto t0 = Clock::now();
  for (std::size_t i = 0; i < replies.size(); ++i) {
    attackers.emplace_back([&, i] {
      const std::string source = "127.0.0." + std::to_string(2 + i);
      net::RawConnection c(static_cast<std::uint16_t>(t.port), source.c_str());
      c.SetReceiveTimeout(30);
      if (c.Send(Post(t.json_path, body, t.name == "guardian"))) replies[i] = c.ReadResponse();
    });
  }
  for (auto& a : attackers) a.join();
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(20));
  for (const std::string& reply : replies) {
    if (t.name == "ledger") {
      // JSON-RPC: errors travel in 200 responses.
      ASSERT_EQ(StatusLine(reply), "HTTP/1.1 200 OK") << reply.substr(0, 300);
      const Json j = Json::parse(BodyOf(reply), nullptr, false);
      EXPECT_EQ(j["error"]["code"], -32700) << j.dump();
      EXPECT_NE(j["error"]["message"].get<std::string>().find("more than 65536 values"),
                std::string::npos);
    } else {
      ASSERT_EQ(StatusLine(reply), "HTTP/1.1 400 Bad Request") << reply.substr(0, 300);
      EXPECT_NE(BodyOf(reply).find("more than 65536 values"), std::string::npos) << BodyOf(reply);
    }
  }
  ExpectHeld(watcher, *t.process, "large JSON arrays");
}

// Header floods: 200 fields, then 16 MiB of one header line. The head limit (64 fields, 16 KiB)
// refuses both with 431, and the server stops reading the endless line.
TEST_P(HostileTest, HeaderFloodsGet431AndTheServerStopsReading) {
  const Target t = Start();
  HealthWatcher watcher(t.port);
  {
    net::RawConnection c(static_cast<std::uint16_t>(t.port), kAttacker);
    std::string head = "GET /health HTTP/1.1\r\nHost: t\r\n";
    for (int i = 0; i < 200; ++i) head += "X-Flood-" + std::to_string(i) + ": v\r\n";
    ASSERT_TRUE(c.Send(head + "\r\n"));
    EXPECT_EQ(StatusLine(c.ReadToEnd()), "HTTP/1.1 431 Request Header Fields Too Large");
  }
  {
    net::RawConnection c(static_cast<std::uint16_t>(t.port), kAttacker);
    ASSERT_TRUE(c.Send("GET /health HTTP/1.1\r\nHost: t\r\nX-Flood: "));
    const std::string chunk(64 * 1024, 'a');
    int sent = 0;
    while (sent < 256 && c.Send(chunk)) ++sent;
    EXPECT_LT(sent, 256) << "the server read 16 MiB of one header line";
  }
  ExpectHeld(watcher, *t.process, "header floods");
}

// Slowloris: 48 connections (under the per-client cap of 64) send their heads a byte every
// 200 ms, never silent long enough for the read timeout. They hold no worker; each gets 408 at
// the head deadline (10 s by default) and is closed.
TEST_P(HostileTest, SlowClientsGet408AtTheHeadDeadline) {
  const Target t = Start();
  HealthWatcher watcher(t.port);
  std::vector<std::unique_ptr<net::RawConnection>> slow;
  for (int i = 0; i < 48; ++i) {
    slow.push_back(
        std::make_unique<net::RawConnection>(static_cast<std::uint16_t>(t.port), kAttacker));
    ASSERT_TRUE(slow.back()->connected());
    slow.back()->SetReceiveTimeout(20);
  }
  const std::string head = "GET /health HTTP/1.1\r\nHost: t\r\nX-Slow: " + std::string(200, 's');
  std::atomic<bool> done{false};
  std::thread drip([&] {
    for (std::size_t i = 0; i < head.size() && !done.load(); ++i) {
      for (auto& c : slow) c->Send(std::string(1, head[i]));
      std::this_thread::sleep_for(milliseconds(200));
    }
  });
  const auto t0 = Clock::now();
  int timed_out = 0;
  for (auto& c : slow) {
    if (StatusLine(c->ReadToEnd()) == "HTTP/1.1 408 Request Timeout") ++timed_out;
  }
  const auto took = Clock::now() - t0;
  done.store(true);
  drip.join();
  EXPECT_EQ(timed_out, 48);
  EXPECT_GT(took, std::chrono::seconds(8));  // the deadline, not an early cut
  EXPECT_LT(took, std::chrono::seconds(15));
  ExpectHeld(watcher, *t.process, "slow clients");
}

// Smuggling: a GET whose body is another request, and a POST framed two ways. One refusal each,
// the connection closed after it, the inner request never served.
TEST_P(HostileTest, SmuggledRequestsGetOneRefusalAndNothingMore) {
  const Target t = Start();
  HealthWatcher watcher(t.port);
  const std::string inner = "GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n";
  const std::vector<std::string> attacks = {
      "GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: " + std::to_string(inner.size()) +
          "\r\n\r\n" + inner,
      "POST " + t.json_path +
          " HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n"
          "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" +
          inner,
      "POST " + t.json_path +
          " HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}" + inner,
      "GET /health HTTP/1.1\nHost: t\n\n" + inner,
  };
  for (const std::string& attack : attacks) {
    net::RawConnection c(static_cast<std::uint16_t>(t.port), kAttacker);
    ASSERT_TRUE(c.Send(attack));
    const std::string reply = c.ReadToEnd();
    EXPECT_EQ(StatusLine(reply), "HTTP/1.1 400 Bad Request") << reply.substr(0, 200);
    EXPECT_EQ(reply.find("veil_http"), std::string::npos) << "the inner request was served";
    std::size_t responses = 0;
    for (auto at = reply.find("HTTP/1.1 "); at != std::string::npos;
         at = reply.find("HTTP/1.1 ", at + 1)) {
      ++responses;
    }
    EXPECT_EQ(responses, 1u);
  }
  ExpectHeld(watcher, *t.process, "smuggled requests");
}

// A connection flood from one address: past 64 connections, 503 and close; other addresses are
// served meanwhile.
TEST_P(HostileTest, AConnectionFloodFromOneAddressIsCapped) {
  const Target t = Start();
  HealthWatcher watcher(t.port);
  std::vector<std::unique_ptr<net::RawConnection>> held;
  for (int i = 0; i < 64; ++i) {
    held.push_back(
        std::make_unique<net::RawConnection>(static_cast<std::uint16_t>(t.port), kAttacker));
    ASSERT_TRUE(held.back()->connected());
  }
  std::this_thread::sleep_for(milliseconds(200));
  int refused = 0;
  for (int i = 0; i < 36; ++i) {
    net::RawConnection c(static_cast<std::uint16_t>(t.port), kAttacker);
    const std::string reply = c.ReadToEnd();
    if (StatusLine(reply) == "HTTP/1.1 503 Service Unavailable" &&
        reply.find("too many connections from this client address") != std::string::npos) {
      ++refused;
    }
  }
  EXPECT_EQ(refused, 36);
  ExpectHeld(watcher, *t.process, "connection flood");
}

INSTANTIATE_TEST_SUITE_P(Daemons, HostileTest, ::testing::Values("ledger", "guardian"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// ---- The guardian ----

// Fresh owner keys from one address: every request is validly signed by a key the guardian has
// never seen, so the per-owner bucket never fills; the per-address bucket refuses the rest with
// 429 "retry later" and stores nothing for them. An owner on another address is served. The
// address rate is lowered (20/s, burst 50; the default is 100/s, burst 200) so that 300 requests
// cross it whatever the machine's speed.
TEST(HostileGuardian, FreshOwnerKeysFromOneAddressMeetTheAddressLimit) {
  veil::testing::ScratchDir tmp("veil-hostile");
  guardian::testing::GuardianProcess gp(tmp.path());
  ASSERT_TRUE(gp.Start({"--address-rate", "20", "--address-burst", "50"})) << gp.Log();
  HealthWatcher watcher(gp.port());
  guardian::GuardianClient client = gp.Connect();
  const guardian::PublicIdentity& identity = client.identity();
  net::RawConnection c(static_cast<std::uint16_t>(gp.port()), kAttacker);
  int ok = 0, limited = 0, other = 0;
  for (int i = 0; i < 300; ++i) {
    const guardian::OwnerSigner fresh = guardian::OwnerSigner::GenerateEd25519();
    const auto share = crypto::RandomSecret(33);
    guardian::Request req;
    req.route = guardian::Route::kPut;
    req.puts.push_back(guardian::testing::MakePut(identity, fresh.public_key(),
                                                  guardian::testing::RandomId(), share.Expose(),
                                                  guardian::SystemUnixSeconds() + 600));
    const net::HttpRequest http =
        guardian::testing::SignedHttp(fresh, identity, req, guardian::SystemUnixSeconds());
    std::string raw =
        "POST " + http.path + " HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n";
    for (const auto& [k, v] : http.headers) raw += k + ": " + v + "\r\n";
    raw += "Content-Length: " + std::to_string(http.body.size()) + "\r\n\r\n" + http.body;
    ASSERT_TRUE(c.Send(raw)) << i;
    const std::string reply = c.ReadResponse();
    const std::string status = StatusLine(reply);
    if (status == "HTTP/1.1 200 OK") {
      ++ok;
    } else if (status == "HTTP/1.1 429 Too Many Requests" &&
               BodyOf(reply).find("retry later") != std::string::npos) {
      ++limited;
    } else {
      ++other;
      ADD_FAILURE() << reply.substr(0, 300);
    }
  }
  EXPECT_GE(ok, 50);  // the burst, and what refilled meanwhile
  EXPECT_GT(limited, 100);
  EXPECT_EQ(other, 0);
  // Another address is served at once.
  const guardian::OwnerSigner owner = guardian::OwnerSigner::GenerateEd25519();
  const auto share = crypto::RandomSecret(33);
  const guardian::ShareToPut p{guardian::testing::RandomId(), guardian::ShareKind::kRecord,
                               guardian::SystemUnixSeconds() + 600, &share};
  auto put = client.Put(owner, std::span<const guardian::ShareToPut>(&p, 1));
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  EXPECT_TRUE((*put)[0].status.ok());
  ExpectHeld(watcher, gp.process(), "fresh-key flood");
}

// ---- The ledger ----

// One JSON-RPC body from `source`, on a fresh connection; the reply's JSON (null when none).
Json RpcFrom(const char* source, int port, const Json& body) {
  net::RawConnection c(static_cast<std::uint16_t>(port), source);
  c.SetReceiveTimeout(30);
  if (!c.Send(Post("/rpc", body.dump()))) return nullptr;
  return Json::parse(BodyOf(c.ReadResponse()), nullptr, false);
}

Json Call(int id, const std::string& method, const Json& params) {
  Json r = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) r["params"] = params;
  return r;
}

Json SendTx(const char* source, int port, const Bytes& tx) {
  return RpcFrom(source, port, Call(1, "arkiv_sendTransaction", {"0x" + ledger::ToHex(tx)}));
}

// Expensive reads: a batch of 100 filters that no index drives (each walks 4,000 entities) from
// one address. The calls spend that client's read time (lowered here to 50 ms a second and a
// 100 ms burst, so that one batch crosses it whatever the machine's speed) and the rest of the
// batch is refused at once with -32005 "...read budget...": it holds no worker. Another address
// is served meanwhile, and so is /health.
TEST(HostileLedger, ExpensiveReadsFromOneAddressMeetTheReadBudget) {
  veil::testing::ScratchDir tmp("veil-hostile");
  ledger_node::testing::ServerProcess server;
  ASSERT_TRUE(server.Start(tmp.path(), {"--store", "sqlite:" + (tmp.path() / "chain.db").string(),
                                        "--client-read-ms", "50", "--client-read-burst-ms", "100"}))
      << server.Log();
  ledger_node::testing::Wallet w;
  for (int t = 0; t < 20; ++t) {
    std::vector<ledger::Operation> ops;
    for (int i = 0; i < 200; ++i) {
      ops.push_back(ledger_node::testing::Create(
          100'000, {ledger::Attribute::Num("n", static_cast<std::uint64_t>(t * 200 + i)),
                    ledger::Attribute::Str("s", "v" + std::to_string(i))}));
    }
    const Json r = SendTx("127.0.0.1", server.port(), ledger_node::testing::Sign(w, ops));
    ASSERT_TRUE(r.contains("result")) << r.dump();
  }
  HealthWatcher watcher(server.port());
  std::string heavy = "NOT (n >= 0)";
  for (int i = 0; i < 40; ++i) heavy += " && NOT (s ~ \"x" + std::to_string(i) + "*\")";
  Json batch = Json::array();
  for (int i = 0; i < 100; ++i) {
    batch.push_back(i % 2 ? Call(i, "arkiv_query", {heavy})
                          : Call(i, "arkiv_getEntityCount", {{{"query", heavy}}}));
  }
  const auto t0 = Clock::now();
  const Json reply = RpcFrom(kAttacker, server.port(), batch);
  const auto took = Clock::now() - t0;
  ASSERT_TRUE(reply.is_array()) << reply.dump().substr(0, 300);
  int served = 0, refused = 0;
  for (const Json& r : reply) {
    if (r.contains("result")) {
      ++served;
    } else {
      EXPECT_EQ(r["error"]["code"], net::kJsonRpcResourceExhausted) << r.dump();
      EXPECT_NE(r["error"]["message"].get<std::string>().find("read budget"), std::string::npos);
      ++refused;
    }
  }
  EXPECT_GE(served, 1);
  EXPECT_GE(refused, 50) << served << " served";
  EXPECT_LT(took, std::chrono::seconds(10));
  const Json other = RpcFrom("127.0.0.3", server.port(), Call(1, "arkiv_blockNumber", nullptr));
  EXPECT_EQ(other["result"], 20) << other.dump();
  ExpectHeld(watcher, server.process(), "expensive reads");
}

// A queue flood in timed mode: transactions of about 850 KB, each from a fresh key (so no
// per-sender bound applies), from one address. The node's per-client bound (lowered here to
// 16 MiB; 64 MiB by default) refuses the rest with -32005; another address still queues.
TEST(HostileLedger, AQueueFloodFromFreshKeysMeetsTheClientQueueBound) {
  veil::testing::ScratchDir tmp("veil-hostile");
  ledger_node::testing::ServerProcess server;
  ASSERT_TRUE(server.Start(
      tmp.path(), {"--store", "sqlite:" + (tmp.path() / "chain.db").string(), "--block-time", "60s",
                   "--client-queue-bytes", std::to_string(16u << 20)}))
      << server.Log();
  HealthWatcher watcher(server.port());
  const auto big_tx = [] {
    ledger_node::testing::Wallet fresh;
    std::vector<ledger::Operation> ops;
    for (int i = 0; i < 7; ++i) {
      ops.push_back(
          ledger_node::testing::Create(1000, {}, Bytes(120 * 1024, static_cast<std::uint8_t>(i))));
    }
    return ledger_node::testing::Sign(fresh, ops);
  };
  int queued = 0, refused = 0;
  for (int i = 0; i < 30; ++i) {
    const Json r = SendTx(kAttacker, server.port(), big_tx());
    if (r.contains("result") && r["result"].value("pending", false)) {
      ++queued;
    } else {
      EXPECT_EQ(r["error"]["code"], net::kJsonRpcResourceExhausted) << r.dump().substr(0, 300);
      ++refused;
    }
  }
  EXPECT_GE(queued, 15);
  EXPECT_LE(queued, 20);
  EXPECT_EQ(queued + refused, 30);
  const Json other = SendTx("127.0.0.3", server.port(), big_tx());
  EXPECT_TRUE(other["result"].value("pending", false)) << other.dump().substr(0, 300);
  ExpectHeld(watcher, server.process(), "queue flood");
}

}  // namespace
}  // namespace veil::hostile
