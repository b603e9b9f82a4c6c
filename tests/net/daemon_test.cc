// Daemon helpers: the structured logger and the shutdown-signal wait.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "veil/crypto/secret.h"
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

}  // namespace
}  // namespace veil::net
