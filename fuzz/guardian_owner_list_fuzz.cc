// The owner allow list an operator gives kalypso-guardian (--allow-owners FILE, --allow-owner):
// ParseOwnerKeyList and ParseOwnerKeyText on arbitrary text. Checks: no crash or sanitizer report,
// and every key parsed prints (OwnerKeyText) to a line that parses back to the same key, and a
// list of those lines parses to the same keys.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "veil/base/status.h"
#include "veil/guardian/owner.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace veil::guardian;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  auto one = ParseOwnerKeyText(text);
  if (one.ok()) {
    VEIL_CHECK_MSG(OwnerKeyText(*one) == text, "the text form of an owner key is not canonical");
  }

  auto list = ParseOwnerKeyList(text);
  if (list.ok()) {
    std::string again;
    for (const OwnerKey& k : *list) {
      auto back = ParseOwnerKeyText(OwnerKeyText(k));
      VEIL_CHECK_MSG(back.ok() && *back == k, "an owner key does not round-trip");
      again += OwnerKeyText(k) + "\n";
    }
    auto reparsed = ParseOwnerKeyList(again);
    VEIL_CHECK_MSG(reparsed.ok() && *reparsed == *list, "an owner list does not round-trip");
  }
  return 0;
}
