// SampleNTT and SamplePolyCBD_2 (see sampling.h).
#include "sampling.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "../keccak4x.h"
#include "avx2.h"
#include "simd.h"
#include "veil/crypto/keccak.h"
#include "veil/crypto/secret.h"

namespace veil::crypto::mlkem {

// While at least two slots are free, each candidate is stored unconditionally and the count
// advances by the comparison, which avoids a branch misprediction on every fifth candidate; the
// last slots are filled with explicit tests.
std::size_t RejectionSamplePortable(Poly& a, std::size_t ctr, std::span<const std::uint8_t> buf) {
  std::size_t pos = 0;
  for (; ctr + 2 <= kN && pos + 3 <= buf.size(); pos += 3) {
    const std::uint16_t c0 = buf[pos];
    const std::uint16_t c1 = buf[pos + 1];
    const std::uint16_t c2 = buf[pos + 2];
    const auto d1 =
        static_cast<std::uint16_t>((c0 | (c1 << 8)) & 0xFFF);           // C[0] + 256 (C[1] mod 16)
    const auto d2 = static_cast<std::uint16_t>((c1 >> 4) | (c2 << 4));  // floor(C[1]/16) + 16 C[2]
    a.c[ctr] = static_cast<std::int16_t>(d1);
    ctr += d1 < kQ ? 1 : 0;
    a.c[ctr] = static_cast<std::int16_t>(d2);
    ctr += d2 < kQ ? 1 : 0;
  }
  for (; ctr < kN && pos + 3 <= buf.size(); pos += 3) {
    const std::uint16_t c0 = buf[pos];
    const std::uint16_t c1 = buf[pos + 1];
    const std::uint16_t c2 = buf[pos + 2];
    const auto d1 = static_cast<std::uint16_t>((c0 | (c1 << 8)) & 0xFFF);
    const auto d2 = static_cast<std::uint16_t>((c1 >> 4) | (c2 << 4));
    if (d1 < kQ) a.c[ctr++] = static_cast<std::int16_t>(d1);
    if (d2 < kQ && ctr < kN) a.c[ctr++] = static_cast<std::int16_t>(d2);
  }
  return ctr;
}

namespace {

std::size_t RejectionSample(Poly& a, std::size_t ctr, std::span<const std::uint8_t> buf) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::RejectionSample(a, ctr, buf);
#endif
  return RejectionSamplePortable(a, ctr, buf);
}

}  // namespace

void SampleNtt(Poly& a_hat, std::span<const std::uint8_t, kSymBytes> rho, std::uint8_t j,
               std::uint8_t i) {
  Shake128 xof;
  xof.Absorb(rho);
  const std::array<std::uint8_t, 2> ji = {j, i};
  xof.Absorb(ji);
  // 504 bytes give 336 candidates, each accepted with probability q / 4096 ~ 0.81.
  std::array<std::uint8_t, 3 * Shake128::kBlockSize> buf;
  xof.SqueezeBlocks(buf);
  std::size_t ctr = RejectionSample(a_hat, 0, buf);
  const auto block = std::span(buf).first<Shake128::kBlockSize>();
  while (ctr < kN) {
    xof.SqueezeBlocks(block);
    ctr = RejectionSample(a_hat, ctr, block);
  }
}

void SamplePolyCbd2(Poly& f, std::span<const std::uint8_t, 128> bytes) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::SamplePolyCbd2(f, bytes);
#endif
  // Algorithm 8 with eta = 2: f_i = (b_4i + b_4i+1) - (b_4i+2 + b_4i+3), bits b of the input taken
  // little-endian. Eight coefficients per 32-bit word: pairwise bit sums first, then differences.
  for (std::size_t w = 0; w < kN / 8; ++w) {
    const std::uint32_t t = static_cast<std::uint32_t>(bytes[4 * w]) |
                            (static_cast<std::uint32_t>(bytes[4 * w + 1]) << 8) |
                            (static_cast<std::uint32_t>(bytes[4 * w + 2]) << 16) |
                            (static_cast<std::uint32_t>(bytes[4 * w + 3]) << 24);
    const std::uint32_t d = (t & 0x55555555u) + ((t >> 1) & 0x55555555u);  // 2-bit sums
    for (std::size_t k = 0; k < 8; ++k) {
      const auto x = static_cast<std::int16_t>((d >> (4 * k)) & 3u);
      const auto y = static_cast<std::int16_t>((d >> (4 * k + 2)) & 3u);
      f.c[8 * w + k] = static_cast<std::int16_t>(x - y);
    }
  }
}

template <unsigned kEta>
void SamplePolyCbdPrf(Poly& f, std::span<const std::uint8_t, kSymBytes> s, std::uint8_t b) {
  static_assert(kEta == 2, "only eta = 2 (ML-KEM-768) is implemented");
  Shake256 prf;
  prf.Absorb(s);
  prf.Absorb(std::span<const std::uint8_t, 1>(&b, 1));
  std::array<std::uint8_t, 64 * kEta> buf;
  prf.Squeeze(buf);
  SamplePolyCbd2(f, buf);
  SecureWipe(buf.data(), buf.size());
}

namespace {

#if VEIL_MLKEM_HAVE_AVX2
// Lane n of a KeccakX4State as a sponge of its own (keccak4x.h: word w of instance n is
// s[w][n]; Keccak's byte order is little-endian, as is x86).
//
// Starts lane n as a fresh SHAKE instance of the given rate on the one-block input
// prefix || suffix (32 + 1 or 2 bytes): the state is that block with the suffix 1111 and pad10*1
// (FIPS 202 sec. 6.2, B.2), every other word zero.
void LaneStart(KeccakX4State& state, std::size_t n, std::span<const std::uint8_t, kSymBytes> prefix,
               std::span<const std::uint8_t> suffix, std::size_t rate) {
  for (auto& word : state.s) word[n] = 0;
  for (std::size_t w = 0; w < kSymBytes / 8; ++w) {
    std::memcpy(&state.s[w][n], prefix.data() + 8 * w, 8);
  }
  std::uint64_t last = 0x1F;
  for (std::size_t i = suffix.size(); i-- > 0;) last = (last << 8) | suffix[i];
  state.s[kSymBytes / 8][n] = last;
  state.s[rate / 8 - 1][n] ^= std::uint64_t{0x80} << 56;
}
void LaneXor(KeccakX4State& state, std::size_t n, std::span<const std::uint8_t> block) {
  for (std::size_t w = 0; w < block.size() / 8; ++w) {
    std::uint64_t x;
    std::memcpy(&x, block.data() + 8 * w, 8);
    state.s[w][n] ^= x;
  }
}

// Every job of SampleMany on the x4 permutation. Each lane runs one job at a time and takes the
// next one when it finishes: first the extra SHAKE256 (the longest, one block per permutation),
// then the SampleNTT jobs (three or four blocks each), then the PRF jobs (one block). Lanes are
// independent, so which jobs share a permutation changes no output. The schedule depends on the
// XOF output of rho (public) and on lengths only; the secret inputs (PRF seeds, the extra input)
// are only copied and XORed, and everything secret is wiped at the end.
void SampleManyX4(std::span<const SampleNttJob> matrix,
                  std::span<const std::uint8_t, kSymBytes> rho, std::span<Poly* const> noise,
                  std::span<const std::uint8_t, kSymBytes> s, std::uint8_t b,
                  const Shake256Job* extra) {
  enum class Kind : std::uint8_t { kIdle, kMatrix, kNoise, kExtra };
  struct Lane {
    Kind kind = Kind::kIdle;
    std::size_t job = 0;
    std::size_t ctr = 0;  // SampleNTT: coefficients accepted so far
  };
  constexpr std::size_t kRate128 = Shake128::kBlockSize;
  constexpr std::size_t kRate256 = Shake256::kBlockSize;
  std::array<Lane, 4> lanes{};
  KeccakX4State state{};
  std::array<std::uint8_t, kRate256> block;  // a block of the extra input
  // After each permutation: the first kRate128 bytes of every lane.
  std::array<std::array<std::uint8_t, kRate128>, 4> squeezed;
  const std::array<std::uint8_t*, 4> squeezed_ptr = {squeezed[0].data(), squeezed[1].data(),
                                                     squeezed[2].data(), squeezed[3].data()};
  std::size_t next_matrix = 0;
  std::size_t next_noise = 0;
  // The extra job: bytes absorbed so far, whether the final (padded) block is in.
  bool extra_waiting = extra != nullptr;
  std::size_t extra_pos = 0;
  bool extra_final = false;
  const std::size_t extra_len = extra != nullptr ? extra->in[0].size() + extra->in[1].size() : 0;

  // Absorbs the next block of in[0] || in[1] into lane n: a full one, or the final padded one.
  const auto absorb_extra = [&](std::size_t n) {
    const auto out = std::span(block);
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    const std::size_t take = std::min(kRate256, extra_len - extra_pos);
    const std::span<const std::uint8_t> in0 = extra->in[0];
    const std::span<const std::uint8_t> in1 = extra->in[1];
    const std::size_t from0 = std::min(take, in0.size() - std::min(extra_pos, in0.size()));
    if (from0 > 0) std::memcpy(out.data(), in0.data() + extra_pos, from0);
    if (take > from0) {
      std::memcpy(out.data() + from0, in1.data() + (extra_pos + from0 - in0.size()), take - from0);
    }
    extra_pos += take;
    if (take < kRate256) {
      out[take] = 0x1F;
      out[kRate256 - 1] |= 0x80;
      extra_final = true;
    }
    LaneXor(state, n, out);
  };
  // Starts the next job on idle lane n, if any is left.
  const auto start = [&](std::size_t n) {
    Lane& lane = lanes[n];
    if (extra_waiting) {
      extra_waiting = false;
      lane = {Kind::kExtra, 0, 0};
      for (auto& word : state.s) word[n] = 0;
      absorb_extra(n);
    } else if (next_matrix < matrix.size()) {
      lane = {Kind::kMatrix, next_matrix, 0};
      const SampleNttJob& job = matrix[next_matrix++];
      const std::array<std::uint8_t, 2> ji = {job.b0, job.b1};
      LaneStart(state, n, rho, ji, kRate128);
    } else if (next_noise < noise.size()) {
      lane = {Kind::kNoise, next_noise, 0};
      const std::array<std::uint8_t, 1> nonce = {static_cast<std::uint8_t>(b + next_noise++)};
      LaneStart(state, n, s, nonce, kRate256);
    }
  };

  for (;;) {
    bool busy = false;
    for (std::size_t n = 0; n < 4; ++n) {
      if (lanes[n].kind == Kind::kIdle) start(n);
      busy |= lanes[n].kind != Kind::kIdle;
    }
    if (!busy) break;
    KeccakF1600X4Avx2(state);
    avx2::ReadLanes(state, kRate128 / 8, squeezed_ptr);
    for (std::size_t n = 0; n < 4; ++n) {
      Lane& lane = lanes[n];
      switch (lane.kind) {
        case Kind::kIdle:
          break;
        case Kind::kMatrix:  // one squeezed block: 56 more candidates
          lane.ctr = RejectionSample(*matrix[lane.job].a_hat, lane.ctr, squeezed[n]);
          if (lane.ctr == kN) lane.kind = Kind::kIdle;
          break;
        case Kind::kNoise:
          SamplePolyCbd2(*noise[lane.job], std::span(squeezed[n]).first<64 * 2>());
          lane.kind = Kind::kIdle;
          break;
        case Kind::kExtra:
          if (extra_final) {
            std::copy_n(squeezed[n].begin(), extra->out.size(), extra->out.begin());
            lane.kind = Kind::kIdle;
          } else {
            absorb_extra(n);
          }
          break;
      }
    }
  }
  SecureWipe(&state, sizeof state);
  SecureWipe(block.data(), block.size());
  SecureWipe(squeezed.data(), sizeof squeezed);
}
#endif

}  // namespace

void SampleMany(std::span<const SampleNttJob> matrix, std::span<const std::uint8_t, kSymBytes> rho,
                std::span<Poly* const> noise, std::span<const std::uint8_t, kSymBytes> s,
                std::uint8_t b, const Shake256Job* extra) {
#if VEIL_MLKEM_HAVE_AVX2
  // One x4 permutation costs less than two scalar ones: worth it from two jobs on.
  if (UseAvx2() && matrix.size() + noise.size() + (extra != nullptr ? 1 : 0) >= 2) {
    return SampleManyX4(matrix, rho, noise, s, b, extra);
  }
#endif
  for (const SampleNttJob& job : matrix) SampleNtt(*job.a_hat, rho, job.b0, job.b1);
  for (std::size_t n = 0; n < noise.size(); ++n) {
    SamplePolyCbdPrf<2>(*noise[n], s, static_cast<std::uint8_t>(b + n));
  }
  if (extra != nullptr) {
    Shake256 j;
    j.Absorb(extra->in[0]);
    j.Absorb(extra->in[1]);
    j.Squeeze(extra->out);
  }
}

void SampleNttMany(std::span<const SampleNttJob> jobs,
                   std::span<const std::uint8_t, kSymBytes> rho) {
  SampleMany(jobs, rho, {}, rho, 0, nullptr);
}

template <unsigned kEta>
void SamplePolyCbdPrfMany(std::span<Poly* const> f, std::span<const std::uint8_t, kSymBytes> s,
                          std::uint8_t b) {
  static_assert(kEta == 2, "only eta = 2 (ML-KEM-768) is implemented");
  SampleMany({}, s, f, s, b, nullptr);
}

template void SamplePolyCbdPrf<2>(Poly&, std::span<const std::uint8_t, kSymBytes>, std::uint8_t);
template void SamplePolyCbdPrfMany<2>(std::span<Poly* const>,
                                      std::span<const std::uint8_t, kSymBytes>, std::uint8_t);

}  // namespace veil::crypto::mlkem
