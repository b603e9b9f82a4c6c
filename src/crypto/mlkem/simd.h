// Run-time selection of the AVX2 code paths of ML-KEM.
//
// The library is built for baseline x86-64, so AVX2 code is compiled per function with the
// target("avx2") attribute and chosen at run time from CPUID. With AVX2, ML-KEM runs four
// Keccak-f[1600] permutations at once (../keccak4x.h) for SampleNTT, the PRF and J, and
// hand-vectorised arithmetic (avx2.h: NTT, inverse NTT, base multiplication, reductions, CBD,
// rejection sampling, compression and packing) on 16 coefficients per instruction. Both paths
// compute exactly the same values; the tests compare every AVX2 routine with its portable twin on
// random and extreme inputs and run every vector file on both. Neither has a branch or memory index
// that depends on secret data.
//
// Thread safety: UseAvx2() is safe from any thread. SetPortableOnlyForTesting is for tests and the
// constant-time check, called before any other thread uses ML-KEM.
#pragma once

#include <atomic>

#include "../cpu.h"

#define VEIL_MLKEM_HAVE_AVX2 VEIL_HAVE_AVX2
#if VEIL_HAVE_AVX2
#define VEIL_MLKEM_AVX2 VEIL_AVX2
#endif

namespace veil::crypto::mlkem {

namespace internal {
// Set by SetPortableOnlyForTesting; read on every dispatch, so UseAvx2() is inline and cheap.
inline std::atomic<bool> g_portable_only{false};
}  // namespace internal

// True when the CPU has AVX2 (and the OS saves its registers) and the portable path has not been
// forced.
inline bool UseAvx2() {
  return CpuHasAvx2() && !internal::g_portable_only.load(std::memory_order_relaxed);
}
// Forces the portable code (true) or restores the run-time choice (false).
void SetPortableOnlyForTesting(bool portable_only);

}  // namespace veil::crypto::mlkem
