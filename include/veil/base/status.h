// Status: the one error convention of the code base.
//
// Every fallible public function returns a Status or a Result<T> (result.h). A Status carries a
// small code and a message for people; callers branch on the code, never on the text. Malformed
// data gets kInvalidArgument; a failed proof, MAC or signature gets kVerificationFailed with one
// fixed message so that no oracle leaks through the text. Broken invariants (programming errors)
// are not Statuses: they abort through VEIL_CHECK.
//
// Thread safety: values; safe to copy and move between threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace veil {

enum class Code : std::uint8_t {
  kOk = 0,
  kInvalidArgument,     // malformed input, wrong length, non-canonical encoding
  kNotFound,            // the named thing does not exist
  kFailedPrecondition,  // the system is not in a state where the call can run
  kUnauthenticated,     // the caller did not prove who it is
  kPermissionDenied,    // the caller is known but may not do this
  kResourceExhausted,   // a limit or quota was hit
  kDataLoss,            // stored data is corrupt or unrecoverable
  kUnavailable,         // transient: try again later
  kVerificationFailed,  // a proof, tag or signature did not verify
  kInternal,            // a dependency failed in a way we did not expect
};

std::string_view CodeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // "invalid argument: key must be 32 bytes"
  std::string ToString() const;

  // Marks a status as deliberately dropped.
  void IgnoreError() const {}

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
inline Status FailedPrecondition(std::string m) {
  return {Code::kFailedPrecondition, std::move(m)};
}
inline Status Unauthenticated(std::string m) { return {Code::kUnauthenticated, std::move(m)}; }
inline Status PermissionDenied(std::string m) { return {Code::kPermissionDenied, std::move(m)}; }
inline Status ResourceExhausted(std::string m) { return {Code::kResourceExhausted, std::move(m)}; }
inline Status DataLoss(std::string m) { return {Code::kDataLoss, std::move(m)}; }
inline Status Unavailable(std::string m) { return {Code::kUnavailable, std::move(m)}; }
inline Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }
// Deliberately message-free: the reason a verification failed is not told to anyone.
inline Status VerificationFailed() { return {Code::kVerificationFailed, "verification failed"}; }

// Aborts with a message; for broken invariants only, never for bad input.
[[noreturn]] void CheckFailed(const char* file, int line, const char* expr, const char* msg);

}  // namespace veil

#define VEIL_CHECK(cond)                                             \
  do {                                                               \
    if (!(cond)) ::veil::CheckFailed(__FILE__, __LINE__, #cond, ""); \
  } while (0)

#define VEIL_CHECK_MSG(cond, msg)                                       \
  do {                                                                  \
    if (!(cond)) ::veil::CheckFailed(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)

// Returns early from a function returning Status or Result<T> when `expr` is not ok.
#define VEIL_RETURN_IF_ERROR(expr)                        \
  do {                                                    \
    ::veil::Status veil_status_ = ::veil::ToStatus(expr); \
    if (!veil_status_.ok()) return veil_status_;          \
  } while (0)

namespace veil {
inline const Status& ToStatus(const Status& s) { return s; }
}  // namespace veil
