// Byte views and buffers used across every floor.
//
// ByteView is a non-owning read-only view; Bytes owns public data. Secret data never lives in
// Bytes: it lives in crypto::SecretBytes, which wipes itself.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
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

// Little-endian 64-bit load and store (one instruction on x86-64); no branch on the data.
inline std::uint64_t LoadLe64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&v, p, 8);
  } else {
    for (std::size_t i = 0; i < 8; ++i) v |= std::uint64_t{p[i]} << (8 * i);
  }
  return v;
}

inline void StoreLe64(std::uint8_t* p, std::uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(p, &v, 8);
  } else {
    for (std::size_t i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
}

}  // namespace veil
