// NTT and inverse NTT (FIPS 204 Algorithms 41 and 42) with Montgomery twiddles; see ntt.h.
#include "ntt.h"

#include <cstddef>

#include "reduce.h"
#include "simd.h"

namespace veil::crypto::mldsa {
namespace {

constexpr std::uint32_t BitRev8(std::uint32_t m) {
  std::uint32_t r = 0;
  for (int i = 0; i < 8; ++i) r |= ((m >> i) & 1u) << (7 - i);
  return r;
}

constexpr std::int64_t PowMod(std::int64_t base, std::uint32_t e) {
  std::int64_t r = 1;
  for (; e != 0; e >>= 1) {
    if ((e & 1u) != 0) r = r * base % kQ;
    base = base * base % kQ;
  }
  return r;
}

// zetas[m] = zeta^BitRev8(m) * 2^32 mod q, centred (FIPS 204 Appendix B lists zeta^BitRev8(m)).
constexpr std::array<std::int32_t, kN> MakeZetas() {
  constexpr std::int64_t kMont = (std::int64_t{1} << 32) % kQ;
  std::array<std::int32_t, kN> z{};
  for (std::uint32_t m = 0; m < kN; ++m) {
    std::int64_t v = PowMod(kZeta, BitRev8(m)) * kMont % kQ;
    if (v > (kQ - 1) / 2) v -= kQ;
    z[m] = static_cast<std::int32_t>(v);
  }
  return z;
}

constexpr std::array<std::int32_t, kN> kZetas = MakeZetas();
// zeta^256 = -1: zeta is a primitive 512th root of unity, as the NTT needs.
static_assert(PowMod(kZeta, 256) == kQ - 1);
// Appendix B: zeta^BitRev8(1) = 4808194 and zeta^BitRev8(2) = 3765607, here times 2^32 mod q.
static_assert(kZetas[1] == 25847 && kZetas[2] == -2608894 && kZetas[255] == 1976782);

// 2^64 / 256 mod q: after the last inverse layer one Montgomery product by this multiplies by
// 256^-1 (the inverse transform's scale) and by 2^32 (the "to Montgomery" factor).
constexpr std::int32_t kInvNttScale =
    static_cast<std::int32_t>(PowMod(2, 64 - 8) % kQ);  // 2^56 mod q
static_assert(kInvNttScale == 41978);

// The standard's constants in the form the last inverse layer uses: that layer multiplies its sums
// by 2^56 (kInvNttScale) and its differences by zeta^-1 * 2^56 in one Montgomery product each, so
// no separate scaling pass is needed.
constexpr std::int32_t Centre(std::int64_t v) {
  v %= kQ;
  if (v < 0) v += kQ;
  return static_cast<std::int32_t>(v > (kQ - 1) / 2 ? v - kQ : v);
}
constexpr std::int32_t kInvLastZeta =
    Centre(Centre(-kZetas[1]) * std::int64_t{kInvNttScale} % kQ * PowMod(PowMod(2, 32), kQ - 2));

// One forward layer (Algorithm 41, lines 4-10) with butterflies kLen apart; the constant length
// lets the compiler unroll the short inner loops of the last layers.
template <std::size_t kLen>
void ForwardLayer(Coeffs& a) {
  constexpr std::size_t kFirstZeta = kN / (2 * kLen);  // m at the start of this layer, plus one
  for (std::size_t start = 0, m = kFirstZeta; start < kN; start += 2 * kLen, ++m) {
    const std::int64_t zeta = kZetas[m];
    for (std::size_t j = start; j < start + kLen; ++j) {
      const std::int32_t t = MontgomeryReduce(zeta * a[j + kLen]);
      a[j + kLen] = a[j] - t;
      a[j] = a[j] + t;
    }
  }
}

// One inverse layer (Algorithm 42, lines 4-12).
template <std::size_t kLen>
void InverseLayer(Coeffs& a) {
  constexpr std::size_t kLastZeta = kN / kLen - 1;  // m counts down from here
  for (std::size_t start = 0, m = kLastZeta; start < kN; start += 2 * kLen, --m) {
    const std::int64_t zeta = -static_cast<std::int64_t>(kZetas[m]);
    for (std::size_t j = start; j < start + kLen; ++j) {
      const std::int32_t t = a[j];
      a[j] = t + a[j + kLen];
      a[j + kLen] = MontgomeryReduce(zeta * (t - a[j + kLen]));
    }
  }
}

void NttPortable(Coeffs& a) {
  ForwardLayer<128>(a);
  ForwardLayer<64>(a);
  ForwardLayer<32>(a);
  ForwardLayer<16>(a);
  ForwardLayer<8>(a);
  ForwardLayer<4>(a);
  ForwardLayer<2>(a);
  ForwardLayer<1>(a);
}

void InvNttToMontPortable(Coeffs& a) {
  InverseLayer<1>(a);
  InverseLayer<2>(a);
  InverseLayer<4>(a);
  InverseLayer<8>(a);
  InverseLayer<16>(a);
  InverseLayer<32>(a);
  InverseLayer<64>(a);
  // The last layer (zeta index 1) fused with the scaling by 2^64 / 256.
  for (std::size_t j = 0; j < kN / 2; ++j) {
    const std::int32_t t = a[j];
    a[j] = MontgomeryReduce(static_cast<std::int64_t>(kInvNttScale) * (t + a[j + kN / 2]));
    a[j + kN / 2] = MontgomeryReduce(static_cast<std::int64_t>(kInvLastZeta) * (t - a[j + kN / 2]));
  }
}

}  // namespace

#if VEIL_MLDSA_HAVE_AVX2
// The AVX2 transform. Layers with butterflies 8 or more apart work on eight consecutive
// coefficients at a time with one twiddle. For the last three layers (4, 2 and 1 apart) each group
// of 64 coefficients is loaded as an 8 x 8 matrix and transposed, so that vector k holds
// coefficient k of eight consecutive 8-coefficient blocks; the butterflies then pair whole vectors,
// each lane with its own block's twiddle (the tables below), and a second transpose restores the
// order. The arithmetic is the portable code's, lane by lane, so the results are identical.
namespace avx2 {
namespace {

// kTw4[g][b]: the twiddle of block 8g + b in the layer 4 apart (m = 32 + 8g + b); kTw2[g][s][b]
// and kTw1[g][s][b]: sub-block s of that block in the layers 2 and 1 apart (m = 64 + 2B + s and
// m = 128 + 4B + s). The inverse tables hold the negated twiddles the inverse layers use, in their
// order (m counting down).
struct Twiddles {
  std::int32_t fwd4[4][8];
  std::int32_t fwd2[4][2][8];
  std::int32_t fwd1[4][4][8];
  std::int32_t inv4[4][8];
  std::int32_t inv2[4][2][8];
  std::int32_t inv1[4][4][8];
};

constexpr Twiddles MakeTwiddles() {
  Twiddles t{};
  for (std::size_t g = 0; g < 4; ++g) {
    for (std::size_t b = 0; b < 8; ++b) {
      const std::size_t block = 8 * g + b;
      t.fwd4[g][b] = kZetas[32 + block];
      t.inv4[g][b] = -kZetas[63 - block];
      for (std::size_t s = 0; s < 2; ++s) {
        t.fwd2[g][s][b] = kZetas[64 + 2 * block + s];
        t.inv2[g][s][b] = -kZetas[127 - (2 * block + s)];
      }
      for (std::size_t s = 0; s < 4; ++s) {
        t.fwd1[g][s][b] = kZetas[128 + 4 * block + s];
        t.inv1[g][s][b] = -kZetas[255 - (4 * block + s)];
      }
    }
  }
  return t;
}

alignas(32) constexpr Twiddles kTw = MakeTwiddles();

VEIL_MLDSA_AVX2 inline void Transpose(__m256i r[8]) {
  __m256i t[8];
  __m256i u[8];
  for (int i = 0; i < 8; i += 4) {
    t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
    t[i + 2] = _mm256_unpacklo_epi32(r[i + 2], r[i + 3]);
    t[i + 3] = _mm256_unpackhi_epi32(r[i + 2], r[i + 3]);
    u[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);
    u[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]);
    u[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]);
    u[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x31);
  }
}

VEIL_MLDSA_AVX2 inline void Forward(__m256i& lo, __m256i& hi, __m256i zeta) {
  const __m256i t = MontMul(hi, zeta);
  hi = _mm256_sub_epi32(lo, t);
  lo = _mm256_add_epi32(lo, t);
}

VEIL_MLDSA_AVX2 inline void Inverse(__m256i& lo, __m256i& hi, __m256i zeta) {
  const __m256i t = lo;
  lo = _mm256_add_epi32(t, hi);
  hi = MontMul(_mm256_sub_epi32(t, hi), zeta);
}

VEIL_MLDSA_AVX2 void Ntt(Coeffs& c) {
  std::int32_t* a = c.data();
  std::size_t m = 0;
  for (std::size_t len = 128; len >= 8; len >>= 1) {
    for (std::size_t start = 0; start < kN; start += 2 * len) {
      const __m256i zeta = _mm256_set1_epi32(kZetas[++m]);
      for (std::size_t j = start; j < start + len; j += 8) {
        __m256i lo = Load(a + j);
        __m256i hi = Load(a + j + len);
        Forward(lo, hi, zeta);
        Store(a + j, lo);
        Store(a + j + len, hi);
      }
    }
  }
  for (std::size_t g = 0; g < 4; ++g) {
    __m256i r[8];
    for (std::size_t k = 0; k < 8; ++k) r[k] = Load(a + 64 * g + 8 * k);
    Transpose(r);
    const __m256i z4 = Load(kTw.fwd4[g]);
    for (int k = 0; k < 4; ++k) Forward(r[k], r[k + 4], z4);
    for (int s = 0; s < 2; ++s) {
      const __m256i z2 = Load(kTw.fwd2[g][s]);
      Forward(r[4 * s], r[4 * s + 2], z2);
      Forward(r[4 * s + 1], r[4 * s + 3], z2);
    }
    for (int s = 0; s < 4; ++s) Forward(r[2 * s], r[2 * s + 1], Load(kTw.fwd1[g][s]));
    Transpose(r);
    for (std::size_t k = 0; k < 8; ++k) Store(a + 64 * g + 8 * k, r[k]);
  }
}

VEIL_MLDSA_AVX2 void InvNttToMont(Coeffs& c) {
  std::int32_t* a = c.data();
  for (std::size_t g = 0; g < 4; ++g) {
    __m256i r[8];
    for (std::size_t k = 0; k < 8; ++k) r[k] = Load(a + 64 * g + 8 * k);
    Transpose(r);
    for (int s = 0; s < 4; ++s) Inverse(r[2 * s], r[2 * s + 1], Load(kTw.inv1[g][s]));
    for (int s = 0; s < 2; ++s) {
      const __m256i z2 = Load(kTw.inv2[g][s]);
      Inverse(r[4 * s], r[4 * s + 2], z2);
      Inverse(r[4 * s + 1], r[4 * s + 3], z2);
    }
    const __m256i z4 = Load(kTw.inv4[g]);
    for (int k = 0; k < 4; ++k) Inverse(r[k], r[k + 4], z4);
    Transpose(r);
    for (std::size_t k = 0; k < 8; ++k) Store(a + 64 * g + 8 * k, r[k]);
  }
  for (std::size_t len = 8; len < kN / 2; len <<= 1) {
    std::size_t m = kN / len - 1;
    for (std::size_t start = 0; start < kN; start += 2 * len, --m) {
      const __m256i zeta = _mm256_set1_epi32(-kZetas[m]);
      for (std::size_t j = start; j < start + len; j += 8) {
        __m256i lo = Load(a + j);
        __m256i hi = Load(a + j + len);
        Inverse(lo, hi, zeta);
        Store(a + j, lo);
        Store(a + j + len, hi);
      }
    }
  }
  const __m256i scale = _mm256_set1_epi32(kInvNttScale);
  const __m256i last = _mm256_set1_epi32(kInvLastZeta);
  for (std::size_t j = 0; j < kN / 2; j += 8) {
    const __m256i lo = Load(a + j);
    const __m256i hi = Load(a + j + kN / 2);
    Store(a + j, MontMul(_mm256_add_epi32(lo, hi), scale));
    Store(a + j + kN / 2, MontMul(_mm256_sub_epi32(lo, hi), last));
  }
}

}  // namespace
}  // namespace avx2
#endif

namespace {
bool g_portable_only = false;
}  // namespace

bool UseAvx2() { return CpuHasAvx2() && !g_portable_only; }

void SetPortableOnlyForTesting(bool portable_only) { g_portable_only = portable_only; }

void Ntt(Coeffs& a) {
#if VEIL_MLDSA_HAVE_AVX2
  if (UseAvx2()) return avx2::Ntt(a);
#endif
  NttPortable(a);
}

void InvNttToMont(Coeffs& a) {
#if VEIL_MLDSA_HAVE_AVX2
  if (UseAvx2()) return avx2::InvNttToMont(a);
#endif
  InvNttToMontPortable(a);
}

}  // namespace veil::crypto::mldsa
