// The backend-independent parts of store.h, and the status helpers of ledger.h.
#include "veil/ledger/store.h"

#include <string_view>
#include <variant>

#include "veil/ledger/ledger.h"

namespace veil::ledger {
namespace {
constexpr std::string_view kHeadConflictPrefix = "chain head moved";
constexpr std::string_view kNonceReplayed = "nonce already used (replay)";
}  // namespace

Status NonceReplayed() { return FailedPrecondition(std::string(kNonceReplayed)); }

bool IsNonceReplayed(const Status& s) {
  return s.code() == Code::kFailedPrecondition && s.message() == kNonceReplayed;
}

Status HeadConflict(const std::string& detail) {
  return Unavailable(std::string(kHeadConflictPrefix) + ": " + detail);
}

std::uint64_t ReturnedBytes(const Entity& e) {
  std::uint64_t n = e.payload.size() + e.content_type.size() + 100;
  for (const auto& a : e.attributes) {
    n += a.name.size() + (a.value.index() == 0 ? 8 : std::get<std::string>(a.value).size());
  }
  return n;
}

Result<std::uint64_t> Store::Prewarm() { return std::uint64_t{0}; }

Result<std::unique_ptr<Store>> Store::OpenReader() {
  return FailedPrecondition("this store has no reader connections");
}

bool IsHeadConflict(const Status& s) {
  return s.code() == Code::kUnavailable && s.message().rfind(kHeadConflictPrefix, 0) == 0;
}

}  // namespace veil::ledger
