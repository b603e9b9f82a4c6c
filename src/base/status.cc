// Status text and the abort path for broken invariants.
#include "veil/base/status.h"

#include <cstdio>
#include <cstdlib>

namespace veil {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "ok";
    case Code::kInvalidArgument:
      return "invalid argument";
    case Code::kNotFound:
      return "not found";
    case Code::kFailedPrecondition:
      return "failed precondition";
    case Code::kUnauthenticated:
      return "unauthenticated";
    case Code::kPermissionDenied:
      return "permission denied";
    case Code::kResourceExhausted:
      return "resource exhausted";
    case Code::kDataLoss:
      return "data loss";
    case Code::kUnavailable:
      return "unavailable";
    case Code::kVerificationFailed:
      return "verification failed";
    case Code::kInternal:
      return "internal";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  std::string s(CodeName(code_));
  if (!message_.empty() && message_ != s) {
    s += ": ";
    s += message_;
  }
  return s;
}

void CheckFailed(const char* file, int line, const char* expr, const char* msg) {
  std::fprintf(stderr, "veil: check failed at %s:%d: %s %s\n", file, line, expr, msg);
  std::fflush(stderr);
  std::abort();
}

}  // namespace veil
