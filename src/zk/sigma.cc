// Sigma protocols for linear relations (include/veil/zk/sigma.h, docs/notes/sigma.md).
#include "veil/zk/sigma.h"

#include <array>
#include <utility>

#include "msm_batch.h"
#include "veil/base/codec.h"
#include "veil/base/consttime.h"

namespace veil::zk {

// ---- LinearRelation ----

LinearRelation::LinearRelation(std::string_view label) : label_(label) {
  VEIL_CHECK_MSG(!label.empty() && label.size() <= Transcript::kMaxLabelSize,
                 "LinearRelation: label must be 1..255 bytes");
}

ScalarVar LinearRelation::AddScalar() { return ScalarVar{num_scalars_++}; }

PointVar LinearRelation::AddPoint(const ec::RistrettoPoint& p) {
  points_.push_back(Point{p, std::nullopt, std::nullopt, false});
  return PointVar{static_cast<std::uint32_t>(points_.size() - 1)};
}

PointVar LinearRelation::AddPoint(const ec::FixedBaseTable& table) {
  points_.push_back(Point{table.point(), std::nullopt, table, false});
  return PointVar{static_cast<std::uint32_t>(points_.size() - 1)};
}

PointVar LinearRelation::AddBasepoint() {
  points_.push_back(
      Point{ec::RistrettoPoint::Generator(), internal::BasepointEncoding(), std::nullopt, true});
  return PointVar{static_cast<std::uint32_t>(points_.size() - 1)};
}

Result<PointVar> LinearRelation::AddPointEncoding(const ec::CompressedRistretto& encoding) {
  VEIL_ASSIGN_OR_RETURN(ec::RistrettoPoint p, encoding.Decode());
  points_.push_back(Point{p, encoding, std::nullopt, false});
  return PointVar{static_cast<std::uint32_t>(points_.size() - 1)};
}

void LinearRelation::AddEquation(PointVar lhs, std::vector<Term> rhs) {
  VEIL_CHECK_MSG(lhs.index < points_.size(), "LinearRelation: unknown point variable");
  for (const Term& t : rhs) {
    VEIL_CHECK_MSG(t.scalar.index < num_scalars_, "LinearRelation: unknown scalar variable");
    VEIL_CHECK_MSG(t.point.index < points_.size(), "LinearRelation: unknown point variable");
  }
  equations_.push_back(Equation{lhs.index, std::move(rhs)});
}

Status LinearRelation::Validate() const {
  if (equations_.empty()) return InvalidArgument("linear relation: no equation");
  if (num_scalars_ > kMaxScalars || points_.size() > kMaxPoints ||
      equations_.size() > kMaxEquations) {
    return InvalidArgument("linear relation: too large");
  }
  std::vector<bool> used(num_scalars_, false);
  for (const Equation& eq : equations_) {
    if (eq.rhs.empty()) return InvalidArgument("linear relation: equation without a term");
    if (eq.rhs.size() > kMaxPoints) return InvalidArgument("linear relation: too large");
    for (const Term& t : eq.rhs) used[t.scalar.index] = true;
  }
  for (bool u : used) {
    if (!u) return InvalidArgument("linear relation: a scalar appears in no equation");
  }
  return Status::Ok();
}

// ---- SigmaProof ----

struct SigmaInternal {
  static SigmaProof Make(std::vector<ec::CompressedRistretto> commitments,
                         std::vector<ec::RistrettoPoint> points,
                         std::vector<ec::Scalar> responses) {
    SigmaProof p;
    p.commitments_ = std::move(commitments);
    p.commitment_points_ = std::move(points);
    p.responses_ = std::move(responses);
    return p;
  }
  static const std::vector<ec::RistrettoPoint>& Points(const SigmaProof& p) {
    return p.commitment_points_;
  }
};

Result<SigmaProof> SigmaProof::Decode(ByteView bytes, std::size_t num_equations,
                                      std::size_t num_scalars) {
  if (num_equations > LinearRelation::kMaxEquations || num_scalars > LinearRelation::kMaxScalars) {
    return InvalidArgument("sigma proof: shape too large");
  }
  if (bytes.size() != 32 * (num_equations + num_scalars)) {
    return InvalidArgument("sigma proof: wrong length");
  }
  std::vector<ec::CompressedRistretto> commitments;
  commitments.reserve(num_equations);
  for (std::size_t j = 0; j < num_equations; ++j) {
    VEIL_ASSIGN_OR_RETURN(auto enc, ec::CompressedRistretto::FromBytes(bytes.subspan(32 * j, 32)));
    commitments.push_back(enc);
  }
  VEIL_ASSIGN_OR_RETURN(std::vector<ec::RistrettoPoint> points,
                        ec::RistrettoPoint::DecodeBatch(commitments));
  std::vector<ec::Scalar> responses;
  responses.reserve(num_scalars);
  for (std::size_t i = 0; i < num_scalars; ++i) {
    VEIL_ASSIGN_OR_RETURN(ec::Scalar s,
                          ec::Scalar::FromCanonical(bytes.subspan(32 * (num_equations + i), 32)));
    responses.push_back(s);
  }
  return SigmaInternal::Make(std::move(commitments), std::move(points), std::move(responses));
}

Bytes SigmaProof::Encode() const {
  Bytes out;
  out.reserve(32 * (commitments_.size() + responses_.size()));
  for (const auto& a : commitments_) out.insert(out.end(), a.bytes().begin(), a.bytes().end());
  for (const auto& s : responses_) {
    const ec::Scalar::Bytes b = s.ToBytes();
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

// ---- The protocol ----

namespace {

// The canonical encodings of the relation's points; those not already known are encoded with one
// batch (one shared inversion).
std::vector<ec::CompressedRistretto> PointEncodings(const LinearRelation& rel) {
  const auto& pts = rel.points();
  std::vector<ec::RistrettoPoint> missing;
  for (const auto& p : pts) {
    if (!p.encoding) missing.push_back(p.point);
  }
  std::vector<ec::CompressedRistretto> fresh = ec::RistrettoPoint::EncodeBatch(missing);
  std::vector<ec::CompressedRistretto> out;
  out.reserve(pts.size());
  std::size_t next = 0;
  for (const auto& p : pts) out.push_back(p.encoding ? *p.encoding : fresh[next++]);
  return out;
}

// The relation's index structure, so that two relations over the same points with different
// equations never share a challenge.
Bytes ShapeBytes(const LinearRelation& rel) {
  Writer w;
  w.U32(static_cast<std::uint32_t>(rel.num_scalars()))
      .U32(static_cast<std::uint32_t>(rel.num_points()))
      .U32(static_cast<std::uint32_t>(rel.num_equations()));
  for (const auto& eq : rel.equations()) {
    w.U32(eq.lhs).U32(static_cast<std::uint32_t>(eq.rhs.size()));
    for (const Term& t : eq.rhs) w.U32(t.scalar.index).U32(t.point.index);
  }
  return std::move(w).Take();
}

// Appends label, shape and every public point; returns the points' encodings.
std::vector<ec::CompressedRistretto> AppendStatement(Transcript& t, const LinearRelation& rel) {
  std::vector<ec::CompressedRistretto> encodings = PointEncodings(rel);
  t.AppendMessage("sigma.relation", AsBytes(rel.label()));
  t.AppendMessage("sigma.shape", ShapeBytes(rel));
  for (const auto& e : encodings) t.AppendPoint("sigma.P", e);
  return encodings;
}

ec::Scalar AppendCommitmentsAndChallenge(Transcript& t,
                                         std::span<const ec::CompressedRistretto> commitments) {
  for (const auto& a : commitments) t.AppendPoint("sigma.A", a);
  return t.ChallengeScalar("sigma.c");
}

// k P, constant time in k, by the fastest method the point allows.
ec::RistrettoPoint MulSecret(const LinearRelation::Point& p, const ec::Scalar& k) {
  if (p.basepoint) return ec::BasepointMul(k);
  if (p.table) return p.table->Mul(k);
  return k * p.point;
}

Status CheckShape(const LinearRelation& rel, const SigmaProof& proof) {
  VEIL_RETURN_IF_ERROR(rel.Validate());
  if (proof.commitments().size() != rel.num_equations() ||
      proof.responses().size() != rel.num_scalars()) {
    return InvalidArgument("sigma proof: shape does not match the relation");
  }
  return Status::Ok();
}

Result<SigmaProof> ProveImpl(Transcript& t, const LinearRelation& rel,
                             std::span<const ec::Scalar> witness,
                             const std::span<const std::uint8_t, 32>* randomness) {
  VEIL_RETURN_IF_ERROR(rel.Validate());
  if (witness.size() != rel.num_scalars()) {
    return InvalidArgument("sigma proof: witness count does not match the relation");
  }
  AppendStatement(t, rel);

  // Nonces k_i: hedged, from the statement, the witness and fresh randomness.
  TranscriptRng rng = t.BuildRng();
  for (const ec::Scalar& x : witness) rng.AppendWitness("sigma.x", x);
  if (randomness != nullptr) {
    rng.FinalizeWithRandomness(*randomness);
  } else {
    rng.Finalize();
  }
  std::vector<ec::Scalar> nonces;
  nonces.reserve(witness.size());
  for (std::size_t i = 0; i < witness.size(); ++i) nonces.push_back(rng.NextScalar());

  // A_j = sum_k k_{i(j,k)} G_{j,k}.
  const auto& pts = rel.points();
  std::vector<ec::RistrettoPoint> commitments;
  commitments.reserve(rel.num_equations());
  for (const auto& eq : rel.equations()) {
    ec::RistrettoPoint a;
    for (const Term& term : eq.rhs)
      a += MulSecret(pts[term.point.index], nonces[term.scalar.index]);
    commitments.push_back(a);
  }
  std::vector<ec::CompressedRistretto> encoded = ec::RistrettoPoint::EncodeBatch(commitments);
  // The commitments are the proof's first message: public from here on.
  VEIL_DECLASSIFY(encoded.data(), encoded.size() * sizeof(ec::CompressedRistretto));
  VEIL_DECLASSIFY(commitments.data(), commitments.size() * sizeof(ec::RistrettoPoint));

  const ec::Scalar c = AppendCommitmentsAndChallenge(t, encoded);
  std::vector<ec::Scalar> responses;
  responses.reserve(witness.size());
  for (std::size_t i = 0; i < witness.size(); ++i) {
    responses.push_back(nonces[i] + c * witness[i]);
    nonces[i].Wipe();
  }
  // The responses are the proof's last message: public.
  VEIL_DECLASSIFY(responses.data(), responses.size() * sizeof(ec::Scalar));
  return SigmaInternal::Make(std::move(encoded), std::move(commitments), std::move(responses));
}

}  // namespace

Result<SigmaProof> Prove(Transcript& transcript, const LinearRelation& relation,
                         std::span<const ec::Scalar> witness) {
  return ProveImpl(transcript, relation, witness, nullptr);
}

Result<SigmaProof> ProveWithRandomness(Transcript& transcript, const LinearRelation& relation,
                                       std::span<const ec::Scalar> witness,
                                       std::span<const std::uint8_t, 32> randomness) {
  return ProveImpl(transcript, relation, witness, &randomness);
}

Status Verify(Transcript& transcript, const LinearRelation& relation, const SigmaProof& proof) {
  VEIL_RETURN_IF_ERROR(CheckShape(relation, proof));
  AppendStatement(transcript, relation);
  const ec::Scalar c = AppendCommitmentsAndChallenge(transcript, proof.commitments());
  const ec::Scalar minus_c = -c;
  const auto& pts = relation.points();
  const auto& a_points = SigmaInternal::Points(proof);
  std::vector<ec::Scalar> scalars;
  std::vector<ec::RistrettoPoint> points;
  for (std::size_t j = 0; j < relation.num_equations(); ++j) {
    const auto& eq = relation.equations()[j];
    scalars.clear();
    points.clear();
    for (const Term& term : eq.rhs) {
      scalars.push_back(proof.responses()[term.scalar.index]);
      points.push_back(pts[term.point.index].point);
    }
    scalars.push_back(minus_c);
    points.push_back(pts[eq.lhs].point);
    // sum s G - c P = A_j
    if (!(ec::MultiScalarMulVartime(scalars, points) == a_points[j])) return VerificationFailed();
  }
  return Status::Ok();
}

// ---- Batch verification ----

struct SigmaBatchVerifier::Accumulator {
  internal::MsmBatch msm;
};

SigmaBatchVerifier::SigmaBatchVerifier() : acc_(std::make_unique<Accumulator>()) {}
SigmaBatchVerifier::~SigmaBatchVerifier() = default;
SigmaBatchVerifier::SigmaBatchVerifier(SigmaBatchVerifier&&) noexcept = default;
SigmaBatchVerifier& SigmaBatchVerifier::operator=(SigmaBatchVerifier&&) noexcept = default;

Status SigmaBatchVerifier::Add(Transcript& transcript, const LinearRelation& relation,
                               const SigmaProof& proof) {
  Status s = CheckShape(relation, proof);
  if (!s.ok()) {
    if (first_error_.ok()) first_error_ = s;
    return s;
  }
  const std::vector<ec::CompressedRistretto> encodings = AppendStatement(transcript, relation);
  const ec::Scalar c = AppendCommitmentsAndChallenge(transcript, proof.commitments());
  const auto& pts = relation.points();
  const auto& a_points = SigmaInternal::Points(proof);
  for (std::size_t j = 0; j < relation.num_equations(); ++j) {
    const auto& eq = relation.equations()[j];
    // w (sum s G - c P - A) = 0
    const ec::Scalar w = internal::RandomWeight128();
    for (const Term& term : eq.rhs) {
      acc_->msm.AddShared(encodings[term.point.index], pts[term.point.index].point,
                          w * proof.responses()[term.scalar.index]);
    }
    acc_->msm.AddShared(encodings[eq.lhs], pts[eq.lhs].point, -(w * c));
    acc_->msm.Add(-a_points[j], w);
  }
  ++count_;
  return Status::Ok();
}

Status SigmaBatchVerifier::Verify() const {
  VEIL_RETURN_IF_ERROR(first_error_);
  return acc_->msm.IsIdentityVartime() ? Status::Ok() : VerificationFailed();
}

// ---- The concrete protocols ----

LinearRelation DlogRelation(const ec::RistrettoPoint& P) {
  LinearRelation rel("veil.zk.dlog");
  const ScalarVar x = rel.AddScalar();
  const PointVar b = rel.AddBasepoint();
  const PointVar p = rel.AddPoint(P);
  rel.AddEquation(p, {{x, b}});
  return rel;
}

SigmaProof ProveDlog(Transcript& transcript, const ec::Scalar& x, const ec::RistrettoPoint& P) {
  return Prove(transcript, DlogRelation(P), std::span<const ec::Scalar>(&x, 1)).value();
}

Status VerifyDlog(Transcript& transcript, const ec::RistrettoPoint& P, const SigmaProof& proof) {
  return Verify(transcript, DlogRelation(P), proof);
}

LinearRelation DleqRelation(const ec::RistrettoPoint& G, const ec::RistrettoPoint& P,
                            const ec::RistrettoPoint& H, const ec::RistrettoPoint& Q) {
  LinearRelation rel("veil.zk.dleq");
  const ScalarVar x = rel.AddScalar();
  const PointVar g = rel.AddPoint(G);
  const PointVar p = rel.AddPoint(P);
  const PointVar h = rel.AddPoint(H);
  const PointVar q = rel.AddPoint(Q);
  rel.AddEquation(p, {{x, g}});
  rel.AddEquation(q, {{x, h}});
  return rel;
}

SigmaProof ProveDleq(Transcript& transcript, const ec::Scalar& x, const ec::RistrettoPoint& G,
                     const ec::RistrettoPoint& P, const ec::RistrettoPoint& H,
                     const ec::RistrettoPoint& Q) {
  return Prove(transcript, DleqRelation(G, P, H, Q), std::span<const ec::Scalar>(&x, 1)).value();
}

Status VerifyDleq(Transcript& transcript, const ec::RistrettoPoint& G, const ec::RistrettoPoint& P,
                  const ec::RistrettoPoint& H, const ec::RistrettoPoint& Q,
                  const SigmaProof& proof) {
  return Verify(transcript, DleqRelation(G, P, H, Q), proof);
}

LinearRelation OpeningRelation(const PedersenGens& gens, const Commitment& C) {
  LinearRelation rel("veil.zk.pedersen-opening");
  const ScalarVar v = rel.AddScalar();
  const ScalarVar r = rel.AddScalar();
  const PointVar g = rel.AddBasepoint();  // PedersenGens' G is the standard generator
  const PointVar h = rel.AddPoint(gens.h_table());
  const PointVar c = rel.AddPoint(C.point());
  rel.AddEquation(c, {{v, g}, {r, h}});
  return rel;
}

SigmaProof ProveOpening(Transcript& transcript, const PedersenGens& gens, const ec::Scalar& v,
                        const ec::Scalar& r, const Commitment& C) {
  std::array<ec::Scalar, 2> witness = {v, r};
  Result<SigmaProof> proof = Prove(transcript, OpeningRelation(gens, C), witness);
  witness[0].Wipe();
  witness[1].Wipe();
  return std::move(proof).value();
}

Status VerifyOpening(Transcript& transcript, const PedersenGens& gens, const Commitment& C,
                     const SigmaProof& proof) {
  return Verify(transcript, OpeningRelation(gens, C), proof);
}

}  // namespace veil::zk
