// GF(2^8) arithmetic for Shamir sharing (internal to the crypto floor; the tests include it too).
//
// The field is GF(2)[x] / (x^8 + x^4 + x^3 + x + 1), the AES polynomial; a byte's bit i is the
// coefficient of x^i, addition is XOR. Every function here is constant time in all of its
// arguments: there is no log/exp table (a table indexed by a secret leaks it through the cache) and
// no branch on data; each bit of a factor becomes an all-ones or all-zero mask. The vector kernels
// work on eight field elements at once (SWAR: each byte of a uint64_t is one element, and no
// operation carries between bytes), which is what makes splitting and combining long secrets
// cheap. See docs/notes/shamir.md.
//
// Thread safety: pure functions.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace veil::crypto::gf256 {

inline constexpr std::uint64_t kLow7Bits = 0x7f7f7f7f7f7f7f7fULL;
inline constexpr std::uint64_t kLowBit = 0x0101010101010101ULL;

// c if bit i of y is set, else 0, through a mask rather than a branch.
constexpr std::uint32_t Select(std::uint32_t c, std::uint32_t y, int i) {
  return (0u - ((y >> i) & 1u)) & c;
}

// a * b: the carry-less product (bit i of b selects a << i through a mask, never a branch), then
// reduction. The eight partial products are independent, so the critical path is a short XOR tree
// rather than the eight dependent steps of shift-and-add; Lagrange coefficients need a few dozen
// of these per combine and their latency showed in the benchmark.
constexpr std::uint8_t Mul(std::uint8_t a, std::uint8_t b) {
  const std::uint32_t x = a;
  const std::uint32_t y = b;
  // Written out because GCC at -O2 keeps an eight-step loop rolled.
  std::uint32_t p =
      (Select(x, y, 0) ^ Select(x << 1, y, 1)) ^ (Select(x << 2, y, 2) ^ Select(x << 3, y, 3)) ^
      (Select(x << 4, y, 4) ^ Select(x << 5, y, 5)) ^ (Select(x << 6, y, 6) ^ Select(x << 7, y, 7));
  // p has degree <= 14. Folding the bits from x^8 up with x^8 = x^4 + x^3 + x + 1 leaves degree
  // <= 10 after one pass and <= 7 after the second.
  for (int pass = 0; pass < 2; ++pass) {
    const std::uint32_t high = p >> 8;
    p = (p & 0xffu) ^ high ^ (high << 1) ^ (high << 3) ^ (high << 4);
  }
  return static_cast<std::uint8_t>(p);
}

// a^2. Squaring is GF(2)-linear, (sum a_i x^i)^2 = sum a_i x^(2i), so it is the XOR of the
// reduced x^(2i) for the set bits of a: half the latency of Mul, which matters in Inv's chain.
constexpr std::uint8_t Square(std::uint8_t a) {
  const std::uint32_t y = a;
  // x^0, x^2, ..., x^14 reduced modulo the AES polynomial.
  return static_cast<std::uint8_t>(
      (Select(0x01, y, 0) ^ Select(0x04, y, 1)) ^ (Select(0x10, y, 2) ^ Select(0x40, y, 3)) ^
      (Select(0x1b, y, 4) ^ Select(0x6c, y, 5)) ^ (Select(0xab, y, 6) ^ Select(0x9a, y, 7)));
}

// a^-1 = a^254 (the multiplicative group has order 255); Inv(0) = 0. The addition chain
// 1, 2, 3, 6, 12, 15, 30, 60, 63, 126, 127, 254 (the shortest for 254: six squarings, five
// multiplications) has a fixed shape, so even this, used on public share indices only, runs the
// same steps for every input.
constexpr std::uint8_t Inv(std::uint8_t a) {
  const std::uint8_t a3 = Mul(Square(a), a);
  const std::uint8_t a15 = Mul(Square(Square(a3)), a3);
  const std::uint8_t a63 = Mul(Square(Square(a15)), a3);
  const std::uint8_t a127 = Mul(Square(a63), a);
  return Square(a127);
}

// Multiplies each of the eight bytes of v by x (0x02). The mask keeps shifted bits inside their
// byte; (v >> 7) & kLowBit moves each byte's top bit to that byte's bit 0, and * 0x1b cannot carry
// because each byte of the product is 0 or 0x1b.
constexpr std::uint64_t Xtime(std::uint64_t v) {
  return ((v & kLow7Bits) << 1) ^ (((v >> 7) & kLowBit) * 0x1b);
}

// The all-ones word if bit i of c is set, else zero.
constexpr std::uint64_t BitMask(std::uint8_t c, int i) {
  return 0 - ((static_cast<std::uint64_t>(c) >> i) & 1u);
}

// out[j * words + w] ^= scalars[j] * in[w] for every j < count and w < words.
//
// The eight doublings in[w], x*in[w], ..., x^7*in[w] do not depend on the scalar, so they are
// computed once per input word (in registers) and shared by all `count` products: splitting
// evaluates each coefficient at n points, and combining with extra shares evaluates each share's
// term at several points; each product then costs 8 AND + 8 XOR per word. The scalars' bit masks
// are made once per call, a block of scalars at a time.
inline void MulAccMany(const std::uint64_t* in, std::size_t words, const std::uint8_t* scalars,
                       std::size_t count, std::uint64_t* out) {
  constexpr std::size_t kScalarBlock = 32;
  std::uint64_t masks[kScalarBlock][8];
  for (std::size_t first = 0; first < count; first += kScalarBlock) {
    const std::size_t block = std::min(kScalarBlock, count - first);
    for (std::size_t j = 0; j < block; ++j) {
      for (int i = 0; i < 8; ++i) {
        masks[j][i] = BitMask(scalars[first + j], i);
      }
    }
    for (std::size_t w = 0; w < words; ++w) {
      const std::uint64_t d0 = in[w];
      const std::uint64_t d1 = Xtime(d0);
      const std::uint64_t d2 = Xtime(d1);
      const std::uint64_t d3 = Xtime(d2);
      const std::uint64_t d4 = Xtime(d3);
      const std::uint64_t d5 = Xtime(d4);
      const std::uint64_t d6 = Xtime(d5);
      const std::uint64_t d7 = Xtime(d6);
      for (std::size_t j = 0; j < block; ++j) {
        const std::uint64_t* m = masks[j];
        out[(first + j) * words + w] ^= ((d0 & m[0]) ^ (d1 & m[1])) ^ ((d2 & m[2]) ^ (d3 & m[3])) ^
                                        ((d4 & m[4]) ^ (d5 & m[5])) ^ ((d6 & m[6]) ^ (d7 & m[7]));
      }
    }
  }
}

// out[w] ^= sum_i scalars[i] * in[i * words + w] for every w < words: a combination of `count`
// input vectors laid out one after another.
//
// Bit-major, the transpose of MulAccMany: acc_b collects the inputs whose scalar has bit b set, and
// the sum is then sum_b x^b * acc_b by Horner's rule, 7 Xtime per output word however many inputs
// there are. Interpolating one point from t shares costs 16t + 35 operations per word this way
// against t (16 + 35) with MulAccMany.
inline void DotAcc(const std::uint64_t* in, std::size_t words, const std::uint8_t* scalars,
                   std::size_t count, std::uint64_t* out) {
  constexpr std::size_t kScalarBlock = 32;
  std::uint64_t masks[kScalarBlock][8];
  for (std::size_t first = 0; first < count; first += kScalarBlock) {
    const std::size_t block = std::min(kScalarBlock, count - first);
    for (std::size_t i = 0; i < block; ++i) {
      for (int b = 0; b < 8; ++b) masks[i][b] = BitMask(scalars[first + i], b);
    }
    const std::uint64_t* rows = in + first * words;
    for (std::size_t w = 0; w < words; ++w) {
      // Eight named accumulators so they stay in registers (GCC at -O2 keeps an array in memory).
      std::uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
      for (std::size_t i = 0; i < block; ++i) {
        const std::uint64_t v = rows[i * words + w];
        const std::uint64_t* m = masks[i];
        a0 ^= v & m[0];
        a1 ^= v & m[1];
        a2 ^= v & m[2];
        a3 ^= v & m[3];
        a4 ^= v & m[4];
        a5 ^= v & m[5];
        a6 ^= v & m[6];
        a7 ^= v & m[7];
      }
      out[w] ^=
          Xtime(Xtime(Xtime(Xtime(Xtime(Xtime(Xtime(a7) ^ a6) ^ a5) ^ a4) ^ a3) ^ a2) ^ a1) ^ a0;
    }
  }
}

}  // namespace veil::crypto::gf256
