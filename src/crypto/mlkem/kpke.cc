// K-PKE (see kpke.h). Variable names follow FIPS 203 Algorithms 13-15; a trailing _hat marks an
// NTT-domain value as the standard's hat does.
#include "kpke.h"

#include <algorithm>
#include <array>

#include "ntt.h"
#include "packing.h"
#include "poly.h"
#include "polyvec.h"
#include "sampling.h"
#include "veil/base/consttime.h"
#include "veil/crypto/keccak.h"
#include "veil/crypto/secret.h"

namespace veil::crypto::mlkem {

template <class P>
void KPkeKeyGen(std::span<const std::uint8_t, kSymBytes> d, std::span<std::uint8_t, P::kEkBytes> ek,
                std::span<std::uint8_t, P::kDkPkeBytes> dk_pke) {
  constexpr std::size_t k = P::k;
  // Line 1: (rho, sigma) = G(d || k), G = SHA3-512.
  std::array<std::uint8_t, 2 * kSymBytes> rho_sigma;
  {
    Sha3_512 g;
    g.Update(d);
    const std::array<std::uint8_t, 1> k_byte = {static_cast<std::uint8_t>(k)};
    g.Update(k_byte);
    g.Final(rho_sigma);
  }
  const auto rho = std::span(rho_sigma).template first<kSymBytes>();
  const auto sigma =
      std::span<const std::uint8_t, kSymBytes>(rho_sigma.data() + kSymBytes, kSymBytes);
  // rho is public by design: it is published as the last 32 bytes of ek.
  VEIL_DECLASSIFY(rho.data(), rho.size());

  // Lines 3-7: A_hat[i][j] = SampleNTT(rho || j || i); lines 8-15: s and e from
  // SamplePolyCBD_eta1(PRF_eta1(sigma, N)), N = 0 .. 2k-1. Sampled together (sampling.h).
  static_assert(P::eta1 == 2, "SampleMany implements eta = 2");
  PolyMatrix<k> a_hat;
  Wiped<PolyVec<k>> s_hat;
  Wiped<PolyVec<k>> e_hat;
  std::array<Poly*, 2 * k> noise;
  for (std::size_t i = 0; i < k; ++i) {
    noise[i] = &s_hat.v[i];
    noise[k + i] = &e_hat.v[i];
  }
  SampleMany(MatrixJobs<k>(a_hat, /*transposed=*/false), rho, noise, sigma, 0, nullptr);
  SecureWipe(rho_sigma.data() + kSymBytes, kSymBytes);  // sigma is no longer needed

  // Lines 16-18: s_hat = NTT(s), e_hat = NTT(e), t_hat = A_hat o s_hat + e_hat.
  PolyVecNtt<k>(s_hat.v);
  PolyVecNtt<k>(e_hat.v);
  Wiped<PolyVecMulCache<k>> s_cache;
  PolyVecMulCacheCompute<k>(s_cache.v, s_hat.v);
  PolyVec<k> t_hat;
  for (std::size_t i = 0; i < k; ++i) {
    PolyVecInnerProduct<k>(t_hat[i], a_hat[i], s_cache.v);
    PolyToMont(t_hat[i]);  // cancels the R^-1 of the Montgomery products
  }
  PolyVecAdd<k>(t_hat, t_hat, e_hat.v);
  PolyVecReduce<k>(t_hat);

  // Lines 19, 20: ek = ByteEncode_12(t_hat) || rho, dk = ByteEncode_12(s_hat).
  PolyVecToBytes<k>(ek.template first<P::kPolyVecBytes>(), t_hat);
  std::copy(rho.begin(), rho.end(), ek.begin() + P::kPolyVecBytes);
  PolyVecToBytes<k>(dk_pke, s_hat.v);
}

template <class P>
void KPkeEncrypt(std::span<const std::uint8_t, P::kEkBytes> ek,
                 std::span<const std::uint8_t, kSymBytes> m,
                 std::span<const std::uint8_t, kSymBytes> r, std::span<std::uint8_t, P::kCtBytes> c,
                 const Shake256Job* extra) {
  constexpr std::size_t k = P::k;
  // Lines 2-8: t_hat = ByteDecode_12(ek[0 : 384k]), rho = ek[384k :], A_hat (here transposed);
  // lines 9-17: y, e_1 and e_2 from PRF(r, N), N = 0 .. 2k. Sampled together, with the caller's
  // extra SHAKE256 job if any (sampling.h).
  PolyVec<k> t_hat;
  PolyVecFromBytes<k>(t_hat, ek.template first<P::kPolyVecBytes>());
  const auto rho = ek.template subspan<P::kPolyVecBytes, kSymBytes>();
  PolyMatrix<k> a_hat_t;
  Wiped<PolyVec<k>> y_hat;
  Wiped<PolyVec<k>> e1;
  Wiped<Poly> e2;
  static_assert(P::eta1 == 2 && P::eta2 == 2, "y, e_1 and e_2 are sampled in one batch");
  std::array<Poly*, 2 * k + 1> noise;
  for (std::size_t i = 0; i < k; ++i) {
    noise[i] = &y_hat.v[i];
    noise[k + i] = &e1.v[i];
  }
  noise[2 * k] = &e2.v;
  SampleMany(MatrixJobs<k>(a_hat_t, /*transposed=*/true), rho, noise, r, 0, extra);

  // Lines 18, 19: y_hat = NTT(y), u = NTT^-1(A_hat^T o y_hat) + e_1.
  PolyVecNtt<k>(y_hat.v);
  Wiped<PolyVecMulCache<k>> y_cache;
  PolyVecMulCacheCompute<k>(y_cache.v, y_hat.v);
  Wiped<PolyVec<k>> u;
  for (std::size_t i = 0; i < k; ++i) {
    PolyVecInnerProduct<k>(u.v[i], a_hat_t[i], y_cache.v);
  }
  PolyVecInvNttToMont<k>(u.v);  // the R of InvNttToMont cancels the R^-1 of the products
  PolyVecAdd<k>(u.v, u.v, e1.v);
  PolyVecReduce<k>(u.v);

  // Lines 20, 21: mu = Decompress_1(ByteDecode_1(m)), v = NTT^-1(t_hat^T o y_hat) + e_2 + mu.
  Wiped<Poly> mu;
  PolyFromMessage(mu.v, m);
  Wiped<Poly> v;
  PolyVecInnerProduct<k>(v.v, t_hat, y_cache.v);
  InvNttToMont(v.v);
  PolyAdd(v.v, v.v, e2.v);
  PolyAdd(v.v, v.v, mu.v);
  PolyReduce(v.v);

  // Lines 22-24: c_1 = ByteEncode_du(Compress_du(u)), c_2 = ByteEncode_dv(Compress_dv(v)).
  PolyVecCompress<P::du, k>(c.template first<P::kC1Bytes>(), u.v);
  PolyCompress<P::dv>(c.template subspan<P::kC1Bytes, P::kC2Bytes>(), v.v);
}

template <class P>
void KPkeDecrypt(std::span<const std::uint8_t, P::kDkPkeBytes> dk_pke,
                 std::span<const std::uint8_t, P::kCtBytes> c,
                 std::span<std::uint8_t, kSymBytes> m) {
  constexpr std::size_t k = P::k;
  // Lines 1-4: u' = Decompress_du(ByteDecode_du(c_1)), v' = Decompress_dv(ByteDecode_dv(c_2)).
  PolyVec<k> u_hat;
  PolyVecDecompress<P::du, k>(u_hat, c.template first<P::kC1Bytes>());
  Poly v;
  PolyDecompress<P::dv>(v, c.template subspan<P::kC1Bytes, P::kC2Bytes>());

  // Lines 5, 6: s_hat = ByteDecode_12(dk_PKE), w = v' - NTT^-1(s_hat^T o NTT(u')).
  Wiped<PolyVec<k>> s_hat;
  PolyVecFromBytes<k>(s_hat.v, dk_pke);
  PolyVecNtt<k>(u_hat);
  PolyVecMulCache<k> u_cache;
  PolyVecMulCacheCompute<k>(u_cache, u_hat);
  Wiped<Poly> w;
  PolyVecInnerProduct<k>(w.v, s_hat.v, u_cache);
  InvNttToMont(w.v);
  PolySub(w.v, v, w.v);
  PolyReduce(w.v);

  // Line 7: m = ByteEncode_1(Compress_1(w)).
  PolyToMessage(m, w.v);
}

template void KPkeKeyGen<MlKem768>(std::span<const std::uint8_t, kSymBytes>,
                                   std::span<std::uint8_t, MlKem768::kEkBytes>,
                                   std::span<std::uint8_t, MlKem768::kDkPkeBytes>);
template void KPkeEncrypt<MlKem768>(std::span<const std::uint8_t, MlKem768::kEkBytes>,
                                    std::span<const std::uint8_t, kSymBytes>,
                                    std::span<const std::uint8_t, kSymBytes>,
                                    std::span<std::uint8_t, MlKem768::kCtBytes>,
                                    const Shake256Job*);
template void KPkeDecrypt<MlKem768>(std::span<const std::uint8_t, MlKem768::kDkPkeBytes>,
                                    std::span<const std::uint8_t, MlKem768::kCtBytes>,
                                    std::span<std::uint8_t, kSymBytes>);

}  // namespace veil::crypto::mlkem
