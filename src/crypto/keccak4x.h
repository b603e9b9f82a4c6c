// Four Keccak-f[1600] permutations at once with AVX2, and four SHAKE instances on one-block inputs:
// ML-KEM's SHAKE128(rho || j || i) for SampleNTT and SHAKE256(s || b) for PRF_eta (FIPS 203
// sec. 4.1), ML-DSA's ExpandA, ExpandS and ExpandMask (FIPS 204 sec. 7.3). ShakeX4RejectionSample
// drives four such streams into per-stream rejection samplers, block by block.
//
// The four states are interleaved lane by lane (lane w of instance n at s[w][n]), so one 256-bit
// register holds the same lane of all four, and each step of the permutation (FIPS 202 sec. 3.2)
// is one vector instruction for four. Only inputs shorter than one block are supported: each fits
// in one block, so absorbing is writing the padded block into the state. Like the scalar Keccak, no
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
#include "veil/crypto/secret.h"

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

// Four SHAKE streams feeding four rejection samplers (ML-DSA's RejNTTPoly and RejBoundedPoly):
// absorbs in[n] (`len` < kRate bytes each), squeezes kFirstBlocks blocks of every stream and calls
// sample(n, bytes) for each n < count; then, while any of those streams is unfinished, squeezes one
// more block of all four and hands each unfinished stream its new block. sample returns true once
// stream n needs no more output. Streams count..3 are computed (a caller repeats a real input
// there) but never sampled. The squeezed bytes and the states are wiped before returning, so the
// streams may be secret; sample's answers then steer branches here and must be public (a sampler on
// a secret seed declassifies its verdicts, as the scalar one does).
template <std::size_t kRate, std::size_t kFirstBlocks, class Sample>
void ShakeX4RejectionSampleAvx2(const std::array<const std::uint8_t*, 4>& in, std::size_t len,
                                std::size_t count, Sample&& sample) {
  KeccakX4State state;
  ShakeX4AbsorbOnceAvx2(state, kRate, in, len);
  std::array<std::array<std::uint8_t, kFirstBlocks * kRate>, 4> buf;
  std::array<std::uint8_t*, 4> out;
  for (std::size_t block = 0; block < kFirstBlocks; ++block) {
    for (std::size_t n = 0; n < 4; ++n) out[n] = buf[n].data() + block * kRate;
    ShakeX4SqueezeBlockAvx2(state, kRate, out, kRate);
  }
  std::array<bool, 4> done = {true, true, true, true};
  bool all_done = true;
  for (std::size_t n = 0; n < count; ++n) {
    done[n] = sample(n, std::span<const std::uint8_t>(buf[n]));
    all_done = all_done && done[n];
  }
  while (!all_done) {
    for (std::size_t n = 0; n < 4; ++n) out[n] = buf[n].data();
    ShakeX4SqueezeBlockAvx2(state, kRate, out, kRate);
    all_done = true;
    for (std::size_t n = 0; n < count; ++n) {
      if (!done[n]) done[n] = sample(n, std::span<const std::uint8_t>(buf[n]).first(kRate));
      all_done = all_done && done[n];
    }
  }
  SecureWipe(buf.data(), sizeof buf);
  SecureWipe(&state, sizeof state);
}
#endif

}  // namespace veil::crypto
