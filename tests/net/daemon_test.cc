// Daemon helpers: the structured logger, the shutdown-signal wait and the shared lifecycle
// (listen address, port file, error line, graceful stop on a signal).
#include "veil/net/daemon.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "raw_connection.h"
#include "support/scratch_dir.h"
#include "veil/crypto/secret.h"
#include "veil/net/http_server.h"
#include "veil/net/log.h"
#include "veil/net/signals.h"

namespace veil::net {
namespace {

// Secret types do not convert to a log field, directly or through Expose().
static_assert(!std::is_constructible_v<log::LogField, std::string_view, crypto::SecretBytes>);
static_assert(
    !std::is_constructible_v<log::LogField, std::string_view, const crypto::SecretBytes&>);
static_assert(!std::is_constructible_v<log::LogField, std::string_view, ByteView>);
static_assert(!std::is_constructible_v<log::LogField, std::string_view, crypto::Secret<32>>);

TEST(Log, JsonLinesWithTypedFields) {
  std::vector<std::string> lines;
  log::SetSinkForTesting([&](std::string_view l) { lines.emplace_back(l); });
  log::Info("listening", {{"port", 8545},
                          {"host", "127.0.0.1"},
                          {"tls", true},
                          {"ratio", 0.5},
                          {"bytes", std::size_t{12}},
                          {"msg", "shadow"}});
  log::Debug("dropped below the level");
  log::SetSinkForTesting(nullptr);
  ASSERT_EQ(lines.size(), 1u);
  auto j = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(j["level"], "info");
  EXPECT_EQ(j["msg"], "listening");
  EXPECT_EQ(j["port"], 8545);
  EXPECT_EQ(j["host"], "127.0.0.1");
  EXPECT_EQ(j["tls"], true);
  EXPECT_EQ(j["bytes"], 12);
  EXPECT_EQ(j["field.msg"], "shadow");  // a field cannot overwrite the message
  std::string t = j["time"];
  EXPECT_EQ(t.size(), 24u);  // 2025-01-31T12:00:00.123Z
  EXPECT_EQ(t.back(), 'Z');
  EXPECT_EQ(lines[0].rfind("{\"time\":", 0), 0u);
}

TEST(Log, InvalidUtf8IsReplacedNotThrown) {
  std::string line = log::FormatLine(log::Level::kWarn, "bad \xff byte", {{"k", "\xc3"}});
  EXPECT_TRUE(nlohmann::json::accept(line));
}

TEST(Signals, WaitReturnsTheSignal) {
  sigset_t old;
  pthread_sigmask(SIG_SETMASK, nullptr, &old);
  ASSERT_TRUE(BlockShutdownSignals().ok());
  EXPECT_FALSE(WaitForShutdownSignal(std::chrono::milliseconds(20)).has_value());
  // Directed at this thread, which has the signal blocked: it stays pending until consumed.
  pthread_kill(pthread_self(), SIGTERM);
  EXPECT_EQ(WaitForShutdownSignal(std::chrono::milliseconds(1000)), SIGTERM);
  pthread_kill(pthread_self(), SIGINT);
  EXPECT_EQ(WaitForShutdownSignal(), SIGINT);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

TEST(Daemon, ParsesListenAddresses) {
  auto v4 = ParseListenAddress("127.0.0.1:8545");
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 8545);
  auto v6 = ParseListenAddress("[::1]:0");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 0);
  EXPECT_EQ(ParseListenAddress("localhost:65535")->port, 65535);
  EXPECT_EQ(ParseListenAddress("nocolon").status().message(), "--listen: expected HOST:PORT");
  for (const char* bad : {"h:", "h:65536", "h:12x", "h:-1", "h: 1", "h:+1", "h:0x10"}) {
    const Status st = ParseListenAddress(bad).status();
    EXPECT_EQ(st.code(), Code::kInvalidArgument) << bad;
    EXPECT_EQ(st.message(), "--listen: bad port") << bad;
  }
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

TEST(Daemon, PortFileIsWrittenWholeAndReplaced) {
  veil::testing::ScratchDir dir("veil-daemon");
  const auto path = dir.path() / "port";
  ASSERT_TRUE(WritePortFile(path, 8545).ok());
  EXPECT_EQ(ReadFile(path), "8545\n");
  ASSERT_TRUE(WritePortFile(path, 7).ok());  // a restart replaces the old file
  EXPECT_EQ(ReadFile(path), "7\n");
  EXPECT_TRUE(WritePortFile("", 7).ok());  // no --port-file: nothing to write
  const Status missing = WritePortFile(dir.path() / "absent" / "port", 7);
  EXPECT_EQ(missing.code(), Code::kUnavailable);
  EXPECT_EQ(missing.message().rfind("cannot write the port file: ", 0), 0u) << missing.message();
  // Only the port file itself is left in the directory (no temporary file).
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(Daemon, PrintErrorWritesOneJsonLineAndReturnsOne) {
  std::ostringstream captured;
  std::streambuf* old = std::cerr.rdbuf(captured.rdbuf());
  const int code = PrintError(NotFound("no \xff such"));
  std::cerr.rdbuf(old);
  EXPECT_EQ(code, 1);
  const std::string line = captured.str();
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  const auto j = nlohmann::json::parse(line);  // valid JSON even with a bad byte in the message
  EXPECT_EQ(j["error"]["code"], "not found");
}

// SIGINT and SIGTERM blocked in this thread (and the threads it starts) for one test.
class BlockedShutdownSignals {
 public:
  BlockedShutdownSignals() {
    pthread_sigmask(SIG_SETMASK, nullptr, &old_);
    EXPECT_TRUE(BlockShutdownSignals().ok());
  }
  ~BlockedShutdownSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  BlockedShutdownSignals(const BlockedShutdownSignals&) = delete;
  BlockedShutdownSignals& operator=(const BlockedShutdownSignals&) = delete;

 private:
  sigset_t old_;
};

struct StopRun {
  int exit_code = -1;
  std::vector<nlohmann::json> log;  // the lines WaitForShutdownAndStop wrote
};

// Runs WaitForShutdownAndStop(stop) on this thread (signals blocked) while `trigger` runs on
// another, given a function that sends a signal to the waiting thread.
template <class Trigger, class Stop>
StopRun RunLifecycle(Trigger trigger, Stop stop) {
  StopRun run;
  log::SetSinkForTesting([&](std::string_view l) { run.log.push_back(nlohmann::json::parse(l)); });
  const pthread_t waiter = pthread_self();
  std::thread t([&] { trigger([waiter](int sig) { pthread_kill(waiter, sig); }); });
  run.exit_code = WaitForShutdownAndStop(stop);
  t.join();
  log::SetSinkForTesting(nullptr);
  return run;
}

// A working loop, signalled from another thread, stops gracefully: it finishes its step, the
// stop runs once, and the exit code is 0.
TEST(Daemon, ASignalStopsALoopGracefully) {
  BlockedShutdownSignals blocked;
  std::atomic<bool> stopping{false};
  std::atomic<int> steps{0};
  int stops = 0;
  std::thread loop([&] {
    while (!stopping.load()) {
      steps.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  const StopRun run = RunLifecycle(
      [&](auto signal) {
        while (steps.load() < 5) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        signal(SIGTERM);
      },
      [&] {
        ++stops;
        stopping.store(true);
        loop.join();
        return Status::Ok();
      });
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(stops, 1);
  EXPECT_FALSE(loop.joinable());
  EXPECT_GE(steps.load(), 5);
  ASSERT_EQ(run.log.size(), 2u);
  EXPECT_EQ(run.log[0]["msg"], "stopping");
  EXPECT_EQ(run.log[0]["signal"], SIGTERM);
  EXPECT_EQ(run.log[1]["msg"], "stopped");
}

TEST(Daemon, AFailedStopExitsOne) {
  BlockedShutdownSignals blocked;
  const StopRun run = RunLifecycle([](auto signal) { signal(SIGINT); },
                                   [] { return Unavailable("store would not close"); });
  EXPECT_EQ(run.exit_code, 1);
  ASSERT_EQ(run.log.size(), 2u);
  EXPECT_EQ(run.log[0]["signal"], SIGINT);
  EXPECT_EQ(run.log[1]["msg"], "stopped with an error");
  EXPECT_NE(run.log[1]["error"].get<std::string>().find("store would not close"),
            std::string::npos);
}

// The daemon's shape: an HTTP server started after the signals are blocked, a signal while a
// request is in flight; the request is answered, then the server accepts no more.
TEST(Daemon, ASignalStopsAnHttpServerAfterItsRequestInFlight) {
  BlockedShutdownSignals blocked;
  HttpServerOptions o;
  o.host = "127.0.0.1";
  o.port = 0;
  o.worker_threads = 1;
  HttpServer server(std::move(o));
  std::atomic<bool> entered{false};
  server.Handle("GET", "/slow", [&](const HttpRequest&, HttpResponse& r) {
    entered.store(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    r.body = "done";
  });
  ASSERT_TRUE(server.Start().ok());
  const std::uint16_t port = server.port();
  std::string reply;
  const StopRun run = RunLifecycle(
      [&](auto signal) {
        // The signal is sent whatever happens, so the waiting thread always returns.
        RawConnection c(port);
        const bool sent =
            c.connected() && c.Send("GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        while (sent && !entered.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        signal(SIGTERM);
        if (sent) reply = c.ReadToEnd();
      },
      [&] { return server.Stop(); });
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply;
  EXPECT_NE(reply.find("done"), std::string::npos);
  EXPECT_FALSE(RawConnection(port).connected());
}

}  // namespace
}  // namespace veil::net
