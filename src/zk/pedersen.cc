// Pedersen commitments; generators and their derivation in include/veil/zk/pedersen.h and
// docs/notes/sigma.md.
#include "veil/zk/pedersen.h"

#include <array>

#include "veil/base/consttime.h"

namespace veil::zk {

ec::RistrettoPoint PedersenGeneratorH() {
  return ec::RistrettoPoint::HashToGroup(AsBytes("H"), AsBytes(kPedersenDst));
}

ec::RistrettoPoint PedersenVectorGenerator(std::uint32_t i) {
  const std::array<std::uint8_t, 5> msg = {
      'G', static_cast<std::uint8_t>(i >> 24), static_cast<std::uint8_t>(i >> 16),
      static_cast<std::uint8_t>(i >> 8), static_cast<std::uint8_t>(i)};
  return ec::RistrettoPoint::HashToGroup(msg, AsBytes(kPedersenDst));
}

Result<Commitment> Commitment::Decode(ByteView bytes) {
  VEIL_ASSIGN_OR_RETURN(ec::RistrettoPoint p, ec::RistrettoPoint::Decode(bytes));
  return Commitment(p);
}

namespace {

// The verdict of an opening check is public; the values compared are not.
Status PublicVerdict(bool same) {
  VEIL_DECLASSIFY(&same, sizeof same);
  return same ? Status::Ok() : VerificationFailed();
}

}  // namespace

PedersenGens::PedersenGens()
    : g_(ec::RistrettoPoint::Generator()), h_table_(PedersenGeneratorH()) {}

const PedersenGens& PedersenGens::Default() {
  static const PedersenGens gens;
  return gens;
}

Commitment PedersenGens::Commit(const ec::Scalar& value, const ec::Scalar& blinding) const {
  return Commitment(ec::BasepointMul(value) + h_table_.Mul(blinding));
}

Commitment PedersenGens::CommitVartime(const ec::Scalar& value, const ec::Scalar& blinding) const {
  return Commitment(ec::DoubleScalarMulBasepointVartime(blinding, H(), value));
}

Status PedersenGens::VerifyOpening(const Commitment& c, const ec::Scalar& value,
                                   const ec::Scalar& blinding) const {
  return PublicVerdict(Commit(value, blinding) == c);
}

VectorPedersenGens::VectorPedersenGens(std::size_t n) {
  VEIL_CHECK_MSG(n >= 1 && n <= kMaxSize, "VectorPedersenGens: size out of range");
  tables_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    tables_.emplace_back(PedersenVectorGenerator(static_cast<std::uint32_t>(i)));
  }
}

Result<Commitment> VectorPedersenGens::Commit(std::span<const ec::Scalar> a,
                                              const ec::Scalar& blinding) const {
  if (a.size() > tables_.size()) return InvalidArgument("vector commitment: too many values");
  ec::RistrettoPoint acc = PedersenGens::Default().h_table().Mul(blinding);
  for (std::size_t i = 0; i < a.size(); ++i) acc += tables_[i].Mul(a[i]);
  return Commitment(acc);
}

Result<Commitment> VectorPedersenGens::CommitVartime(std::span<const ec::Scalar> a,
                                                     const ec::Scalar& blinding) const {
  if (a.size() > tables_.size()) return InvalidArgument("vector commitment: too many values");
  std::vector<ec::Scalar> scalars(a.begin(), a.end());
  std::vector<ec::RistrettoPoint> points;
  points.reserve(a.size() + 1);
  for (std::size_t i = 0; i < a.size(); ++i) points.push_back(tables_[i].point());
  scalars.push_back(blinding);
  points.push_back(H());
  return Commitment(ec::MultiScalarMulVartime(scalars, points));
}

Status VectorPedersenGens::VerifyOpening(const Commitment& c, std::span<const ec::Scalar> a,
                                         const ec::Scalar& blinding) const {
  VEIL_ASSIGN_OR_RETURN(Commitment expected, Commit(a, blinding));
  return PublicVerdict(expected == c);
}

}  // namespace veil::zk
