// GF(2^255 - 19): encoding, comparisons, inversion and square roots (see fe25519.h).
#include "veil/crypto/fe25519.h"

#include <utility>

#include "veil/base/bytes.h"

namespace veil::crypto {
namespace {

using fe25519_detail::kMask51;

// 1 when the 32 bytes are all zero, without a branch on them.
std::uint64_t BytesAreZero(const std::array<std::uint8_t, 32>& b) {
  std::uint64_t acc = 0;
  for (const std::uint8_t x : b) acc |= x;
  return (acc - 1) >> 63;
}

// z^(2^250 - 1) and z^11, the common head of the addition chains for p - 2 and (p - 5)/8.
std::pair<Fe25519, Fe25519> Pow22501(const Fe25519& z) {
  const Fe25519 z2 = FeSquare(z);
  const Fe25519 z9 = FeMul(z, FePow2k(z2, 2));
  const Fe25519 z11 = FeMul(z2, z9);
  const Fe25519 e5 = FeMul(z9, FeSquare(z11));           // 2^5 - 1
  const Fe25519 e10 = FeMul(FePow2k(e5, 5), e5);         // 2^10 - 1
  const Fe25519 e20 = FeMul(FePow2k(e10, 10), e10);      // 2^20 - 1
  const Fe25519 e40 = FeMul(FePow2k(e20, 20), e20);      // 2^40 - 1
  const Fe25519 e50 = FeMul(FePow2k(e40, 10), e10);      // 2^50 - 1
  const Fe25519 e100 = FeMul(FePow2k(e50, 50), e50);     // 2^100 - 1
  const Fe25519 e200 = FeMul(FePow2k(e100, 100), e100);  // 2^200 - 1
  const Fe25519 e250 = FeMul(FePow2k(e200, 50), e50);    // 2^250 - 1
  return {e250, z11};
}

}  // namespace

// sqrt(-1) = 2^((p-1)/4) mod p, in limbs.
const Fe25519 kFeSqrtM1{{1718705420411056ULL, 234908883556509ULL, 2233514472574048ULL,
                         2117202627021982ULL, 765476049583133ULL}};

Fe25519 FeFromBytes(std::span<const std::uint8_t, 32> in) {
  const std::uint8_t* p = in.data();
  return {{LoadLe64(p) & kMask51, (LoadLe64(p + 6) >> 3) & kMask51,
           (LoadLe64(p + 12) >> 6) & kMask51, (LoadLe64(p + 19) >> 1) & kMask51,
           (LoadLe64(p + 24) >> 12) & kMask51}};
}

std::array<std::uint8_t, 32> FeToBytes(const Fe25519& a) {
  // Twice carried, the value is below 2p, so it is >= p exactly when value + 19 reaches 2^255;
  // q is that bit, and adding 19q then dropping bit 255 subtracts p when it is set.
  Fe25519 h = FeReduce(FeReduce(a));
  std::uint64_t q = (h.v[0] + 19) >> 51;
  q = (h.v[1] + q) >> 51;
  q = (h.v[2] + q) >> 51;
  q = (h.v[3] + q) >> 51;
  q = (h.v[4] + q) >> 51;
  h.v[0] += 19 * q;
  h.v[1] += h.v[0] >> 51;
  h.v[0] &= kMask51;
  h.v[2] += h.v[1] >> 51;
  h.v[1] &= kMask51;
  h.v[3] += h.v[2] >> 51;
  h.v[2] &= kMask51;
  h.v[4] += h.v[3] >> 51;
  h.v[3] &= kMask51;
  h.v[4] &= kMask51;
  std::array<std::uint8_t, 32> out;
  StoreLe64(out.data(), h.v[0] | h.v[1] << 51);
  StoreLe64(out.data() + 8, h.v[1] >> 13 | h.v[2] << 38);
  StoreLe64(out.data() + 16, h.v[2] >> 26 | h.v[3] << 25);
  StoreLe64(out.data() + 24, h.v[3] >> 39 | h.v[4] << 12);
  return out;
}

std::uint64_t FeIsZero(const Fe25519& a) { return BytesAreZero(FeToBytes(a)); }

std::uint64_t FeEqual(const Fe25519& a, const Fe25519& b) { return FeIsZero(FeSub(a, b)); }

std::uint64_t FeIsNegative(const Fe25519& a) { return FeToBytes(a)[0] & 1U; }

Fe25519 FeAbs(const Fe25519& a) { return FeSelect(a, FeNeg(a), FeIsNegative(a)); }

Fe25519 FeInvert(const Fe25519& a) {
  const auto [e250, z11] = Pow22501(a);
  return FeMul(FePow2k(e250, 5), z11);  // 2^255 - 32 + 11 = p - 2
}

void FeInvertBatch(std::span<Fe25519> values, std::span<Fe25519> scratch) {
  const std::size_t n = values.size();
  if (n == 0) return;
  // scratch[i] = values[0] ... values[i-1]; one inversion of the full product, then each inverse.
  Fe25519 acc = kFeOne;
  for (std::size_t i = 0; i < n; ++i) {
    scratch[i] = acc;
    acc = FeMul(acc, values[i]);
  }
  Fe25519 inv = FeInvert(acc);
  for (std::size_t i = n; i-- > 0;) {
    const Fe25519 v = values[i];
    values[i] = FeMul(inv, scratch[i]);
    inv = FeMul(inv, v);
  }
}

Fe25519 FePowP58(const Fe25519& a) {
  const auto [e250, z11] = Pow22501(a);
  return FeMul(FePow2k(e250, 2), a);  // 2^252 - 4 + 1
}

FeSqrtRatio FeSqrtRatioM1(const Fe25519& u, const Fe25519& v) {
  const Fe25519 v3 = FeMul(FeSquare(v), v);
  const Fe25519 v7 = FeMul(FeSquare(v3), v);
  Fe25519 r = FeMul(FeMul(u, v3), FePowP58(FeMul(u, v7)));
  const Fe25519 check = FeMul(v, FeSquare(r));
  const Fe25519 neg_u = FeNeg(u);
  const std::uint64_t correct_sign = FeEqual(check, u);
  const std::uint64_t flipped_sign = FeEqual(check, neg_u);
  const std::uint64_t flipped_sign_i = FeEqual(check, FeMul(neg_u, kFeSqrtM1));
  r = FeSelect(r, FeMul(kFeSqrtM1, r), flipped_sign | flipped_sign_i);
  return {correct_sign | flipped_sign, FeAbs(r)};
}

}  // namespace veil::crypto
