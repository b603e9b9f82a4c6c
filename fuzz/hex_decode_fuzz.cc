// Fuzzes the strict hex decoder: no crash, and whatever decodes re-encodes to the same digits
// (modulo case, which hex allows).
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "veil/base/encoding.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = veil::HexDecode(text);
  if (r.ok()) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (veil::HexEncode(*r) != lower) std::abort();
  }
  return 0;
}
