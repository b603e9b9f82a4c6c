// Keccak-f[1600] and the byte-level sponge steps (FIPS 202 sec. 3, 4, 5.1, B.2).
//
// The permutation is written for a generic x86-64 at -O2 with no assembly: the 25 lanes live in a
// local struct that the compiler keeps in registers and on the stack (scalar replacement), one
// round goes from one set of lanes to the other, and the loop runs two rounds per iteration so no
// copy is needed between rounds. theta's column parities for the next round are summed while the
// lanes of this round are produced, as in the Keccak team's optimised 64-bit implementation.
//
// The lane-complementing transform (Keccak team, "Keccak implementation overview" v3.2) saves
// most of chi's NOTs, which a CPU without ANDN pays for: inside the permutation the lanes at (1,0),
// (2,0), (3,1), (2,2), (2,3), (0,4) are kept complemented. theta, rho and pi are linear and map
// all-ones lanes to all-ones lanes, so the complement pattern entering chi is known for every lane;
// each plane's five chi formulas below use AND or OR on suitably complemented inputs so that the
// same pattern comes out again, with one NOT per plane instead of five. Each formula was chosen by
// checking it against chi on all eight input bit patterns; the tests compare the permutation with
// a plain implementation of the specification's step mappings and with the published values.
//
// Nothing here branches on or indexes by the data: the positions and lengths are public.
//
// Thread safety: pure functions of their arguments.
#include "veil/crypto/keccak.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace veil::crypto {
namespace {

// FIPS 202 Algorithm 5: rc(t), bit t of the LFSR with feedback polynomial x^8 + x^6 + x^5 + x^4
// + 1. Bit i of `r` holds R[i] of the specification.
constexpr bool Rc(std::size_t t) {
  std::uint32_t r = 1;
  for (std::size_t i = 1; i <= t % 255; ++i) {
    r <<= 1;  // R = 0 || R
    const std::uint32_t r8 = (r >> 8) & 1;
    r ^= r8 | (r8 << 4) | (r8 << 5) | (r8 << 6);  // R[0], R[4], R[5], R[6] ^= R[8]
    r &= 0xFF;                                    // Trunc8
  }
  return (r & 1) != 0;
}

// FIPS 202 Algorithm 6: the round constant of round ir has bit 2^j - 1 equal to rc(j + 7 ir).
constexpr std::array<std::uint64_t, 24> MakeRoundConstants() {
  std::array<std::uint64_t, 24> rc{};
  for (std::size_t ir = 0; ir < 24; ++ir) {
    for (std::size_t j = 0; j <= 6; ++j) {
      if (Rc(j + 7 * ir)) rc[ir] |= std::uint64_t{1} << ((std::size_t{1} << j) - 1);
    }
  }
  return rc;
}
constexpr std::array<std::uint64_t, 24> kRoundConstants = MakeRoundConstants();

// Lane (x, y) is named by its row letter b g k m s (y = 0..4) and column letter a e i o u
// (x = 0..4), the Keccak team's convention, so `ge` is lane (1, 1).
struct Lanes {
  std::uint64_t ba, be, bi, bo, bu;
  std::uint64_t ga, ge, gi, go, gu;
  std::uint64_t ka, ke, ki, ko, ku;
  std::uint64_t ma, me, mi, mo, mu;
  std::uint64_t sa, se, si, so, su;
};

// One round Rnd(A, ir) = iota(chi(pi(rho(theta(A))))) (FIPS 202 sec. 3.3) from `a` into `e`, in the
// complemented representation. `c` holds theta's column parities C[x] of `a` on entry and those of
// `e` on exit. The rotation amounts are the offsets r[x][y] of sec. 3.2.2 (Table 2).
[[gnu::always_inline]] inline void Round(const Lanes& a, Lanes& e, std::array<std::uint64_t, 5>& c,
                                         std::uint64_t rc) {
  using std::uint64_t;
  const uint64_t d0 = c[4] ^ std::rotl(c[1], 1);
  const uint64_t d1 = c[0] ^ std::rotl(c[2], 1);
  const uint64_t d2 = c[1] ^ std::rotl(c[3], 1);
  const uint64_t d3 = c[2] ^ std::rotl(c[4], 1);
  const uint64_t d4 = c[3] ^ std::rotl(c[0], 1);
  // Plane y = 0 of the output; b[x] = B[x][y] = ROT(A[x'][y'] ^ D[x'], r[x'][y']) where
  // (x, y) = (y', 2x' + 3y') is pi; then chi along the plane, iota on lane (0, 0).
  {
    const uint64_t b0 = a.ba ^ d0;
    const uint64_t b1 = std::rotl(a.ge ^ d1, 44);
    const uint64_t b2 = std::rotl(a.ki ^ d2, 43);
    const uint64_t b3 = std::rotl(a.mo ^ d3, 21);
    const uint64_t b4 = std::rotl(a.su ^ d4, 14);
    const uint64_t nb2 = ~b2;
    e.ba = b0 ^ (b1 | b2) ^ rc;
    e.be = b1 ^ (nb2 | b3);
    e.bi = b2 ^ (b3 & b4);
    e.bo = b3 ^ (b4 | b0);
    e.bu = b4 ^ (b0 & b1);
    c[0] = e.ba;
    c[1] = e.be;
    c[2] = e.bi;
    c[3] = e.bo;
    c[4] = e.bu;
  }
  // Plane y = 1.
  {
    const uint64_t b0 = std::rotl(a.bo ^ d3, 28);
    const uint64_t b1 = std::rotl(a.gu ^ d4, 20);
    const uint64_t b2 = std::rotl(a.ka ^ d0, 3);
    const uint64_t b3 = std::rotl(a.me ^ d1, 45);
    const uint64_t b4 = std::rotl(a.si ^ d2, 61);
    const uint64_t nb4 = ~b4;
    e.ga = b0 ^ (b1 | b2);
    e.ge = b1 ^ (b2 & b3);
    e.gi = b2 ^ (b3 | nb4);
    e.go = b3 ^ (b4 | b0);
    e.gu = b4 ^ (b0 & b1);
    c[0] ^= e.ga;
    c[1] ^= e.ge;
    c[2] ^= e.gi;
    c[3] ^= e.go;
    c[4] ^= e.gu;
  }
  // Plane y = 2.
  {
    const uint64_t b0 = std::rotl(a.be ^ d1, 1);
    const uint64_t b1 = std::rotl(a.gi ^ d2, 6);
    const uint64_t b2 = std::rotl(a.ko ^ d3, 25);
    const uint64_t b3 = std::rotl(a.mu ^ d4, 8);
    const uint64_t b4 = std::rotl(a.sa ^ d0, 18);
    const uint64_t nb3 = ~b3;
    e.ka = b0 ^ (b1 | b2);
    e.ke = b1 ^ (b2 & b3);
    e.ki = b2 ^ (nb3 & b4);
    e.ko = nb3 ^ (b4 | b0);
    e.ku = b4 ^ (b0 & b1);
    c[0] ^= e.ka;
    c[1] ^= e.ke;
    c[2] ^= e.ki;
    c[3] ^= e.ko;
    c[4] ^= e.ku;
  }
  // Plane y = 3.
  {
    const uint64_t b0 = std::rotl(a.bu ^ d4, 27);
    const uint64_t b1 = std::rotl(a.ga ^ d0, 36);
    const uint64_t b2 = std::rotl(a.ke ^ d1, 10);
    const uint64_t b3 = std::rotl(a.mi ^ d2, 15);
    const uint64_t b4 = std::rotl(a.so ^ d3, 56);
    const uint64_t nb3 = ~b3;
    e.ma = b0 ^ (b1 & b2);
    e.me = b1 ^ (b2 | b3);
    e.mi = b2 ^ (nb3 | b4);
    e.mo = nb3 ^ (b4 & b0);
    e.mu = b4 ^ (b0 | b1);
    c[0] ^= e.ma;
    c[1] ^= e.me;
    c[2] ^= e.mi;
    c[3] ^= e.mo;
    c[4] ^= e.mu;
  }
  // Plane y = 4.
  {
    const uint64_t b0 = std::rotl(a.bi ^ d2, 62);
    const uint64_t b1 = std::rotl(a.go ^ d3, 55);
    const uint64_t b2 = std::rotl(a.ku ^ d4, 39);
    const uint64_t b3 = std::rotl(a.ma ^ d0, 41);
    const uint64_t b4 = std::rotl(a.se ^ d1, 2);
    const uint64_t nb1 = ~b1;
    e.sa = b0 ^ (nb1 & b2);
    e.se = nb1 ^ (b2 | b3);
    e.si = b2 ^ (b3 & b4);
    e.so = b3 ^ (b4 | b0);
    e.su = b4 ^ (b0 & b1);
    c[0] ^= e.sa;
    c[1] ^= e.se;
    c[2] ^= e.si;
    c[3] ^= e.so;
    c[4] ^= e.su;
  }
}

// Bytes to lanes are little-endian (FIPS 202 sec. B.1): LoadLe64/StoreLe64 from base/bytes.h.

// XORs n bytes into the state starting at byte offset pos.
void XorBytes(KeccakState& state, std::size_t pos, const std::uint8_t* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i, ++pos) {
    state[pos / 8] ^= std::uint64_t{p[i]} << (8 * (pos % 8));
  }
}

// Reads n bytes of the state starting at byte offset pos.
void ExtractBytes(const KeccakState& state, std::size_t pos, std::uint8_t* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i, ++pos) {
    p[i] = static_cast<std::uint8_t>(state[pos / 8] >> (8 * (pos % 8)));
  }
}

}  // namespace

void KeccakF1600(KeccakState& state) {
  // Enter the complemented representation (see the top of the file).
  Lanes a{state[0],   ~state[1], ~state[2],  state[3],  state[4],   //
          state[5],   state[6],  state[7],   ~state[8], state[9],   //
          state[10],  state[11], ~state[12], state[13], state[14],  //
          state[15],  state[16], ~state[17], state[18], state[19],  //
          ~state[20], state[21], state[22],  state[23], state[24]};
  Lanes e;
  std::array<std::uint64_t, 5> c = {
      a.ba ^ a.ga ^ a.ka ^ a.ma ^ a.sa, a.be ^ a.ge ^ a.ke ^ a.me ^ a.se,
      a.bi ^ a.gi ^ a.ki ^ a.mi ^ a.si, a.bo ^ a.go ^ a.ko ^ a.mo ^ a.so,
      a.bu ^ a.gu ^ a.ku ^ a.mu ^ a.su};
  for (std::size_t round = 0; round < 24; round += 2) {
    Round(a, e, c, kRoundConstants[round]);
    Round(e, a, c, kRoundConstants[round + 1]);
  }
  state = {a.ba,  ~a.be, ~a.bi, a.bo,  a.bu,  //
           a.ga,  a.ge,  a.gi,  ~a.go, a.gu,  //
           a.ka,  a.ke,  ~a.ki, a.ko,  a.ku,  //
           a.ma,  a.me,  ~a.mi, a.mo,  a.mu,  //
           ~a.sa, a.se,  a.si,  a.so,  a.su};
}

namespace internal {

std::size_t KeccakAbsorb(KeccakState& state, std::size_t pos, std::size_t rate, ByteView in) {
  const std::uint8_t* p = in.data();
  std::size_t n = in.size();
  if (n == 0) return pos;
  if (pos != 0) {  // top up the partial block
    const std::size_t take = std::min(n, rate - pos);
    XorBytes(state, pos, p, take);
    pos += take;
    p += take;
    n -= take;
    if (pos < rate) return pos;
    KeccakF1600(state);
  }
  for (; n >= rate; p += rate, n -= rate) {
    for (std::size_t i = 0; i < rate / 8; ++i) state[i] ^= LoadLe64(p + 8 * i);
    KeccakF1600(state);
  }
  XorBytes(state, 0, p, n);
  return n;
}

void KeccakPad(KeccakState& state, std::size_t pos, std::size_t rate, std::uint8_t domain) {
  // The suffix bits and the first 1 of pad10*1 are `domain` at byte pos; the last 1 of pad10*1 is
  // the top bit of the block's last byte (the same byte when pos == rate - 1: 0x86 or 0x9F).
  state[pos / 8] ^= std::uint64_t{domain} << (8 * (pos % 8));
  state[rate / 8 - 1] ^= std::uint64_t{0x80} << 56;
}

std::size_t KeccakSqueeze(KeccakState& state, std::size_t pos, std::size_t rate,
                          MutableByteView out) {
  std::uint8_t* p = out.data();
  std::size_t n = out.size();
  if (n == 0) return pos;
  if (pos < rate) {  // the rest of the current block
    const std::size_t take = std::min(n, rate - pos);
    ExtractBytes(state, pos, p, take);
    pos += take;
    p += take;
    n -= take;
  }
  for (; n >= rate; p += rate, n -= rate) {
    KeccakF1600(state);
    for (std::size_t i = 0; i < rate / 8; ++i) StoreLe64(p + 8 * i, state[i]);
    pos = rate;
  }
  if (n > 0) {
    KeccakF1600(state);
    ExtractBytes(state, 0, p, n);
    pos = n;
  }
  return pos;
}

}  // namespace internal
}  // namespace veil::crypto
