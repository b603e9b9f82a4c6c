// Byte views and buffers used across every floor.
//
// ByteView is a non-owning read-only view; Bytes owns public data. Secret data never lives in
// Bytes: it lives in crypto::SecretBytes, which wipes itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace veil {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;
using MutableByteView = std::span<std::uint8_t>;

inline ByteView AsBytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}
inline std::string_view AsChars(ByteView b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

inline Bytes Concat(std::initializer_list<ByteView> parts) {
  std::size_t n = 0;
  for (auto p : parts) n += p.size();
  Bytes out;
  out.reserve(n);
  for (auto p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace veil
