// The variable-time multi-scalar multiplication on AVX-512 IFMA (internal to src/ec).
//
// Pippenger's bucket method with eight windows at a time, one in each 64-bit lane of a 512-bit
// register. Each lane walks its own window's points sorted by bucket, from the highest down,
// adding them into a running sum and folding the running sum into the window's sum at each
// bucket's end (the running-sum trick as a stream of additions), so every lane performs exactly
// n + 2^(c-1) additions and the lanes stay in step; a step reads eight table rows, one a lane.
// The field is radix 2^51 in 52-bit multiply-accumulate instructions (vpmadd52luq / vpmadd52huq).
// docs/notes/ec.md has the layout, the bounds and the window rule.
//
// The code is compiled per function with a target attribute and chosen at run time from CPUID, so
// the library still runs on any x86-64 (and elsewhere, where this backend is absent).
#pragma once

#include <span>

#include "edwards.h"
#include "veil/ec/scalar.h"

namespace veil::ec::internal {

// True when the CPU has AVX-512 F, VL, DQ and IFMA, the OS saves their registers, and the
// environment does not turn the backend off (VEIL_EC_AVX512=0). Safe from any thread.
bool HaveAvx512Ifma();

// sum s_j P_j. Requires HaveAvx512Ifma() (aborts otherwise). Variable time: public data only.
Extended PippengerAvx512(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points);

// For tests: the eight-lane field's operations on a and b in every lane, returned from lane 0 (and
// checked to agree across the lanes). Preconditions as in msm_avx512.cc: Mul takes limbs below
// 2^52; Sub takes a below 2^62 and b at most 2^52 - 38 in limb 0 and 2^52 - 2 above; Add takes
// both below 2^62. Requires HaveAvx512Ifma().
struct Avx512FieldResults {
  Fe25519 mul, add, sub;
};
Avx512FieldResults Avx512FieldForTest(const Fe25519& a, const Fe25519& b);

}  // namespace veil::ec::internal
