// Fuzzes the strict base64 decoder in all variants: no crash, and decoding is canonical (whatever
// decodes re-encodes to exactly the input).
#include <cstdlib>

#include "veil/base/encoding.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto variant = static_cast<veil::Base64Variant>(data[0] % 3);
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  auto r = veil::Base64Decode(text, variant);
  if (r.ok() && veil::Base64Encode(*r, variant) != text) std::abort();
  return 0;
}
