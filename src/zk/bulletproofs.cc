// Bulletproofs range proofs (include/veil/zk/bulletproofs.h); the names and the equations are
// those of docs/notes/bulletproofs.md, where B is the standard generator and B~ Pedersen's H (the
// G and H of PedersenGens), and G_i, H_i are the vector generators.
#include "veil/zk/bulletproofs.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <mutex>
#include <utility>

#include "inner_product.h"
#include "msm_batch.h"
#include "veil/base/consttime.h"
#include "veil/crypto/secret.h"

namespace veil::zk {

// ---- Generators ----

namespace {

ec::RistrettoPoint GeneratorFor(char tag, std::uint32_t i) {
  const std::array<std::uint8_t, 5> msg = {
      static_cast<std::uint8_t>(tag), static_cast<std::uint8_t>(i >> 24),
      static_cast<std::uint8_t>(i >> 16), static_cast<std::uint8_t>(i >> 8),
      static_cast<std::uint8_t>(i)};
  return ec::RistrettoPoint::HashToGroup(msg, AsBytes(kBulletproofsDst));
}

constexpr std::size_t kMaxGenerators = 64 * kRangeProofMaxValues;
// Proofs with n M up to this many bits (four 64-bit values) keep the MSM tables of their first
// two rounds (about 5 KiB per generator pair: 1.3 MiB at 256, 2.6 MiB for every size up to 256
// together); larger ones build them per proof. Building costs about a tenth of the
// multiplications that use the tables, and more on hosts where the fresh memory's page faults are
// expensive (15-20% of a 4 x 64-bit proof on the development VM).
constexpr std::size_t kMaxCachedTables = 256;
static_assert(kMaxCachedTables < (std::size_t{1} << 9), "one cache slot per log2(n M) below 9");

// G_i and H_i for i below the largest n M asked for so far. A hash to the group costs about 30 us,
// so they are computed once, on first need, and then only read: the arrays are allocated at their
// final size up front, entries below ready_ are never written again, and a reader that sees
// ready_ >= n (acquire) sees those entries complete. The tables are built under the same mutex and
// never replaced once published.
class GeneratorCache {
 public:
  static GeneratorCache& Get() {
    static GeneratorCache cache;
    return cache;
  }
  std::span<const ec::RistrettoPoint> G(std::size_t n) {
    Ensure(n);
    return {g_.get(), n};
  }
  std::span<const ec::RistrettoPoint> H(std::size_t n) {
    Ensure(n);
    return {h_.get(), n};
  }
  // The inner-product tables over G(n), H(n) (n a power of two), cached up to kMaxCachedTables.
  std::shared_ptr<const internal::InnerProductTables> Tables(std::size_t n) {
    if (n > kMaxCachedTables) return std::make_shared<internal::InnerProductTables>(G(n), H(n));
    const std::size_t slot = internal::Log2(n);
    std::lock_guard<std::mutex> lock(tables_mu_);
    if (!tables_[slot]) tables_[slot] = std::make_shared<internal::InnerProductTables>(G(n), H(n));
    return tables_[slot];
  }

 private:
  GeneratorCache()
      : g_(std::make_unique<ec::RistrettoPoint[]>(kMaxGenerators)),
        h_(std::make_unique<ec::RistrettoPoint[]>(kMaxGenerators)) {}
  void Ensure(std::size_t n) {
    VEIL_CHECK_MSG(n <= kMaxGenerators, "bulletproofs: too many generators");
    if (ready_.load(std::memory_order_acquire) >= n) return;
    std::lock_guard<std::mutex> lock(mu_);
    const std::size_t have = ready_.load(std::memory_order_relaxed);
    if (have >= n) return;
    for (std::size_t i = have; i < n; ++i) {
      g_[i] = GeneratorFor('G', static_cast<std::uint32_t>(i));
      h_[i] = GeneratorFor('H', static_cast<std::uint32_t>(i));
    }
    ready_.store(n, std::memory_order_release);
  }

  std::unique_ptr<ec::RistrettoPoint[]> g_, h_;
  std::atomic<std::size_t> ready_{0};
  std::mutex mu_;
  std::mutex tables_mu_;
  std::array<std::shared_ptr<const internal::InnerProductTables>, 9> tables_;
};

}  // namespace

ec::RistrettoPoint BulletproofsGeneratorG(std::uint32_t i) { return GeneratorFor('G', i); }
ec::RistrettoPoint BulletproofsGeneratorH(std::uint32_t i) { return GeneratorFor('H', i); }

std::size_t RangeProofSize(std::size_t n, std::size_t m) {
  if (!IsSupportedRangeBits(n) || m == 0 || m > kRangeProofMaxValues) return 0;
  return 32 * (9 + 2 * internal::Log2(PaddedRangeBits(n) * std::bit_ceil(m)));
}

// ---- Encoding ----

struct RangeProofInternal {
  static const std::vector<ec::RistrettoPoint>& Points(const RangeProof& p) { return p.points_; }
  static void Set(RangeProof& p, const ec::CompressedRistretto& A, const ec::CompressedRistretto& S,
                  const ec::CompressedRistretto& T1, const ec::CompressedRistretto& T2,
                  const ec::Scalar& t_hat, const ec::Scalar& tau_x, const ec::Scalar& mu,
                  std::vector<ec::CompressedRistretto> L, std::vector<ec::CompressedRistretto> R,
                  const ec::Scalar& a, const ec::Scalar& b,
                  std::vector<ec::RistrettoPoint> points) {
    p.A_ = A;
    p.S_ = S;
    p.T1_ = T1;
    p.T2_ = T2;
    p.t_hat_ = t_hat;
    p.tau_x_ = tau_x;
    p.mu_ = mu;
    p.L_ = std::move(L);
    p.R_ = std::move(R);
    p.a_ = a;
    p.b_ = b;
    p.points_ = std::move(points);
  }
};

Result<RangeProof> RangeProof::Decode(ByteView bytes) {
  // 32-byte words: A, S, T1, T2, t_hat, tau_x, mu, (L_j, R_j) per round, a, b.
  if (bytes.size() % 32 != 0 || bytes.size() < 32 * (9 + 2 * kMinRounds) ||
      bytes.size() > 32 * (9 + 2 * kMaxRounds) || (bytes.size() / 32 - 9) % 2 != 0) {
    return InvalidArgument("range proof: wrong length");
  }
  const std::size_t k = (bytes.size() / 32 - 9) / 2;
  const auto word = [&](std::size_t i) { return bytes.subspan(32 * i, 32); };
  std::vector<ec::CompressedRistretto> encodings;
  encodings.reserve(4 + 2 * k);
  for (std::size_t i = 0; i < 4; ++i) {
    VEIL_ASSIGN_OR_RETURN(auto e, ec::CompressedRistretto::FromBytes(word(i)));
    encodings.push_back(e);
  }
  std::vector<ec::CompressedRistretto> L, R;
  for (std::size_t j = 0; j < k; ++j) {
    VEIL_ASSIGN_OR_RETURN(auto l, ec::CompressedRistretto::FromBytes(word(7 + 2 * j)));
    VEIL_ASSIGN_OR_RETURN(auto r, ec::CompressedRistretto::FromBytes(word(8 + 2 * j)));
    L.push_back(l);
    R.push_back(r);
    encodings.push_back(l);
    encodings.push_back(r);
  }
  VEIL_ASSIGN_OR_RETURN(std::vector<ec::RistrettoPoint> points,
                        ec::RistrettoPoint::DecodeBatch(encodings));
  std::array<ec::Scalar, 5> s;
  const std::array<std::size_t, 5> at = {4, 5, 6, 7 + 2 * k, 8 + 2 * k};
  for (std::size_t i = 0; i < s.size(); ++i) {
    VEIL_ASSIGN_OR_RETURN(s[i], ec::Scalar::FromCanonical(word(at[i])));
  }
  RangeProof proof;
  RangeProofInternal::Set(proof, encodings[0], encodings[1], encodings[2], encodings[3], s[0], s[1],
                          s[2], std::move(L), std::move(R), s[3], s[4], std::move(points));
  return proof;
}

Result<RangeProof> RangeProof::Decode(ByteView bytes, std::size_t n, std::size_t m) {
  const std::size_t expected = RangeProofSize(n, m);
  if (expected == 0) return InvalidArgument("range proof: unsupported bit width or value count");
  if (bytes.size() != expected) return InvalidArgument("range proof: wrong length");
  return Decode(bytes);
}

Bytes RangeProof::Encode() const {
  Bytes out;
  out.reserve(size());
  const auto point = [&](const ec::CompressedRistretto& p) {
    out.insert(out.end(), p.bytes().begin(), p.bytes().end());
  };
  const auto scalar = [&](const ec::Scalar& s) {
    const ec::Scalar::Bytes b = s.ToBytes();
    out.insert(out.end(), b.begin(), b.end());
  };
  point(A_);
  point(S_);
  point(T1_);
  point(T2_);
  scalar(t_hat_);
  scalar(tau_x_);
  scalar(mu_);
  for (std::size_t j = 0; j < L_.size(); ++j) {
    point(L_[j]);
    point(R_[j]);
  }
  scalar(a_);
  scalar(b_);
  return out;
}

// ---- The protocol ----

namespace {

void WipeScalars(std::vector<ec::Scalar>& v) {
  crypto::SecureWipe(v.data(), v.size() * sizeof(ec::Scalar));
}

Status CheckShape(std::size_t n, std::size_t m) {
  if (!IsSupportedRangeBits(n))
    return InvalidArgument("range proof: the bit width must be 1 to 64");
  if (m == 0 || m > kRangeProofMaxValues) {
    return InvalidArgument("range proof: the number of values must be 1 to 64");
  }
  return Status::Ok();
}

// The statement: protocol label (with the version), n, m, then V_0..V_{m-1}. The padding
// commitments are not appended: they are a function of m.
void AppendStatement(Transcript& t, std::size_t n, std::size_t m,
                     std::span<const ec::CompressedRistretto> commitments) {
  t.AppendMessage("bp.protocol", AsBytes(kRangeProofProtocol));
  t.AppendU64("bp.n", n);
  t.AppendU64("bp.m", m);
  for (const auto& v : commitments) t.AppendPoint("bp.V", v);
}

// A point of the proof once computed: encoded and declassified (it is sent).
ec::CompressedRistretto PublishPoint(const ec::RistrettoPoint& p) {
  ec::CompressedRistretto enc = p.Encode();
  VEIL_DECLASSIFY(&enc, sizeof enc);
  VEIL_DECLASSIFY(&p, sizeof p);
  return enc;
}

// 1, x, x^2, ..., x^(count-1).
std::vector<ec::Scalar> Powers(const ec::Scalar& x, std::size_t count) {
  std::vector<ec::Scalar> out;
  out.reserve(count);
  ec::Scalar p = ec::Scalar::One();
  for (std::size_t i = 0; i < count; ++i) {
    out.push_back(p);
    p *= x;
  }
  return out;
}

// Entry i of the width's power vector: 2^i below the width n, 0 from n up to the padded width
// (those entries are still proven to be bits, but weigh nothing: docs/notes/bulletproofs.md).
ec::Scalar PowerOfTwoBelow(std::size_t i, std::size_t n) {
  return i < n ? ec::Scalar::FromUint64(std::uint64_t{1} << i) : ec::Scalar::Zero();
}

Result<RangeProofWithCommitments> ProveImpl(Transcript& t, std::size_t n,
                                            std::span<const ec::Scalar> values,
                                            std::span<const ec::Scalar> blindings,
                                            const std::span<const std::uint8_t, 32>* randomness) {
  const std::size_t m = values.size();
  VEIL_RETURN_IF_ERROR(CheckShape(n, m));
  if (blindings.size() != m) return InvalidArgument("range proof: one blinding per value");
  // Every value below 2^n: all bits from n up are zero. One verdict for all values, computed
  // without a branch; the verdict is the only thing about the values that a refusal reveals.
  std::uint64_t high = 0;
  for (const ec::Scalar& v : values) {
    for (std::size_t i = n; i < 8 * ec::Scalar::kSize; ++i) high |= v.Bit(i);
  }
  bool in_range = high == 0;
  VEIL_DECLASSIFY(&in_range, sizeof in_range);
  if (!in_range) return InvalidArgument("range proof: a value is not below 2^n");

  // M values (m padded to a power of two), np bits a value (n padded), N = np M bits.
  const std::size_t np = PaddedRangeBits(n);
  const std::size_t big_m = std::bit_ceil(m);
  const std::size_t big_n = np * big_m;
  GeneratorCache& gens = GeneratorCache::Get();
  const std::span<const ec::RistrettoPoint> G = gens.G(big_n);
  const std::span<const ec::RistrettoPoint> H = gens.H(big_n);
  const PedersenGens& pc = PedersenGens::Default();

  RangeProofWithCommitments out;
  out.commitments.reserve(m);
  std::vector<ec::CompressedRistretto> v_enc;
  v_enc.reserve(m);
  for (std::size_t j = 0; j < m; ++j) {
    out.commitments.push_back(pc.Commit(values[j], blindings[j]));
    // The commitments are the statement: public.
    v_enc.push_back(PublishPoint(out.commitments.back().point()));
  }
  AppendStatement(t, n, m, v_enc);

  // Nonces: alpha, rho, tau_1, tau_2, s_L, s_R, hedged over the statement and the witness.
  TranscriptRng rng = t.BuildRng();
  for (std::size_t j = 0; j < m; ++j) {
    rng.AppendWitness("bp.v", values[j]);
    rng.AppendWitness("bp.gamma", blindings[j]);
  }
  if (randomness != nullptr) {
    rng.FinalizeWithRandomness(*randomness);
  } else {
    rng.Finalize();
  }
  ec::Scalar alpha = rng.NextScalar();
  ec::Scalar rho = rng.NextScalar();
  ec::Scalar tau1 = rng.NextScalar();
  ec::Scalar tau2 = rng.NextScalar();
  std::vector<ec::Scalar> s_l(big_n), s_r(big_n);
  for (auto& s : s_l) s = rng.NextScalar();
  for (auto& s : s_r) s = rng.NextScalar();

  // a_L: the bits of every value, n per value (the padding values are 0); a_R = a_L - 1.
  // A = alpha B~ + <a_L, G> + <a_R, H>: each bit adds either G_i (bit 1) or -H_i (bit 0), picked
  // by a constant-time select, which costs one addition per bit instead of an MSM term.
  std::vector<std::uint64_t> bits(big_n, 0);
  for (std::size_t j = 0; j < m; ++j) {
    for (std::size_t i = 0; i < n; ++i) bits[j * np + i] = values[j].Bit(i);
  }
  ec::RistrettoPoint big_a = pc.h_table().Mul(alpha);
  for (std::size_t i = 0; i < big_n; ++i) big_a += ec::RistrettoPoint::Select(-H[i], G[i], bits[i]);

  // S = rho B~ + <s_L, G> + <s_R, H>, through the tables that the first inner-product round reuses.
  const std::shared_ptr<const internal::InnerProductTables> tables_ptr = gens.Tables(big_n);
  const internal::InnerProductTables& tables = *tables_ptr;
  const std::size_t half = big_n / 2;
  std::vector<ec::Scalar> scratch;
  scratch.reserve(big_n);
  scratch.assign(s_l.begin() + static_cast<std::ptrdiff_t>(half), s_l.end());
  scratch.insert(scratch.end(), s_r.begin(), s_r.begin() + static_cast<std::ptrdiff_t>(half));
  ec::RistrettoPoint big_s = tables.first_l.Mul(scratch);
  scratch.assign(s_l.begin(), s_l.begin() + static_cast<std::ptrdiff_t>(half));
  scratch.insert(scratch.end(), s_r.begin() + static_cast<std::ptrdiff_t>(half), s_r.end());
  big_s += tables.first_r.Mul(scratch);
  WipeScalars(scratch);
  big_s += pc.h_table().Mul(rho);

  const ec::CompressedRistretto a_enc = PublishPoint(big_a);
  const ec::CompressedRistretto s_enc = PublishPoint(big_s);
  t.AppendPoint("bp.A", a_enc);
  t.AppendPoint("bp.S", s_enc);
  const ec::Scalar y = t.ChallengeScalar("bp.y");
  const ec::Scalar z = t.ChallengeScalar("bp.z");

  // l(X) = (a_L - z 1) + s_L X and r(X) = y^N o (a_R + z 1 + s_R X) + d with
  // d = sum_j z^(2+j) (0^(jn) || 2^n || 0), as l0 + l1 X and r0 + r1 X (l1 = s_L).
  const std::vector<ec::Scalar> y_pow = Powers(y, big_n);
  const std::vector<ec::Scalar> z_pow = Powers(z, big_m + 3);  // z^(2+j) = z_pow[2 + j]
  std::vector<ec::Scalar> l0(big_n), r0(big_n), r1(big_n);
  for (std::size_t i = 0; i < big_n; ++i) {
    ec::Scalar a_l = ec::Scalar::FromUint64(bits[i]);
    ec::Scalar a_r = a_l - ec::Scalar::One();
    l0[i] = a_l - z;
    r0[i] = y_pow[i] * (a_r + z) + z_pow[2 + i / np] * PowerOfTwoBelow(i % np, n);
    r1[i] = y_pow[i] * s_r[i];
    a_l.Wipe();
    a_r.Wipe();
  }
  crypto::SecureWipe(bits.data(), bits.size() * sizeof(bits[0]));
  // t(X) = <l(X), r(X)> = t_0 + t_1 X + t_2 X^2.
  ec::Scalar t1, t2;
  for (std::size_t i = 0; i < big_n; ++i) {
    t1 += l0[i] * r1[i] + s_l[i] * r0[i];
    t2 += s_l[i] * r1[i];
  }
  // T_i = t_i B + tau_i B~.
  const ec::RistrettoPoint big_t1 = ec::BasepointMul(t1) + pc.h_table().Mul(tau1);
  const ec::RistrettoPoint big_t2 = ec::BasepointMul(t2) + pc.h_table().Mul(tau2);
  const ec::CompressedRistretto t1_enc = PublishPoint(big_t1);
  const ec::CompressedRistretto t2_enc = PublishPoint(big_t2);
  t1.Wipe();
  t2.Wipe();
  t.AppendPoint("bp.T1", t1_enc);
  t.AppendPoint("bp.T2", t2_enc);
  const ec::Scalar x = t.ChallengeScalar("bp.x");

  // l = l(x), r = r(x) (the inner-product witness), t_hat = <l, r>,
  // tau_x = tau_2 x^2 + tau_1 x + sum_j z^(2+j) gamma_j, mu = alpha + rho x.
  std::vector<ec::Scalar> l(big_n), r(big_n);
  ec::Scalar t_hat;
  for (std::size_t i = 0; i < big_n; ++i) {
    l[i] = l0[i] + s_l[i] * x;
    r[i] = r0[i] + r1[i] * x;
    t_hat += l[i] * r[i];
  }
  WipeScalars(l0);
  WipeScalars(r0);
  WipeScalars(r1);
  WipeScalars(s_l);
  WipeScalars(s_r);
  ec::Scalar tau_x = tau2 * x.Square() + tau1 * x;
  for (std::size_t j = 0; j < m; ++j) tau_x += z_pow[2 + j] * blindings[j];
  ec::Scalar mu = alpha + rho * x;
  alpha.Wipe();
  rho.Wipe();
  tau1.Wipe();
  tau2.Wipe();
  // t_hat, tau_x and mu are sent: public.
  VEIL_DECLASSIFY(&t_hat, sizeof t_hat);
  VEIL_DECLASSIFY(&tau_x, sizeof tau_x);
  VEIL_DECLASSIFY(&mu, sizeof mu);
  t.AppendScalar("bp.t_hat", t_hat);
  t.AppendScalar("bp.tau_x", tau_x);
  t.AppendScalar("bp.mu", mu);
  const ec::Scalar w = t.ChallengeScalar("bp.w");
  if (y.IsZero() || z.IsZero() || x.IsZero() || w.IsZero()) {
    WipeScalars(l);
    WipeScalars(r);
    return Internal("range proof: zero challenge");
  }

  // The inner-product argument for P = <l, G> + <r, H'> + t_hat Q, H'_i = y^-i H_i, Q = w B.
  const std::vector<ec::Scalar> y_inv_pow = Powers(y.Invert(), big_n);
  VEIL_ASSIGN_OR_RETURN(internal::InnerProductProof ipa,
                        internal::ProveInnerProduct(t, w, G, H, y_inv_pow, tables, l, r));

  std::vector<ec::RistrettoPoint> points = {big_a, big_s, big_t1, big_t2};
  for (std::size_t j = 0; j < ipa.L.size(); ++j) {
    points.push_back(ipa.L_points[j]);
    points.push_back(ipa.R_points[j]);
  }
  RangeProofInternal::Set(out.proof, a_enc, s_enc, t1_enc, t2_enc, t_hat, tau_x, mu,
                          std::move(ipa.L), std::move(ipa.R), ipa.a, ipa.b, std::move(points));
  return out;
}

}  // namespace

Result<RangeProofWithCommitments> ProveRange(Transcript& transcript, std::size_t n,
                                             std::span<const ec::Scalar> values,
                                             std::span<const ec::Scalar> blindings) {
  return ProveImpl(transcript, n, values, blindings, nullptr);
}

Result<RangeProofWithCommitments> ProveRangeWithRandomness(
    Transcript& transcript, std::size_t n, std::span<const ec::Scalar> values,
    std::span<const ec::Scalar> blindings, std::span<const std::uint8_t, 32> randomness) {
  return ProveImpl(transcript, n, values, blindings, &randomness);
}

// ---- Verification ----

// The terms of one big sum that must be the identity: dense coefficients for the shared
// generators G_i, H_i, B (the standard generator) and B~ (Pedersen's H), and a list for the points
// of individual proofs (A, S, T_1, T_2, L_j, R_j, V_j).
struct RangeProofBatchVerifier::Accumulator {
  std::vector<ec::Scalar> g, h;
  ec::Scalar b, b_blinding;
  std::vector<ec::Scalar> scalars;
  std::vector<ec::RistrettoPoint> points;

  bool IsIdentityVartime() const {
    const std::size_t big_n = g.size();
    const PedersenGens& pc = PedersenGens::Default();
    GeneratorCache& gens = GeneratorCache::Get();
    std::vector<ec::Scalar> all_s;
    std::vector<ec::RistrettoPoint> all_p;
    all_s.reserve(2 + 2 * big_n + scalars.size());
    all_p.reserve(all_s.capacity());
    all_s.push_back(b);
    all_p.push_back(pc.G());
    all_s.push_back(b_blinding);
    all_p.push_back(pc.H());
    all_s.insert(all_s.end(), g.begin(), g.end());
    const auto G = gens.G(big_n);
    all_p.insert(all_p.end(), G.begin(), G.end());
    all_s.insert(all_s.end(), h.begin(), h.end());
    const auto H = gens.H(big_n);
    all_p.insert(all_p.end(), H.begin(), H.end());
    all_s.insert(all_s.end(), scalars.begin(), scalars.end());
    all_p.insert(all_p.end(), points.begin(), points.end());
    return ec::MultiScalarMulVartime(all_s, all_p).IsIdentity();
  }
};

namespace {

// Replays the transcript of `proof` and adds
//   weight_ipa * (the inner-product equation, with P expanded)  +  weight_poly * (the t_hat
//   equation)
// to `acc` (docs/notes/bulletproofs.md, "Verification as one multi-scalar multiplication").
Status AddProof(Transcript& t, std::size_t n, std::span<const Commitment> commitments,
                const RangeProof& proof, const ec::Scalar& weight_ipa,
                const ec::Scalar& weight_poly, RangeProofBatchVerifier::Accumulator& acc) {
  const std::size_t m = commitments.size();
  VEIL_RETURN_IF_ERROR(CheckShape(n, m));
  const std::size_t np = PaddedRangeBits(n);
  const std::size_t big_m = std::bit_ceil(m);
  const std::size_t big_n = np * big_m;
  const std::size_t k = internal::Log2(big_n);
  if (proof.rounds() != k) {
    return InvalidArgument("range proof: size does not match the bit width and value count");
  }

  std::vector<ec::CompressedRistretto> v_enc;
  v_enc.reserve(m);
  for (const Commitment& c : commitments) v_enc.push_back(c.Encode());
  AppendStatement(t, n, m, v_enc);
  t.AppendPoint("bp.A", proof.A());
  t.AppendPoint("bp.S", proof.S());
  const ec::Scalar y = t.ChallengeScalar("bp.y");
  const ec::Scalar z = t.ChallengeScalar("bp.z");
  t.AppendPoint("bp.T1", proof.T1());
  t.AppendPoint("bp.T2", proof.T2());
  const ec::Scalar x = t.ChallengeScalar("bp.x");
  t.AppendScalar("bp.t_hat", proof.t_hat());
  t.AppendScalar("bp.tau_x", proof.tau_x());
  t.AppendScalar("bp.mu", proof.mu());
  const ec::Scalar w = t.ChallengeScalar("bp.w");
  std::array<ec::Scalar, 1> y_inv = {y};
  internal::InnerProductVerifierScalars ipa;
  if (z.IsZero() || x.IsZero() || w.IsZero() ||
      !internal::InnerProductVerifierScalarsFor(t, proof.L(), proof.R(), proof.a(), proof.b(),
                                                y_inv, ipa)) {
    return VerificationFailed();
  }

  const ec::Scalar& c = weight_poly;
  const ec::Scalar& wi = weight_ipa;
  const ec::Scalar zz = z.Square();
  // z^(2+j) for j < M.
  const std::vector<ec::Scalar> z2_pow = [&] {
    std::vector<ec::Scalar> p = Powers(z, big_m);
    for (auto& e : p) e *= zz;
    return p;
  }();

  // delta(y, z) = (z - z^2) <1, y^N> - sum_j z^(3+j) <1, 2^n>   (sec. 4.3 of the paper).
  ec::Scalar sum_y, y_i = ec::Scalar::One();
  for (std::size_t i = 0; i < big_n; ++i) {
    sum_y += y_i;
    y_i *= y;
  }
  const ec::Scalar ones_2n =
      ec::Scalar::FromUint64(n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1);
  ec::Scalar sum_z3;
  for (std::size_t j = 0; j < big_m; ++j) sum_z3 += z2_pow[j];
  const ec::Scalar delta = (z - zz) * sum_y - z * sum_z3 * ones_2n;

  // G_i: wi (-z - a s_i).  H_i: wi (z + y^-i (d_i - b s_i^-1)), d_i = z^(2+j) 2^(i mod n),
  // s_i^-1 = s_{N-1-i}.
  if (acc.g.size() < big_n) {
    acc.g.resize(big_n);
    acc.h.resize(big_n);
  }
  const ec::Scalar wi_z = wi * z;
  const ec::Scalar wi_a = wi * proof.a();
  const ec::Scalar wi_b = wi * proof.b();
  std::vector<ec::Scalar> wi_z2(big_m);
  for (std::size_t j = 0; j < big_m; ++j) wi_z2[j] = wi * z2_pow[j];
  ec::Scalar y_inv_i = ec::Scalar::One();
  for (std::size_t i = 0; i < big_n; ++i) {
    acc.g[i] -= wi_z + wi_a * ipa.s[i];
    const ec::Scalar d_i = wi_z2[i / np] * PowerOfTwoBelow(i % np, n);
    acc.h[i] += wi_z + y_inv_i * (d_i - wi_b * ipa.s[big_n - 1 - i]);
    y_inv_i *= y_inv[0];
  }
  // B: wi w (t_hat - a b) + c (delta - t_hat).  B~: -(wi mu + c tau_x).
  acc.b += wi * w * (proof.t_hat() - proof.a() * proof.b()) + c * (delta - proof.t_hat());
  acc.b_blinding -= wi * proof.mu() + c * proof.tau_x();

  // A: wi, S: wi x, T_1: c x, T_2: c x^2, L_j: wi u_j^2, R_j: wi u_j^-2, V_j: c z^(2+j).
  const std::vector<ec::RistrettoPoint>& pts = RangeProofInternal::Points(proof);
  acc.scalars.push_back(wi);
  acc.points.push_back(pts[0]);
  acc.scalars.push_back(wi * x);
  acc.points.push_back(pts[1]);
  acc.scalars.push_back(c * x);
  acc.points.push_back(pts[2]);
  acc.scalars.push_back(c * x.Square());
  acc.points.push_back(pts[3]);
  for (std::size_t j = 0; j < k; ++j) {
    acc.scalars.push_back(wi * ipa.u_sq[j]);
    acc.points.push_back(pts[4 + 2 * j]);
    acc.scalars.push_back(wi * ipa.u_inv_sq[j]);
    acc.points.push_back(pts[5 + 2 * j]);
  }
  for (std::size_t j = 0; j < m; ++j) {
    acc.scalars.push_back(c * z2_pow[j]);
    acc.points.push_back(commitments[j].point());
  }
  return Status::Ok();
}

}  // namespace

Status VerifyRange(Transcript& transcript, std::size_t n, std::span<const Commitment> commitments,
                   const RangeProof& proof) {
  RangeProofBatchVerifier::Accumulator acc;
  // The inner-product equation with weight one and the t_hat equation with a random weight: a proof
  // that fails either leaves a non-identity sum except with probability 2^-128.
  VEIL_RETURN_IF_ERROR(AddProof(transcript, n, commitments, proof, ec::Scalar::One(),
                                internal::RandomWeight128(), acc));
  return acc.IsIdentityVartime() ? Status::Ok() : VerificationFailed();
}

RangeProofBatchVerifier::RangeProofBatchVerifier() : acc_(std::make_unique<Accumulator>()) {}
RangeProofBatchVerifier::~RangeProofBatchVerifier() = default;
RangeProofBatchVerifier::RangeProofBatchVerifier(RangeProofBatchVerifier&&) noexcept = default;
RangeProofBatchVerifier& RangeProofBatchVerifier::operator=(RangeProofBatchVerifier&&) noexcept =
    default;

Status RangeProofBatchVerifier::Add(Transcript& transcript, std::size_t n,
                                    std::span<const Commitment> commitments,
                                    const RangeProof& proof) {
  // AddProof touches the accumulator only once every check has passed, so a rejected proof
  // leaves nothing behind; the batch fails anyway, through first_error_.
  Status s = AddProof(transcript, n, commitments, proof, internal::RandomWeight128(),
                      internal::RandomWeight128(), *acc_);
  if (!s.ok()) {
    if (first_error_.ok()) first_error_ = s;
    return s;
  }
  ++count_;
  return Status::Ok();
}

Status RangeProofBatchVerifier::Verify() const {
  VEIL_RETURN_IF_ERROR(first_error_);
  return acc_->IsIdentityVartime() ? Status::Ok() : VerificationFailed();
}

}  // namespace veil::zk
