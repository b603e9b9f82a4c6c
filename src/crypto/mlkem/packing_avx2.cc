// AVX2 ByteEncode / ByteDecode, Compress / Decompress and the message encoding (see avx2.h and
// packing.h).
//
// Compress_d(x) = floor((2^d x + (q-1)/2) / q) mod 2^d for x in [0, q) in 16-bit lanes, without a
// division: the estimate e = floor((16 x) K_d / 2^16), K_d = ceil(2^(12+d) / q), exceeds
// 2^d x / q by less than (q - 1) 2^(12+d) (K_d - 2^(12+d)/q) / 2^16 < 0.44 for d = 10, 4, 1 and is
// never below floor(2^d x / q), so e is the quotient or one less. The remainder
// 2^d x + (q-1)/2 - e q is then in [0, 2q), exactly computable modulo 2^16, and one comparison
// with q fixes e. The portable multiply-shift (packing.h) is exact too, so both give the same
// values; CompressEstimateIsExact below checks it at compile time for every x, and the tests again.
#include "avx2.h"

#if VEIL_MLKEM_HAVE_AVX2

#include <array>
#include <cstring>

#include "packing.h"

namespace veil::crypto::mlkem::avx2 {
namespace {

using detail::AddQIfNegative;
using detail::Load;
using detail::Set16;
using detail::Store;
using detail::V;

template <unsigned kD>
constexpr std::uint16_t kCompressK = static_cast<std::uint16_t>(((1u << (12 + kD)) + kQ - 1) / kQ);

// The lane computation of CompressLanes on one value, for the compile-time check.
template <unsigned kD>
constexpr std::uint16_t CompressEstimate(std::uint16_t x) {
  auto e = static_cast<std::uint16_t>((static_cast<std::uint32_t>(x << 4) * kCompressK<kD>) >> 16);
  const auto r = static_cast<std::uint16_t>((x << kD) + (kQ - 1) / 2 - e * kQ);  // modulo 2^16
  if (static_cast<std::int16_t>(r) > kQ - 1) ++e;
  return static_cast<std::uint16_t>(e & ((1u << kD) - 1));
}
template <unsigned kD>
constexpr bool CompressEstimateIsExact() {
  for (std::uint32_t x = 0; x < static_cast<std::uint32_t>(kQ); ++x) {
    const auto v = static_cast<std::uint16_t>(x);
    if (CompressEstimate<kD>(v) != Compress<kD>(v)) return false;
  }
  return true;
}
static_assert(CompressEstimateIsExact<10>() && CompressEstimateIsExact<4>());

// Compress_d of 16 lanes with |a| < q (after AddQIfNegative, as PolyCompress does).
template <unsigned kD>
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline V CompressLanes(V a) {
  const V x = AddQIfNegative(a);
  V e =
      _mm256_mulhi_epu16(_mm256_slli_epi16(x, 4), Set16(static_cast<std::int16_t>(kCompressK<kD>)));
  const V r = _mm256_sub_epi16(_mm256_add_epi16(_mm256_slli_epi16(x, kD), Set16((kQ - 1) / 2)),
                               _mm256_mullo_epi16(e, Set16(kQ)));
  e = _mm256_sub_epi16(e, _mm256_cmpgt_epi16(r, Set16(kQ - 1)));  // + 1 where r >= q
  return _mm256_and_si256(e, Set16(static_cast<std::int16_t>((1u << kD) - 1)));
}

[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline __m128i Load128(const std::uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline void Store128(std::uint8_t* p, __m128i v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}
// Bytes p[0..15] in the low lane, p[offset..offset+15] in the high lane.
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline V Load2x128(const std::uint8_t* p,
                                                          std::size_t offset) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(Load128(p)), Load128(p + offset), 1);
}

// 12-bit fields of 24 bytes (16 values) in 16-bit lanes, not reduced.
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline V Unpack12(const std::uint8_t* p) {
  // Low lane: bytes 0..11 (values 0..7); high lane: bytes 12..23 loaded from p + 8 (so the last
  // group of a polynomial reads nothing past it), i.e. at positions 4..15.
  const V bytes = Load2x128(p, 8);
  const V idx = _mm256_setr_epi8(0, 1, 1, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9, 10, 10, 11,  //
                                 4, 5, 5, 6, 7, 8, 8, 9, 10, 11, 11, 12, 13, 14, 14, 15);
  // Lane 2m gets bytes 3m, 3m + 1 and lane 2m + 1 bytes 3m + 1, 3m + 2 of its group of three.
  const V w = _mm256_shuffle_epi8(bytes, idx);
  return _mm256_blend_epi16(_mm256_and_si256(w, Set16(0xFFF)), _mm256_srli_epi16(w, 4), 0xAA);
}

}  // namespace

VEIL_MLKEM_AVX2 void PolyToBytes(std::span<std::uint8_t, kPolyBytes> out, const Poly& a) {
  // Pairs (t0, t1) -> t0 + 2^12 t1 in 32-bit lanes (pmaddwd), three bytes of each lane kept,
  // 12 bytes per 128-bit lane, then the two lanes joined: 24 bytes per 16 values.
  const V pair = _mm256_set1_epi32((1 << 28) | 1);
  const V idx = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,  //
                                 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
  const V join = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
  for (std::size_t i = 0; i < kN / 16; ++i) {
    V t = _mm256_madd_epi16(AddQIfNegative(Load(a.c.data() + 16 * i)), pair);
    t = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(t, idx), join);
    std::uint8_t* o = out.data() + 24 * i;
    Store128(o, _mm256_castsi256_si128(t));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(o + 16), _mm256_extracti128_si256(t, 1));
  }
}

VEIL_MLKEM_AVX2 void PolyFromBytes(Poly& r, std::span<const std::uint8_t, kPolyBytes> in) {
  for (std::size_t i = 0; i < kN / 16; ++i) {
    const V x = Unpack12(in.data() + 24 * i);
    Store(r.c.data() + 16 * i, AddQIfNegative(_mm256_sub_epi16(x, Set16(kQ))));  // ReduceOnce
  }
}

VEIL_MLKEM_AVX2 bool PolyBytesAreCanonical(std::span<const std::uint8_t, kPolyBytes> in) {
  V bad = _mm256_setzero_si256();
  for (std::size_t i = 0; i < kN / 16; ++i) {
    bad = _mm256_or_si256(bad, _mm256_cmpgt_epi16(Unpack12(in.data() + 24 * i), Set16(kQ - 1)));
  }
  return _mm256_testz_si256(bad, bad) != 0;
}

VEIL_MLKEM_AVX2 void PolyCompress10(std::span<std::uint8_t, 320> out, const Poly& a) {
  // Pairs -> y0 + 2^10 y1 in 32-bit lanes, pairs of those -> 40 bits in 64-bit lanes (the even
  // lane shifted up by 12, the whole lane down by 12), five bytes of each kept: 10 bytes per
  // 128-bit lane. The two 16-byte stores per group overlap the next group, which overwrites the
  // surplus; the last group goes through a buffer so nothing is written past `out`.
  const V pair = _mm256_set1_epi32((1024 << 16) | 1);
  const V shift = _mm256_setr_epi32(12, 0, 12, 0, 12, 0, 12, 0);
  const V idx = _mm256_setr_epi8(0, 1, 2, 3, 4, 8, 9, 10, 11, 12, -1, -1, -1, -1, -1, -1,  //
                                 0, 1, 2, 3, 4, 8, 9, 10, 11, 12, -1, -1, -1, -1, -1, -1);
  for (std::size_t i = 0; i < kN / 16; ++i) {
    V t = _mm256_madd_epi16(CompressLanes<10>(Load(a.c.data() + 16 * i)), pair);
    t = _mm256_srli_epi64(_mm256_sllv_epi32(t, shift), 12);
    t = _mm256_shuffle_epi8(t, idx);
    std::array<std::uint8_t, 32> last;
    std::uint8_t* o = i + 1 < kN / 16 ? out.data() + 20 * i : last.data();
    Store128(o, _mm256_castsi256_si128(t));
    Store128(o + 10, _mm256_extracti128_si256(t, 1));
    if (o == last.data()) std::memcpy(out.data() + 20 * i, last.data(), 20);
  }
}

VEIL_MLKEM_AVX2 void PolyCompress4(std::span<std::uint8_t, 128> out, const Poly& a) {
  // 64 values per step: to bytes (packus), nibble pairs y0 + 16 y1 (pmaddubsw), to bytes again,
  // then the 32-bit groups put back in order (each 128-bit lane holds half of every register).
  const V nibbles = _mm256_set1_epi16(0x1001);
  const V order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (std::size_t i = 0; i < kN / 64; ++i) {
    const std::int16_t* p = a.c.data() + 64 * i;
    const V y0 = CompressLanes<4>(Load(p));
    const V y1 = CompressLanes<4>(Load(p + 16));
    const V y2 = CompressLanes<4>(Load(p + 32));
    const V y3 = CompressLanes<4>(Load(p + 48));
    const V b01 = _mm256_maddubs_epi16(_mm256_packus_epi16(y0, y1), nibbles);
    const V b23 = _mm256_maddubs_epi16(_mm256_packus_epi16(y2, y3), nibbles);
    const V t = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(b01, b23), order);
    _mm256_storeu_si256(reinterpret_cast<V*>(out.data() + 32 * i), t);
  }
}

VEIL_MLKEM_AVX2 void PolyDecompress10(Poly& r, std::span<const std::uint8_t, 320> in) {
  // Value j of a group of 16 sits at bit 10 j: its two bytes into lane j, shifted so that the value
  // fills bits 6..15 (a multiplication by 2^(6 - 10 j mod 8)), then y 2^5, and Decompress_10(y) =
  // (q y + 2^9) >> 10 = (2^5 y q + 2^14) >> 15, which is pmulhrsw. The high lane loads bytes
  // 4..19, so the last group reads nothing past `in`.
  const V idx = _mm256_setr_epi8(0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 6, 7, 7, 8, 8, 9,  //
                                 6, 7, 7, 8, 8, 9, 9, 10, 11, 12, 12, 13, 13, 14, 14, 15);
  const V shift = _mm256_setr_epi16(64, 16, 4, 1, 64, 16, 4, 1, 64, 16, 4, 1, 64, 16, 4, 1);
  const V mask = Set16(0x7FE0);
  const V q = Set16(kQ);
  for (std::size_t i = 0; i < kN / 16; ++i) {
    V t = _mm256_shuffle_epi8(Load2x128(in.data() + 20 * i, 4), idx);
    t = _mm256_and_si256(_mm256_srli_epi16(_mm256_mullo_epi16(t, shift), 1), mask);
    Store(r.c.data() + 16 * i, _mm256_mulhrs_epi16(t, q));
  }
}

VEIL_MLKEM_AVX2 void PolyDecompress4(Poly& r, std::span<const std::uint8_t, 128> in) {
  // Byte k holds values 2k (low nibble) and 2k + 1 (high nibble): each byte into two lanes, masked
  // and scaled to y 2^11, then Decompress_4(y) = (q y + 8) >> 4 = (2^11 y q + 2^14) >> 15.
  const V idx = _mm256_setr_epi8(0, -1, 0, -1, 1, -1, 1, -1, 2, -1, 2, -1, 3, -1, 3, -1,  //
                                 4, -1, 4, -1, 5, -1, 5, -1, 6, -1, 6, -1, 7, -1, 7, -1);
  const V mask = _mm256_set1_epi32(0x00F0000F);
  const V scale = _mm256_set1_epi32((1 << 23) | (1 << 11));  // 2^11 (low nibble), 2^7 (high)
  const V q = Set16(kQ);
  for (std::size_t i = 0; i < kN / 16; ++i) {
    std::uint64_t word;
    std::memcpy(&word, in.data() + 8 * i, 8);
    V t = _mm256_shuffle_epi8(_mm256_set1_epi64x(static_cast<std::int64_t>(word)), idx);
    t = _mm256_mullo_epi16(_mm256_and_si256(t, mask), scale);
    Store(r.c.data() + 16 * i, _mm256_mulhrs_epi16(t, q));
  }
}

VEIL_MLKEM_AVX2 void PolyFromMessage(Poly& r, std::span<const std::uint8_t, kSymBytes> m) {
  // Lane j of group i is bit j of the 16-bit word m[2i] + 2^8 m[2i+1]: a mask from the comparison
  // (no branch on m), and with round(q/2) = 1665.
  const V bits = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192,
                                   16384, static_cast<std::int16_t>(0x8000));
  const V half_q = Set16(static_cast<std::int16_t>(Decompress<1>(1)));
  for (std::size_t i = 0; i < kN / 16; ++i) {
    const auto word = static_cast<std::int16_t>(m[2 * i] | (m[2 * i + 1] << 8));
    const V set = _mm256_cmpeq_epi16(_mm256_and_si256(Set16(word), bits), bits);
    Store(r.c.data() + 16 * i, _mm256_and_si256(set, half_q));
  }
}

VEIL_MLKEM_AVX2 void PolyToMessage(std::span<std::uint8_t, kSymBytes> m, const Poly& w) {
  // Compress_1(x) = 1 exactly for x in [833, 2496] (x in [0, q)): both x - 833 and 2496 - x are
  // non-negative, i.e. the sign of their OR is clear. Signs to bytes (packs, then the 64-bit
  // quarters put back in order), bytes to bits (movemask).
  static_assert(Compress<1>(832) == 0 && Compress<1>(833) == 1 && Compress<1>(2496) == 1 &&
                Compress<1>(2497) == 0);
  const V low = Set16(833);
  const V high = Set16(2496);
  for (std::size_t i = 0; i < kN / 32; ++i) {
    const V x0 = AddQIfNegative(Load(w.c.data() + 32 * i));
    const V x1 = AddQIfNegative(Load(w.c.data() + 32 * i + 16));
    const V out0 = _mm256_or_si256(_mm256_sub_epi16(x0, low), _mm256_sub_epi16(high, x0));
    const V out1 = _mm256_or_si256(_mm256_sub_epi16(x1, low), _mm256_sub_epi16(high, x1));
    const V signs = _mm256_permute4x64_epi64(_mm256_packs_epi16(out0, out1), 0xD8);
    const auto bits = ~static_cast<std::uint32_t>(_mm256_movemask_epi8(signs));
    std::memcpy(m.data() + 4 * i, &bits, 4);
  }
}

}  // namespace veil::crypto::mlkem::avx2

#endif  // VEIL_MLKEM_HAVE_AVX2
