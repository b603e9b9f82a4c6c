// Keccak-f[1600] x4 with AVX2 (see keccak4x.h). One round is FIPS 202 sec. 3.3's
// Rnd = iota o chi o pi o rho o theta written on 25 vectors, each holding one lane of the four
// states; the rotation offsets are those of sec. 3.2.2 (Table 2), the round constants those of
// Algorithm 6 (the same table as keccak.cc).
#include "keccak4x.h"

#include <cstring>
#include <utility>

#if VEIL_HAVE_AVX2
#include <immintrin.h>
#endif

namespace veil::crypto {

#if VEIL_HAVE_AVX2
namespace {

constexpr std::array<std::uint64_t, 24> kRoundConstants = {
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
    0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
    0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
    0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
    0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008};

// Lane (x, y) is named by its row letter b g k m s (y = 0..4) and column letter a e i o u
// (x = 0..4), as in keccak.cc; each member holds that lane of the four states.
struct LanesX4 {
  __m256i ba, be, bi, bo, bu;
  __m256i ga, ge, gi, go, gu;
  __m256i ka, ke, ki, ko, ku;
  __m256i ma, me, mi, mo, mu;
  __m256i sa, se, si, so, su;
};

template <int kN>
[[gnu::always_inline]] VEIL_AVX2 inline __m256i Rotl(__m256i x) {
  if constexpr (kN == 0) {
    return x;
  } else {
    return _mm256_or_si256(_mm256_slli_epi64(x, kN), _mm256_srli_epi64(x, 64 - kN));
  }
}

[[gnu::always_inline]] VEIL_AVX2 inline __m256i Xor(__m256i a, __m256i b) {
  return _mm256_xor_si256(a, b);
}

// chi on one plane: e_x = b_x ^ (~b_(x+1) & b_(x+2)) (sec. 3.2.4).
[[gnu::always_inline]] VEIL_AVX2 inline __m256i Chi(__m256i b0, __m256i b1, __m256i b2) {
  return Xor(b0, _mm256_andnot_si256(b1, b2));
}

[[gnu::always_inline]] VEIL_AVX2 inline __m256i LoadLane(const KeccakX4State& state,
                                                         std::size_t w) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(state.s[w].data()));
}

[[gnu::always_inline]] VEIL_AVX2 inline void StoreLane(KeccakX4State& state, std::size_t w,
                                                       __m256i v) {
  _mm256_store_si256(reinterpret_cast<__m256i*>(state.s[w].data()), v);
}

// One round Rnd(A, ir) = iota(chi(pi(rho(theta(A))))) (FIPS 202 sec. 3.3) from `a` into `e`.
// `c` holds theta's column parities of `a` on entry and those of `e` on exit. Plane by plane as in
// keccak.cc: b[x] = ROT(A[x'][y'] ^ D[x'], r[x'][y']) with (x, y) = (y', 2x' + 3y') (rho and pi),
// then chi along the plane, iota on lane (0, 0).
[[gnu::always_inline]] VEIL_AVX2 inline void Round(const LanesX4& a, LanesX4& e, __m256i* c,
                                                   __m256i rc) {
  const __m256i d0 = Xor(c[4], Rotl<1>(c[1]));
  const __m256i d1 = Xor(c[0], Rotl<1>(c[2]));
  const __m256i d2 = Xor(c[1], Rotl<1>(c[3]));
  const __m256i d3 = Xor(c[2], Rotl<1>(c[4]));
  const __m256i d4 = Xor(c[3], Rotl<1>(c[0]));
  {  // plane y = 0
    const __m256i b0 = Rotl<0>(Xor(a.ba, d0));
    const __m256i b1 = Rotl<44>(Xor(a.ge, d1));
    const __m256i b2 = Rotl<43>(Xor(a.ki, d2));
    const __m256i b3 = Rotl<21>(Xor(a.mo, d3));
    const __m256i b4 = Rotl<14>(Xor(a.su, d4));
    e.ba = Xor(Chi(b0, b1, b2), rc);
    e.be = Chi(b1, b2, b3);
    e.bi = Chi(b2, b3, b4);
    e.bo = Chi(b3, b4, b0);
    e.bu = Chi(b4, b0, b1);
    c[0] = e.ba;
    c[1] = e.be;
    c[2] = e.bi;
    c[3] = e.bo;
    c[4] = e.bu;
  }
  {  // plane y = 1
    const __m256i b0 = Rotl<28>(Xor(a.bo, d3));
    const __m256i b1 = Rotl<20>(Xor(a.gu, d4));
    const __m256i b2 = Rotl<3>(Xor(a.ka, d0));
    const __m256i b3 = Rotl<45>(Xor(a.me, d1));
    const __m256i b4 = Rotl<61>(Xor(a.si, d2));
    e.ga = Chi(b0, b1, b2);
    e.ge = Chi(b1, b2, b3);
    e.gi = Chi(b2, b3, b4);
    e.go = Chi(b3, b4, b0);
    e.gu = Chi(b4, b0, b1);
    c[0] = Xor(c[0], e.ga);
    c[1] = Xor(c[1], e.ge);
    c[2] = Xor(c[2], e.gi);
    c[3] = Xor(c[3], e.go);
    c[4] = Xor(c[4], e.gu);
  }
  {  // plane y = 2
    const __m256i b0 = Rotl<1>(Xor(a.be, d1));
    const __m256i b1 = Rotl<6>(Xor(a.gi, d2));
    const __m256i b2 = Rotl<25>(Xor(a.ko, d3));
    const __m256i b3 = Rotl<8>(Xor(a.mu, d4));
    const __m256i b4 = Rotl<18>(Xor(a.sa, d0));
    e.ka = Chi(b0, b1, b2);
    e.ke = Chi(b1, b2, b3);
    e.ki = Chi(b2, b3, b4);
    e.ko = Chi(b3, b4, b0);
    e.ku = Chi(b4, b0, b1);
    c[0] = Xor(c[0], e.ka);
    c[1] = Xor(c[1], e.ke);
    c[2] = Xor(c[2], e.ki);
    c[3] = Xor(c[3], e.ko);
    c[4] = Xor(c[4], e.ku);
  }
  {  // plane y = 3
    const __m256i b0 = Rotl<27>(Xor(a.bu, d4));
    const __m256i b1 = Rotl<36>(Xor(a.ga, d0));
    const __m256i b2 = Rotl<10>(Xor(a.ke, d1));
    const __m256i b3 = Rotl<15>(Xor(a.mi, d2));
    const __m256i b4 = Rotl<56>(Xor(a.so, d3));
    e.ma = Chi(b0, b1, b2);
    e.me = Chi(b1, b2, b3);
    e.mi = Chi(b2, b3, b4);
    e.mo = Chi(b3, b4, b0);
    e.mu = Chi(b4, b0, b1);
    c[0] = Xor(c[0], e.ma);
    c[1] = Xor(c[1], e.me);
    c[2] = Xor(c[2], e.mi);
    c[3] = Xor(c[3], e.mo);
    c[4] = Xor(c[4], e.mu);
  }
  {  // plane y = 4
    const __m256i b0 = Rotl<62>(Xor(a.bi, d2));
    const __m256i b1 = Rotl<55>(Xor(a.go, d3));
    const __m256i b2 = Rotl<39>(Xor(a.ku, d4));
    const __m256i b3 = Rotl<41>(Xor(a.ma, d0));
    const __m256i b4 = Rotl<2>(Xor(a.se, d1));
    e.sa = Chi(b0, b1, b2);
    e.se = Chi(b1, b2, b3);
    e.si = Chi(b2, b3, b4);
    e.so = Chi(b3, b4, b0);
    e.su = Chi(b4, b0, b1);
    c[0] = Xor(c[0], e.sa);
    c[1] = Xor(c[1], e.se);
    c[2] = Xor(c[2], e.si);
    c[3] = Xor(c[3], e.so);
    c[4] = Xor(c[4], e.su);
  }
}

}  // namespace

VEIL_AVX2 void KeccakF1600X4Avx2(KeccakX4State& state) {
  LanesX4 a;
  a.ba = LoadLane(state, 0);
  a.be = LoadLane(state, 1);
  a.bi = LoadLane(state, 2);
  a.bo = LoadLane(state, 3);
  a.bu = LoadLane(state, 4);
  a.ga = LoadLane(state, 5);
  a.ge = LoadLane(state, 6);
  a.gi = LoadLane(state, 7);
  a.go = LoadLane(state, 8);
  a.gu = LoadLane(state, 9);
  a.ka = LoadLane(state, 10);
  a.ke = LoadLane(state, 11);
  a.ki = LoadLane(state, 12);
  a.ko = LoadLane(state, 13);
  a.ku = LoadLane(state, 14);
  a.ma = LoadLane(state, 15);
  a.me = LoadLane(state, 16);
  a.mi = LoadLane(state, 17);
  a.mo = LoadLane(state, 18);
  a.mu = LoadLane(state, 19);
  a.sa = LoadLane(state, 20);
  a.se = LoadLane(state, 21);
  a.si = LoadLane(state, 22);
  a.so = LoadLane(state, 23);
  a.su = LoadLane(state, 24);
  __m256i c[5] = {Xor(Xor(Xor(a.ba, a.ga), Xor(a.ka, a.ma)), a.sa),
                  Xor(Xor(Xor(a.be, a.ge), Xor(a.ke, a.me)), a.se),
                  Xor(Xor(Xor(a.bi, a.gi), Xor(a.ki, a.mi)), a.si),
                  Xor(Xor(Xor(a.bo, a.go), Xor(a.ko, a.mo)), a.so),
                  Xor(Xor(Xor(a.bu, a.gu), Xor(a.ku, a.mu)), a.su)};
  LanesX4 e;
  for (std::size_t round = 0; round < 24; round += 2) {
    Round(a, e, c, _mm256_set1_epi64x(static_cast<long long>(kRoundConstants[round])));
    Round(e, a, c, _mm256_set1_epi64x(static_cast<long long>(kRoundConstants[round + 1])));
  }
  StoreLane(state, 0, a.ba);
  StoreLane(state, 1, a.be);
  StoreLane(state, 2, a.bi);
  StoreLane(state, 3, a.bo);
  StoreLane(state, 4, a.bu);
  StoreLane(state, 5, a.ga);
  StoreLane(state, 6, a.ge);
  StoreLane(state, 7, a.gi);
  StoreLane(state, 8, a.go);
  StoreLane(state, 9, a.gu);
  StoreLane(state, 10, a.ka);
  StoreLane(state, 11, a.ke);
  StoreLane(state, 12, a.ki);
  StoreLane(state, 13, a.ko);
  StoreLane(state, 14, a.ku);
  StoreLane(state, 15, a.ma);
  StoreLane(state, 16, a.me);
  StoreLane(state, 17, a.mi);
  StoreLane(state, 18, a.mo);
  StoreLane(state, 19, a.mu);
  StoreLane(state, 20, a.sa);
  StoreLane(state, 21, a.se);
  StoreLane(state, 22, a.si);
  StoreLane(state, 23, a.so);
  StoreLane(state, 24, a.su);
}

// The padded input and the squeezed block are as secret as the streams (ML-DSA's rho' and rho'',
// ML-KEM's sigma and r): one stack block serves all four and is wiped before returning.
void ShakeX4AbsorbOnceAvx2(KeccakX4State& state, std::size_t rate,
                           const std::array<const std::uint8_t*, 4>& in, std::size_t len) {
  for (auto& lane : state.s) lane.fill(0);
  std::array<std::uint8_t, 200> block;
  for (std::size_t n = 0; n < 4; ++n) {
    block.fill(0);
    std::memcpy(block.data(), in[n], len);
    block[len] ^= 0x1F;       // SHAKE suffix 1111 and the first bit of pad10*1 (FIPS 202 B.2)
    block[rate - 1] ^= 0x80;  // the last bit of pad10*1
    for (std::size_t w = 0; w < rate / 8; ++w) {
      std::uint64_t lane;
      std::memcpy(&lane, block.data() + 8 * w, 8);  // bytes to lanes little-endian (sec. B.1)
      state.s[w][n] = lane;
    }
  }
  SecureWipe(block.data(), block.size());
}

void ShakeX4SqueezeBlockAvx2(KeccakX4State& state, std::size_t rate,
                             const std::array<std::uint8_t*, 4>& out, std::size_t len) {
  KeccakF1600X4Avx2(state);
  std::array<std::uint8_t, 200> block;
  for (std::size_t n = 0; n < 4; ++n) {
    for (std::size_t w = 0; w < rate / 8; ++w) std::memcpy(block.data() + 8 * w, &state.s[w][n], 8);
    std::memcpy(out[n], block.data(), len);
  }
  SecureWipe(block.data(), block.size());
}
#endif

}  // namespace veil::crypto
