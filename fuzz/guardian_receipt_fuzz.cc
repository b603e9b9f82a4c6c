// Destroy receipts: the canonical binary decoder and the JSON form. Checks: no crash or sanitizer
// report; a decoded receipt re-encodes to exactly the input (one encoding per receipt), and its
// JSON form decodes back to the same receipt.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "veil/base/status.h"
#include "veil/guardian/receipt.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace veil::guardian;
  const veil::ByteView in(data, size);
  auto r = DecodeDestroyReceipt(in);
  if (r.ok()) {
    const veil::Bytes enc = EncodeDestroyReceipt(*r);
    VEIL_CHECK_MSG(enc.size() == size && std::equal(enc.begin(), enc.end(), data),
                   "receipt encoding is not canonical");
    auto j = DestroyReceiptFromJson(DestroyReceiptToJson(*r));
    VEIL_CHECK_MSG(j.ok() && *j == *r, "receipt JSON does not round-trip");
  }
  const auto parsed =
      nlohmann::json::parse(std::string_view(reinterpret_cast<const char*>(data), size), nullptr,
                            /*allow_exceptions=*/false);
  if (!parsed.is_discarded()) {
    auto j = DestroyReceiptFromJson(parsed);
    if (j.ok()) {
      auto again = DestroyReceiptFromJson(DestroyReceiptToJson(*j));
      VEIL_CHECK(again.ok() && *again == *j);
    }
  }
  return 0;
}
