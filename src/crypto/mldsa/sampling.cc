// ExpandA, ExpandS, ExpandMask and SampleInBall (FIPS 204 sec. 7.3); see sampling.h for the
// constant-time argument.
#include "sampling.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>

#include "../keccak4x.h"
#include "packing.h"
#include "simd.h"
#include "veil/base/consttime.h"
#include "veil/base/status.h"
#include "veil/crypto/keccak.h"
#include "veil/crypto/secret.h"

namespace veil::crypto::mldsa {
namespace {

// The accept/reject verdicts of a batch of candidates: public by design (sampling.h). They are
// computed without branches over a whole squeezed buffer and declassified at once, here, so that
// the valgrind check accepts the branches taken on them, at the cost of one client request per
// buffer rather than one per candidate.
template <std::size_t kCount>
void PublishVerdicts(std::array<std::uint8_t, kCount>& accept, std::size_t count) {
  VEIL_DECLASSIFY(accept.data(), count);
}

// Algorithm 30, lines 4-11, over buf (whole three-byte candidates): appends the accepted
// coefficients to a.c[j..] and returns the new j. Branches on the candidates: they come from the
// public rho.
std::size_t RejNttStepVartime(Poly& a, std::size_t j, std::span<const std::uint8_t> buf) {
  for (std::size_t pos = 0; pos + 3 <= buf.size() && j < kN; pos += 3) {
    // CoeffFromThreeBytes (Algorithm 14): the top bit of the third byte is dropped.
    const std::uint32_t z = buf[pos] | static_cast<std::uint32_t>(buf[pos + 1]) << 8 |
                            static_cast<std::uint32_t>(buf[pos + 2] & 0x7f) << 16;
    if (z < static_cast<std::uint32_t>(kQ)) a.c[j++] = static_cast<std::int32_t>(z);
  }
  return j;
}

// Five SHAKE128 blocks hold 280 three-byte candidates, enough for 256 coefficients unless more than
// 24 are rejected (each is with probability (2^23 - q) / 2^23 < 0.001); more blocks follow when
// needed.
constexpr std::size_t kRejNttFirstBlocks = 5;
static_assert(Shake128::kBlockSize % 3 == 0, "candidates never straddle a block");

// Algorithm 30 over a SHAKE128 stream already seeded with rho || s || r.
void RejNttPolyVartime(Poly& a, Shake128& g) {
  std::array<std::uint8_t, kRejNttFirstBlocks * Shake128::kBlockSize> buf;
  g.SqueezeBlocks(buf);
  std::size_t j = RejNttStepVartime(a, 0, buf);
  while (j < kN) {
    const auto block = std::span(buf).first<Shake128::kBlockSize>();
    g.SqueezeBlocks(block);
    j = RejNttStepVartime(a, j, block);
  }
}

// Two SHAKE256 blocks give 544 nibbles for 256 coefficients at an acceptance rate of 9/16 (306
// expected); more blocks follow when needed.
constexpr std::size_t kRejBoundedFirstBlocks = 2;
constexpr std::size_t kRejBoundedBufBytes = kRejBoundedFirstBlocks * Shake256::kBlockSize;

// Algorithm 31, lines 4-14, over buf (at most kRejBoundedBufBytes): appends the accepted
// coefficients to a.c[j..] and returns the new j, which is public (see PublishVerdicts).
std::size_t RejBoundedStep(Poly& a, std::size_t j, std::span<const std::uint8_t> buf) {
  // CoeffFromHalfByte (Algorithm 15) for eta = 4: a nibble b < 9 gives 4 - b, others are
  // rejected. Verdicts first, for the whole buffer; they are public (see PublishVerdicts).
  std::array<std::uint8_t, 2 * kRejBoundedBufBytes> accept;
  const std::size_t len = buf.size();
  VEIL_CHECK(len <= kRejBoundedBufBytes);
  for (std::size_t pos = 0; pos < len; ++pos) {
    accept[2 * pos] = (buf[pos] & 0x0f) < 2 * kEta + 1;
    accept[2 * pos + 1] = (buf[pos] >> 4) < 2 * kEta + 1;
  }
  PublishVerdicts(accept, 2 * len);
  // Every candidate is written at a.c[j] (in range: j < 256 holds on entry) and j advances only
  // on acceptance, so the next candidate overwrites a rejected one; no branch mispredicts on
  // the random verdicts.
  for (std::size_t pos = 0; pos < 2 * len && j < kN; ++pos) {
    a.c[j] = kEta - ((buf[pos / 2] >> (4 * (pos % 2))) & 0x0f);
    j += accept[pos];
  }
  return j;
}

// rho' || IntegerToBytes(index, 2), the input of RejBoundedPoly and of ExpandMask's streams.
void SeedWithIndex(std::array<std::uint8_t, kRhoPrimeBytes + 2>& seed,
                   std::span<const std::uint8_t, kRhoPrimeBytes> rho_prime, std::uint16_t index) {
  std::copy(rho_prime.begin(), rho_prime.end(), seed.begin());
  seed[kRhoPrimeBytes] = static_cast<std::uint8_t>(index);
  seed[kRhoPrimeBytes + 1] = static_cast<std::uint8_t>(index >> 8);
}

// One ExpandMask polynomial: BitUnpack of the first 640 bytes of SHAKE256(rho'' || index).
void MaskPoly(Poly& y, std::span<const std::uint8_t, kRhoPrimeBytes> rho_pp, std::uint16_t index) {
  std::array<std::uint8_t, kRhoPrimeBytes + 2> seed;
  SeedWithIndex(seed, rho_pp, index);
  // 640 bytes per polynomial: four full blocks and part of a fifth.
  std::array<std::uint8_t, 5 * Shake256::kBlockSize> buf;
  static_assert(5 * Shake256::kBlockSize >= kPolyZBytes);
  Shake256 h;
  h.Absorb(seed);
  h.SqueezeBlocks(buf);
  UnpackZ(y, std::span(buf).first<kPolyZBytes>());
  SecureWipe(seed.data(), seed.size());
  SecureWipe(buf.data(), buf.size());
}

#if VEIL_MLDSA_HAVE_AVX2
// Four streams side by side on the 4-way Keccak (one x4 permutation costs less than two scalar
// ones). Each of these takes `count` in [1, 4] polynomials; the unused streams of a partial batch
// repeat the first input and are never read.

// RejNTTPoly for A_hat[r][s], A_hat[r][s + 1], ... in row-major order from entry `first` (public).
void ExpandAX4Vartime(MatrixA& a, std::span<const std::uint8_t, kSeedBytes> rho, std::size_t first,
                      std::size_t count) {
  std::array<std::array<std::uint8_t, kSeedBytes + 2>, 4> seeds;
  std::array<const std::uint8_t*, 4> in;
  std::array<Poly*, 4> polys;
  for (std::size_t n = 0; n < 4; ++n) {
    const std::size_t t = first + (n < count ? n : 0);
    const std::size_t r = t / kL;
    const std::size_t s = t % kL;
    std::copy(rho.begin(), rho.end(), seeds[n].begin());
    seeds[n][kSeedBytes] = static_cast<std::uint8_t>(s);
    seeds[n][kSeedBytes + 1] = static_cast<std::uint8_t>(r);
    in[n] = seeds[n].data();
    polys[n] = &a.a[r][s];
  }
  std::array<std::size_t, 4> j = {};
  ShakeX4RejectionSampleAvx2<Shake128::kBlockSize, kRejNttFirstBlocks>(
      in, kSeedBytes + 2, count, [&](std::size_t n, std::span<const std::uint8_t> bytes) {
        j[n] = RejNttStepVartime(*polys[n], j[n], bytes);
        return j[n] == kN;
      });
}

// RejBoundedPoly for polys[0 .. count) from the indices first, first + 1, ...
void RejBoundedPolyX4(const std::array<Poly*, 4>& polys,
                      std::span<const std::uint8_t, kRhoPrimeBytes> rho_prime, std::size_t first,
                      std::size_t count) {
  std::array<std::array<std::uint8_t, kRhoPrimeBytes + 2>, 4> seeds;
  std::array<const std::uint8_t*, 4> in;
  for (std::size_t n = 0; n < 4; ++n) {
    SeedWithIndex(seeds[n], rho_prime, static_cast<std::uint16_t>(first + (n < count ? n : 0)));
    in[n] = seeds[n].data();
  }
  // j is public: it counts accepted candidates, whose verdicts RejBoundedStep declassifies.
  std::array<std::size_t, 4> j = {};
  ShakeX4RejectionSampleAvx2<Shake256::kBlockSize, kRejBoundedFirstBlocks>(
      in, kRhoPrimeBytes + 2, count, [&](std::size_t n, std::span<const std::uint8_t> bytes) {
        j[n] = RejBoundedStep(*polys[n], j[n], bytes);
        return j[n] == kN;
      });
  SecureWipe(seeds.data(), sizeof seeds);
}

// MaskPoly for the indices first .. first + 3 into y[0..3]: 640 bytes of each stream, no rejection.
void ExpandMaskX4(std::span<Poly, 4> y, std::span<const std::uint8_t, kRhoPrimeBytes> rho_pp,
                  std::uint16_t first) {
  std::array<std::array<std::uint8_t, kRhoPrimeBytes + 2>, 4> seeds;
  std::array<const std::uint8_t*, 4> in;
  for (std::size_t n = 0; n < 4; ++n) {
    SeedWithIndex(seeds[n], rho_pp, static_cast<std::uint16_t>(first + n));
    in[n] = seeds[n].data();
  }
  KeccakX4State state;
  ShakeX4AbsorbOnceAvx2(state, Shake256::kBlockSize, in, kRhoPrimeBytes + 2);
  std::array<std::array<std::uint8_t, kPolyZBytes>, 4> buf;
  std::array<std::uint8_t*, 4> out;
  for (std::size_t pos = 0; pos < kPolyZBytes; pos += Shake256::kBlockSize) {
    for (std::size_t n = 0; n < 4; ++n) out[n] = buf[n].data() + pos;
    ShakeX4SqueezeBlockAvx2(state, Shake256::kBlockSize, out,
                            std::min(Shake256::kBlockSize, kPolyZBytes - pos));
  }
  for (std::size_t n = 0; n < 4; ++n) UnpackZ(y[n], buf[n]);
  SecureWipe(seeds.data(), sizeof seeds);
  SecureWipe(buf.data(), sizeof buf);
  SecureWipe(&state, sizeof state);
}
#endif

}  // namespace

void ExpandAVartime(MatrixA& a, std::span<const std::uint8_t, kSeedBytes> rho) {
  std::size_t done = 0;
#if VEIL_MLDSA_HAVE_AVX2
  if (UseAvx2()) {
    // 30 entries: seven batches of four and one of two.
    for (; done < kK * kL; done += 4) {
      ExpandAX4Vartime(a, rho, done, std::min<std::size_t>(4, kK * kL - done));
    }
  }
#endif
  std::array<std::uint8_t, kSeedBytes + 2> seed;
  std::copy(rho.begin(), rho.end(), seed.begin());
  for (; done < kK * kL; ++done) {
    const std::size_t r = done / kL;
    const std::size_t s = done % kL;
    seed[kSeedBytes] = static_cast<std::uint8_t>(s);
    seed[kSeedBytes + 1] = static_cast<std::uint8_t>(r);
    Shake128 g;
    g.Absorb(seed);
    RejNttPolyVartime(a.a[r][s], g);
  }
}

void RejBoundedPoly(Poly& a, std::span<const std::uint8_t, kRhoPrimeBytes> rho_prime,
                    std::uint16_t index) {
  std::array<std::uint8_t, kRhoPrimeBytes + 2> seed;
  SeedWithIndex(seed, rho_prime, index);
  Shake256 h;
  h.Absorb(seed);
  SecureWipe(seed.data(), seed.size());
  std::array<std::uint8_t, kRejBoundedBufBytes> buf;
  h.SqueezeBlocks(buf);
  std::size_t j = RejBoundedStep(a, 0, buf);
  while (j < kN) {
    const auto block = std::span(buf).first<Shake256::kBlockSize>();
    h.SqueezeBlocks(block);
    j = RejBoundedStep(a, j, block);
  }
  SecureWipe(buf.data(), buf.size());
}

void ExpandS(PolyVecL& s1, PolyVecK& s2, std::span<const std::uint8_t, kRhoPrimeBytes> rho_prime) {
  // s1[r] from index r, s2[r] from index l + r.
  std::array<Poly*, kL + kK> polys;
  for (std::size_t r = 0; r < kL; ++r) polys[r] = &s1.p[r];
  for (std::size_t r = 0; r < kK; ++r) polys[kL + r] = &s2.p[r];
  std::size_t done = 0;
#if VEIL_MLDSA_HAVE_AVX2
  if (UseAvx2()) {
    // 11 polynomials: batches of four, four and three.
    for (; done < polys.size(); done += 4) {
      const std::size_t count = std::min<std::size_t>(4, polys.size() - done);
      std::array<Poly*, 4> batch;
      for (std::size_t n = 0; n < 4; ++n) batch[n] = polys[done + (n < count ? n : 0)];
      RejBoundedPolyX4(batch, rho_prime, done, count);
    }
  }
#endif
  for (; done < polys.size(); ++done) {
    RejBoundedPoly(*polys[done], rho_prime, static_cast<std::uint16_t>(done));
  }
}

void ExpandMask(PolyVecL& y, std::span<const std::uint8_t, kRhoPrimeBytes> rho_pp,
                std::uint16_t kappa) {
  std::size_t done = 0;
#if VEIL_MLDSA_HAVE_AVX2
  if (UseAvx2()) {
    // y[0..3] on the 4-way Keccak, y[4] on the scalar one: five scalar permutations cost less
    // than a second x4 batch.
    ExpandMaskX4(std::span(y.p).first<4>(), rho_pp, kappa);
    done = 4;
  }
#endif
  for (; done < kL; ++done) MaskPoly(y.p[done], rho_pp, static_cast<std::uint16_t>(kappa + done));
}

MaskSampler::~MaskSampler() { SecureWipe(&batch_, sizeof batch_); }

void MaskSampler::Expand(PolyVecL& y, std::uint16_t kappa) {
  std::size_t r = 0;
#if VEIL_MLDSA_HAVE_AVX2
  if (UseAvx2()) {
    // Indices kappa + r are public, and so is every branch here.
    while (r < kL) {
      const std::uint32_t index = kappa + static_cast<std::uint32_t>(r);
      if (batch_valid_ && index - batch_first_ < batch_.size()) {
        y.p[r++] = batch_[index - batch_first_];
      } else if (r + 4 <= kL) {
        ExpandMaskX4(std::span(y.p).subspan(r).first<4>(), rho_pp_,
                     static_cast<std::uint16_t>(index));
        r += 4;
      } else {
        // Indices past 0xffff wrap to 16 bits as ExpandMask's do (sign.cc never gets there).
        ExpandMaskX4(batch_, rho_pp_, static_cast<std::uint16_t>(index));
        batch_first_ = index;
        batch_valid_ = true;
      }
    }
  }
#endif
  for (; r < kL; ++r) MaskPoly(y.p[r], rho_pp_, static_cast<std::uint16_t>(kappa + r));
}

void SampleInBall(Poly& c, std::span<const std::uint8_t, kCTildeBytes> c_tilde) {
  Shake256 h;
  h.Absorb(c_tilde);
  std::array<std::uint8_t, Shake256::kBlockSize> block;
  h.SqueezeBlocks(block);
  std::uint64_t signs = 0;
  for (std::size_t i = 0; i < 8; ++i) signs |= static_cast<std::uint64_t>(block[i]) << (8 * i);
  std::size_t pos = 8;

  // c as 256 signed bytes packed into 32 words: byte k of word k / 8 is coefficient k. The swap
  // c_i <- c_j, c_j <- +-1 reads and writes byte j of every word under a mask, so the secret j
  // never becomes an address; i is public (the loop counter).
  constexpr std::size_t kWords = kN / 8;
  std::array<std::uint64_t, kWords> cw{};
  std::array<std::uint8_t, Shake256::kBlockSize> used;
  std::size_t i = kN - kTau;
  while (true) {
    // Which bytes of the block become the j of Algorithm 29, line 6: a byte is used when it is
    // at most the current i, and i moves on with every use. Computed without branches for the
    // whole block, then declassified at once: public by design (see PublishVerdicts).
    for (std::size_t p = 0, ii = i; p < block.size(); ++p) {
      const bool use = p >= pos && block[p] <= ii && ii < kN;
      used[p] = use;
      ii += use;
    }
    PublishVerdicts(used, used.size());
    for (; pos < block.size() && i < kN; ++pos) {
      if (used[pos] == 0) continue;
      const std::uint32_t j = block[pos];
      const std::uint64_t sign = (signs >> (i + kTau - kN)) & 1u;
      const std::uint64_t s = 1u ^ (sign * 0xfeu);  // the byte 0x01 for +1, 0xff for -1
      const std::uint32_t shift = (j & 7u) * 8u;
      const std::uint64_t jw = j >> 3;
      std::uint64_t cj = 0;
      for (std::size_t w = 0; w < kWords; ++w) {
        const std::uint64_t x = w ^ jw;
        const std::uint64_t sel = std::uint64_t{0} - ((x - 1u) >> 63);  // all ones: w == j / 8
        cj |= (cw[w] >> shift) & 0xffu & sel;
      }
      // c_i <- c_j (i is public), then c_j <- s.
      cw[i / 8] = (cw[i / 8] & ~(std::uint64_t{0xff} << (8 * (i % 8)))) | (cj << (8 * (i % 8)));
      for (std::size_t w = 0; w < kWords; ++w) {
        const std::uint64_t x = w ^ jw;
        const std::uint64_t sel = std::uint64_t{0} - ((x - 1u) >> 63);
        cw[w] = (cw[w] & ~(sel & (std::uint64_t{0xff} << shift))) | (sel & (s << shift));
      }
      ++i;
    }
    if (i == kN) break;
    h.SqueezeBlocks(block);
    pos = 0;
  }
  for (std::size_t k = 0; k < kN; ++k) {
    c.c[k] = static_cast<std::int8_t>(static_cast<std::uint8_t>(cw[k / 8] >> (8 * (k % 8))));
  }
  SecureWipe(cw.data(), sizeof cw);
  SecureWipe(block.data(), block.size());
}

}  // namespace veil::crypto::mldsa
