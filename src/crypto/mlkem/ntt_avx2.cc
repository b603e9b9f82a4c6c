// AVX2 NTT, inverse NTT, base multiplication and coefficient-wise operations (see avx2.h).
//
// The NTT keeps the standard's coefficient order in memory. A polynomial is 16 registers of 16
// consecutive coefficients. The first four layers (butterfly distance 128, 64, 32, 16) pair whole
// registers and use one twiddle factor per register pair. The last three (distance 8, 4, 2) work
// on a pair of registers (a, b) = 32 consecutive coefficients, rearranged so that the two inputs
// of every butterfly sit in the same lane of two registers:
//
//   distance 8: t0 = (a[0..7]  | b[0..7]),  t1 = (a[8..15] | b[8..15])           (permute2x128)
//   distance 4: u0 = (a[0..3] a[8..11] | b..), u1 = (a[4..7] a[12..15] | b..)    (unpack 64-bit)
//   distance 2: lo = (a[0,1] a[4,5] a[8,9] a[12,13] | b..), hi = the other pairs  (blend 32-bit)
//
// with a per-lane twiddle table for each layout. The forward transform undoes the rearrangement
// before storing; each of the three steps is its own inverse, so the inverse transform applies
// them in the opposite order. Every butterfly performs the portable code's operations on the same
// coefficient (FqMulPrecomputed, and BarrettReduce in the inverse), so the results are identical.
#include "avx2.h"

#if VEIL_MLKEM_HAVE_AVX2

#include <array>

#include "ntt.h"

namespace veil::crypto::mlkem::avx2 {
namespace {

using detail::Barrett;
using detail::FqMul;
using detail::Load;
using detail::Set16;
using detail::Store;
using detail::V;

// Position, within the 32 coefficients of a register pair, of the coefficient in lane l of the
// first ("lo") register of each layout above.
constexpr std::size_t LaneCoefficient(std::size_t len, std::size_t l) {
  const std::size_t half = 16 * (l / 8);  // lanes 8..15 come from register b
  const std::size_t m = l % 8;
  if (len == 8) return half + m;
  if (len == 4) return half + (m < 4 ? m : m + 4);
  return half + 4 * (m / 2) + m % 2;  // len == 2
}

struct alignas(32) LaneTwiddles {
  std::array<std::array<std::int16_t, 16>, 8> zeta;       // [register pair][lane]
  std::array<std::array<std::int16_t, 16>, 8> zeta_qinv;  // zeta q^-1 mod 2^16
};

// The twiddle factor of each lane for the layer of distance `len`: the forward transform's block
// b uses kZetas[128/len + b], the inverse's kZetas[2 * 128/len - 1 - b] (ntt.cc).
constexpr LaneTwiddles MakeLaneTwiddles(std::size_t len, bool inverse) {
  LaneTwiddles t{};
  const std::size_t blocks = kN / (2 * len);
  for (std::size_t p = 0; p < 8; ++p) {
    for (std::size_t l = 0; l < 16; ++l) {
      const std::size_t block = (32 * p + LaneCoefficient(len, l)) / (2 * len);
      const std::size_t index = inverse ? 2 * blocks - 1 - block : blocks + block;
      t.zeta[p][l] = kZetas[index];
      t.zeta_qinv[p][l] = MulLo(kZetas[index], kQInv);
    }
  }
  return t;
}

constexpr LaneTwiddles kNtt8 = MakeLaneTwiddles(8, false);
constexpr LaneTwiddles kNtt4 = MakeLaneTwiddles(4, false);
constexpr LaneTwiddles kNtt2 = MakeLaneTwiddles(2, false);
constexpr LaneTwiddles kInv8 = MakeLaneTwiddles(8, true);
constexpr LaneTwiddles kInv4 = MakeLaneTwiddles(4, true);
constexpr LaneTwiddles kInv2 = MakeLaneTwiddles(2, true);

// gamma_i (and gamma_i q^-1) in both lanes of pair i, for PolyMulCacheCompute.
struct alignas(32) GammaLanes {
  std::array<std::int16_t, kN> gamma;
  std::array<std::int16_t, kN> gamma_qinv;
};
constexpr GammaLanes kGammaLanes = [] {
  GammaLanes g{};
  for (std::size_t i = 0; i < kN; ++i) {
    g.gamma[i] = kGammas[i / 2];
    g.gamma_qinv[i] = MulLo(kGammas[i / 2], kQInv);
  }
  return g;
}();

[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline V Broadcast(std::size_t zeta_index) {
  return Set16(kZetas[zeta_index]);
}
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline V BroadcastQInv(std::size_t zeta_index) {
  return Set16(MulLo(kZetas[zeta_index], kQInv));
}

// Cooley-Tukey butterfly (Algorithm 9): t = zeta hi, (lo, hi) = (lo + t, lo - t).
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline void Ct(V& lo, V& hi, V zeta, V zeta_qinv) {
  const V t = FqMul(hi, zeta, zeta_qinv);
  hi = _mm256_sub_epi16(lo, t);
  lo = _mm256_add_epi16(lo, t);
}
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline void Ct(V& lo, V& hi, std::size_t zeta_index) {
  Ct(lo, hi, Broadcast(zeta_index), BroadcastQInv(zeta_index));
}
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline void Ct(V& lo, V& hi, const LaneTwiddles& t,
                                                      std::size_t pair) {
  Ct(lo, hi, Load(t.zeta[pair].data()), Load(t.zeta_qinv[pair].data()));
}

// Gentleman-Sande butterfly (Algorithm 10): (lo, hi) = (Barrett(lo + hi), zeta (hi - lo)).
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline void Gs(V& lo, V& hi, V zeta, V zeta_qinv) {
  const V t = lo;
  lo = Barrett(_mm256_add_epi16(t, hi));
  hi = FqMul(_mm256_sub_epi16(hi, t), zeta, zeta_qinv);
}
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline void Gs(V& lo, V& hi, std::size_t zeta_index) {
  Gs(lo, hi, Broadcast(zeta_index), BroadcastQInv(zeta_index));
}
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline void Gs(V& lo, V& hi, const LaneTwiddles& t,
                                                      std::size_t pair) {
  Gs(lo, hi, Load(t.zeta[pair].data()), Load(t.zeta_qinv[pair].data()));
}

// The three rearrangements of the header comment; each is its own inverse.
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline void Shuffle8(V& x, V& y) {
  const V t0 = _mm256_permute2x128_si256(x, y, 0x20);
  y = _mm256_permute2x128_si256(x, y, 0x31);
  x = t0;
}
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline void Shuffle4(V& x, V& y) {
  const V t0 = _mm256_unpacklo_epi64(x, y);
  y = _mm256_unpackhi_epi64(x, y);
  x = t0;
}
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline void Shuffle2(V& x, V& y) {
  const V t0 = _mm256_blend_epi32(x, _mm256_slli_epi64(y, 32), 0xAA);
  y = _mm256_blend_epi32(_mm256_srli_epi64(x, 32), y, 0xAA);
  x = t0;
}

// Forward layers of distance 8, 4, 2 on register pair `pair` (coefficients 32 pair ..), in place.
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline void NttLastLayers(V& a, V& b, std::size_t pair) {
  Shuffle8(a, b);
  Ct(a, b, kNtt8, pair);
  Shuffle4(a, b);
  Ct(a, b, kNtt4, pair);
  Shuffle2(a, b);
  Ct(a, b, kNtt2, pair);
  // From the distance-2 layout straight back to the standard order.
  const V v0 = _mm256_unpacklo_epi32(a, b);
  const V v1 = _mm256_unpackhi_epi32(a, b);
  a = _mm256_permute2x128_si256(v0, v1, 0x20);
  b = _mm256_permute2x128_si256(v0, v1, 0x31);
}

// Inverse layers of distance 2, 4, 8 on register pair `pair`, in place.
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline void InvNttFirstLayers(V& a, V& b, std::size_t pair) {
  Shuffle8(a, b);
  Shuffle4(a, b);
  Shuffle2(a, b);
  Gs(a, b, kInv2, pair);
  Shuffle2(a, b);
  Gs(a, b, kInv4, pair);
  Shuffle4(a, b);
  Gs(a, b, kInv8, pair);
  Shuffle8(a, b);
}

}  // namespace

VEIL_MLKEM_AVX2 void Ntt(Poly& f) {
  std::int16_t* c = f.c.data();
  // Distance 128 (zeta index 1).
  {
    const V zeta = Broadcast(1);
    const V zeta_qinv = BroadcastQInv(1);
    for (std::size_t i = 0; i < 8; ++i) {
      V lo = Load(c + 16 * i);
      V hi = Load(c + 128 + 16 * i);
      Ct(lo, hi, zeta, zeta_qinv);
      Store(c + 16 * i, lo);
      Store(c + 128 + 16 * i, hi);
    }
  }
  // Each half (block of distance 128) separately: distances 64 .. 2.
  for (std::size_t h = 0; h < 2; ++h) {
    std::int16_t* p = c + 128 * h;
    V r0 = Load(p), r1 = Load(p + 16), r2 = Load(p + 32), r3 = Load(p + 48);
    V r4 = Load(p + 64), r5 = Load(p + 80), r6 = Load(p + 96), r7 = Load(p + 112);
    // Distance 64: block h, zeta index 2 + h.
    {
      const V zeta = Broadcast(2 + h);
      const V zeta_qinv = BroadcastQInv(2 + h);
      Ct(r0, r4, zeta, zeta_qinv);
      Ct(r1, r5, zeta, zeta_qinv);
      Ct(r2, r6, zeta, zeta_qinv);
      Ct(r3, r7, zeta, zeta_qinv);
    }
    // Distance 32: blocks 2h, 2h + 1, zeta indices 4 + 2h, 5 + 2h.
    {
      const V zeta = Broadcast(4 + 2 * h);
      const V zeta_qinv = BroadcastQInv(4 + 2 * h);
      Ct(r0, r2, zeta, zeta_qinv);
      Ct(r1, r3, zeta, zeta_qinv);
    }
    {
      const V zeta = Broadcast(5 + 2 * h);
      const V zeta_qinv = BroadcastQInv(5 + 2 * h);
      Ct(r4, r6, zeta, zeta_qinv);
      Ct(r5, r7, zeta, zeta_qinv);
    }
    // Distance 16: blocks 4h + m, zeta indices 8 + 4h + m.
    Ct(r0, r1, 8 + 4 * h);
    Ct(r2, r3, 9 + 4 * h);
    Ct(r4, r5, 10 + 4 * h);
    Ct(r6, r7, 11 + 4 * h);
    // Distances 8, 4, 2 within each register pair.
    NttLastLayers(r0, r1, 4 * h);
    NttLastLayers(r2, r3, 4 * h + 1);
    NttLastLayers(r4, r5, 4 * h + 2);
    NttLastLayers(r6, r7, 4 * h + 3);
    Store(p, r0);
    Store(p + 16, r1);
    Store(p + 32, r2);
    Store(p + 48, r3);
    Store(p + 64, r4);
    Store(p + 80, r5);
    Store(p + 96, r6);
    Store(p + 112, r7);
  }
}

VEIL_MLKEM_AVX2 void InvNttToMont(Poly& f_hat) {
  std::int16_t* c = f_hat.c.data();
  for (std::size_t h = 0; h < 2; ++h) {
    std::int16_t* p = c + 128 * h;
    V r0 = Load(p), r1 = Load(p + 16), r2 = Load(p + 32), r3 = Load(p + 48);
    V r4 = Load(p + 64), r5 = Load(p + 80), r6 = Load(p + 96), r7 = Load(p + 112);
    // Distances 2, 4, 8 within each register pair.
    InvNttFirstLayers(r0, r1, 4 * h);
    InvNttFirstLayers(r2, r3, 4 * h + 1);
    InvNttFirstLayers(r4, r5, 4 * h + 2);
    InvNttFirstLayers(r6, r7, 4 * h + 3);
    // Distance 16: blocks 4h + m, zeta indices 15 - 4h - m.
    Gs(r0, r1, 15 - 4 * h);
    Gs(r2, r3, 14 - 4 * h);
    Gs(r4, r5, 13 - 4 * h);
    Gs(r6, r7, 12 - 4 * h);
    // Distance 32: blocks 2h, 2h + 1, zeta indices 7 - 2h, 6 - 2h.
    {
      const V zeta = Broadcast(7 - 2 * h);
      const V zeta_qinv = BroadcastQInv(7 - 2 * h);
      Gs(r0, r2, zeta, zeta_qinv);
      Gs(r1, r3, zeta, zeta_qinv);
    }
    {
      const V zeta = Broadcast(6 - 2 * h);
      const V zeta_qinv = BroadcastQInv(6 - 2 * h);
      Gs(r4, r6, zeta, zeta_qinv);
      Gs(r5, r7, zeta, zeta_qinv);
    }
    // Distance 64: block h, zeta index 3 - h.
    {
      const V zeta = Broadcast(3 - h);
      const V zeta_qinv = BroadcastQInv(3 - h);
      Gs(r0, r4, zeta, zeta_qinv);
      Gs(r1, r5, zeta, zeta_qinv);
      Gs(r2, r6, zeta, zeta_qinv);
      Gs(r3, r7, zeta, zeta_qinv);
    }
    Store(p, r0);
    Store(p + 16, r1);
    Store(p + 32, r2);
    Store(p + 48, r3);
    Store(p + 64, r4);
    Store(p + 80, r5);
    Store(p + 96, r6);
    Store(p + 112, r7);
  }
  // Distance 128 (zeta index 1), then the multiplication by R^2 / 128 (ntt.cc).
  const V zeta = Broadcast(1);
  const V zeta_qinv = BroadcastQInv(1);
  constexpr std::int16_t kF = 1441;
  const V f = Set16(kF);
  const V f_qinv = Set16(MulLo(kF, kQInv));
  for (std::size_t i = 0; i < 8; ++i) {
    V lo = Load(c + 16 * i);
    V hi = Load(c + 128 + 16 * i);
    Gs(lo, hi, zeta, zeta_qinv);
    Store(c + 16 * i, FqMul(lo, f, f_qinv));
    Store(c + 128 + 16 * i, FqMul(hi, f, f_qinv));
  }
}

VEIL_MLKEM_AVX2 void BaseMulAccumulate(Poly& h_hat, const Poly* f_hat, const PolyMulCache* g_cache,
                                       std::size_t count) {
  // Pair i of a register: c0 = a0 g0[2i] + a1 g0[2i+1] and c1 = a0 g1[2i] + a1 g1[2i+1] are
  // exactly what pmaddwd computes into 32-bit lane i; the sums over `count` products then take
  // one Montgomery reduction each, done on 16-bit halves: for a = c with zero low half after
  // subtracting t q (t = low(a) q^-1), the result is high(a) - high(t q).
  const V qinv = Set16(kQInv);
  const V q = Set16(kQ);
  for (std::size_t i = 0; i < kN; i += 16) {
    V c0 = _mm256_setzero_si256();
    V c1 = _mm256_setzero_si256();
    for (std::size_t k = 0; k < count; ++k) {
      const V a = Load(f_hat[k].c.data() + i);
      c0 = _mm256_add_epi32(c0, _mm256_madd_epi16(a, Load(g_cache[k].g0.data() + i)));
      c1 = _mm256_add_epi32(c1, _mm256_madd_epi16(a, Load(g_cache[k].g1.data() + i)));
    }
    // 16-bit lane 2j holds pair j's c0 half, lane 2j + 1 its c1 half.
    const V lo = _mm256_blend_epi16(c0, _mm256_slli_epi32(c1, 16), 0xAA);
    const V hi = _mm256_blend_epi16(_mm256_srli_epi32(c0, 16), c1, 0xAA);
    const V t = _mm256_mullo_epi16(lo, qinv);
    Store(h_hat.c.data() + i, _mm256_sub_epi16(hi, _mm256_mulhi_epi16(t, q)));
  }
}

VEIL_MLKEM_AVX2 void PolyMulCacheCompute(PolyMulCache& cache, const Poly& g_hat) {
  for (std::size_t i = 0; i < kN; i += 16) {
    const V b = Load(g_hat.c.data() + i);  // (b0, b1) per pair
    const V b1_gamma =
        FqMul(b, Load(kGammaLanes.gamma.data() + i), Load(kGammaLanes.gamma_qinv.data() + i));
    Store(cache.g0.data() + i, _mm256_blend_epi16(b, b1_gamma, 0xAA));  // (b0, b1 gamma)
    Store(cache.g1.data() + i,                                          // (b1, b0)
          _mm256_or_si256(_mm256_srli_epi32(b, 16), _mm256_slli_epi32(b, 16)));
  }
}

VEIL_MLKEM_AVX2 void PolyAdd(Poly& r, const Poly& a, const Poly& b) {
  for (std::size_t i = 0; i < kN; i += 16) {
    Store(r.c.data() + i, _mm256_add_epi16(Load(a.c.data() + i), Load(b.c.data() + i)));
  }
}

VEIL_MLKEM_AVX2 void PolySub(Poly& r, const Poly& a, const Poly& b) {
  for (std::size_t i = 0; i < kN; i += 16) {
    Store(r.c.data() + i, _mm256_sub_epi16(Load(a.c.data() + i), Load(b.c.data() + i)));
  }
}

VEIL_MLKEM_AVX2 void PolyReduce(Poly& r) {
  for (std::size_t i = 0; i < kN; i += 16) Store(r.c.data() + i, Barrett(Load(r.c.data() + i)));
}

VEIL_MLKEM_AVX2 void PolyToMont(Poly& r) {
  const V f = Set16(kMontR2ModQ);
  const V f_qinv = Set16(MulLo(kMontR2ModQ, kQInv));
  for (std::size_t i = 0; i < kN; i += 16) {
    Store(r.c.data() + i, FqMul(Load(r.c.data() + i), f, f_qinv));
  }
}

}  // namespace veil::crypto::mlkem::avx2

#endif  // VEIL_MLKEM_HAVE_AVX2
