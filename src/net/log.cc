// Structured JSON-lines logger (see log.h).
#include "veil/net/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <nlohmann/json.hpp>

namespace veil::net::log {
namespace {

Level InitialLevel() {
  const char* env = std::getenv("VEIL_LOG_LEVEL");
  std::string_view v = env ? env : "";
  if (v == "debug") return Level::kDebug;
  if (v == "warn") return Level::kWarn;
  if (v == "error") return Level::kError;
  return Level::kInfo;
}

std::atomic<Level>& MinLevelRef() {
  static std::atomic<Level> level{InitialLevel()};
  return level;
}

std::mutex& SinkMutex() {
  static std::mutex mu;
  return mu;
}

std::function<void(std::string_view)>& Sink() {
  static std::function<void(std::string_view)> sink;
  return sink;
}

const char* LevelName(Level level) {
  switch (level) {
    case Level::kDebug:
      return "debug";
    case Level::kInfo:
      return "info";
    case Level::kWarn:
      return "warn";
    case Level::kError:
      return "error";
  }
  return "info";
}

std::string Now() {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];  // room for any int fields, so -Wformat-truncation has nothing to prove
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

}  // namespace

void SetMinLevel(Level level) { MinLevelRef().store(level); }
Level MinLevel() { return MinLevelRef().load(); }

void SetSinkForTesting(std::function<void(std::string_view line)> sink) {
  std::lock_guard lock(SinkMutex());
  Sink() = std::move(sink);
}

std::string FormatLine(Level level, std::string_view message,
                       std::initializer_list<LogField> fields) {
  // ordered_json keeps time, level and msg first, then the fields in the order given.
  nlohmann::ordered_json line;
  line["time"] = Now();
  line["level"] = LevelName(level);
  line["msg"] = message;
  for (const LogField& f : fields) {
    std::string key(f.key());
    if (key == "time" || key == "level" || key == "msg") key = "field." + key;
    std::visit([&](const auto& v) { line[key] = v; }, f.value());
  }
  return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void Log(Level level, std::string_view message, std::initializer_list<LogField> fields) {
  if (level < MinLevel()) return;
  std::string text = FormatLine(level, message, fields);
  std::lock_guard lock(SinkMutex());
  if (Sink()) {
    Sink()(text);
    return;
  }
  text += '\n';
  // One write per line; a short write (a pipe near full) continues where it stopped.
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace veil::net::log
