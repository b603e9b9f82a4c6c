// The inner-product argument (inner_product.h, docs/notes/bulletproofs.md "The inner-product
// argument" and "Prover cost").
#include "inner_product.h"

#include <bit>

#include "veil/base/consttime.h"
#include "veil/crypto/secret.h"

namespace veil::zk::internal {
namespace {

// The prover keeps the folded generators as public coefficients over a "base" vector of points
// (at first the original G_i, H_i) and re-materialises the base only when the folded vectors are
// a quarter of its length. A round over a base of length b costs 2b constant-time MSM terms;
// materialising costs one variable-time MSM of three points per new generator, where folding round
// by round would cost one double-scalar multiplication per generator and round. With these costs
// (docs/notes/bulletproofs.md, "Prover cost"), a quarter is the cheapest ratio.
constexpr std::size_t kRematerialiseRatio = 4;

ec::Scalar Inner(std::span<const ec::Scalar> a, std::span<const ec::Scalar> b) {
  ec::Scalar acc;
  for (std::size_t i = 0; i < a.size(); ++i) acc += a[i] * b[i];
  return acc;
}

void WipeScalars(std::vector<ec::Scalar>& v) {
  crypto::SecureWipe(v.data(), v.size() * sizeof(ec::Scalar));
}

// L or R after it is computed: encoded, published in the transcript and the proof.
void Publish(Transcript& t, std::string_view label, const ec::RistrettoPoint& p,
             std::vector<ec::CompressedRistretto>& encodings,
             std::vector<ec::RistrettoPoint>& points) {
  ec::CompressedRistretto enc = p.Encode();
  // L and R are messages of the proof: public from here on.
  VEIL_DECLASSIFY(&enc, sizeof enc);
  VEIL_DECLASSIFY(&p, sizeof p);
  t.AppendPoint(label, enc);
  encodings.push_back(enc);
  points.push_back(p);
}

}  // namespace

std::size_t Log2(std::size_t n) { return static_cast<std::size_t>(std::countr_zero(n)); }

void RoundPoints(std::span<const ec::RistrettoPoint> base_g,
                 std::span<const ec::RistrettoPoint> base_h, std::size_t len,
                 std::vector<ec::RistrettoPoint>& l_points,
                 std::vector<ec::RistrettoPoint>& r_points) {
  const std::size_t half = len / 2;
  l_points.clear();
  r_points.clear();
  for (std::size_t q = 0; q < base_g.size(); ++q) {
    (q % len >= half ? l_points : r_points).push_back(base_g[q]);
  }
  for (std::size_t q = 0; q < base_h.size(); ++q) {
    (q % len < half ? l_points : r_points).push_back(base_h[q]);
  }
}

namespace {

ec::MultiScalarMulTable RoundTable(std::span<const ec::RistrettoPoint> G,
                                   std::span<const ec::RistrettoPoint> H, std::size_t len,
                                   bool left) {
  VEIL_CHECK_MSG(G.size() == H.size() && G.size() >= 2 && std::has_single_bit(G.size()),
                 "InnerProductTables: G and H must have the same power-of-two length >= 2");
  if (len < 2) return ec::MultiScalarMulTable(std::span<const ec::RistrettoPoint>());
  std::vector<ec::RistrettoPoint> l, r;
  RoundPoints(G, H, len, l, r);
  return ec::MultiScalarMulTable(left ? l : r);
}

}  // namespace

InnerProductTables::InnerProductTables(std::span<const ec::RistrettoPoint> G,
                                       std::span<const ec::RistrettoPoint> H)
    : first_l(RoundTable(G, H, G.size(), true)),
      first_r(RoundTable(G, H, G.size(), false)),
      second_l(RoundTable(G, H, G.size() / 2, true)),
      second_r(RoundTable(G, H, G.size() / 2, false)) {}

Result<InnerProductProof> ProveInnerProduct(
    Transcript& transcript, const ec::Scalar& w, std::span<const ec::RistrettoPoint> G,
    std::span<const ec::RistrettoPoint> H, std::span<const ec::Scalar> h_factors,
    const InnerProductTables& tables, std::vector<ec::Scalar>& a, std::vector<ec::Scalar>& b) {
  const std::size_t n = a.size();
  VEIL_CHECK_MSG(n >= 2 && std::has_single_bit(n) && b.size() == n && G.size() == n &&
                     H.size() == n && h_factors.size() == n && tables.first_l.size() == n,
                 "ProveInnerProduct: inconsistent sizes");
  const std::size_t k = Log2(n);
  transcript.AppendU64("ipa.n", n);
  InnerProductProof proof;
  proof.L.reserve(k);
  proof.R.reserve(k);

  // The current (folded) generators are G^(j)_i = sum over q = i mod len of g_coef[q] base_g[q],
  // and H'^(j) likewise; base_g and base_h have the length of g_coef and h_coef.
  std::vector<ec::RistrettoPoint> base_g(G.begin(), G.end()), base_h(H.begin(), H.end());
  std::vector<ec::Scalar> g_coef(n, ec::Scalar::One());
  std::vector<ec::Scalar> h_coef(h_factors.begin(), h_factors.end());

  std::vector<ec::Scalar> l_scalars, r_scalars;
  std::vector<ec::RistrettoPoint> l_points, r_points;
  std::size_t len = n;
  for (std::size_t round = 0; round < k; ++round) {
    const std::size_t half = len / 2;
    const std::size_t base = g_coef.size();
    const std::span<const ec::Scalar> a_lo(a.data(), half), a_hi(a.data() + half, half);
    const std::span<const ec::Scalar> b_lo(b.data(), half), b_hi(b.data() + half, half);
    ec::Scalar c_l = Inner(a_lo, b_hi);
    ec::Scalar c_r = Inner(a_hi, b_lo);

    // L = <a_lo, G_hi> + <b_hi, H'_lo>, R = <a_hi, G_lo> + <b_lo, H'_hi>, written over the base:
    // G^(j)_{half+i} contributes a_lo[i] g_coef[q] base_g[q] for each q = half + i mod len, and
    // so on. Secret times public scalars, constant-time sums, in the order of RoundPoints.
    l_scalars.clear();
    r_scalars.clear();
    for (std::size_t q = 0; q < base; ++q) {
      const std::size_t i = q % len;
      if (i >= half) {
        l_scalars.push_back(a[i - half] * g_coef[q]);
      } else {
        r_scalars.push_back(a[i + half] * g_coef[q]);
      }
    }
    for (std::size_t q = 0; q < base; ++q) {
      const std::size_t i = q % len;
      if (i < half) {
        l_scalars.push_back(b[i + half] * h_coef[q]);
      } else {
        r_scalars.push_back(b[i - half] * h_coef[q]);
      }
    }
    ec::RistrettoPoint big_l, big_r;
    if (round < 2 && base == n) {
      // Over the original generators: the precomputed tables (in RoundPoints order).
      big_l = (round == 0 ? tables.first_l : tables.second_l).Mul(l_scalars);
      big_r = (round == 0 ? tables.first_r : tables.second_r).Mul(r_scalars);
    } else {
      RoundPoints(base_g, base_h, len, l_points, r_points);
      big_l = ec::MultiScalarMul(l_scalars, l_points);
      big_r = ec::MultiScalarMul(r_scalars, r_points);
    }
    // The Q = w B terms: c_L and c_R are secret, B has the precomputed table.
    big_l += ec::BasepointMul(c_l * w);
    big_r += ec::BasepointMul(c_r * w);
    c_l.Wipe();
    c_r.Wipe();
    WipeScalars(l_scalars);
    WipeScalars(r_scalars);

    Publish(transcript, "ipa.L", big_l, proof.L, proof.L_points);
    Publish(transcript, "ipa.R", big_r, proof.R, proof.R_points);
    const ec::Scalar u = transcript.ChallengeScalar("ipa.u");
    if (u.IsZero()) {
      WipeScalars(a);
      WipeScalars(b);
      return Internal("inner-product argument: zero challenge");
    }
    const ec::Scalar u_inv = u.Invert();

    // a' = u a_lo + u^-1 a_hi, b' = u^-1 b_lo + u b_hi, in place (the upper halves stay until the
    // final wipe).
    for (std::size_t i = 0; i < half; ++i) {
      a[i] = a[i] * u + a[half + i] * u_inv;
      b[i] = b[i] * u_inv + b[half + i] * u;
    }
    if (round + 1 == k) break;  // the last round needs no folded generators

    // G' = u^-1 G_lo + u G_hi, H' = u H'_lo + u^-1 H'_hi, as coefficients over the base.
    for (std::size_t q = 0; q < base; ++q) {
      const bool lo = q % len < half;
      g_coef[q] *= lo ? u_inv : u;
      h_coef[q] *= lo ? u : u_inv;
    }
    len = half;
    if (base / len >= kRematerialiseRatio) {
      // New base of length len: G^(j+1)_i = g_coef[i] (base_g[i] + sum_t (g_coef[q_t] / g_coef[i])
      // base_g[q_t]) over q_t = i + t len, t >= 1, so one MSM term fewer; g_coef[i] stays as the
      // coefficient. Public points and coefficients: variable time. The coefficients are products
      // of challenges and powers of y, never zero.
      std::vector<ec::Scalar> inv(2 * len);
      for (std::size_t i = 0; i < len; ++i) {
        inv[i] = g_coef[i];
        inv[len + i] = h_coef[i];
      }
      ec::Scalar::BatchInvert(inv);
      std::vector<ec::Scalar> gs, hs;
      std::vector<ec::RistrettoPoint> gp, hp;
      for (std::size_t i = 0; i < len; ++i) {
        gs.clear();
        hs.clear();
        gp.clear();
        hp.clear();
        for (std::size_t q = i + len; q < base; q += len) {
          gs.push_back(g_coef[q] * inv[i]);
          gp.push_back(base_g[q]);
          hs.push_back(h_coef[q] * inv[len + i]);
          hp.push_back(base_h[q]);
        }
        base_g[i] += ec::MultiScalarMulVartime(gs, gp);
        base_h[i] += ec::MultiScalarMulVartime(hs, hp);
      }
      base_g.resize(len);
      base_h.resize(len);
      g_coef.resize(len);
      h_coef.resize(len);
    }
  }

  proof.a = a[0];
  proof.b = b[0];
  // a and b are the last message of the proof: public.
  VEIL_DECLASSIFY(&proof.a, sizeof proof.a);
  VEIL_DECLASSIFY(&proof.b, sizeof proof.b);
  WipeScalars(a);
  WipeScalars(b);
  transcript.AppendScalar("ipa.a", proof.a);
  transcript.AppendScalar("ipa.b", proof.b);
  return proof;
}

bool InnerProductVerifierScalarsFor(Transcript& transcript,
                                    std::span<const ec::CompressedRistretto> L,
                                    std::span<const ec::CompressedRistretto> R, const ec::Scalar& a,
                                    const ec::Scalar& b, std::span<ec::Scalar> invert_too,
                                    InnerProductVerifierScalars& out) {
  const std::size_t k = L.size();
  VEIL_CHECK_MSG(R.size() == k && k < 32, "InnerProductVerifierScalarsFor: bad proof shape");
  const std::size_t n = std::size_t{1} << k;
  transcript.AppendU64("ipa.n", n);
  std::vector<ec::Scalar> inv;
  inv.reserve(k + invert_too.size());
  bool zero = false;
  for (std::size_t j = 0; j < k; ++j) {
    transcript.AppendPoint("ipa.L", L[j]);
    transcript.AppendPoint("ipa.R", R[j]);
    inv.push_back(transcript.ChallengeScalar("ipa.u"));
    zero |= inv.back().IsZero();
  }
  transcript.AppendScalar("ipa.a", a);
  transcript.AppendScalar("ipa.b", b);
  for (const ec::Scalar& x : invert_too) {
    zero |= x.IsZero();
    inv.push_back(x);
  }
  if (zero) return false;

  out.u_sq.resize(k);
  out.u_inv_sq.resize(k);
  for (std::size_t j = 0; j < k; ++j) out.u_sq[j] = inv[j].Square();
  ec::Scalar::BatchInvert(inv);
  ec::Scalar all_inv = ec::Scalar::One();
  for (std::size_t j = 0; j < k; ++j) {
    out.u_inv_sq[j] = inv[j].Square();
    all_inv *= inv[j];
  }
  for (std::size_t i = 0; i < invert_too.size(); ++i) invert_too[i] = inv[k + i];

  // s_i = prod_j u_j^(+1 if bit k-j of i is set, else -1): s_0 is the product of every inverse,
  // and setting the highest bit lg of i multiplies by the square of that bit's challenge, which
  // was drawn in round k - lg (docs/notes/bulletproofs.md).
  out.s.resize(n);
  out.s[0] = all_inv;
  for (std::size_t i = 1; i < n; ++i) {
    const std::size_t lg = static_cast<std::size_t>(std::bit_width(i)) - 1;
    out.s[i] = out.s[i - (std::size_t{1} << lg)] * out.u_sq[k - 1 - lg];
  }
  return true;
}

}  // namespace veil::zk::internal
