// ML-KEM KeyGen_internal, Encaps_internal and Decaps_internal (see kem.h). Names follow FIPS 203
// Algorithms 16-18: H = SHA3-256, G = SHA3-512, J = SHAKE256 with a 32-byte output.
#include "kem.h"

#include <algorithm>
#include <array>

#include "kpke.h"
#include "packing.h"
#include "sampling.h"
#include "veil/base/consttime.h"
#include "veil/crypto/keccak.h"
#include "veil/crypto/secret.h"

namespace veil::crypto::mlkem {
namespace {

// (K, r) = G(m || h): 64 bytes, K first.
void G(std::span<const std::uint8_t, kSymBytes> m, std::span<const std::uint8_t, kSymBytes> h,
       std::span<std::uint8_t, 2 * kSymBytes> k_r) {
  Sha3_512 g;
  g.Update(m);
  g.Update(h);
  g.Final(k_r);
}

// Keeps the compiler from reasoning about a value, so a mask computed from it stays arithmetic
// instead of being turned back into a branch.
inline std::uint32_t ValueBarrier(std::uint32_t x) {
#if defined(__GNUC__) || defined(__clang__)
  __asm__("" : "+r"(x));
#endif
  return x;
}

}  // namespace

template <class P>
void KeyGenInternal(std::span<const std::uint8_t, kSymBytes> d,
                    std::span<const std::uint8_t, kSymBytes> z,
                    std::span<std::uint8_t, P::kEkBytes> ek,
                    std::span<std::uint8_t, P::kDkBytes> dk) {
  // Algorithm 16, line 1: (ek_PKE, dk_PKE) = K-PKE.KeyGen(d).
  KPkeKeyGen<P>(d, ek, dk.template first<P::kDkPkeBytes>());
  // The encapsulation key is public by design: it is what the key owner publishes.
  VEIL_DECLASSIFY(ek.data(), ek.size());
  // Lines 2, 3: ek = ek_PKE, dk = dk_PKE || ek || H(ek) || z.
  auto rest = dk.template subspan<P::kDkPkeBytes>();
  std::copy(ek.begin(), ek.end(), rest.begin());
  const auto h = Sha3_256::Hash(ek);
  std::copy(h.begin(), h.end(), rest.begin() + P::kEkBytes);
  std::copy(z.begin(), z.end(), rest.begin() + P::kEkBytes + kSymBytes);
}

template <class P>
void EncapsInternal(std::span<const std::uint8_t, P::kEkBytes> ek,
                    std::span<const std::uint8_t, kSymBytes> h_ek,
                    std::span<const std::uint8_t, kSymBytes> m,
                    std::span<std::uint8_t, P::kCtBytes> c,
                    std::span<std::uint8_t, kSymBytes> shared_key) {
  // Algorithm 17, line 1: (K, r) = G(m || H(ek)).
  std::array<std::uint8_t, 2 * kSymBytes> k_r;
  G(m, h_ek, k_r);
  // Line 2: c = K-PKE.Encrypt(ek, m, r).
  KPkeEncrypt<P>(ek, m, std::span(k_r).template last<kSymBytes>(), c);
  // The ciphertext is public by design: it is sent in the clear.
  VEIL_DECLASSIFY(c.data(), c.size());
  std::copy(k_r.begin(), k_r.begin() + kSymBytes, shared_key.begin());
  SecureWipe(k_r.data(), k_r.size());
}

template <class P>
void DecapsInternal(std::span<const std::uint8_t, P::kDkBytes> dk,
                    std::span<const std::uint8_t, P::kEkBytes> ek,
                    std::span<const std::uint8_t, P::kCtBytes> c,
                    std::span<std::uint8_t, kSymBytes> shared_key) {
  // Algorithm 18, lines 1-4: dk_PKE, ek_PKE, h, z (ek_PKE is passed as `ek`, see kem.h).
  const auto dk_pke = dk.template first<P::kDkPkeBytes>();
  const auto h = dk.template subspan<P::kDkPkeBytes + P::kEkBytes, kSymBytes>();
  const auto z = dk.template subspan<P::kDkPkeBytes + P::kEkBytes + kSymBytes, kSymBytes>();

  // Line 5: m' = K-PKE.Decrypt(dk_PKE, c).
  std::array<std::uint8_t, kSymBytes> m_prime;
  KPkeDecrypt<P>(dk_pke, c, m_prime);
  // Line 6: (K', r') = G(m' || h).
  std::array<std::uint8_t, 2 * kSymBytes> k_r_prime;
  G(m_prime, h, k_r_prime);
  // Line 7: K_bar = J(z || c), computed by the re-encryption's sampler beside its own XOF and PRF
  // instances (on the x4 Keccak with AVX2). Line 8: c' = K-PKE.Encrypt(ek_PKE, m', r').
  std::array<std::uint8_t, kSymBytes> k_bar;
  const Shake256Job j{{z, c}, k_bar};
  std::array<std::uint8_t, P::kCtBytes> c_prime;
  KPkeEncrypt<P>(ek, m_prime, std::span(k_r_prime).template last<kSymBytes>(), c_prime, &j);

  // Lines 9-11: if c != c' then K' = K_bar, without a branch: diff is 0 exactly when c == c', and
  // mask is all ones then, all zeros otherwise.
  std::uint32_t diff = 0;
  for (std::size_t i = 0; i < P::kCtBytes; ++i)
    diff |= static_cast<std::uint32_t>(c[i] ^ c_prime[i]);
  const std::uint32_t equal_mask = ValueBarrier((diff - 1) >> 8) & 0xFFu;  // diff <= 0xFF
  const auto mask = static_cast<std::uint8_t>(equal_mask);
  for (std::size_t i = 0; i < kSymBytes; ++i) {
    shared_key[i] = static_cast<std::uint8_t>((k_r_prime[i] & mask) | (k_bar[i] & ~mask));
  }
  SecureWipe(m_prime.data(), m_prime.size());
  SecureWipe(k_r_prime.data(), k_r_prime.size());
  SecureWipe(k_bar.data(), k_bar.size());
  SecureWipe(c_prime.data(), c_prime.size());
}

template <class P>
bool EncapsulationKeyPassesModulusCheck(std::span<const std::uint8_t, P::kEkBytes> ek) {
  unsigned ok = 1;  // every polynomial is checked; ek is public, but no early exit is needed
  for (std::size_t i = 0; i < P::k; ++i) {
    ok &= PolyBytesAreCanonical(ek.subspan(i * kPolyBytes).template first<kPolyBytes>()) ? 1u : 0u;
  }
  return ok == 1;
}

template void KeyGenInternal<MlKem768>(std::span<const std::uint8_t, kSymBytes>,
                                       std::span<const std::uint8_t, kSymBytes>,
                                       std::span<std::uint8_t, MlKem768::kEkBytes>,
                                       std::span<std::uint8_t, MlKem768::kDkBytes>);
template void EncapsInternal<MlKem768>(std::span<const std::uint8_t, MlKem768::kEkBytes>,
                                       std::span<const std::uint8_t, kSymBytes>,
                                       std::span<const std::uint8_t, kSymBytes>,
                                       std::span<std::uint8_t, MlKem768::kCtBytes>,
                                       std::span<std::uint8_t, kSymBytes>);
template void DecapsInternal<MlKem768>(std::span<const std::uint8_t, MlKem768::kDkBytes>,
                                       std::span<const std::uint8_t, MlKem768::kEkBytes>,
                                       std::span<const std::uint8_t, MlKem768::kCtBytes>,
                                       std::span<std::uint8_t, kSymBytes>);
template bool EncapsulationKeyPassesModulusCheck<MlKem768>(
    std::span<const std::uint8_t, MlKem768::kEkBytes>);

}  // namespace veil::crypto::mlkem
