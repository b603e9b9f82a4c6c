// KeyGen_internal, Sign_internal and Verify_internal (FIPS 204 Algorithms 6 to 8); see sign.h and
// docs/notes/mldsa.md. Variable names follow the standard: rho, rho', rho'', K, tr, mu, kappa, y,
// w, w1, c_tilde, c, z, r0, h, t0, t1.
#include "sign.h"

#include <algorithm>

#include "packing.h"
#include "reduce.h"
#include "rounding.h"
#include "sampling.h"
#include "veil/base/consttime.h"
#include "veil/base/status.h"
#include "veil/crypto/keccak.h"
#include "veil/crypto/secret.h"

namespace veil::crypto::mldsa {
namespace {

// Secret intermediates of one operation, wiped when it returns.
template <class T>
struct Wiped : T {
  Wiped() = default;  // every member is written before it is read
  Wiped(const Wiped&) = delete;
  Wiped& operator=(const Wiped&) = delete;
  ~Wiped() { SecureWipe(static_cast<T*>(this), sizeof(T)); }
};

struct KeyGenScratch {
  std::array<std::uint8_t, 2 * kSeedBytes + kRhoPrimeBytes> seeds;  // rho || rho' || K
  PolyVecL s1;
  PolyVecK s2;
  PolyVecK t;
  PolyVecK t1;
  PolyVecK t0;
};

struct SignScratch {
  std::array<std::uint8_t, kRhoPrimeBytes> rho_pp;
  std::array<std::uint8_t, kCTildeBytes> c_tilde;
  std::array<std::uint8_t, kW1EncodedBytes> w1_encoded;
  PolyVecL y;
  PolyVecL y_hat;  // later z
  PolyVecK w;      // later w - c s2
  PolyVecK w1;     // later r0, then h
  PolyVecK cs;     // c s2, then c t0
  PolyVecL cs1;
  Poly c;
};

void HashPublicKey(std::span<std::uint8_t, kTrBytes> tr,
                   std::span<const std::uint8_t, kPublicKeyBytes> pk) {
  Shake256 h;
  h.Absorb(pk);
  h.Squeeze(tr);
}

// NTT(t1 * 2^d), the verifier's fixed operand (Algorithm 8, line 9).
void PrecomputeT1(PublicKeyState& pk, const PolyVecK& t1) {
  for (std::size_t i = 0; i < kK; ++i) {
    pk.t1_hat.p[i] = t1.p[i];
    PolyShiftLeftD(pk.t1_hat.p[i]);
    PolyNtt(pk.t1_hat.p[i]);
    PolyReduce32(pk.t1_hat.p[i]);
  }
}

// NTT of s1, s2, t0 once per key (Algorithm 7, line 5).
void PrecomputeSecret(SecretKeyState& sk, const PolyVecL& s1, const PolyVecK& s2,
                      const PolyVecK& t0) {
  sk.s1_hat = s1;
  sk.s2_hat = s2;
  sk.t0_hat = t0;
  VecNtt(sk.s1_hat);
  VecNtt(sk.s2_hat);
  VecNtt(sk.t0_hat);
  VecReduce32(sk.s1_hat);
  VecReduce32(sk.s2_hat);
  VecReduce32(sk.t0_hat);
}

// c_tilde = H(mu || w1Encode(w1), lambda / 4) (Algorithm 7, line 15; Algorithm 8, line 12).
void Commitment(std::span<std::uint8_t, kCTildeBytes> c_tilde,
                std::span<const std::uint8_t, kMuBytes> mu,
                std::span<std::uint8_t, kW1EncodedBytes> w1_encoded, const PolyVecK& w1) {
  W1Encode(w1_encoded, w1);
  Shake256 h;
  h.Absorb(mu);
  h.Absorb(w1_encoded);
  h.Squeeze(c_tilde);
}

// The verdict of one rejection-loop iteration, public by design: signing time shows how many
// iterations ran, and whether one passes depends on its fresh y, not on the key (sign.h).
bool Restart(std::uint32_t reject_mask) {
  bool restart = reject_mask != 0;
  VEIL_DECLASSIFY(&restart, sizeof restart);
  return restart;
}

}  // namespace

SecretKeyState::~SecretKeyState() {
  SecureWipe(encoded.data(), encoded.size());
  SecureWipe(key.data(), key.size());
  SecureWipe(&s1_hat, sizeof s1_hat);
  SecureWipe(&s2_hat, sizeof s2_hat);
  SecureWipe(&t0_hat, sizeof t0_hat);
}

void KeyGenInternal(std::span<const std::uint8_t, kSeedBytes> xi, PublicKeyState& pk,
                    SecretKeyState& sk) {
  Wiped<KeyGenScratch> s;
  // (rho, rho', K) = H(xi || IntegerToBytes(k, 1) || IntegerToBytes(l, 1), 128) (line 1).
  {
    Shake256 h;
    h.Absorb(xi);
    const std::array<std::uint8_t, 2> kl = {static_cast<std::uint8_t>(kK),
                                            static_cast<std::uint8_t>(kL)};
    h.Absorb(kl);
    h.Squeeze(s.seeds);
  }
  const auto rho = std::span(s.seeds).first<kSeedBytes>();
  const auto rho_prime = std::span(s.seeds).subspan<kSeedBytes, kRhoPrimeBytes>();
  const auto key = std::span(s.seeds).subspan<kSeedBytes + kRhoPrimeBytes, kSeedBytes>();
  // rho is public: it is the first field of the public key this function returns.
  VEIL_DECLASSIFY(rho.data(), rho.size());

  ExpandAVartime(sk.a_hat, rho);   // line 3
  ExpandS(s.s1, s.s2, rho_prime);  // line 4

  // t = NTT^-1(A_hat o NTT(s1)) + s2 (line 5), then (t1, t0) = Power2Round(t) (line 6).
  PolyVecL s1_hat = s.s1;
  VecNtt(s1_hat);
  MatrixVectorMontgomery(s.t, sk.a_hat, s1_hat);
  SecureWipe(&s1_hat, sizeof s1_hat);
  VecInvNttToMont(s.t);
  for (std::size_t i = 0; i < kK; ++i) {
    for (std::size_t n = 0; n < kN; ++n) {
      const Split p = Power2Round(Freeze(s.t.p[i].c[n] + s.s2.p[i].c[n]));
      s.t1.p[i].c[n] = p.hi;
      s.t0.p[i].c[n] = p.lo;
    }
  }

  PkEncode(pk.encoded, rho, s.t1);                          // line 7
  HashPublicKey(pk.tr, pk.encoded);                         // line 8: tr = H(pk, 64)
  SkEncode(sk.encoded, rho, key, pk.tr, s.s1, s.s2, s.t0);  // line 9

  pk.a_hat = sk.a_hat;
  PrecomputeT1(pk, s.t1);
  std::copy(key.begin(), key.end(), sk.key.begin());
  sk.tr = pk.tr;
  PrecomputeSecret(sk, s.s1, s.s2, s.t0);
}

void DecodePublicKey(PublicKeyState& pk, std::span<const std::uint8_t, kPublicKeyBytes> in) {
  std::copy(in.begin(), in.end(), pk.encoded.begin());
  std::array<std::uint8_t, kSeedBytes> rho;
  PolyVecK t1;
  PkDecode(rho, t1, in);
  ExpandAVartime(pk.a_hat, rho);
  PrecomputeT1(pk, t1);
  HashPublicKey(pk.tr, in);
}

bool DecodeSecretKey(SecretKeyState& sk, std::span<const std::uint8_t, kSecretKeyBytes> in) {
  struct Parts {
    std::array<std::uint8_t, kSeedBytes> rho;
    PolyVecL s1;
    PolyVecK s2;
    PolyVecK t0;
  };
  Wiped<Parts> d;
  const std::uint32_t bad = SkDecode({d.rho, sk.key, sk.tr, d.s1, d.s2, d.t0}, in);
  // The verdict of the decode is public: a malformed key is reported to the caller.
  bool ok = bad == 0;
  VEIL_DECLASSIFY(&ok, sizeof ok);
  if (!ok) return false;
  // rho is public: it is the first field of the matching public key.
  VEIL_DECLASSIFY(d.rho.data(), d.rho.size());
  std::copy(in.begin(), in.end(), sk.encoded.begin());
  ExpandAVartime(sk.a_hat, d.rho);
  PrecomputeSecret(sk, d.s1, d.s2, d.t0);
  return true;
}

void ComputeMu(std::span<std::uint8_t, kMuBytes> mu, std::span<const std::uint8_t, kTrBytes> tr,
               std::initializer_list<ByteView> m_prime_parts) {
  Shake256 h;
  h.Absorb(tr);
  for (ByteView part : m_prime_parts) h.Absorb(part);
  h.Squeeze(mu);
}

void SignMu(std::span<std::uint8_t, kSignatureBytes> sig, const SecretKeyState& sk,
            std::span<const std::uint8_t, kMuBytes> mu,
            std::span<const std::uint8_t, kSeedBytes> rnd) {
  Wiped<SignScratch> s;
  // rho'' = H(K || rnd || mu, 64) (line 7).
  {
    Shake256 h;
    h.Absorb(sk.key);
    h.Absorb(rnd);
    h.Absorb(mu);
    h.Squeeze(s.rho_pp);
  }
  // kappa is 16 bits in ExpandMask; 13107 iterations are never reached (each accepts with
  // probability about 1/5), so running out is a broken invariant, not an input error.
  MaskSampler mask(s.rho_pp);
  for (std::uint32_t kappa = 0;; kappa += kL) {
    VEIL_CHECK_MSG(kappa + kL <= 0x10000, "ML-DSA: rejection loop did not terminate");
    mask.Expand(s.y, static_cast<std::uint16_t>(kappa));  // line 11

    // w = NTT^-1(A_hat o NTT(y)) in [0, q), w1 = HighBits(w) (lines 12, 13).
    s.y_hat = s.y;
    VecNtt(s.y_hat);
    MatrixVectorMontgomery(s.w, sk.a_hat, s.y_hat);
    VecInvNttToMont(s.w);
    for (std::size_t i = 0; i < kK; ++i) {
      for (std::size_t n = 0; n < kN; ++n) {
        s.w.p[i].c[n] = CAddQ(s.w.p[i].c[n]);
        s.w1.p[i].c[n] = HighBits(s.w.p[i].c[n]);
      }
    }
    Commitment(s.c_tilde, mu, s.w1_encoded, s.w1);  // line 15
    SampleInBall(s.c, s.c_tilde);                   // line 16
    PolyNtt(s.c);                                   // line 17: c_hat

    // <<c s1>>, <<c s2>> (lines 18, 19); z = y + <<c s1>> centred (line 20); r0 =
    // LowBits(w - <<c s2>>) (line 21). w - c s2 is kept in w for the hint.
    PolyVecL& z = s.y_hat;
    VecScalarMontgomery(s.cs1, s.c, sk.s1_hat);
    VecInvNttToMont(s.cs1);
    for (std::size_t i = 0; i < kL; ++i) {
      for (std::size_t n = 0; n < kN; ++n) {
        z.p[i].c[n] = Centered(Freeze(s.y.p[i].c[n] + s.cs1.p[i].c[n]));
      }
    }
    PolyVecK& r0 = s.w1;
    VecScalarMontgomery(s.cs, s.c, sk.s2_hat);
    VecInvNttToMont(s.cs);
    for (std::size_t i = 0; i < kK; ++i) {
      for (std::size_t n = 0; n < kN; ++n) {
        s.w.p[i].c[n] = Freeze(s.w.p[i].c[n] - s.cs.p[i].c[n]);
        r0.p[i].c[n] = LowBits(s.w.p[i].c[n]);
      }
    }
    // Line 23: ||z||_inf >= gamma_1 - beta or ||r0||_inf >= gamma_2 - beta.
    const std::uint32_t reject =
        VecNormAtLeast(z, kGamma1 - kBeta) | VecNormAtLeast(r0, kGamma2 - kBeta);
    if (Restart(reject)) continue;  // public by design: see Restart()

    // <<c t0>> centred (line 25); h = MakeHint(-<<c t0>>, w - <<c s2>> + <<c t0>>) (line 26),
    // i.e. [[HighBits(w - c s2 + c t0) != HighBits(w - c s2)]].
    PolyVecK& h = s.w1;
    VecScalarMontgomery(s.cs, s.c, sk.t0_hat);
    VecInvNttToMont(s.cs);
    std::int32_t ones = 0;
    for (std::size_t i = 0; i < kK; ++i) {
      for (std::size_t n = 0; n < kN; ++n) {
        const std::int32_t ct0 = Centered(CAddQ(s.cs.p[i].c[n]));
        s.cs.p[i].c[n] = ct0;
        h.p[i].c[n] = MakeHint(Freeze(s.w.p[i].c[n] + ct0), s.w.p[i].c[n]);
        ones += h.p[i].c[n];
      }
    }
    // Line 28: ||<<c t0>>||_inf >= gamma_2 or more than omega ones in h.
    const std::uint32_t reject2 =
        VecNormAtLeast(s.cs, kGamma2) | GeMask(ones, static_cast<std::int32_t>(kOmega) + 1);
    if (Restart(reject2)) continue;  // public by design: see Restart()

    SigEncode(sig, s.c_tilde, z, h);  // line 33
    return;
  }
}

bool VerifyMu(const PublicKeyState& pk, std::span<const std::uint8_t, kMuBytes> mu,
              std::span<const std::uint8_t, kSignatureBytes> sig) {
  std::array<std::uint8_t, kCTildeBytes> c_tilde;
  PolyVecL z;
  PolyVecK h;
  if (!SigDecodeVartime(c_tilde, z, h, sig)) return false;  // lines 2-4: h = bottom
  // Line 13: ||z||_inf < gamma_1 - beta, checked first since it needs no arithmetic.
  if (VecNormAtLeast(z, kGamma1 - kBeta) != 0) return false;

  Poly c;
  SampleInBall(c, c_tilde);  // line 8
  PolyNtt(c);
  VecNtt(z);
  // w'_Approx = NTT^-1(A_hat o NTT(z) - NTT(c) o NTT(t1 * 2^d)) (line 9), in [0, q).
  PolyVecK w;
  MatrixVectorMinusScalarMontgomery(w, pk.a_hat, z, c, pk.t1_hat);
  VecInvNttToMont(w);
  for (std::size_t i = 0; i < kK; ++i) {
    for (std::size_t n = 0; n < kN; ++n) {
      w.p[i].c[n] = UseHint(h.p[i].c[n], CAddQ(w.p[i].c[n]));  // line 10: w1'
    }
  }
  std::array<std::uint8_t, kCTildeBytes> c_tilde_prime;
  std::array<std::uint8_t, kW1EncodedBytes> w1_encoded;
  Commitment(c_tilde_prime, mu, w1_encoded, w);                              // line 12
  return std::equal(c_tilde.begin(), c_tilde.end(), c_tilde_prime.begin());  // line 13
}

}  // namespace veil::crypto::mldsa
