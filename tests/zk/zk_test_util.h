// Helpers shared by the zk/ tests: hex, a repeatable scalar stream, bit flipping.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "veil/base/encoding.h"
#include "veil/crypto/keccak.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"

namespace veil::zk::test {

inline Bytes H(std::string_view hex) {
  auto r = HexDecode(hex);
  EXPECT_TRUE(r.ok()) << hex;
  return r.ok() ? *r : Bytes{};
}

inline std::string Hx(ByteView b) { return HexEncode(b); }

inline Bytes B(std::string_view s) {
  ByteView v = AsBytes(s);
  return Bytes(v.begin(), v.end());
}

// A repeatable stream of scalars and bytes (SHAKE128 of a seed), for known-answer tests and
// reproducible random instances.
class TestRng {
 public:
  explicit TestRng(std::uint64_t seed) {
    std::array<std::uint8_t, 8> s{};
    for (std::size_t i = 0; i < 8; ++i) s[i] = static_cast<std::uint8_t>(seed >> (8 * i));
    x_.Absorb(AsBytes("veil zk test rng"));
    x_.Absorb(s);
  }
  ec::Scalar Scalar() {
    std::array<std::uint8_t, 64> w{};
    x_.Squeeze(w);
    return ec::Scalar::FromBytesModOrderWide(w);
  }
  std::array<std::uint8_t, 32> Bytes32() {
    std::array<std::uint8_t, 32> b{};
    x_.Squeeze(b);
    return b;
  }
  Bytes Message(std::size_t n) {
    Bytes m(n);
    x_.Squeeze(m);
    return m;
  }
  ec::RistrettoPoint Point() { return ec::BasepointMul(Scalar()); }

 private:
  crypto::Shake128 x_;
};

inline Bytes FlipBit(ByteView in, std::size_t bit) {
  Bytes out(in.begin(), in.end());
  out[bit / 8] = static_cast<std::uint8_t>(out[bit / 8] ^ (1u << (bit % 8)));
  return out;
}

}  // namespace veil::zk::test
