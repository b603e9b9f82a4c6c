// One-of-many proofs (include/veil/zk/one_of_many.h, docs/notes/one_of_many.md), and the digit
// machinery they share with ring signatures (one_of_many_internal.h).
#include "veil/zk/one_of_many.h"

#include <algorithm>
#include <string>
#include <utility>

#include "msm_batch.h"
#include "one_of_many_internal.h"
#include "veil/base/consttime.h"
#include "veil/crypto/secret.h"
#include "veil/zk/pedersen.h"

namespace veil::zk {

namespace internal {

// ---- Constant-time arithmetic ----

std::uint64_t CtEqBytes32(const ec::CompressedRistretto::Bytes& a,
                          const ec::CompressedRistretto::Bytes& b) {
  std::uint64_t acc = 0;
  for (std::size_t i = 0; i < a.size(); ++i) acc |= static_cast<std::uint64_t>(a[i] ^ b[i]);
  return CtEq64(acc, 0);
}

void CtDigits(std::uint64_t l, std::size_t n, std::size_t m, std::span<std::uint64_t> digits) {
  __extension__ typedef unsigned __int128 U128;  // NOLINT(modernize-use-using)
  VEIL_CHECK(n >= 2 && n < (std::uint64_t{1} << 32) && digits.size() >= m);
  // ceil(2^64 / n) for n not a power of two, 2^64 / n for one; either way q below is exact for
  // l < 2^32 (the error l (M - 2^64/n) / 2^64 stays below 1/n).
  const std::uint64_t inv = ~std::uint64_t{0} / n + 1;
  for (std::size_t j = 0; j < m; ++j) {
    const auto q = static_cast<std::uint64_t>((static_cast<U128>(l) * inv) >> 64);
    digits[j] = l - q * n;
    l = q;
  }
}

// ---- Parameters ----

Result<OneOfManyParams> ChooseParams(std::size_t N, DigitProtocol protocol) {
  if (N == 0 || N > OneOfManyParams::kMaxSize) {
    return InvalidArgument("one-of-many: set size must be 1.." +
                           std::to_string(OneOfManyParams::kMaxSize));
  }
  struct Candidate {
    OneOfManyParams p;
    std::size_t size;
    std::size_t work;
  };
  std::vector<Candidate> candidates;
  std::size_t smallest = ~std::size_t{0};
  for (std::size_t n = OneOfManyParams::kMinBase; n <= OneOfManyParams::kMaxBase; ++n) {
    VEIL_ASSIGN_OR_RETURN(OneOfManyParams p, OneOfManyParams::Create(N, n));
    const std::size_t mn = p.m * p.n;
    const std::size_t size =
        protocol == DigitProtocol::kOneOfMany ? 32 * (mn + 7) : 32 * (mn + p.m + 8);
    // Constant-time MSM point-terms: m sums over the N members, four commitments over m n + 1
    // generators (docs/notes/one_of_many.md, "Choosing n").
    const std::size_t work = p.m * N + 4 * (mn + 1);
    candidates.push_back({p, size, work});
    smallest = std::min(smallest, size);
  }
  const Candidate* best = nullptr;
  for (const Candidate& c : candidates) {
    if (5 * c.size > 6 * smallest) continue;  // more than 20% above the smallest proof
    if (best == nullptr || c.work < best->work || (c.work == best->work && c.size < best->size)) {
      best = &c;
    }
  }
  return best->p;
}

Status CheckParams(const OneOfManyParams& p) {
  VEIL_ASSIGN_OR_RETURN(OneOfManyParams q, OneOfManyParams::Create(p.N, p.n));
  if (!(q == p)) return InvalidArgument("one-of-many: inconsistent parameters");
  return Status::Ok();
}

// ---- Generators ----

const DigitGenerators& Generators() {
  static const DigitGenerators gens = [] {
    DigitGenerators g;
    g.g.reserve(DigitGenerators::kMaxGenerators);
    for (std::uint32_t i = 0; i < DigitGenerators::kMaxGenerators; ++i) {
      g.g.push_back(PedersenVectorGenerator(i));
    }
    g.g_encodings = ec::RistrettoPoint::EncodeBatch(g.g);
    g.h = PedersenGens::Default().H();
    g.h_encoding = g.h.Encode();
    return g;
  }();
  return gens;
}

// ---- Sets ----

std::array<std::uint8_t, 32> MemberDigest(std::string_view protocol, std::string_view label,
                                          std::span<const ec::CompressedRistretto> members) {
  Transcript t(protocol, 1);
  t.AppendU64("N", members.size());
  for (const auto& e : members) t.AppendPoint(label, e);
  std::array<std::uint8_t, 32> out{};
  t.ChallengeBytes("digest", out);
  return out;
}

// ---- Prover ----

DigitProver::DigitProver(const OneOfManyParams& params, std::uint64_t l, TranscriptRng& rng)
    : p_(params) {
  const std::size_t n = p_.n, m = p_.m, N = p_.N, mn = m * n;
  VEIL_CHECK(mn <= DigitGenerators::kMaxGenerators);

  // sigma_{j,i} = [l_j == i], as 0/1 scalars computed without a branch or an index on l.
  std::vector<std::uint64_t> digits(m);
  CtDigits(l, n, m, digits);
  sigma_.resize(mn);
  for (std::size_t j = 0; j < m; ++j) {
    for (std::size_t i = 0; i < n; ++i) {
      sigma_[j * n + i] = ec::Scalar::FromUint64(CtEq64(digits[j], i));
    }
  }
  crypto::SecureWipe(digits.data(), digits.size() * sizeof(digits[0]));

  r_a_ = rng.NextScalar();
  r_b_ = rng.NextScalar();
  r_c_ = rng.NextScalar();
  r_d_ = rng.NextScalar();
  // Every row of a sums to zero, so that sum_i f_{j,i} = x for every j (the verifier's f_{j,0}).
  a_.resize(mn);
  for (std::size_t j = 0; j < m; ++j) {
    ec::Scalar sum;
    for (std::size_t i = 1; i < n; ++i) {
      a_[j * n + i] = rng.NextScalar();
      sum += a_[j * n + i];
    }
    a_[j * n] = -sum;
    sum.Wipe();
  }

  // A = Com(a; r_A), B = Com(sigma; r_B), C = Com(a (1 - 2 sigma); r_C), D = Com(-a^2; r_D), all
  // over the same m n + 1 generators: one table, four constant-time sums.
  const DigitGenerators& gens = Generators();
  std::vector<ec::RistrettoPoint> basis(gens.g.begin(),
                                        gens.g.begin() + static_cast<std::ptrdiff_t>(mn));
  basis.push_back(gens.h);
  const ec::MultiScalarMulTable table(basis);
  std::vector<ec::Scalar> v(mn + 1);
  const auto commit = [&](const ec::Scalar& blinding) {
    v[mn] = blinding;
    return table.Mul(v);
  };
  std::copy(a_.begin(), a_.end(), v.begin());
  commitments_[0] = commit(r_a_);
  std::copy(sigma_.begin(), sigma_.end(), v.begin());
  commitments_[1] = commit(r_b_);
  for (std::size_t k = 0; k < mn; ++k) v[k] = a_[k] - (a_[k] + a_[k]) * sigma_[k];
  commitments_[2] = commit(r_c_);
  for (std::size_t k = 0; k < mn; ++k) v[k] = -(a_[k] * a_[k]);
  commitments_[3] = commit(r_d_);
  for (auto& s : v) s.Wipe();

  // The coefficients of p_k(X) = prod_j (sigma_{j,k_j} X + a_{j,k_j}), built digit by digit: level
  // t holds the products over the t low digits for every value of those digits (n^t
  // polynomials of degree t), and level t + 1 multiplies each by the n factors of digit t. The
  // last level is only needed for k < N - 1 (member N - 1 is folded below). Every loop bound and
  // index is public; only the scalar values depend on l.
  std::vector<ec::Scalar> cur(1, ec::Scalar::One());
  std::size_t count = 1;
  for (std::size_t t = 0; t < m; ++t) {
    const bool last = t + 1 == m;
    const std::size_t next_count = last ? N - 1 : count * n;
    const std::size_t w = t + 1;  // coefficients per polynomial at level t
    std::vector<ec::Scalar> next(next_count * (w + 1));
    for (std::size_t k = 0; k < next_count; ++k) {
      const std::size_t q = k % count, i = k / count;
      const ec::Scalar& s = sigma_[t * n + i];
      const ec::Scalar& a = a_[t * n + i];
      const ec::Scalar* old = &cur[q * w];
      ec::Scalar* out = &next[k * (w + 1)];
      out[0] = old[0] * a;
      for (std::size_t d = 1; d < w; ++d) out[d] = old[d] * a + old[d - 1] * s;
      out[w] = old[w - 1] * s;
    }
    for (auto& s : cur) s.Wipe();
    cur = std::move(next);
    count = next_count;
  }
  coeffs_.resize(m * N);
  for (std::size_t d = 0; d < m; ++d) {
    // sum over all n^m members of p_{k,d} is zero for d < m, so the padded copies of member N - 1
    // (and member N - 1 itself) together carry minus the sum of the others.
    ec::Scalar fold;
    for (std::size_t k = 0; k + 1 < N; ++k) {
      coeffs_[d * N + k] = cur[k * (m + 1) + d];
      fold -= coeffs_[d * N + k];
    }
    coeffs_[d * N + N - 1] = fold;
    fold.Wipe();
  }
  for (auto& s : cur) s.Wipe();
}

DigitProver::~DigitProver() {
  for (auto* vec : {&sigma_, &a_, &coeffs_}) {
    for (auto& s : *vec) s.Wipe();
  }
  r_a_.Wipe();
  r_b_.Wipe();
  r_c_.Wipe();
  r_d_.Wipe();
}

std::vector<ec::RistrettoPoint> DigitProver::CoefficientSums(
    const ec::MultiScalarMulTable& table) const {
  VEIL_CHECK(table.size() == p_.N);
  std::vector<ec::RistrettoPoint> out;
  out.reserve(p_.m);
  for (std::size_t d = 0; d < p_.m; ++d) {
    out.push_back(table.Mul(std::span<const ec::Scalar>(coeffs_).subspan(d * p_.N, p_.N)));
  }
  return out;
}

void DigitProver::Respond(const ec::Scalar& x, std::vector<ec::Scalar>& f, ec::Scalar& z_a,
                          ec::Scalar& z_c) const {
  const std::size_t n = p_.n;
  f.clear();
  f.reserve(p_.m * (n - 1));
  for (std::size_t j = 0; j < p_.m; ++j) {
    for (std::size_t i = 1; i < n; ++i) f.push_back(sigma_[j * n + i] * x + a_[j * n + i]);
  }
  z_a = r_b_ * x + r_a_;
  z_c = r_c_ * x + r_d_;
}

std::vector<ec::Scalar> Powers(const ec::Scalar& x, std::size_t m) {
  std::vector<ec::Scalar> out(m + 1);
  out[0] = ec::Scalar::One();
  for (std::size_t d = 1; d <= m; ++d) out[d] = out[d - 1] * x;
  return out;
}

ec::Scalar FinalResponse(const ec::Scalar& r, std::span<const ec::Scalar> rho,
                         std::span<const ec::Scalar> x_powers) {
  ec::Scalar z = r * x_powers[rho.size()];
  for (std::size_t d = 0; d < rho.size(); ++d) z -= rho[d] * x_powers[d];
  return z;
}

// ---- Verifier ----

std::vector<ec::Scalar> FullResponses(const OneOfManyParams& p, std::span<const ec::Scalar> f,
                                      const ec::Scalar& x) {
  const std::size_t n = p.n;
  std::vector<ec::Scalar> full(p.m * n);
  for (std::size_t j = 0; j < p.m; ++j) {
    ec::Scalar f0 = x;
    for (std::size_t i = 1; i < n; ++i) {
      full[j * n + i] = f[j * (n - 1) + i - 1];
      f0 -= full[j * n + i];
    }
    full[j * n] = f0;
  }
  return full;
}

std::vector<ec::Scalar> EvaluateCoefficients(const OneOfManyParams& p,
                                             std::span<const ec::Scalar> f_full,
                                             const ec::Scalar& x_m) {
  // The prover's tree with values instead of polynomials: one multiplication per node.
  std::vector<ec::Scalar> cur(1, ec::Scalar::One());
  std::size_t count = 1;
  for (std::size_t t = 0; t < p.m; ++t) {
    const std::size_t next_count = t + 1 == p.m ? p.N - 1 : count * p.n;
    std::vector<ec::Scalar> next(next_count);
    for (std::size_t k = 0; k < next_count; ++k) {
      next[k] = cur[k % count] * f_full[t * p.n + k / count];
    }
    cur = std::move(next);
    count = next_count;
  }
  ec::Scalar fold = x_m;
  for (const ec::Scalar& s : cur) fold -= s;
  cur.push_back(fold);
  return cur;
}

ec::Scalar AddBitEquations(MsmBatch& msm, const OneOfManyParams& p, const DigitProofView& proof,
                           std::span<const ec::Scalar> f_full, const ec::Scalar& x) {
  const DigitGenerators& gens = Generators();
  const ec::Scalar w1 = RandomWeight128(), w2 = RandomWeight128();
  for (std::size_t k = 0; k < p.m * p.n; ++k) {
    const ec::Scalar& f = f_full[k];
    msm.AddShared(gens.g_encodings[k], gens.g[k], -(w1 * f + w2 * f * (x - f)));
  }
  msm.Add(proof.abcd[0], w1);
  msm.Add(proof.abcd[1], w1 * x);
  msm.Add(proof.abcd[2], w2 * x);
  msm.Add(proof.abcd[3], w2);
  return -(w1 * *proof.z_a + w2 * *proof.z_c);
}

// ---- Codec ----

void AppendEncoding(Bytes& out, const ec::CompressedRistretto& p) {
  out.insert(out.end(), p.bytes().begin(), p.bytes().end());
}

void AppendScalar(Bytes& out, const ec::Scalar& s) {
  const ec::Scalar::Bytes b = s.ToBytes();
  out.insert(out.end(), b.begin(), b.end());
}

Status ReadPoints(ByteView bytes, std::size_t& pos, std::size_t count,
                  std::vector<ec::CompressedRistretto>& encodings,
                  std::vector<ec::RistrettoPoint>& points) {
  VEIL_CHECK(pos + 32 * count <= bytes.size());
  encodings.clear();
  encodings.reserve(count);
  for (std::size_t i = 0; i < count; ++i, pos += 32) {
    VEIL_ASSIGN_OR_RETURN(auto e, ec::CompressedRistretto::FromBytes(bytes.subspan(pos, 32)));
    encodings.push_back(e);
  }
  VEIL_ASSIGN_OR_RETURN(points, ec::RistrettoPoint::DecodeBatch(encodings));
  return Status::Ok();
}

Status ReadScalars(ByteView bytes, std::size_t& pos, std::size_t count,
                   std::vector<ec::Scalar>& scalars) {
  VEIL_CHECK(pos + 32 * count <= bytes.size());
  scalars.clear();
  scalars.reserve(count);
  for (std::size_t i = 0; i < count; ++i, pos += 32) {
    VEIL_ASSIGN_OR_RETURN(ec::Scalar s, ec::Scalar::FromCanonical(bytes.subspan(pos, 32)));
    scalars.push_back(s);
  }
  return Status::Ok();
}

}  // namespace internal

// ---- Parameters ----

Result<OneOfManyParams> OneOfManyParams::Create(std::size_t N, std::size_t n) {
  if (N == 0 || N > kMaxSize) {
    return InvalidArgument("one-of-many: set size must be 1.." + std::to_string(kMaxSize));
  }
  if (n < kMinBase || n > kMaxBase) {
    return InvalidArgument("one-of-many: base must be " + std::to_string(kMinBase) + ".." +
                           std::to_string(kMaxBase));
  }
  OneOfManyParams p;
  p.N = N;
  p.n = n;
  p.m = 1;
  for (std::size_t padded = n; padded < N; padded *= n) ++p.m;
  return p;
}

Result<OneOfManyParams> OneOfManyParams::Default(std::size_t N) {
  return internal::ChooseParams(N, internal::DigitProtocol::kOneOfMany);
}

std::size_t OneOfManyParams::PaddedSize() const {
  std::size_t padded = 1;
  for (std::size_t j = 0; j < m; ++j) padded *= n;
  return padded;
}

// ---- Sets ----

namespace {

constexpr std::string_view kSetProtocol = "veil.zk.one-of-many.set";

Result<OneOfManyParams> SetParams(std::size_t N, std::size_t base) {
  return base == 0 ? OneOfManyParams::Default(N) : OneOfManyParams::Create(N, base);
}

}  // namespace

Result<OneOfManySet> OneOfManySet::FromPoints(std::span<const ec::RistrettoPoint> members,
                                              std::size_t base) {
  VEIL_ASSIGN_OR_RETURN(OneOfManyParams params, SetParams(members.size(), base));
  OneOfManySet set;
  set.params_ = params;
  set.points_.assign(members.begin(), members.end());
  set.encodings_ = ec::RistrettoPoint::EncodeBatch(members);
  set.digest_ = internal::MemberDigest(kSetProtocol, "C", set.encodings_);
  return set;
}

Result<OneOfManySet> OneOfManySet::Decode(std::span<const ec::CompressedRistretto> members,
                                          std::size_t base) {
  VEIL_ASSIGN_OR_RETURN(OneOfManyParams params, SetParams(members.size(), base));
  OneOfManySet set;
  set.params_ = params;
  VEIL_ASSIGN_OR_RETURN(set.points_, ec::RistrettoPoint::DecodeBatch(members));
  set.encodings_.assign(members.begin(), members.end());
  set.digest_ = internal::MemberDigest(kSetProtocol, "C", set.encodings_);
  return set;
}

// ---- Proofs ----

struct OneOfManyInternal {
  static const std::vector<ec::CompressedRistretto>& Encodings(const OneOfManyProof& p) {
    return p.encodings_;
  }
  static internal::DigitProofView View(const OneOfManyProof& p) {
    return {std::span<const ec::RistrettoPoint>(p.points_).first(4), p.f_, &p.z_a_, &p.z_c_};
  }
  static std::span<const ec::RistrettoPoint> G(const OneOfManyProof& p) {
    return std::span<const ec::RistrettoPoint>(p.points_).subspan(4);
  }
  static const ec::Scalar& Z(const OneOfManyProof& p) { return p.z_; }
  static OneOfManyProof Make(const OneOfManyParams& params,
                             std::vector<ec::CompressedRistretto> encodings,
                             std::vector<ec::RistrettoPoint> points, std::vector<ec::Scalar> f,
                             const ec::Scalar& z_a, const ec::Scalar& z_c, const ec::Scalar& z) {
    OneOfManyProof p;
    p.params_ = params;
    p.encodings_ = std::move(encodings);
    p.points_ = std::move(points);
    p.f_ = std::move(f);
    p.z_a_ = z_a;
    p.z_c_ = z_c;
    p.z_ = z;
    return p;
  }
};

Result<OneOfManyProof> OneOfManyProof::Decode(ByteView bytes, const OneOfManyParams& params) {
  VEIL_RETURN_IF_ERROR(internal::CheckParams(params));
  if (bytes.size() != params.ProofSize()) return InvalidArgument("one-of-many proof: wrong length");
  std::size_t pos = 0;
  std::vector<ec::CompressedRistretto> encodings;
  std::vector<ec::RistrettoPoint> points;
  VEIL_RETURN_IF_ERROR(internal::ReadPoints(bytes, pos, params.m + 4, encodings, points));
  std::vector<ec::Scalar> scalars;
  VEIL_RETURN_IF_ERROR(internal::ReadScalars(bytes, pos, params.m * (params.n - 1) + 3, scalars));
  const ec::Scalar z = scalars.back(), z_c = scalars[scalars.size() - 2],
                   z_a = scalars[scalars.size() - 3];
  scalars.resize(scalars.size() - 3);
  return OneOfManyInternal::Make(params, std::move(encodings), std::move(points),
                                 std::move(scalars), z_a, z_c, z);
}

Bytes OneOfManyProof::Encode() const {
  Bytes out;
  out.reserve(params_.ProofSize());
  for (const auto& e : encodings_) internal::AppendEncoding(out, e);
  for (const auto& s : f_) internal::AppendScalar(out, s);
  internal::AppendScalar(out, z_a_);
  internal::AppendScalar(out, z_c_);
  internal::AppendScalar(out, z_);
  return out;
}

// ---- The protocol ----

namespace {

constexpr std::string_view kProtocol = "veil.zk.one-of-many";
constexpr std::uint64_t kVersion = 1;

void AppendStatement(Transcript& t, const OneOfManySet& set) {
  t.AppendMessage("oom.protocol", AsBytes(kProtocol));
  t.AppendU64("oom.version", kVersion);
  t.AppendU64("oom.N", set.params().N);
  t.AppendU64("oom.n", set.params().n);
  t.AppendU64("oom.m", set.params().m);
  t.AppendMessage("oom.set", set.digest());
}

ec::Scalar AppendProofAndChallenge(Transcript& t,
                                   std::span<const ec::CompressedRistretto> encodings) {
  static constexpr std::string_view kLabels[4] = {"oom.A", "oom.B", "oom.C", "oom.D"};
  for (std::size_t i = 0; i < encodings.size(); ++i) {
    t.AppendPoint(i < 4 ? kLabels[i] : std::string_view("oom.G"), encodings[i]);
  }
  return t.ChallengeScalar("oom.x");
}

// Adds the proof's three equations, each with its own random weight, to `msm`:
//   w1 (A + x B - Com(f; z_A)) + w2 (x C + D - Com(f (x - f); z_C))
//   + w3 (sum_k p_k(x) C_k - sum_d x^d G_d - z H) = 0.
Status AddProof(internal::MsmBatch& msm, Transcript& t, const OneOfManySet& set,
                const OneOfManyProof& proof) {
  const OneOfManyParams& p = set.params();
  if (!(proof.params() == p)) {
    return InvalidArgument("one-of-many proof: parameters differ from the set's");
  }
  AppendStatement(t, set);
  const ec::Scalar x = AppendProofAndChallenge(t, OneOfManyInternal::Encodings(proof));
  const internal::DigitProofView view = OneOfManyInternal::View(proof);
  const std::vector<ec::Scalar> f_full = internal::FullResponses(p, view.f, x);
  const std::vector<ec::Scalar> xp = internal::Powers(x, p.m);
  ec::Scalar h_coeff = internal::AddBitEquations(msm, p, view, f_full, x);

  const ec::Scalar w3 = internal::RandomWeight128();
  const std::vector<ec::Scalar> pk = internal::EvaluateCoefficients(p, f_full, xp[p.m]);
  for (std::size_t k = 0; k < p.N; ++k) {
    msm.AddShared(set.encodings()[k], set.points()[k], w3 * pk[k]);
  }
  const auto g = OneOfManyInternal::G(proof);
  for (std::size_t d = 0; d < p.m; ++d) msm.Add(g[d], -(w3 * xp[d]));
  h_coeff -= w3 * OneOfManyInternal::Z(proof);
  const internal::DigitGenerators& gens = internal::Generators();
  msm.AddShared(gens.h_encoding, gens.h, h_coeff);
  return Status::Ok();
}

}  // namespace

Result<OneOfManyProof> OneOfManyProve(Transcript& transcript, const OneOfManySet& set,
                                      std::size_t l, const ec::Scalar& r) {
  const OneOfManyParams& p = set.params();
  std::uint64_t in_range = CtLt64(l, p.N);
  // Whether l < N is all that is revealed about l here (a prover's l always is).
  VEIL_DECLASSIFY(&in_range, sizeof in_range);
  if (in_range == 0) return InvalidArgument("one-of-many: index out of range");
  AppendStatement(transcript, set);

  // Nonces: hedged, from the statement, the witness (r, l) and fresh randomness.
  TranscriptRng rng = transcript.BuildRng();
  std::array<std::uint8_t, 8> l_bytes{};
  StoreLe64(l_bytes.data(), l);
  rng.AppendWitness("oom.r", r).AppendWitnessBytes("oom.l", l_bytes);
  crypto::SecureWipe(l_bytes.data(), l_bytes.size());
  rng.Finalize();

  const internal::DigitProver prover(p, l, rng);
  std::vector<ec::Scalar> rho(p.m);
  for (auto& s : rho) s = rng.NextScalar();

  // G_d = sum_k p_{k,d} C_k + rho_d H: one table over the set, reused for the m sums.
  const ec::MultiScalarMulTable table(set.points());
  std::vector<ec::RistrettoPoint> points(prover.commitments().begin(), prover.commitments().end());
  std::vector<ec::RistrettoPoint> sums = prover.CoefficientSums(table);
  const ec::FixedBaseTable& h_table = PedersenGens::Default().h_table();
  for (std::size_t d = 0; d < p.m; ++d) points.push_back(sums[d] + h_table.Mul(rho[d]));
  // Without their blinding the sums are functions of the secret digits and nonces.
  crypto::SecureWipe(sums.data(), sums.size() * sizeof(sums[0]));
  std::vector<ec::CompressedRistretto> encodings = ec::RistrettoPoint::EncodeBatch(points);
  // A, B, C, D, G_d are the proof's first message: public from here on.
  VEIL_DECLASSIFY(points.data(), points.size() * sizeof(ec::RistrettoPoint));
  VEIL_DECLASSIFY(encodings.data(), encodings.size() * sizeof(ec::CompressedRistretto));

  const ec::Scalar x = AppendProofAndChallenge(transcript, encodings);
  std::vector<ec::Scalar> f;
  ec::Scalar z_a, z_c;
  prover.Respond(x, f, z_a, z_c);
  const std::vector<ec::Scalar> xp = internal::Powers(x, p.m);
  ec::Scalar z = internal::FinalResponse(r, rho, xp);
  for (auto& s : rho) s.Wipe();
  // The responses are the proof's last message: public.
  VEIL_DECLASSIFY(f.data(), f.size() * sizeof(ec::Scalar));
  VEIL_DECLASSIFY(&z_a, sizeof z_a);
  VEIL_DECLASSIFY(&z_c, sizeof z_c);
  VEIL_DECLASSIFY(&z, sizeof z);
  return OneOfManyInternal::Make(p, std::move(encodings), std::move(points), std::move(f), z_a, z_c,
                                 z);
}

Status OneOfManyVerify(Transcript& transcript, const OneOfManySet& set,
                       const OneOfManyProof& proof) {
  internal::MsmBatch msm;
  VEIL_RETURN_IF_ERROR(AddProof(msm, transcript, set, proof));
  return msm.IsIdentityVartime() ? Status::Ok() : VerificationFailed();
}

// ---- Batch verification ----

struct OneOfManyBatchVerifier::Accumulator {
  internal::MsmBatch msm;
};

OneOfManyBatchVerifier::OneOfManyBatchVerifier() : acc_(std::make_unique<Accumulator>()) {}
OneOfManyBatchVerifier::~OneOfManyBatchVerifier() = default;
OneOfManyBatchVerifier::OneOfManyBatchVerifier(OneOfManyBatchVerifier&&) noexcept = default;
OneOfManyBatchVerifier& OneOfManyBatchVerifier::operator=(OneOfManyBatchVerifier&&) noexcept =
    default;

Status OneOfManyBatchVerifier::Add(Transcript& transcript, const OneOfManySet& set,
                                   const OneOfManyProof& proof) {
  Status s = AddProof(acc_->msm, transcript, set, proof);
  if (!s.ok()) {
    if (first_error_.ok()) first_error_ = s;
    return s;
  }
  ++count_;
  return Status::Ok();
}

Status OneOfManyBatchVerifier::Verify() const {
  VEIL_RETURN_IF_ERROR(first_error_);
  return acc_->msm.IsIdentityVartime() ? Status::Ok() : VerificationFailed();
}

}  // namespace veil::zk
