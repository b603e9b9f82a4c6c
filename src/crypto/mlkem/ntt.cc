// NTT, inverse NTT and base-case multiplication (FIPS 203 sec. 4.3); see ntt.h for the ranges.
//
// Each layer is a template on its butterfly distance, so every inner loop has a trip count known at
// compile time and the compiler can vectorise the wide layers with the baseline SIMD of the target
// (SSE2 on x86-64) without any intrinsics here. With AVX2 (simd.h) the hand-vectorised versions of
// ntt_avx2.cc run instead; they compute the same values.
#include "ntt.h"

#include "avx2.h"
#include "simd.h"

namespace veil::crypto::mlkem {
namespace {

// zeta * q^-1 mod 2^16 for each twiddle factor, for FqMulPrecomputed.
constexpr std::array<std::int16_t, 128> kZetasQInv = [] {
  std::array<std::int16_t, 128> z{};
  for (std::size_t i = 0; i < 128; ++i) z[i] = MulLo(kZetas[i], kQInv);
  return z;
}();

// One layer of Algorithm 9 with len = kLen: blocks b = 0 .. 128/kLen - 1 use zeta index
// 128/kLen + b (the standard's i, counting up from 1 over all layers).
template <std::size_t kLen>
[[gnu::always_inline]] inline void NttLayer(std::array<std::int16_t, kN>& c) {
  constexpr std::size_t kBlocks = kN / (2 * kLen);
  for (std::size_t b = 0; b < kBlocks; ++b) {
    const std::int16_t zeta = kZetas[kBlocks + b];
    const std::int16_t zeta_qinv = kZetasQInv[kBlocks + b];
    std::int16_t* lo = c.data() + 2 * kLen * b;
    std::int16_t* hi = lo + kLen;
    for (std::size_t j = 0; j < kLen; ++j) {
      const std::int16_t t = FqMulPrecomputed(hi[j], zeta, zeta_qinv);
      hi[j] = static_cast<std::int16_t>(lo[j] - t);
      lo[j] = static_cast<std::int16_t>(lo[j] + t);
    }
  }
}

// One layer of Algorithm 10 with len = kLen: the standard's i counts down from 127 over all layers,
// so block b of this layer uses zeta index 2 * 128/kLen - 1 - b.
template <std::size_t kLen>
[[gnu::always_inline]] inline void InvNttLayer(std::array<std::int16_t, kN>& c) {
  constexpr std::size_t kBlocks = kN / (2 * kLen);
  for (std::size_t b = 0; b < kBlocks; ++b) {
    const std::int16_t zeta = kZetas[2 * kBlocks - 1 - b];
    const std::int16_t zeta_qinv = kZetasQInv[2 * kBlocks - 1 - b];
    std::int16_t* lo = c.data() + 2 * kLen * b;
    std::int16_t* hi = lo + kLen;
    for (std::size_t j = 0; j < kLen; ++j) {
      const std::int16_t t = lo[j];
      lo[j] = BarrettReduce(static_cast<std::int16_t>(t + hi[j]));
      hi[j] = FqMulPrecomputed(static_cast<std::int16_t>(hi[j] - t), zeta, zeta_qinv);
    }
  }
}

[[gnu::always_inline]] inline void NttBody(Poly& f) {
  NttLayer<128>(f.c);
  NttLayer<64>(f.c);
  NttLayer<32>(f.c);
  NttLayer<16>(f.c);
  NttLayer<8>(f.c);
  NttLayer<4>(f.c);
  NttLayer<2>(f.c);
}

[[gnu::always_inline]] inline void InvNttBody(Poly& f_hat) {
  InvNttLayer<2>(f_hat.c);
  InvNttLayer<4>(f_hat.c);
  InvNttLayer<8>(f_hat.c);
  InvNttLayer<16>(f_hat.c);
  InvNttLayer<32>(f_hat.c);
  InvNttLayer<64>(f_hat.c);
  InvNttLayer<128>(f_hat.c);
  // R^2 / 128 mod q: a Montgomery multiplication by it multiplies by 128^-1 * R.
  constexpr std::int16_t kF = 1441;
  static_assert((static_cast<std::int64_t>(kF) * 128) % kQ == kMontR2ModQ);
  constexpr std::int16_t kFQInv = MulLo(kF, kQInv);
  for (auto& x : f_hat.c) x = FqMulPrecomputed(x, kF, kFQInv);
}

[[gnu::always_inline]] inline void BaseMulBody(Poly& h_hat, const Poly* f_hat,
                                               const PolyMulCache* g_cache, std::size_t count) {
  // Algorithm 12 for every pair (2i, 2i+1), summed over `count` products in 32 bits before one
  // Montgomery reduction per coefficient: c0 = a0 b0 + a1 (b1 gamma_i), c1 = a0 b1 + a1 b0.
  std::array<std::int32_t, kN / 2> c0{};
  std::array<std::int32_t, kN / 2> c1{};
  for (std::size_t k = 0; k < count; ++k) {
    const std::int16_t* a = f_hat[k].c.data();
    const std::int16_t* g0 = g_cache[k].g0.data();
    const std::int16_t* g1 = g_cache[k].g1.data();
    for (std::size_t i = 0; i < kN / 2; ++i) {
      const std::int32_t a0 = a[2 * i];
      const std::int32_t a1 = a[2 * i + 1];
      c0[i] += a0 * g0[2 * i] + a1 * g0[2 * i + 1];
      c1[i] += a0 * g1[2 * i] + a1 * g1[2 * i + 1];
    }
  }
  for (std::size_t i = 0; i < kN / 2; ++i) {
    h_hat.c[2 * i] = MontgomeryReduce(c0[i]);
    h_hat.c[2 * i + 1] = MontgomeryReduce(c1[i]);
  }
}

}  // namespace

void NttPortable(Poly& f) { NttBody(f); }
void InvNttToMontPortable(Poly& f_hat) { InvNttBody(f_hat); }
void BaseMulAccumulatePortable(Poly& h_hat, const Poly* f_hat, const PolyMulCache* g_cache,
                               std::size_t count) {
  BaseMulBody(h_hat, f_hat, g_cache, count);
}

void Ntt(Poly& f) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::Ntt(f);
#endif
  NttPortable(f);
}

void InvNttToMont(Poly& f_hat) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::InvNttToMont(f_hat);
#endif
  InvNttToMontPortable(f_hat);
}

void BaseMulAccumulate(Poly& h_hat, const Poly* f_hat, const PolyMulCache* g_cache,
                       std::size_t count) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::BaseMulAccumulate(h_hat, f_hat, g_cache, count);
#endif
  BaseMulAccumulatePortable(h_hat, f_hat, g_cache, count);
}

}  // namespace veil::crypto::mlkem
