// Helpers shared by the group floor's tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "veil/base/encoding.h"

namespace veil::ec::testing_util {

using Bytes32 = std::array<std::uint8_t, 32>;

// 64 hex digits as 32 bytes (a test fails on any other length).
inline Bytes32 Hex32(const std::string& s) {
  const Bytes b = HexDecode(s).value();
  Bytes32 out{};
  EXPECT_EQ(b.size(), 32U);
  std::copy(b.begin(), b.end(), out.begin());
  return out;
}

}  // namespace veil::ec::testing_util
