// Small helpers shared by the crypto tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "veil/base/encoding.h"

namespace veil::test {

inline Bytes H(std::string_view hex) {
  auto r = HexDecode(hex);
  EXPECT_TRUE(r.ok()) << hex;
  return r.ok() ? *r : Bytes{};
}

inline Bytes B(std::string_view s) {
  ByteView v = AsBytes(s);
  return Bytes(v.begin(), v.end());
}

inline std::string Hx(ByteView b) { return HexEncode(b); }

inline std::string DataPath(std::string_view rel) {
  return std::string(VEIL_TEST_DATA_DIR) + "/" + std::string(rel);
}

}  // namespace veil::test
