// The backend-independent parts of store.h.
#include "veil/ledger/store.h"

#include <string_view>

namespace veil::ledger {
namespace {
constexpr std::string_view kHeadConflictPrefix = "chain head moved";
}  // namespace

Status HeadConflict(const std::string& detail) {
  return Unavailable(std::string(kHeadConflictPrefix) + ": " + detail);
}

bool IsHeadConflict(const Status& s) {
  return s.code() == Code::kUnavailable && s.message().rfind(kHeadConflictPrefix, 0) == 0;
}

}  // namespace veil::ledger
