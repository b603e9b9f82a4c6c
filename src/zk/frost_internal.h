// Internal: the pieces of FROST shared by frost.cc (signing), frost_keygen.cc (trusted dealer) and
// frost_dkg.cc: Internal<S>, the one friend of the public types (their private constructors and
// state), the package codec helpers, polynomial and Lagrange arithmetic, and the per-session values
// of RFC 9591 sec. 4.4-4.6 (binding factors, group commitment, challenge).
//
// Thread safety: stateless functions.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frost_suite.h"
#include "veil/base/codec.h"
#include "veil/base/status.h"
#include "veil/zk/frost.h"

namespace veil::zk::frost {

// Codec structure tags: "F" and a letter per structure; version 1 for all but the DKG's round-one
// package (Round1Package<S>::kVersion).
inline constexpr std::uint16_t kTagKeyPackage = 0x464B;        // "FK"
inline constexpr std::uint16_t kTagPublicKeyPackage = 0x4650;  // "FP"
inline constexpr std::uint16_t kTagSecretShare = 0x4644;       // "FD"
inline constexpr std::uint16_t kTagSigningPackage = 0x4653;    // "FS"
inline constexpr std::uint16_t kTagRound1Package = 0x4631;     // "F1"
inline constexpr std::uint16_t kTagRound2Package = 0x4632;     // "F2"
inline constexpr std::uint8_t kWireVersion = 1;

template <class S>
struct Internal {
  using Point = typename S::Point;
  using Ops = SuiteOps<S>;

  // ---- Constructors of the public types (callers have done the checks) ----

  // A point the caller knows to be admissible (a multiple of B by a non-zero scalar, or a sum of
  // checked points that is not the identity).
  static GroupElement<S> Element(const Point& p) { return GroupElement<S>(p, Ops::Serialize(p)); }
  static GroupElement<S> Element(const Point& p, const ElementBytes& b) {
    return GroupElement<S>(p, b);
  }
  static SigningShare Share(const ec::Scalar& s) { return SigningShare(s); }
  static const ec::Scalar& ShareScalar(const SigningShare& s) { return s.s_; }
  static KeyPackage<S> MakeKeyPackage(const Identifier& id, SigningShare share,
                                      const GroupElement<S>& vs, const GroupElement<S>& vk,
                                      std::uint16_t t) {
    return KeyPackage<S>(id, std::move(share), vs, vk, t);
  }
  static SecretShare<S> MakeSecretShare(const Identifier& id, SigningShare share,
                                        std::vector<GroupElement<S>> commitment) {
    return SecretShare<S>(id, std::move(share), std::move(commitment));
  }
  static SigningCommitments<S> MakeCommitments(const Identifier& id, const GroupElement<S>& d,
                                               const GroupElement<S>& e) {
    return SigningCommitments<S>(id, d, e);
  }
  static SigningNonces<S> MakeNonces(const ec::Scalar& d, const ec::Scalar& e,
                                     const SigningCommitments<S>& c) {
    return SigningNonces<S>(d, e, c);
  }
  static const ec::Scalar& HidingNonce(const SigningNonces<S>& n) { return n.hiding_; }
  static const ec::Scalar& BindingNonce(const SigningNonces<S>& n) { return n.binding_; }
  static SignatureShare<S> MakeSignatureShare(const Identifier& id, const ec::Scalar& z) {
    return SignatureShare<S>(id, z);
  }
  static Signature<S> MakeSignature(const GroupElement<S>& r, const ec::Scalar& z) {
    return Signature<S>(r, z);
  }
  static dkg::Round1Package<S> MakeRound1Package(const Identifier& id,
                                                 std::vector<GroupElement<S>> c,
                                                 const GroupElement<S>& r, const ec::Scalar& mu) {
    return dkg::Round1Package<S>(id, std::move(c), r, mu);
  }
  static dkg::Round2Package<S> MakeRound2Package(const Identifier& from, const Identifier& to,
                                                 const ec::Scalar& share) {
    return dkg::Round2Package<S>(from, to, share);
  }
  static dkg::Round1Secret<S> MakeRound1Secret(const Identifier& id, dkg::Ceremony ceremony,
                                               std::vector<ec::Scalar> coefficients,
                                               std::vector<GroupElement<S>> commitment) {
    return dkg::Round1Secret<S>(id, std::move(ceremony), std::move(coefficients),
                                std::move(commitment));
  }
  static dkg::Round2Secret<S> MakeRound2Secret(
      const Identifier& id, const ec::Scalar& own_share, std::uint16_t t,
      std::vector<std::pair<Identifier, std::vector<GroupElement<S>>>> commitments) {
    return dkg::Round2Secret<S>(id, own_share, t, std::move(commitments));
  }

  // ---- Access to the DKG states ----
  static const std::vector<ec::Scalar>& Coefficients(const dkg::Round1Secret<S>& s) {
    return s.coefficients_;
  }
  static const std::vector<GroupElement<S>>& OwnCommitment(const dkg::Round1Secret<S>& s) {
    return s.commitment_;
  }
  static const ec::Scalar& OwnShare(const dkg::Round2Secret<S>& s) { return s.own_share_; }
  static std::uint16_t MinSigners(const dkg::Round2Secret<S>& s) { return s.min_signers_; }
  static const std::vector<std::pair<Identifier, std::vector<GroupElement<S>>>>& Commitments(
      const dkg::Round2Secret<S>& s) {
    return s.commitments_;
  }
};

// ---- Codec helpers ----

// Reads a 32-byte element with the suite's checks; records the first error in r.
template <class S>
std::optional<GroupElement<S>> ReadElement(Reader& r, const char* what) {
  const ByteView v = r.FixedView(kElementSize);
  if (!r.ok()) return std::nullopt;
  Result<GroupElement<S>> e = GroupElement<S>::Decode(v);
  if (!e.ok()) {
    r.Fail(std::string("FROST: ") + what + ": " + e.status().message());
    return std::nullopt;
  }
  return *e;
}

inline std::optional<Identifier> ReadIdentifier(Reader& r) {
  const ByteView v = r.FixedView(kIdentifierSize);
  if (!r.ok()) return std::nullopt;
  Result<Identifier> id = Identifier::Decode(v);
  if (!id.ok()) {
    r.Fail(id.status().message());
    return std::nullopt;
  }
  return *id;
}

// A canonical scalar (any value < l); constant time in the value.
inline std::optional<ec::Scalar> ReadScalar(Reader& r, const char* what) {
  const ByteView v = r.FixedView(kScalarSize);
  if (!r.ok()) return std::nullopt;
  Result<ec::Scalar> s = ec::Scalar::FromCanonical(v);
  if (!s.ok()) {
    r.Fail(std::string("FROST: ") + what + ": not a canonical scalar");
    return std::nullopt;
  }
  return *s;
}

// The header, and the suite byte: a package of the other suite is kInvalidArgument.
template <class S>
void ReadHeader(Reader& r, std::uint16_t tag, std::uint8_t version = kWireVersion) {
  r.Header(tag, version);
  const std::uint8_t suite = r.U8();
  if (r.ok() && suite != S::kWireId) r.Fail("FROST: a package of another ciphersuite");
}

template <class S>
Writer StartPackage(std::uint16_t tag, std::uint8_t version = kWireVersion) {
  Writer w(tag, version);
  w.U8(S::kWireId);
  return w;
}

// ---- Arithmetic ----

// f(x) = sum a_k x^k by Horner's rule; constant time in the coefficients (secret for the dealer
// and the DKG).
inline ec::Scalar PolynomialEvaluate(std::span<const ec::Scalar> coefficients,
                                     const ec::Scalar& x) {
  ec::Scalar acc;
  for (std::size_t k = coefficients.size(); k-- > 0;) acc = acc * x + coefficients[k];
  return acc;
}

// sum_k C_k x^k for public commitments: the verifying share of participant x (Appendix C.2).
template <class S>
typename S::Point CommitmentEvaluateVartime(std::span<const GroupElement<S>> commitment,
                                            const ec::Scalar& x) {
  std::vector<ec::Scalar> powers;
  std::vector<typename S::Point> points;
  powers.reserve(commitment.size());
  points.reserve(commitment.size());
  ec::Scalar p = ec::Scalar::One();
  for (const GroupElement<S>& c : commitment) {
    powers.push_back(p);
    points.push_back(c.point());
    p *= x;
  }
  return SuiteOps<S>::MsmVartime(powers, points);
}

// lambda_i for every x_i of a list without duplicates (sec. 4.2), with one inversion.
std::vector<ec::Scalar> InterpolatingValues(std::span<const Identifier> participants);

// The values every party of a signing session computes from public data (sec. 4.4-4.6).
template <class S>
struct Session {
  std::vector<ec::Scalar> binding_factors;  // in the package's order
  typename S::Point group_commitment;
  ec::Scalar challenge;
};
template <class S>
Session<S> ComputeSession(const VerifyingKey<S>& key, const SigningPackage<S>& package);

// The index of id in the package, or -1.
template <class S>
std::ptrdiff_t IndexOf(const SigningPackage<S>& package, const Identifier& id) {
  const auto& c = package.commitments();
  const auto it = std::lower_bound(
      c.begin(), c.end(), id,
      [](const SigningCommitments<S>& a, const Identifier& b) { return a.identifier() < b; });
  if (it == c.end() || !(it->identifier() == id)) return -1;
  return it - c.begin();
}

// The status a culprit's fault carries: the opaque verification failure for failed checks,
// kInvalidArgument naming the participant for structural faults.
Status FaultStatus(const Culprit& c);

}  // namespace veil::zk::frost
