// Encodings of FIPS 203 sec. 4.2.1: ByteEncode_d / ByteDecode_d (Algorithms 5, 6), Compress_d /
// Decompress_d (eq. 4.7, 4.8), and the polynomial-level encodings built from them.
//
// Compress_d(x) = round(2^d x / q) mod 2^d is computed with a multiplication by M = ceil(2^36 / q)
// and a shift, never a division: a variable-operand division takes a data-dependent time on many
// CPUs (the "KyberSlash" timing leak). The static_asserts check, at compile time and for every x
// in [0, q), that the multiply-shift equals the exact rounded quotient for each d ML-KEM uses.
// Decompress_d divides by 2^d only (a shift). Everything here is branch-free on coefficient
// values, including the modulus check (sec. 7.2), whose single verdict is returned to the caller.
//
// Thread safety: functions on caller-owned values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "avx2.h"
#include "params.h"
#include "poly.h"
#include "reduce.h"
#include "simd.h"

namespace veil::crypto::mlkem {

inline constexpr unsigned kCompressShift = 36;
inline constexpr std::uint64_t kCompressMul = ((std::uint64_t{1} << kCompressShift) + kQ - 1) / kQ;

// Compress_d(x) for x in [0, q): floor((2^d x + (q-1)/2) / q) mod 2^d. q is odd, so 2^d x / q is
// never exactly halfway and this floor is the rounding the standard specifies.
template <unsigned kD>
constexpr std::uint16_t Compress(std::uint16_t x) {
  static_assert(kD >= 1 && kD < 12);
  const std::uint64_t numerator = (static_cast<std::uint64_t>(x) << kD) + (kQ - 1) / 2;
  return static_cast<std::uint16_t>(((numerator * kCompressMul) >> kCompressShift) &
                                    ((1u << kD) - 1));
}

// Decompress_d(y) = round(q y / 2^d) for y in [0, 2^d): (q y + 2^(d-1)) >> d.
template <unsigned kD>
constexpr std::uint16_t Decompress(std::uint16_t y) {
  static_assert(kD >= 1 && kD < 12);
  return static_cast<std::uint16_t>((static_cast<std::uint32_t>(y) * kQ + (1u << (kD - 1))) >> kD);
}

namespace internal {
template <unsigned kD>
constexpr bool CompressIsExact() {
  for (std::uint32_t x = 0; x < static_cast<std::uint32_t>(kQ); ++x) {
    const std::uint32_t exact = (((x << kD) + (kQ - 1) / 2) / kQ) % (1u << kD);
    if (Compress<kD>(static_cast<std::uint16_t>(x)) != exact) return false;
  }
  return true;
}
}  // namespace internal
static_assert(internal::CompressIsExact<1>() && internal::CompressIsExact<4>() &&
              internal::CompressIsExact<5>() && internal::CompressIsExact<10>() &&
              internal::CompressIsExact<11>());

// ByteEncode_d (Algorithm 5) of 256 values below 2^d: bits little-endian, value after value.
template <unsigned kD>
void ByteEncode(std::span<std::uint8_t, 32 * kD> out, const std::array<std::uint16_t, kN>& f) {
  std::uint32_t acc = 0;
  unsigned bits = 0;
  std::size_t o = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    acc |= static_cast<std::uint32_t>(f[i]) << bits;
    bits += kD;
    while (bits >= 8) {  // depends on i and d only
      out[o++] = static_cast<std::uint8_t>(acc);
      acc >>= 8;
      bits -= 8;
    }
  }
}

// ByteDecode_d (Algorithm 6) without the final reduction mod q for d = 12 (PolyFromBytes does it).
template <unsigned kD>
void ByteDecode(std::array<std::uint16_t, kN>& f, std::span<const std::uint8_t, 32 * kD> in) {
  std::uint32_t acc = 0;
  unsigned bits = 0;
  std::size_t pos = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    while (bits < kD) {
      acc |= static_cast<std::uint32_t>(in[pos++]) << bits;
      bits += 8;
    }
    f[i] = static_cast<std::uint16_t>(acc & ((1u << kD) - 1));
    acc >>= kD;
    bits -= kD;
  }
}

// ByteEncode_12 of a polynomial with |a| < q, as its representatives in [0, q).
void PolyToBytes(std::span<std::uint8_t, kPolyBytes> out, const Poly& a);
// ByteDecode_12 (Algorithm 6 with m = q): 12-bit values reduced into [0, q) (values q..4095 can
// only come from a decapsulation key, which the standard does not range-check; they are reduced
// branch-free since that key is secret).
void PolyFromBytes(Poly& r, std::span<const std::uint8_t, kPolyBytes> in);
// True when every 12-bit value is below q, i.e. the bytes equal ByteEncode_12(ByteDecode_12(in)):
// the modulus check of sec. 7.2 for one polynomial.
bool PolyBytesAreCanonical(std::span<const std::uint8_t, kPolyBytes> in);

// ByteEncode_d(Compress_d(a)) for |a| < q (Algorithm 14, lines 22, 23).
// With AVX2 (simd.h), d = 10 and d = 4 run the twins in avx2.h, which compute the same bytes.
template <unsigned kD>
void PolyCompress(std::span<std::uint8_t, 32 * kD> out, const Poly& a) {
#if VEIL_MLKEM_HAVE_AVX2
  if constexpr (kD == 10) {
    if (UseAvx2()) return avx2::PolyCompress10(out, a);
  } else if constexpr (kD == 4) {
    if (UseAvx2()) return avx2::PolyCompress4(out, a);
  }
#endif
  std::array<std::uint16_t, kN> t;
  for (std::size_t i = 0; i < kN; ++i) {
    t[i] = Compress<kD>(static_cast<std::uint16_t>(AddQIfNegative(a.c[i])));
  }
  ByteEncode<kD>(out, t);
}

// Decompress_d(ByteDecode_d(in)) (Algorithm 15, lines 3, 4); output in [0, q).
template <unsigned kD>
void PolyDecompress(Poly& r, std::span<const std::uint8_t, 32 * kD> in) {
#if VEIL_MLKEM_HAVE_AVX2
  if constexpr (kD == 10) {
    if (UseAvx2()) return avx2::PolyDecompress10(r, in);
  } else if constexpr (kD == 4) {
    if (UseAvx2()) return avx2::PolyDecompress4(r, in);
  }
#endif
  std::array<std::uint16_t, kN> t;
  ByteDecode<kD>(t, in);
  for (std::size_t i = 0; i < kN; ++i) r.c[i] = static_cast<std::int16_t>(Decompress<kD>(t[i]));
}

// mu = Decompress_1(ByteDecode_1(m)) (Algorithm 14, line 20): coefficient i is round(q/2) = 1665
// when bit i of m is set, else 0, selected by a mask (m is secret).
void PolyFromMessage(Poly& r, std::span<const std::uint8_t, kSymBytes> m);
// m = ByteEncode_1(Compress_1(w)) (Algorithm 15, line 7) for |w| < q.
void PolyToMessage(std::span<std::uint8_t, kSymBytes> m, const Poly& w);

}  // namespace veil::crypto::mlkem
