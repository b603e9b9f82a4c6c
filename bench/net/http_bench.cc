// The HTTP server's own cost: our event-driven net::HttpServer against a plain cpp-httplib 0.11
// server (what net::HttpServer was built on before, one worker per connection), both on
// 127.0.0.1 with the same handler, measured with the same client (net::HttpClient, keep-alive) in
// one run, so the ratio is the server's. `scripts/bench net` writes artifacts/bench-net.json.
//
// Rows (wall time per call):
//   BM_HttpServer_Echo/{veil,httplib}              one client, one POST /echo of 64 bytes at a
//                                                  time; p50_us and p99_us per call
//   BM_HttpServer_EchoConcurrent/{veil,httplib}/8  eight clients, 200 calls each; calls/s
//   BM_Calibration_Ristretto255ScalarMult          the host's calibration row (calibration.h)
#include <benchmark/benchmark.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "latencies.h"
#include "veil/net/http_client.h"
#include "veil/net/http_server.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kWorkers = 8;

// One of the two servers, listening on 127.0.0.1 with POST /echo.
class EchoServer {
 public:
  virtual ~EchoServer() = default;
  virtual int port() const = 0;
};

class VeilServer final : public EchoServer {
 public:
  VeilServer() {
    veil::net::HttpServerOptions o;
    o.worker_threads = kWorkers;
    server_ = std::make_unique<veil::net::HttpServer>(std::move(o));
    server_->Handle("POST", "/echo",
                    [](const veil::net::HttpRequest& req, veil::net::HttpResponse& res) {
                      res.body = req.body;
                    });
    VEIL_CHECK(server_->Start().ok());
  }
  ~VeilServer() override { server_->Stop().IgnoreError(); }
  int port() const override { return server_->port(); }

 private:
  std::unique_ptr<veil::net::HttpServer> server_;
};

class HttplibServer final : public EchoServer {
 public:
  HttplibServer() {
    server_.new_task_queue = [] { return new httplib::ThreadPool(kWorkers); };
    server_.set_tcp_nodelay(true);
    server_.Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(req.body, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    VEIL_CHECK(port_ > 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~HttplibServer() override {
    server_.stop();
    thread_.join();
  }
  int port() const override { return port_; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

std::unique_ptr<EchoServer> MakeServer(bool veil) {
  if (veil) return std::make_unique<VeilServer>();
  return std::make_unique<HttplibServer>();
}

veil::net::HttpClient Client(int port) {
  veil::net::HttpClientOptions o;
  o.base_url = "http://127.0.0.1:" + std::to_string(port);
  auto c = veil::net::HttpClient::Create(o);
  VEIL_CHECK(c.ok());
  return std::move(*c);
}

const std::string kBody(64, 'x');

void BM_HttpServer_Echo(benchmark::State& state, bool veil) {
  auto server = MakeServer(veil);
  veil::net::HttpClient client = Client(server->port());
  veil::bench::Latencies latencies(state);
  for (auto _ : state) {
    auto r = latencies.Time([&] {
      return client.Post("/echo", kBody, "application/json", veil::net::Idempotency::kIdempotent);
    });
    if (!r.ok() || r->status != 200 || r->body != kBody) {
      state.SkipWithError("echo failed");
      break;
    }
  }
  latencies.Report();
}

void BM_HttpServer_EchoConcurrent(benchmark::State& state, bool veil) {
  auto server = MakeServer(veil);
  const int clients = static_cast<int>(state.range(0));
  constexpr int kCalls = 200;
  for (auto _ : state) {
    std::atomic<int> failures{0};
    const auto t0 = Clock::now();
    std::vector<std::thread> threads;
    for (int i = 0; i < clients; ++i) {
      threads.emplace_back([&] {
        veil::net::HttpClient client = Client(server->port());
        for (int k = 0; k < kCalls; ++k) {
          auto r =
              client.Post("/echo", kBody, "application/json", veil::net::Idempotency::kIdempotent);
          if (!r.ok() || r->status != 200) failures.fetch_add(1);
        }
      });
    }
    for (auto& t : threads) t.join();
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
    if (failures.load() != 0) {
      state.SkipWithError("echo failed");
      break;
    }
  }
  state.counters["calls_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * clients * kCalls, benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_HttpServer_Echo, veil, true)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_HttpServer_Echo, httplib, false)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_HttpServer_EchoConcurrent, veil, true)
    ->Arg(8)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_HttpServer_EchoConcurrent, httplib, false)
    ->Arg(8)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
