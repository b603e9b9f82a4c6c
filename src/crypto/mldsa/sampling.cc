// ExpandA, ExpandS, ExpandMask and SampleInBall (FIPS 204 sec. 7.3); see sampling.h for the
// constant-time argument.
#include "sampling.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>

#include "packing.h"
#include "veil/base/consttime.h"
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

// Algorithm 30 over a SHAKE128 stream already seeded with rho || s || r. Five blocks hold 280
// three-byte candidates, enough for 256 coefficients unless more than 24 are rejected (each is
// with probability (2^23 - q) / 2^23 < 0.001); more blocks follow when needed.
void RejNttPolyVartime(Poly& a, Shake128& g) {
  constexpr std::size_t kFirstBlocks = 5;
  std::array<std::uint8_t, kFirstBlocks * Shake128::kBlockSize> buf;
  static_assert(Shake128::kBlockSize % 3 == 0, "candidates never straddle a block");
  g.SqueezeBlocks(buf);
  std::size_t len = buf.size();
  std::size_t j = 0;
  while (true) {
    for (std::size_t pos = 0; pos + 3 <= len && j < kN; pos += 3) {
      // CoeffFromThreeBytes (Algorithm 14): the top bit of the third byte is dropped.
      const std::uint32_t z = buf[pos] | static_cast<std::uint32_t>(buf[pos + 1]) << 8 |
                              static_cast<std::uint32_t>(buf[pos + 2] & 0x7f) << 16;
      if (z < static_cast<std::uint32_t>(kQ)) a.c[j++] = static_cast<std::int32_t>(z);
    }
    if (j == kN) return;
    len = Shake128::kBlockSize;
    g.SqueezeBlocks(std::span(buf).first<Shake128::kBlockSize>());
  }
}

}  // namespace

void ExpandAVartime(MatrixA& a, std::span<const std::uint8_t, kSeedBytes> rho) {
  std::array<std::uint8_t, kSeedBytes + 2> seed;
  std::copy(rho.begin(), rho.end(), seed.begin());
  for (std::size_t r = 0; r < kK; ++r) {
    for (std::size_t s = 0; s < kL; ++s) {
      seed[kSeedBytes] = static_cast<std::uint8_t>(s);
      seed[kSeedBytes + 1] = static_cast<std::uint8_t>(r);
      Shake128 g;
      g.Absorb(seed);
      RejNttPolyVartime(a.a[r][s], g);
    }
  }
}

void RejBoundedPoly(Poly& a, std::span<const std::uint8_t, kRhoPrimeBytes> rho_prime,
                    std::uint16_t index) {
  std::array<std::uint8_t, kRhoPrimeBytes + 2> seed;
  std::copy(rho_prime.begin(), rho_prime.end(), seed.begin());
  seed[kRhoPrimeBytes] = static_cast<std::uint8_t>(index);
  seed[kRhoPrimeBytes + 1] = static_cast<std::uint8_t>(index >> 8);
  Shake256 h;
  h.Absorb(seed);
  SecureWipe(seed.data(), seed.size());
  // Two blocks give 544 nibbles for 256 coefficients at an acceptance rate of 9/16 (306 expected).
  constexpr std::size_t kBufBytes = 2 * Shake256::kBlockSize;
  std::array<std::uint8_t, kBufBytes> buf;
  h.SqueezeBlocks(buf);
  std::array<std::uint8_t, 2 * kBufBytes> accept;
  std::size_t len = buf.size();
  std::size_t j = 0;
  while (true) {
    // CoeffFromHalfByte (Algorithm 15) for eta = 4: a nibble b < 9 gives 4 - b, others are
    // rejected. Verdicts first, for the whole buffer; they are public (see PublishVerdicts).
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
    if (j == kN) break;
    len = Shake256::kBlockSize;
    h.SqueezeBlocks(std::span(buf).first<Shake256::kBlockSize>());
  }
  SecureWipe(buf.data(), buf.size());
}

void ExpandS(PolyVecL& s1, PolyVecK& s2, std::span<const std::uint8_t, kRhoPrimeBytes> rho_prime) {
  for (std::size_t r = 0; r < kL; ++r) {
    RejBoundedPoly(s1.p[r], rho_prime, static_cast<std::uint16_t>(r));
  }
  for (std::size_t r = 0; r < kK; ++r) {
    RejBoundedPoly(s2.p[r], rho_prime, static_cast<std::uint16_t>(r + kL));
  }
}

void ExpandMask(PolyVecL& y, std::span<const std::uint8_t, kRhoPrimeBytes> rho_pp,
                std::uint16_t kappa) {
  std::array<std::uint8_t, kRhoPrimeBytes + 2> seed;
  std::copy(rho_pp.begin(), rho_pp.end(), seed.begin());
  // 640 bytes per polynomial: four full blocks and part of a fifth.
  std::array<std::uint8_t, 5 * Shake256::kBlockSize> buf;
  static_assert(5 * Shake256::kBlockSize >= kPolyZBytes);
  for (std::size_t r = 0; r < kL; ++r) {
    const auto index = static_cast<std::uint16_t>(kappa + r);
    seed[kRhoPrimeBytes] = static_cast<std::uint8_t>(index);
    seed[kRhoPrimeBytes + 1] = static_cast<std::uint8_t>(index >> 8);
    Shake256 h;
    h.Absorb(seed);
    h.SqueezeBlocks(buf);
    UnpackZ(y.p[r], std::span(buf).first<kPolyZBytes>());
  }
  SecureWipe(seed.data(), seed.size());
  SecureWipe(buf.data(), buf.size());
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
