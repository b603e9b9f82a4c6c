// Run-time selection of the AVX2 code paths of ML-KEM.
//
// The library is built for baseline x86-64, so AVX2 code is compiled per function with the
// target("avx2") attribute and chosen at run time from CPUID. Two things run faster with it: four
// Keccak-f[1600] permutations at once (../keccak4x.h), used by SampleNTT for four matrix entries and
// by the PRF for four noise polynomials at a time; and the NTT, inverse NTT and base
// multiplication, whose portable loops are compiled a second time for AVX2 (16 coefficients per
// instruction instead of 8). Both paths compute exactly the same values; the tests compare them on
// random inputs and run every vector file on both. Neither has a branch or memory index that
// depends on secret data.
//
// Thread safety: UseAvx2() is safe from any thread. SetPortableOnlyForTesting is for tests and the
// constant-time check, called before any other thread uses ML-KEM.
#pragma once

#include "../cpu.h"

#define VEIL_MLKEM_HAVE_AVX2 VEIL_HAVE_AVX2
#if VEIL_HAVE_AVX2
#define VEIL_MLKEM_AVX2 VEIL_AVX2
#endif

namespace veil::crypto::mlkem {

// True when the CPU has AVX2 (and the OS saves its registers) and the portable path has not been
// forced.
bool UseAvx2();
// Forces the portable code (true) or restores the run-time choice (false).
void SetPortableOnlyForTesting(bool portable_only);

}  // namespace veil::crypto::mlkem
