// SampleNTT and SamplePolyCBD_2 (see sampling.h).
#include "sampling.h"

#include <algorithm>
#include <array>

#include "../keccak4x.h"
#include "simd.h"
#include "veil/crypto/keccak.h"
#include "veil/crypto/secret.h"

namespace veil::crypto::mlkem {
namespace {

// Algorithm 7, lines 4-13, over buf: appends accepted values to a[ctr..], returns the new ctr.
// Branches on the XOF output, which depends only on the public rho (sampling.h). While at least two
// slots are free, each candidate is stored unconditionally and the count advances by the
// comparison, which avoids a branch misprediction on every fifth candidate; the last slots are
// filled with explicit tests.
std::size_t RejectionSample(Poly& a, std::size_t ctr, std::span<const std::uint8_t> buf) {
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

void SampleNttMany(std::span<const SampleNttJob> jobs,
                   std::span<const std::uint8_t, kSymBytes> rho) {
  std::size_t done = 0;
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) {
    // Up to four XOF streams side by side (one x4 permutation costs less than two scalar ones):
    // three blocks each first, then one more block for all while any of them still needs values
    // (rho is public; see sampling.h). Unused streams of a partial batch repeat the first input.
    while (done + 2 <= jobs.size()) {
      const std::size_t count = std::min<std::size_t>(4, jobs.size() - done);
      std::array<std::array<std::uint8_t, kSymBytes + 2>, 4> seeds;
      std::array<const std::uint8_t*, 4> in;
      for (std::size_t n = 0; n < 4; ++n) {
        const SampleNttJob& job = jobs[done + (n < count ? n : 0)];
        std::copy(rho.begin(), rho.end(), seeds[n].begin());
        seeds[n][kSymBytes] = job.b0;
        seeds[n][kSymBytes + 1] = job.b1;
        in[n] = seeds[n].data();
      }
      KeccakX4State state;
      ShakeX4AbsorbOnceAvx2(state, Shake128::kBlockSize, in, kSymBytes + 2);
      std::array<std::array<std::uint8_t, 3 * Shake128::kBlockSize>, 4> buf;
      std::array<std::uint8_t*, 4> out;
      for (std::size_t block = 0; block < 3; ++block) {
        for (std::size_t n = 0; n < 4; ++n) out[n] = buf[n].data() + block * Shake128::kBlockSize;
        ShakeX4SqueezeBlockAvx2(state, Shake128::kBlockSize, out, Shake128::kBlockSize);
      }
      std::array<std::size_t, 4> ctr = {kN, kN, kN, kN};  // unused streams count as done
      for (std::size_t n = 0; n < count; ++n) {
        ctr[n] = RejectionSample(*jobs[done + n].a_hat, 0, buf[n]);
      }
      while (ctr[0] < kN || ctr[1] < kN || ctr[2] < kN || ctr[3] < kN) {
        for (std::size_t n = 0; n < 4; ++n) out[n] = buf[n].data();
        ShakeX4SqueezeBlockAvx2(state, Shake128::kBlockSize, out, Shake128::kBlockSize);
        for (std::size_t n = 0; n < count; ++n) {
          ctr[n] = RejectionSample(*jobs[done + n].a_hat, ctr[n],
                                   std::span(buf[n]).first(Shake128::kBlockSize));
        }
      }
      done += count;
    }
  }
#endif
  for (; done < jobs.size(); ++done) {
    SampleNtt(*jobs[done].a_hat, rho, jobs[done].b0, jobs[done].b1);
  }
}

template <unsigned kEta>
void SamplePolyCbdPrfMany(std::span<Poly* const> f, std::span<const std::uint8_t, kSymBytes> s,
                          std::uint8_t b) {
  static_assert(kEta == 2, "only eta = 2 (ML-KEM-768) is implemented");
  std::size_t done = 0;
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) {
    // One x4 permutation costs less than two scalar ones.
    while (done + 2 <= f.size()) {
      const std::size_t count = std::min<std::size_t>(4, f.size() - done);
      std::array<std::array<std::uint8_t, kSymBytes + 1>, 4> inputs;
      std::array<const std::uint8_t*, 4> in;
      for (std::size_t n = 0; n < 4; ++n) {
        std::copy(s.begin(), s.end(), inputs[n].begin());
        inputs[n][kSymBytes] = static_cast<std::uint8_t>(b + done + n);
        in[n] = inputs[n].data();
      }
      KeccakX4State state;
      ShakeX4AbsorbOnceAvx2(state, Shake256::kBlockSize, in, kSymBytes + 1);
      std::array<std::array<std::uint8_t, 64 * kEta>, 4> buf;
      const std::array<std::uint8_t*, 4> out = {buf[0].data(), buf[1].data(), buf[2].data(),
                                                buf[3].data()};
      ShakeX4SqueezeBlockAvx2(state, Shake256::kBlockSize, out, 64 * kEta);
      for (std::size_t n = 0; n < count; ++n) SamplePolyCbd2(*f[done + n], buf[n]);
      SecureWipe(inputs.data(), sizeof inputs);
      SecureWipe(buf.data(), sizeof buf);
      SecureWipe(&state, sizeof state);
      done += count;
    }
  }
#endif
  for (; done < f.size(); ++done) {
    SamplePolyCbdPrf<kEta>(*f[done], s, static_cast<std::uint8_t>(b + done));
  }
}

template void SamplePolyCbdPrf<2>(Poly&, std::span<const std::uint8_t, kSymBytes>, std::uint8_t);
template void SamplePolyCbdPrfMany<2>(std::span<Poly* const>,
                                      std::span<const std::uint8_t, kSymBytes>, std::uint8_t);

}  // namespace veil::crypto::mlkem
