// The variable-time multi-scalar multiplication on AVX-512 IFMA (internal to src/ec).
//
// Pippenger's bucket method with eight windows at a time, one in each 64-bit lane of a 512-bit
// register: every lane adds the same point, each to a bucket of its own window, so the lanes never
// collide and the point is one gather for all eight. Each lane walks its window's points sorted by
// bucket, from the highest down, adding them into a running sum and folding the running sum into
// the window's sum at each bucket's end (the running-sum trick as a stream of additions), so every
// lane performs exactly n + 2^(c-1) additions and the lanes stay in step. The field is radix 2^51
// in 52-bit multiply-accumulate instructions (vpmadd52luq / vpmadd52huq). docs/notes/ec.md has
// the layout, the bounds and the window rule.
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

}  // namespace veil::ec::internal
