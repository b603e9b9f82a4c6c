// AVX2 SamplePolyCBD_2 and SampleNTT's rejection step (see avx2.h and sampling.h).
#include "avx2.h"

#if VEIL_MLKEM_HAVE_AVX2

#include <array>
#include <cstring>

#include "sampling.h"

namespace veil::crypto::mlkem::avx2 {
namespace {

using detail::Set16;
using detail::Store;
using detail::V;

// For each 8-bit acceptance mask of eight 16-bit lanes: the pshufb indices that move the accepted
// lanes, in order, to the front of a 128-bit lane, and their number.
struct alignas(16) RejectionTables {
  std::array<std::array<std::uint8_t, 16>, 256> shuffle;
  std::array<std::uint8_t, 256> count;
};
constexpr RejectionTables kRejection = [] {
  RejectionTables t{};
  for (std::size_t mask = 0; mask < 256; ++mask) {
    std::size_t k = 0;
    for (std::size_t j = 0; j < 8; ++j) {
      if (((mask >> j) & 1) == 0) continue;
      t.shuffle[mask][2 * k] = static_cast<std::uint8_t>(2 * j);
      t.shuffle[mask][2 * k + 1] = static_cast<std::uint8_t>(2 * j + 1);
      ++k;
    }
    for (std::size_t r = 2 * k; r < 16; ++r) t.shuffle[mask][r] = 0x80;  // zero (never kept)
    t.count[mask] = static_cast<std::uint8_t>(k);
  }
  return t;
}();

[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline __m128i Load128(const std::uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

}  // namespace

VEIL_MLKEM_AVX2 void SamplePolyCbd2(Poly& f, std::span<const std::uint8_t, 128> bytes) {
  // 32 bytes = 64 coefficients per step. Within each byte: pairwise bit sums (2-bit fields), then
  // each nibble x - y + 3 with x, y its two fields (no borrow leaves the nibble), then the nibbles
  // apart as signed bytes x - y, interleaved back into coefficient order (byte j holds
  // coefficients 2j, 2j + 1) and widened to 16 bits.
  const V m55 = _mm256_set1_epi8(0x55);
  const V m33 = _mm256_set1_epi8(0x33);
  const V m0f = _mm256_set1_epi8(0x0F);
  const V three = _mm256_set1_epi8(3);
  for (std::size_t i = 0; i < 4; ++i) {
    V t = _mm256_loadu_si256(reinterpret_cast<const V*>(bytes.data() + 32 * i));
    V d = _mm256_add_epi8(_mm256_and_si256(t, m55), _mm256_and_si256(_mm256_srli_epi16(t, 1), m55));
    d = _mm256_sub_epi8(_mm256_add_epi8(_mm256_and_si256(d, m33), m33),
                        _mm256_and_si256(_mm256_srli_epi16(d, 2), m33));
    const V even = _mm256_sub_epi8(_mm256_and_si256(d, m0f), three);
    const V odd = _mm256_sub_epi8(_mm256_and_si256(_mm256_srli_epi16(d, 4), m0f), three);
    const V lo = _mm256_unpacklo_epi8(even, odd);  // coefficients 0..15 | 32..47
    const V hi = _mm256_unpackhi_epi8(even, odd);  // coefficients 16..31 | 48..63
    std::int16_t* out = f.c.data() + 64 * i;
    Store(out, _mm256_cvtepi8_epi16(_mm256_castsi256_si128(lo)));
    Store(out + 16, _mm256_cvtepi8_epi16(_mm256_castsi256_si128(hi)));
    Store(out + 32, _mm256_cvtepi8_epi16(_mm256_extracti128_si256(lo, 1)));
    Store(out + 48, _mm256_cvtepi8_epi16(_mm256_extracti128_si256(hi, 1)));
  }
}

VEIL_MLKEM_AVX2 std::size_t RejectionSample(Poly& a, std::size_t ctr,
                                            std::span<const std::uint8_t> buf) {
  // 24 bytes = 16 candidates per step, decoded as ByteDecode_12 does (bytes 0..11 in the low
  // lane, bytes 12..23 loaded from offset 8 in the high lane), compared with q, and the accepted
  // ones of each lane moved to the front (table) and stored at a[ctr..]: eight lanes are written
  // each time, so a step needs 16 free slots. The remainder goes through the portable loop.
  // Branches and table indices depend on the XOF output of the public rho only (sampling.h).
  const V idx = _mm256_setr_epi8(0, 1, 1, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9, 10, 10, 11,  //
                                 4, 5, 5, 6, 7, 8, 8, 9, 10, 11, 11, 12, 13, 14, 14, 15);
  const V q = Set16(kQ);
  std::size_t pos = 0;
  for (; ctr + 16 <= kN && pos + 24 <= buf.size(); pos += 24) {
    const std::uint8_t* p = buf.data() + pos;
    const V bytes = _mm256_inserti128_si256(_mm256_castsi128_si256(Load128(p)), Load128(p + 8), 1);
    const V w = _mm256_shuffle_epi8(bytes, idx);
    const V d =
        _mm256_blend_epi16(_mm256_and_si256(w, Set16(0xFFF)), _mm256_srli_epi16(w, 4), 0xAA);
    const V ok = _mm256_packs_epi16(_mm256_cmpgt_epi16(q, d), _mm256_setzero_si256());
    const auto bits = static_cast<std::uint32_t>(_mm256_movemask_epi8(ok));
    const std::uint32_t ok_lo = bits & 0xFF;
    const std::uint32_t ok_hi = (bits >> 16) & 0xFF;
    const V shuffle =
        _mm256_inserti128_si256(_mm256_castsi128_si256(Load128(kRejection.shuffle[ok_lo].data())),
                                Load128(kRejection.shuffle[ok_hi].data()), 1);
    const V packed = _mm256_shuffle_epi8(d, shuffle);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(a.c.data() + ctr), _mm256_castsi256_si128(packed));
    ctr += kRejection.count[ok_lo];
    _mm_storeu_si128(reinterpret_cast<__m128i*>(a.c.data() + ctr),
                     _mm256_extracti128_si256(packed, 1));
    ctr += kRejection.count[ok_hi];
  }
  return RejectionSamplePortable(a, ctr, buf.subspan(pos));
}

VEIL_MLKEM_AVX2 void ReadLanes(const KeccakX4State& state, std::size_t words,
                               const std::array<std::uint8_t*, 4>& out) {
  std::size_t w = 0;
  for (; w + 4 <= words; w += 4) {
    // Rows: word w + i of the four states; columns after the transpose: four words of one state.
    const V a = _mm256_load_si256(reinterpret_cast<const V*>(state.s[w].data()));
    const V b = _mm256_load_si256(reinterpret_cast<const V*>(state.s[w + 1].data()));
    const V c = _mm256_load_si256(reinterpret_cast<const V*>(state.s[w + 2].data()));
    const V d = _mm256_load_si256(reinterpret_cast<const V*>(state.s[w + 3].data()));
    const V ab_even = _mm256_unpacklo_epi64(a, b);  // a0 b0 a2 b2
    const V ab_odd = _mm256_unpackhi_epi64(a, b);   // a1 b1 a3 b3
    const V cd_even = _mm256_unpacklo_epi64(c, d);
    const V cd_odd = _mm256_unpackhi_epi64(c, d);
    _mm256_storeu_si256(reinterpret_cast<V*>(out[0] + 8 * w),
                        _mm256_permute2x128_si256(ab_even, cd_even, 0x20));
    _mm256_storeu_si256(reinterpret_cast<V*>(out[1] + 8 * w),
                        _mm256_permute2x128_si256(ab_odd, cd_odd, 0x20));
    _mm256_storeu_si256(reinterpret_cast<V*>(out[2] + 8 * w),
                        _mm256_permute2x128_si256(ab_even, cd_even, 0x31));
    _mm256_storeu_si256(reinterpret_cast<V*>(out[3] + 8 * w),
                        _mm256_permute2x128_si256(ab_odd, cd_odd, 0x31));
  }
  for (; w < words; ++w) {
    for (std::size_t n = 0; n < 4; ++n) std::memcpy(out[n] + 8 * w, &state.s[w][n], 8);
  }
}

}  // namespace veil::crypto::mlkem::avx2

#endif  // VEIL_MLKEM_HAVE_AVX2
