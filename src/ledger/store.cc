// The backend-independent parts of store.h, and the status helpers of ledger.h.
#include "veil/ledger/store.h"

#include <string_view>
#include <variant>

#include "veil/base/codec.h"
#include "veil/ledger/ledger.h"

namespace veil::ledger {
namespace {
constexpr std::string_view kHeadConflictPrefix = "chain head moved";
constexpr std::string_view kNonceReplayed = "nonce already used (replay)";
// Bounds for decoding a stored attribute copy: structure only, wide enough for any Limits
// profile.
constexpr std::size_t kMaxStoredAttributes = 1024;
constexpr std::size_t kMaxStoredAttributeName = 1024;
constexpr std::size_t kMaxStoredAttributeValue = std::size_t{1} << 20;
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

Bytes EncodeStoredAttributes(const std::vector<Attribute>& attrs) {
  Writer w;
  PutAttributes(w, attrs);
  return std::move(w).Take();
}

Result<std::vector<Attribute>> DecodeStoredAttributes(ByteView encoded, const EntityKey& key) {
  Reader r(encoded);
  auto attrs =
      GetAttributes(r, kMaxStoredAttributes, kMaxStoredAttributeName, kMaxStoredAttributeValue);
  if (const Status st = r.Finish(); !st.ok()) {
    return DataLoss("entity " + ToHex(key) + ": stored attributes: " + st.message());
  }
  return attrs;
}

Status CheckAttributeCopies(const Entity& e, const std::vector<Attribute>& index_copy) {
  if (index_copy == e.attributes) return Status::Ok();
  return DataLoss("entity " + ToHex(e.key) +
                  ": its attributes differ from its attribute index rows");
}

Result<std::uint64_t> Store::Prewarm() { return std::uint64_t{0}; }

Result<std::unique_ptr<Store>> Store::OpenReader() {
  return FailedPrecondition("this store has no reader connections");
}

bool IsHeadConflict(const Status& s) {
  return s.code() == Code::kUnavailable && s.message().rfind(kHeadConflictPrefix, 0) == 0;
}

}  // namespace veil::ledger
