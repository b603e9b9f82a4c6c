// Fuzzes the strict hex decoder: no crash, and whatever decodes re-encodes to the same digits
// (modulo case, which hex allows); the variable-time codec and the lowercase-only digit set
// agree with it.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "veil/base/encoding.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = veil::HexDecode(text);
  veil::Bytes vartime(size / 2);
  const bool vartime_ok = size % 2 == 0 && veil::HexDecodeVartimeInto(text, vartime).ok();
  if (r.ok() != vartime_ok || (r.ok() && *r != vartime)) std::abort();
  if (r.ok()) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (veil::HexEncode(*r) != lower || veil::HexEncodeVartime(*r) != lower) std::abort();
    if (veil::HexDecode(text, veil::HexCase::kLower).ok() != (lower == text)) std::abort();
  }
  return 0;
}
