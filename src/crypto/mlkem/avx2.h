// Hand-vectorised AVX2 versions of ML-KEM's arithmetic, sampling and encodings: 16 int16
// coefficients per 256-bit register, written with intrinsics inside target("avx2") functions
// (simd.h). Each routine computes exactly the values of its portable twin, which dispatches to it
// when UseAvx2(); the twins are named in the comments. Coefficients stay in the standard's order
// everywhere (the NTT shuffles inside its registers and restores the order before storing), so
// the packing, sampling and products agree with the portable code on every intermediate value,
// not only on the final bytes. docs/notes/mlkem.md ("Two code paths") describes the design.
//
// Constant time, as for the portable code: no branch or memory index depends on coefficient
// values, except RejectionSample, whose input is the public XOF output of rho (sampling.h).
//
// Thread safety: functions on caller-owned values; the tables are constants. Call only when
// UseAvx2() (or CpuHasAvx2() in tests).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "../keccak4x.h"
#include "params.h"
#include "poly.h"
#include "simd.h"

#if VEIL_MLKEM_HAVE_AVX2
#include <immintrin.h>

#include "reduce.h"
#endif

namespace veil::crypto::mlkem::avx2 {

#if VEIL_MLKEM_HAVE_AVX2

// ntt_avx2.cc: Ntt, InvNttToMont, BaseMulAccumulate (ntt.h), PolyMulCacheCompute, PolyAdd,
// PolySub, PolyReduce, PolyToMont (poly.h), with the same preconditions and results.
void Ntt(Poly& f);
void InvNttToMont(Poly& f_hat);
void BaseMulAccumulate(Poly& h_hat, const Poly* f_hat, const PolyMulCache* g_cache,
                       std::size_t count);
void PolyMulCacheCompute(PolyMulCache& cache, const Poly& g_hat);
void PolyAdd(Poly& r, const Poly& a, const Poly& b);
void PolySub(Poly& r, const Poly& a, const Poly& b);
void PolyReduce(Poly& r);
void PolyToMont(Poly& r);

// packing_avx2.cc: PolyToBytes, PolyFromBytes, PolyBytesAreCanonical, PolyCompress<10>,
// PolyCompress<4>, PolyDecompress<10>, PolyDecompress<4>, PolyFromMessage, PolyToMessage
// (packing.h).
void PolyToBytes(std::span<std::uint8_t, kPolyBytes> out, const Poly& a);
void PolyFromBytes(Poly& r, std::span<const std::uint8_t, kPolyBytes> in);
bool PolyBytesAreCanonical(std::span<const std::uint8_t, kPolyBytes> in);
void PolyCompress10(std::span<std::uint8_t, 320> out, const Poly& a);
void PolyCompress4(std::span<std::uint8_t, 128> out, const Poly& a);
void PolyDecompress10(Poly& r, std::span<const std::uint8_t, 320> in);
void PolyDecompress4(Poly& r, std::span<const std::uint8_t, 128> in);
void PolyFromMessage(Poly& r, std::span<const std::uint8_t, kSymBytes> m);
void PolyToMessage(std::span<std::uint8_t, kSymBytes> m, const Poly& w);

// sampling_avx2.cc: SamplePolyCBD_2 (SamplePolyCbd2 in sampling.h) and the rejection step of
// SampleNTT (Algorithm 7, lines 4-13): appends the candidates of buf below q to a[ctr..] and
// returns the new count, exactly as the portable loop does. buf.size() is a multiple of 3.
void SamplePolyCbd2(Poly& f, std::span<const std::uint8_t, 128> bytes);
std::size_t RejectionSample(Poly& a, std::size_t ctr, std::span<const std::uint8_t> buf);
// The first `words` 64-bit words of each of the four states, to out[n] (8 words bytes each):
// the squeeze of a SHAKE block for all four lanes at once, by 4 x 4 transposes.
void ReadLanes(const KeccakX4State& state, std::size_t words,
               const std::array<std::uint8_t*, 4>& out);

// Vector helpers shared by the files above.
namespace detail {

using V = __m256i;

[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline V Load(const std::int16_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const V*>(p));
}
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline void Store(std::int16_t* p, V v) {
  _mm256_storeu_si256(reinterpret_cast<V*>(p), v);
}
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline V Set16(std::int16_t x) {
  return _mm256_set1_epi16(x);
}

// b * zeta * 2^-16 mod q per lane, with zeta_qinv = zeta q^-1 mod 2^16: FqMulPrecomputed.
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline V FqMul(V b, V zeta, V zeta_qinv) {
  const V hi = _mm256_mulhi_epi16(b, zeta);
  const V t = _mm256_mullo_epi16(b, zeta_qinv);
  return _mm256_sub_epi16(hi, _mm256_mulhi_epi16(t, Set16(kQ)));
}

// BarrettReduce per lane: a - round(a / q) q, centred.
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline V Barrett(V a) {
  constexpr std::int16_t kV = ((1 << 26) + kQ / 2) / kQ;
  V t = _mm256_mulhi_epi16(a, Set16(kV));
  t = _mm256_srai_epi16(_mm256_add_epi16(t, Set16(1 << 9)), 10);
  return _mm256_sub_epi16(a, _mm256_mullo_epi16(t, Set16(kQ)));
}

// AddQIfNegative per lane: (-q, q) -> [0, q).
[[gnu::always_inline]] VEIL_MLKEM_AVX2 inline V AddQIfNegative(V a) {
  return _mm256_add_epi16(a, _mm256_and_si256(_mm256_srai_epi16(a, 15), Set16(kQ)));
}

}  // namespace detail

#endif  // VEIL_MLKEM_HAVE_AVX2

}  // namespace veil::crypto::mlkem::avx2
