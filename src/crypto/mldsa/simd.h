// Run-time selection of the AVX2 versions of the NTT and the NTT-domain products, and the vector
// Montgomery arithmetic they share.
//
// The library is built for baseline x86-64 (and other targets), so the AVX2 code is compiled per
// function with the target("avx2") attribute and chosen at run time from CPUID. Both versions
// compute exactly the same values (the tests compare them on random inputs); the AVX2 one handles
// eight coefficients per instruction. Like the portable code, it has no branch or memory index that
// depends on the data.
//
// Thread safety: UseAvx2() is safe from any thread. SetPortableOnlyForTesting is for tests and the
// constant-time check, called before any other thread uses ML-DSA.
#pragma once

#include <cstdint>

#include "../cpu.h"
#include "params.h"
#include "reduce.h"

#define VEIL_MLDSA_HAVE_AVX2 VEIL_HAVE_AVX2
#if VEIL_HAVE_AVX2
#include <immintrin.h>
#define VEIL_MLDSA_AVX2 VEIL_AVX2
#endif

namespace veil::crypto::mldsa {

// True when the CPU has AVX2 and the portable path has not been forced.
bool UseAvx2();
// Forces the portable code (true) or restores the run-time choice (false).
void SetPortableOnlyForTesting(bool portable_only);

#if VEIL_MLDSA_HAVE_AVX2
namespace avx2 {

// Montgomery reduction of four signed 64-bit lanes (even 32-bit positions of the result hold
// a * 2^-32 mod q, |r| < q, for |a| < 2^31 q), as MontgomeryReduce does for one value.
VEIL_MLDSA_AVX2 inline __m256i Reduce64(__m256i a) {
  const __m256i t = _mm256_mul_epi32(a, _mm256_set1_epi32(kQInv));         // low 32 bits: a q^-1
  return _mm256_sub_epi64(a, _mm256_mul_epi32(t, _mm256_set1_epi32(kQ)));  // high 32 bits: r
}

// Combines the results of Reduce64 on the even and the odd lanes into eight 32-bit lanes.
VEIL_MLDSA_AVX2 inline __m256i Combine(__m256i even, __m256i odd) {
  return _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}

// a_i * b_i * 2^-32 mod q in (-q, q) for each of eight lanes, |a_i b_i| < 2^31 q.
VEIL_MLDSA_AVX2 inline __m256i MontMul(__m256i a, __m256i b) {
  const __m256i even = _mm256_mul_epi32(a, b);
  const __m256i odd = _mm256_mul_epi32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32));
  return Combine(Reduce64(even), Reduce64(odd));
}

VEIL_MLDSA_AVX2 inline __m256i Load(const std::int32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
VEIL_MLDSA_AVX2 inline void Store(std::int32_t* p, __m256i v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

}  // namespace avx2
#endif

}  // namespace veil::crypto::mldsa
