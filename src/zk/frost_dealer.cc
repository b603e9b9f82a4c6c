// FROST trusted-dealer key generation (RFC 9591 Appendix C): Shamir sharing of the group secret
// (C.1, secret_share_shard), the Feldman VSS commitment to the polynomial (C.2, vss_commit) and
// the participant's check of its share against it (vss_verify), for both ciphersuites.
//
// Constant time: the polynomial's coefficients and the shares are secret; they are evaluated with
// scalar arithmetic only and multiplied by B with the constant-time fixed-base multiplication.
// The commitments and verifying shares are public and are declassified once computed.
//
// Thread safety: stateless functions on values.
#include <string>

#include "frost_internal.h"
#include "frost_suite.h"
#include "veil/base/consttime.h"
#include "veil/zk/frost.h"

namespace veil::zk::frost {

namespace {

template <class S>
GroupElement<S> PublishedMultiple(const ec::Scalar& s) {
  typename S::Point p = SuiteOps<S>::BaseMul(s);
  ElementBytes enc = SuiteOps<S>::Serialize(p);
  VEIL_DECLASSIFY(&p, sizeof p);
  VEIL_DECLASSIFY(&enc, sizeof enc);
  return Internal<S>::Element(p, enc);
}

// Whether a secret scalar is zero; the verdict only says "this value is unusable".
bool IsZeroDeclassified(const ec::Scalar& s) {
  bool zero = s.IsZero();
  VEIL_DECLASSIFY(&zero, sizeof zero);
  return zero;
}

}  // namespace

template <class S>
Result<DealerOutput<S>> TrustedDealerKeygenFromCoefficients(
    std::span<const ec::Scalar> coefficients, std::uint16_t max_signers) {
  const std::size_t t = coefficients.size();
  if (t < 2 || t > max_signers) {
    return InvalidArgument("FROST dealer: need 2 <= min_signers <= max_signers");
  }
  // vss_commit: C_k = a_k B. SerializeElement forbids the identity, so no coefficient may be 0.
  std::vector<GroupElement<S>> commitment;
  commitment.reserve(t);
  for (const ec::Scalar& a : coefficients) {
    if (IsZeroDeclassified(a)) return InvalidArgument("FROST dealer: a zero coefficient");
    commitment.push_back(PublishedMultiple<S>(a));
  }
  // secret_share_shard: (i, f(i)) for i = 1..n.
  std::vector<SecretShare<S>> shares;
  std::vector<std::pair<Identifier, VerifyingShare<S>>> verifying_shares;
  shares.reserve(max_signers);
  verifying_shares.reserve(max_signers);
  for (std::uint16_t i = 1; i <= max_signers; ++i) {
    const Identifier id = Identifier::FromInteger(i).value();
    ec::Scalar y = PolynomialEvaluate(coefficients, id.scalar());
    if (IsZeroDeclassified(y)) {
      y.Wipe();
      return InvalidArgument("FROST dealer: a zero share");
    }
    verifying_shares.emplace_back(id, PublishedMultiple<S>(y));
    shares.push_back(Internal<S>::MakeSecretShare(id, Internal<S>::Share(y), commitment));
    y.Wipe();
  }
  VEIL_ASSIGN_OR_RETURN(PublicKeyPackage<S> group,
                        PublicKeyPackage<S>::Create(commitment[0], std::move(verifying_shares),
                                                    static_cast<std::uint16_t>(t)));
  return DealerOutput<S>{std::move(shares), std::move(group)};
}

template <class S>
Result<DealerOutput<S>> TrustedDealerKeygen(std::uint16_t min_signers, std::uint16_t max_signers) {
  if (min_signers < 2 || min_signers > max_signers) {
    return InvalidArgument("FROST dealer: need 2 <= min_signers <= max_signers");
  }
  for (;;) {
    std::vector<ec::Scalar> coefficients(min_signers);
    for (ec::Scalar& a : coefficients) a = ec::Scalar::Random();
    Result<DealerOutput<S>> out = TrustedDealerKeygenFromCoefficients<S>(coefficients, max_signers);
    for (ec::Scalar& a : coefficients) a.Wipe();
    // The only possible failure is a zero coefficient or share (probability about n 2^-252):
    // draw again.
    if (out.ok()) return out;
  }
}

// ---- The dealer's message ----

template <class S>
crypto::SecretBytes SecretShare<S>::Encode() const {
  Writer w = StartPackage<S>(kTagSecretShare);
  w.Fixed(identifier_.Encode());
  ec::Scalar::Bytes sk = signing_share_.ExposeScalar().ToBytes();
  w.Fixed(sk);
  crypto::SecureWipe(sk.data(), sk.size());
  w.U16(static_cast<std::uint16_t>(commitment_.size()));
  for (const GroupElement<S>& c : commitment_) w.Fixed(c.Encode());
  Bytes b = std::move(w).Take();
  crypto::SecretBytes out = crypto::SecretBytes::CopyFrom(b);
  crypto::SecureWipe(b.data(), b.size());
  return out;
}

template <class S>
Result<SecretShare<S>> SecretShare<S>::Decode(ByteView bytes) {
  Reader r(bytes);
  ReadHeader<S>(r, kTagSecretShare);
  const std::optional<Identifier> id = ReadIdentifier(r);
  const ByteView sk_bytes = r.FixedView(kScalarSize);
  const std::uint16_t t = r.U16();
  if (r.ok() && (t < 2 || r.remaining() != std::size_t{t} * kElementSize)) {
    r.Fail("FROST: secret share: bad commitment length");
  }
  std::vector<GroupElement<S>> commitment;
  for (std::uint16_t k = 0; k < t && r.ok(); ++k) {
    std::optional<GroupElement<S>> c = ReadElement<S>(r, "VSS commitment");
    if (c) commitment.push_back(*c);
  }
  VEIL_RETURN_IF_ERROR(r.Finish());
  VEIL_ASSIGN_OR_RETURN(SigningShare share, SigningShare::Decode(sk_bytes));
  return SecretShare(*id, std::move(share), std::move(commitment));
}

template <class S>
Result<KeyPackage<S>> SecretShare<S>::Verify() const {
  if (commitment_.size() < 2 || commitment_.size() > kMaxParticipants) {
    return InvalidArgument("FROST: secret share: bad commitment length");
  }
  // vss_verify: S_i = sk_i B (constant time; public once it matches) against
  // S_i' = sum_j C_j i^j (public).
  const GroupElement<S> s_i = PublishedMultiple<S>(signing_share_.ExposeScalar());
  const typename S::Point expected =
      CommitmentEvaluateVartime<S>(commitment_, identifier_.scalar());
  if (!(s_i.point() == expected)) return VerificationFailed();
  return Internal<S>::MakeKeyPackage(identifier_, signing_share_.Clone(), s_i, commitment_[0],
                                     static_cast<std::uint16_t>(commitment_.size()));
}

#define VEIL_FROST_DEALER_INSTANTIATE(S)                                                 \
  template class SecretShare<S>;                                                         \
  template Result<DealerOutput<S>> TrustedDealerKeygen<S>(std::uint16_t, std::uint16_t); \
  template Result<DealerOutput<S>> TrustedDealerKeygenFromCoefficients<S>(               \
      std::span<const ec::Scalar>, std::uint16_t);

VEIL_FROST_DEALER_INSTANTIATE(Ristretto255Sha512)
VEIL_FROST_DEALER_INSTANTIATE(Ed25519Sha512)

#undef VEIL_FROST_DEALER_INSTANTIATE

}  // namespace veil::zk::frost
