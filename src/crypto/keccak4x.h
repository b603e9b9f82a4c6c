// Four Keccak-f[1600] permutations at once with AVX2, and four SHAKE instances on one-block inputs:
// ML-KEM's SHAKE128(rho || j || i) for SampleNTT and SHAKE256(s || b) for PRF_eta (FIPS 203
// sec. 4.1), ML-DSA's ExpandA, ExpandS and ExpandMask (FIPS 204 sec. 7.3).
//
// The four states are interleaved lane by lane (lane w of instance n at s[w][n]), so one 256-bit
// register holds the same lane of all four, and each step of the permutation (FIPS 202 sec. 3.2)
// is one vector instruction for four. Only inputs shorter than one block are supported: each fits in
// one block, so absorbing is writing the padded block into the state. Like the scalar Keccak, no
// branch or address depends on the data. Available only where cpu.h says AVX2 can be compiled;
// call only when CpuHasAvx2().
//
// Thread safety: functions on caller-owned values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "cpu.h"

namespace veil::crypto {

struct alignas(32) KeccakX4State {
  std::array<std::array<std::uint64_t, 4>, 25> s;
};

#if VEIL_HAVE_AVX2
// Keccak-f[1600] on each of the four states.
void KeccakF1600X4Avx2(KeccakX4State& state);

// Absorbs a different input of `len` < rate bytes into each of four fresh states: writes it with
// the SHAKE padding (suffix 1111, then pad10*1) for the given rate. The permutation comes with the
// first squeeze, as in the scalar sponge.
void ShakeX4AbsorbOnceAvx2(KeccakX4State& state, std::size_t rate,
                           const std::array<const std::uint8_t*, 4>& in, std::size_t len);
// Permutes, then copies the first `len` <= rate bytes of each state's rate part to out[n]. Calls
// with len == rate continue each output stream block by block.
void ShakeX4SqueezeBlockAvx2(KeccakX4State& state, std::size_t rate,
                             const std::array<std::uint8_t*, 4>& out, std::size_t len);
#endif

}  // namespace veil::crypto
