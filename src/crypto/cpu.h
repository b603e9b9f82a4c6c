// Compile-time and run-time CPU feature selection shared by the primitives that have vector code
// paths (the 4-way Keccak, ML-KEM, ML-DSA).
//
// The library is built for baseline x86-64, so AVX2 code is compiled per function with the
// target("avx2") attribute (VEIL_AVX2) and chosen at run time from CPUID (CpuHasAvx2).
//
// Thread safety: CpuHasAvx2() is safe from any thread.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define VEIL_HAVE_AVX2 1
#define VEIL_AVX2 __attribute__((target("avx2")))
#else
#define VEIL_HAVE_AVX2 0
#endif

namespace veil::crypto {

// True when the CPU has AVX2 and the OS saves its registers; false where VEIL_HAVE_AVX2 is 0.
inline bool CpuHasAvx2() {
#if VEIL_HAVE_AVX2
  static const bool kHasAvx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return kHasAvx2;
#else
  return false;
#endif
}

}  // namespace veil::crypto
