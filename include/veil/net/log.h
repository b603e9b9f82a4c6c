// A small structured logger: one JSON object per line on stderr,
//   {"time":"2025-01-31T12:00:00.123Z","level":"info","msg":"listening","port":8545}
//
// Fields are typed: a LogField holds a string, a signed or unsigned integer, a double or a
// bool, and nothing else converts to it. Secret types (crypto::SecretBytes, crypto::Secret<N>)
// have no conversion to any of these, so they cannot be logged by accident; passing
// secret.Expose() is the one way to try, and it does not compile either (a byte span is not a
// string). Never log keys, shares, plaintexts, passwords or tokens even as strings: log their
// length or a public identifier instead.
//
// Thread safety: every function may be called from any thread; each line is written with one
// write so lines from different threads never interleave.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>

namespace veil::net::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

class LogField {
 public:
  LogField(std::string_view key, std::string_view value) : key_(key), value_(std::string(value)) {}
  LogField(std::string_view key, const char* value) : LogField(key, std::string_view(value)) {}
  LogField(std::string_view key, const std::string& value)
      : LogField(key, std::string_view(value)) {}
  LogField(std::string_view key, bool value) : key_(key), value_(value) {}
  LogField(std::string_view key, double value) : key_(key), value_(value) {}
  template <std::signed_integral T>
  LogField(std::string_view key, T value) : key_(key), value_(static_cast<std::int64_t>(value)) {}
  template <std::unsigned_integral T>
  requires(!std::same_as<T, bool>) LogField(std::string_view key, T value)
      : key_(key), value_(static_cast<std::uint64_t>(value)) {}

  std::string_view key() const { return key_; }
  const auto& value() const { return value_; }

 private:
  std::string_view key_;
  std::variant<std::string, std::int64_t, std::uint64_t, double, bool> value_;
};

// Lines below this level are dropped (default kInfo; VEIL_LOG_LEVEL=debug|info|warn|error
// in the environment sets the initial value).
void SetMinLevel(Level level);
Level MinLevel();

// Replaces the output (default: stderr); the sink receives each line without its newline.
// For tests; pass nullptr to restore stderr.
void SetSinkForTesting(std::function<void(std::string_view line)> sink);

void Log(Level level, std::string_view message, std::initializer_list<LogField> fields = {});
inline void Debug(std::string_view m, std::initializer_list<LogField> f = {}) {
  Log(Level::kDebug, m, f);
}
inline void Info(std::string_view m, std::initializer_list<LogField> f = {}) {
  Log(Level::kInfo, m, f);
}
inline void Warn(std::string_view m, std::initializer_list<LogField> f = {}) {
  Log(Level::kWarn, m, f);
}
inline void Error(std::string_view m, std::initializer_list<LogField> f = {}) {
  Log(Level::kError, m, f);
}

// The line Log would write, for tests.
std::string FormatLine(Level level, std::string_view message,
                       std::initializer_list<LogField> fields);

}  // namespace veil::net::log
