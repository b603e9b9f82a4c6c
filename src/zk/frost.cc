// FROST signing (include/veil/zk/frost.h, docs/notes/frost.md): identifiers, public elements, key
// packages, round one (RFC 9591 sec. 5.1), round two (sec. 5.2), aggregation with identifiable
// abort (sec. 5.3, 5.4), verification, and the sec. 4 helper functions. Written once against
// SuiteOps<S> (frost_suite.h) and instantiated for both ciphersuites at the end.
//
// Thread safety: stateless functions on values.
#include "veil/zk/frost.h"

#include <algorithm>
#include <string>

#include "frost_internal.h"
#include "frost_suite.h"
#include "msm_batch.h"
#include "veil/base/consttime.h"
#include "veil/base/encoding.h"
#include "veil/crypto/random.h"

namespace veil::zk::frost {

// ---- Identifiers and blame ----

Result<Identifier> Identifier::FromInteger(std::uint64_t v) {
  if (v == 0) return InvalidArgument("FROST: identifier 0");
  const ec::Scalar s = ec::Scalar::FromUint64(v);
  return Identifier(s, s.ToBytes());
}

Result<Identifier> Identifier::Decode(ByteView bytes) {
  if (bytes.size() != kIdentifierSize) return InvalidArgument("FROST: an identifier is 32 bytes");
  Result<ec::Scalar> s = ec::Scalar::FromCanonical(bytes);
  if (!s.ok()) return InvalidArgument("FROST: identifier is not a canonical scalar");
  if (s->IsZero()) return InvalidArgument("FROST: identifier 0");
  return Identifier(*s, s->ToBytes());
}

std::string Identifier::ToString() const {
  const bool small = std::all_of(bytes_.begin() + 8, bytes_.end(), [](auto b) { return b == 0; });
  if (small) return std::to_string(LoadLe64(bytes_.data()));
  return "0x" + HexEncode(bytes_);
}

std::strong_ordering operator<=>(const Identifier& a, const Identifier& b) {
  // Integer order of the little-endian encodings: compare from the most significant byte.
  for (std::size_t i = kIdentifierSize; i-- > 0;) {
    if (a.bytes_[i] != b.bytes_[i]) return a.bytes_[i] <=> b.bytes_[i];
  }
  return std::strong_ordering::equal;
}

std::string_view FaultName(Fault fault) {
  switch (fault) {
    case Fault::kBadSignatureShare:
      return "bad signature share";
    case Fault::kUnknownParticipant:
      return "unknown participant";
    case Fault::kDuplicateIdentifier:
      return "duplicate identifier";
    case Fault::kWrongCommitmentLength:
      return "wrong commitment length";
    case Fault::kBadProofOfKnowledge:
      return "bad proof of knowledge";
    case Fault::kBadShare:
      return "bad secret share";
    case Fault::kMissingShare:
      return "missing share";
    case Fault::kMisaddressedShare:
      return "share addressed to another participant";
    case Fault::kWrongIdentifier:
      return "package carries another participant's identifier";
  }
  return "unknown fault";
}

std::string Culprit::ToString() const {
  return "participant " + participant.ToString() + ": " + std::string(FaultName(fault));
}

Status FaultStatus(const Culprit& c) {
  switch (c.fault) {
    case Fault::kBadSignatureShare:
    case Fault::kBadProofOfKnowledge:
    case Fault::kBadShare:
      return VerificationFailed();
    default:
      return InvalidArgument("FROST: " + c.ToString());
  }
}

// ---- Group elements ----

template <class S>
Result<GroupElement<S>> GroupElement<S>::Decode(ByteView bytes) {
  if (bytes.size() != kElementSize) return InvalidArgument("FROST: an element is 32 bytes");
  VEIL_ASSIGN_OR_RETURN(Point p, SuiteOps<S>::Deserialize(bytes));
  Bytes b;
  std::copy(bytes.begin(), bytes.end(), b.begin());
  return GroupElement(p, b);
}

template <class S>
Result<GroupElement<S>> GroupElement<S>::FromPoint(const Point& point) {
  if (!SuiteOps<S>::Admissible(point)) {
    return InvalidArgument("FROST: the identity or a point outside the prime-order subgroup");
  }
  return GroupElement(point, SuiteOps<S>::Serialize(point));
}

// ---- Signing shares ----

Result<SigningShare> SigningShare::Decode(ByteView bytes) {
  if (bytes.size() != kScalarSize) return InvalidArgument("FROST: a signing share is 32 bytes");
  Result<ec::Scalar> s = ec::Scalar::FromCanonical(bytes);
  if (!s.ok()) return InvalidArgument("FROST: signing share is not a canonical scalar");
  bool zero = s->IsZero();
  // Rejecting a zero share tells only that it was zero (it would never be a valid share).
  VEIL_DECLASSIFY(&zero, sizeof zero);
  if (zero) return InvalidArgument("FROST: signing share 0");
  SigningShare out(*s);
  s->Wipe();
  return out;
}

SigningShare& SigningShare::operator=(SigningShare&& o) noexcept {
  if (this != &o) {
    s_ = o.s_;
    o.s_.Wipe();
  }
  return *this;
}

crypto::Secret<kScalarSize> SigningShare::Encode() const {
  ec::Scalar::Bytes b = s_.ToBytes();
  auto out = crypto::Secret<kScalarSize>::CopyFrom(b);
  crypto::SecureWipe(b.data(), b.size());
  return out;
}

// ---- Key packages ----

namespace {

// PK_i = sk_i B, published: constant time, declassified once encoded.
template <class S>
GroupElement<S> PublicShare(const ec::Scalar& sk) {
  typename S::Point p = SuiteOps<S>::BaseMul(sk);
  ElementBytes enc = SuiteOps<S>::Serialize(p);
  VEIL_DECLASSIFY(&p, sizeof p);
  VEIL_DECLASSIFY(&enc, sizeof enc);
  return Internal<S>::Element(p, enc);
}

crypto::SecretBytes ToSecret(Bytes&& b) {
  crypto::SecretBytes out = crypto::SecretBytes::CopyFrom(b);
  crypto::SecureWipe(b.data(), b.size());
  return out;
}

}  // namespace

template <class S>
Result<KeyPackage<S>> KeyPackage<S>::Create(const Identifier& identifier,
                                            SigningShare signing_share,
                                            const VerifyingKey<S>& verifying_key,
                                            std::uint16_t min_signers) {
  if (min_signers < 2) return InvalidArgument("FROST: min_signers must be at least 2");
  const GroupElement<S> vs = PublicShare<S>(signing_share.ExposeScalar());
  return KeyPackage(identifier, std::move(signing_share), vs, verifying_key, min_signers);
}

template <class S>
crypto::SecretBytes KeyPackage<S>::Encode() const {
  Writer w = StartPackage<S>(kTagKeyPackage);
  w.U16(min_signers_).Fixed(identifier_.Encode());
  ec::Scalar::Bytes sk = signing_share_.ExposeScalar().ToBytes();
  w.Fixed(sk);
  crypto::SecureWipe(sk.data(), sk.size());
  w.Fixed(verifying_share_.Encode()).Fixed(verifying_key_.Encode());
  return ToSecret(std::move(w).Take());
}

template <class S>
Result<KeyPackage<S>> KeyPackage<S>::Decode(ByteView bytes) {
  Reader r(bytes);
  ReadHeader<S>(r, kTagKeyPackage);
  const std::uint16_t t = r.U16();
  const std::optional<Identifier> id = ReadIdentifier(r);
  const ByteView sk_bytes = r.FixedView(kScalarSize);
  const std::optional<GroupElement<S>> vs = ReadElement<S>(r, "verifying share");
  const std::optional<GroupElement<S>> vk = ReadElement<S>(r, "verifying key");
  VEIL_RETURN_IF_ERROR(r.Finish());
  if (t < 2) return InvalidArgument("FROST: min_signers must be at least 2");
  VEIL_ASSIGN_OR_RETURN(SigningShare share, SigningShare::Decode(sk_bytes));
  // The share must be the one the verifying share commits to.
  bool match = PublicShare<S>(share.ExposeScalar()) == *vs;
  VEIL_DECLASSIFY(&match, sizeof match);
  if (!match) return InvalidArgument("FROST: key package: PK_i != sk_i B");
  return KeyPackage(*id, std::move(share), *vs, *vk, t);
}

template <class S>
Result<PublicKeyPackage<S>> PublicKeyPackage<S>::Create(
    const VerifyingKey<S>& verifying_key,
    std::vector<std::pair<Identifier, VerifyingShare<S>>> verifying_shares,
    std::uint16_t min_signers) {
  if (min_signers < 2) return InvalidArgument("FROST: min_signers must be at least 2");
  if (verifying_shares.size() < min_signers || verifying_shares.size() > kMaxParticipants) {
    return InvalidArgument("FROST: public key package: need min_signers to 65535 shares");
  }
  std::sort(verifying_shares.begin(), verifying_shares.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 1; i < verifying_shares.size(); ++i) {
    if (verifying_shares[i].first == verifying_shares[i - 1].first) {
      return InvalidArgument("FROST: public key package: duplicate identifier " +
                             verifying_shares[i].first.ToString());
    }
  }
  return PublicKeyPackage(verifying_key, std::move(verifying_shares), min_signers);
}

template <class S>
Bytes PublicKeyPackage<S>::Encode() const {
  Writer w = StartPackage<S>(kTagPublicKeyPackage);
  w.U16(min_signers_).Fixed(verifying_key_.Encode());
  w.U16(static_cast<std::uint16_t>(shares_.size()));
  for (const auto& [id, vs] : shares_) w.Fixed(id.Encode()).Fixed(vs.Encode());
  return std::move(w).Take();
}

template <class S>
Result<PublicKeyPackage<S>> PublicKeyPackage<S>::Decode(ByteView bytes) {
  Reader r(bytes);
  ReadHeader<S>(r, kTagPublicKeyPackage);
  const std::uint16_t t = r.U16();
  const std::optional<GroupElement<S>> vk = ReadElement<S>(r, "verifying key");
  const std::uint16_t n = r.U16();
  std::vector<std::pair<Identifier, VerifyingShare<S>>> shares;
  // The length must be checked before reserving, or a short input could ask for 65535 entries.
  if (r.ok() && r.remaining() != std::size_t{n} * (kIdentifierSize + kElementSize)) {
    r.Fail("FROST: public key package: wrong length for its count");
  }
  for (std::uint16_t i = 0; i < n && r.ok(); ++i) {
    const std::optional<Identifier> id = ReadIdentifier(r);
    const std::optional<GroupElement<S>> vs = ReadElement<S>(r, "verifying share");
    if (!r.ok()) break;
    if (!shares.empty() && !(shares.back().first < *id)) {
      r.Fail("FROST: public key package: identifiers not strictly ascending");
      break;
    }
    shares.emplace_back(*id, *vs);
  }
  VEIL_RETURN_IF_ERROR(r.Finish());
  if (t < 2 || shares.size() < t) {
    return InvalidArgument("FROST: public key package: need 2 <= min_signers <= n");
  }
  return PublicKeyPackage(*vk, std::move(shares), t);
}

template <class S>
const VerifyingShare<S>* PublicKeyPackage<S>::Find(const Identifier& id) const {
  const auto it = std::lower_bound(shares_.begin(), shares_.end(), id,
                                   [](const auto& a, const Identifier& b) { return a.first < b; });
  if (it == shares_.end() || !(it->first == id)) return nullptr;
  return &it->second;
}

// ---- Round one ----

template <class S>
Result<SigningCommitments<S>> SigningCommitments<S>::Decode(ByteView bytes) {
  if (bytes.size() != kCommitmentsSize) {
    return InvalidArgument("FROST: signing commitments are 96 bytes");
  }
  VEIL_ASSIGN_OR_RETURN(Identifier id, Identifier::Decode(bytes.first(32)));
  VEIL_ASSIGN_OR_RETURN(GroupElement<S> d, GroupElement<S>::Decode(bytes.subspan(32, 32)));
  VEIL_ASSIGN_OR_RETURN(GroupElement<S> e, GroupElement<S>::Decode(bytes.subspan(64, 32)));
  return SigningCommitments(id, d, e);
}

template <class S>
std::array<std::uint8_t, kCommitmentsSize> SigningCommitments<S>::Encode() const {
  std::array<std::uint8_t, kCommitmentsSize> out{};
  std::copy(identifier_.Encode().begin(), identifier_.Encode().end(), out.begin());
  std::copy(hiding_.Encode().begin(), hiding_.Encode().end(), out.begin() + 32);
  std::copy(binding_.Encode().begin(), binding_.Encode().end(), out.begin() + 64);
  return out;
}

// The nonces go with the move; the source keeps only its (public) commitments and counts as used.
template <class S>
SigningNonces<S>::SigningNonces(SigningNonces&& o) noexcept
    : hiding_(o.hiding_), binding_(o.binding_), commitments_(o.commitments_), used_(o.used_) {
  o.Wipe();
  o.used_ = true;
}

template <class S>
SigningNonces<S>& SigningNonces<S>::operator=(SigningNonces&& o) noexcept {
  if (this != &o) {
    hiding_ = o.hiding_;
    binding_ = o.binding_;
    commitments_ = o.commitments_;
    used_ = o.used_;
    o.Wipe();
    o.used_ = true;
  }
  return *this;
}

namespace {

template <class S>
SigningNonces<S> CommitImpl(const KeyPackage<S>& key, std::span<const std::uint8_t, 32> hiding_rand,
                            std::span<const std::uint8_t, 32> binding_rand) {
  using Ops = SuiteOps<S>;
  ec::Scalar d = spec::NonceGenerate<S>(key.signing_share(), hiding_rand);
  ec::Scalar e = spec::NonceGenerate<S>(key.signing_share(), binding_rand);
  typename S::Point big_d = Ops::BaseMul(d);
  typename S::Point big_e = Ops::BaseMul(e);
  ElementBytes d_enc = Ops::Serialize(big_d);
  ElementBytes e_enc = Ops::Serialize(big_e);
  // The commitments are sent to the coordinator: public from here on.
  VEIL_DECLASSIFY(&big_d, sizeof big_d);
  VEIL_DECLASSIFY(&big_e, sizeof big_e);
  VEIL_DECLASSIFY(&d_enc, sizeof d_enc);
  VEIL_DECLASSIFY(&e_enc, sizeof e_enc);
  const SigningCommitments<S> c = Internal<S>::MakeCommitments(
      key.identifier(), Internal<S>::Element(big_d, d_enc), Internal<S>::Element(big_e, e_enc));
  SigningNonces<S> nonces = Internal<S>::MakeNonces(d, e, c);
  d.Wipe();
  e.Wipe();
  return nonces;
}

}  // namespace

template <class S>
SigningNonces<S> Commit(const KeyPackage<S>& key) {
  const crypto::Secret<32> hiding_rand = crypto::RandomSecret<32>();
  const crypto::Secret<32> binding_rand = crypto::RandomSecret<32>();
  return CommitImpl(key, hiding_rand.Expose(), binding_rand.Expose());
}

template <class S>
SigningNonces<S> CommitWithRandomness(const KeyPackage<S>& key,
                                      std::span<const std::uint8_t, 32> hiding_randomness,
                                      std::span<const std::uint8_t, 32> binding_randomness) {
  return CommitImpl(key, hiding_randomness, binding_randomness);
}

// ---- Signing packages ----

template <class S>
Result<SigningPackage<S>> SigningPackage<S>::Create(std::vector<SigningCommitments<S>> commitments,
                                                    ByteView message) {
  if (commitments.empty() || commitments.size() > kMaxParticipants) {
    return InvalidArgument("FROST: signing package: 1 to 65535 commitments");
  }
  if (message.size() > kMaxMessageSize) return InvalidArgument("FROST: message too long");
  std::sort(commitments.begin(), commitments.end(),
            [](const auto& a, const auto& b) { return a.identifier() < b.identifier(); });
  for (std::size_t i = 1; i < commitments.size(); ++i) {
    if (commitments[i].identifier() == commitments[i - 1].identifier()) {
      return InvalidArgument("FROST: signing package: duplicate identifier " +
                             commitments[i].identifier().ToString());
    }
  }
  return SigningPackage(std::move(commitments), Bytes(message.begin(), message.end()));
}

template <class S>
Bytes SigningPackage<S>::Encode() const {
  Writer w = StartPackage<S>(kTagSigningPackage);
  w.U16(static_cast<std::uint16_t>(commitments_.size()));
  for (const auto& c : commitments_) w.Fixed(c.Encode());
  w.VarBytes(message_);
  return std::move(w).Take();
}

template <class S>
Result<SigningPackage<S>> SigningPackage<S>::Decode(ByteView bytes) {
  Reader r(bytes);
  ReadHeader<S>(r, kTagSigningPackage);
  const std::uint16_t n = r.U16();
  if (r.ok() && (n == 0 || r.remaining() < std::size_t{n} * kCommitmentsSize)) {
    r.Fail("FROST: signing package: bad commitment count");
  }
  std::vector<SigningCommitments<S>> list;
  list.reserve(r.ok() ? n : 0);
  for (std::uint16_t i = 0; i < n && r.ok(); ++i) {
    const ByteView v = r.FixedView(kCommitmentsSize);
    if (!r.ok()) break;
    Result<SigningCommitments<S>> c = SigningCommitments<S>::Decode(v);
    if (!c.ok()) {
      r.Fail(c.status().message());
      break;
    }
    if (!list.empty() && !(list.back().identifier() < c->identifier())) {
      r.Fail("FROST: signing package: identifiers not strictly ascending");
      break;
    }
    list.push_back(*c);
  }
  const ByteView message = r.VarBytes(kMaxMessageSize);
  VEIL_RETURN_IF_ERROR(r.Finish());
  return SigningPackage(std::move(list), Bytes(message.begin(), message.end()));
}

template <class S>
const SigningCommitments<S>* SigningPackage<S>::Find(const Identifier& id) const {
  const std::ptrdiff_t i = IndexOf(*this, id);
  return i < 0 ? nullptr : &commitments_[static_cast<std::size_t>(i)];
}

// ---- Sec. 4 helpers and the session values ----

std::vector<ec::Scalar> InterpolatingValues(std::span<const Identifier> participants) {
  const std::size_t n = participants.size();
  std::vector<ec::Scalar> num(n, ec::Scalar::One()), den(n, ec::Scalar::One());
  for (std::size_t i = 0; i < n; ++i) {
    const ec::Scalar& x_i = participants[i].scalar();
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      num[i] *= participants[j].scalar();
      den[i] *= participants[j].scalar() - x_i;
    }
  }
  ec::Scalar::BatchInvert(den);
  for (std::size_t i = 0; i < n; ++i) num[i] *= den[i];
  return num;
}

namespace spec {

template <class S>
ec::Scalar NonceGenerate(const SigningShare& secret, std::span<const std::uint8_t, 32> random) {
  ec::Scalar::Bytes secret_enc = secret.ExposeScalar().ToBytes();
  const ec::Scalar nonce = Hashes<S>::H3({random, secret_enc});
  crypto::SecureWipe(secret_enc.data(), secret_enc.size());
  return nonce;
}

Result<ec::Scalar> InterpolatingValue(std::span<const Identifier> participants,
                                      const Identifier& x_i) {
  std::vector<Identifier> sorted(participants.begin(), participants.end());
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return InvalidArgument("FROST: duplicate identifier in the participant list");
  }
  const auto it = std::find(participants.begin(), participants.end(), x_i);
  if (it == participants.end()) return InvalidArgument("FROST: x_i is not in the list");
  return InterpolatingValues(participants)[static_cast<std::size_t>(it - participants.begin())];
}

template <class S>
Bytes EncodeCommitmentList(const SigningPackage<S>& package) {
  Bytes out;
  out.reserve(package.commitments().size() * kCommitmentsSize);
  for (const auto& c : package.commitments()) {
    const auto e = c.Encode();
    out.insert(out.end(), e.begin(), e.end());
  }
  return out;
}

template <class S>
Bytes BindingFactorInput(const VerifyingKey<S>& key, const SigningPackage<S>& package,
                         const Identifier& id) {
  const Digest msg_hash = Hashes<S>::H4(package.message());
  const Digest commitment_hash = Hashes<S>::H5(EncodeCommitmentList(package));
  return Concat({key.Encode(), msg_hash, commitment_hash, id.Encode()});
}

template <class S>
std::vector<ec::Scalar> BindingFactors(const VerifyingKey<S>& key,
                                       const SigningPackage<S>& package) {
  const Digest msg_hash = Hashes<S>::H4(package.message());
  const Digest commitment_hash = Hashes<S>::H5(EncodeCommitmentList(package));
  std::vector<ec::Scalar> out;
  out.reserve(package.commitments().size());
  for (const auto& c : package.commitments()) {
    out.push_back(
        Hashes<S>::H1({key.Encode(), msg_hash, commitment_hash, c.identifier().Encode()}));
  }
  return out;
}

template <class S>
typename S::Point GroupCommitment(const SigningPackage<S>& package,
                                  std::span<const ec::Scalar> binding_factors) {
  const auto& list = package.commitments();
  VEIL_CHECK_MSG(binding_factors.size() == list.size(), "FROST: one binding factor per signer");
  // sum D_i by additions, sum rho_i E_i by one multi-scalar multiplication.
  std::vector<typename S::Point> e_points;
  e_points.reserve(list.size());
  typename S::Point d_sum;
  for (const auto& c : list) {
    d_sum += c.hiding().point();
    e_points.push_back(c.binding().point());
  }
  return d_sum + SuiteOps<S>::MsmVartime(binding_factors, e_points);
}

template <class S>
ec::Scalar Challenge(const typename S::Point& group_commitment, const VerifyingKey<S>& key,
                     ByteView message) {
  const ElementBytes r = SuiteOps<S>::Serialize(group_commitment);
  return SuiteOps<S>::H2({r, key.Encode(), message});
}

}  // namespace spec

template <class S>
Session<S> ComputeSession(const VerifyingKey<S>& key, const SigningPackage<S>& package) {
  Session<S> s;
  s.binding_factors = spec::BindingFactors(key, package);
  s.group_commitment = spec::GroupCommitment(package, s.binding_factors);
  s.challenge = spec::Challenge<S>(s.group_commitment, key, package.message());
  return s;
}

namespace {

template <class S>
std::vector<Identifier> Signers(const SigningPackage<S>& package) {
  std::vector<Identifier> ids;
  ids.reserve(package.commitments().size());
  for (const auto& c : package.commitments()) ids.push_back(c.identifier());
  return ids;
}

// z_i B == D_i + rho_i E_i + (c lambda_i) PK_i (sec. 5.4), on public values.
template <class S>
bool ShareEquationVartime(const ec::Scalar& z, const SigningCommitments<S>& c,
                          const ec::Scalar& rho, const ec::Scalar& c_lambda,
                          const VerifyingShare<S>& pk_i) {
  using Ops = SuiteOps<S>;
  const typename S::Point lhs = Ops::DoubleBaseVartime(-c_lambda, pk_i.point(), z);
  const typename S::Point rhs = c.hiding().point() + Ops::MulVartime(c.binding().point(), rho);
  return lhs == rhs;
}

}  // namespace

// ---- Round two ----

template <class S>
Result<SignatureShare<S>> Sign(const SigningPackage<S>& package, SigningNonces<S>&& nonces,
                               const KeyPackage<S>& key) {
  // Taken over here so that the caller's object is wiped and marked used now, and this one wiped
  // on every return.
  const SigningNonces<S> mine(std::move(nonces));
  // Used nonces are zero: signing with them would publish z_i = lambda_i c sk_i, the share itself.
  // The flag catches every object that went through Sign or a move; the zero test also catches
  // zero nonces however they arose, in constant time with only its verdict made public.
  if (mine.used()) {
    return FailedPrecondition("FROST: these nonces were already used or moved from; commit again");
  }
  // Both tests run and combine without a branch; only the combined verdict is made public.
  unsigned zero = static_cast<unsigned>(Internal<S>::HidingNonce(mine).IsZero()) |
                  static_cast<unsigned>(Internal<S>::BindingNonce(mine).IsZero());
  VEIL_DECLASSIFY(&zero, sizeof zero);
  if (zero != 0) return FailedPrecondition("FROST: zero nonces; commit again");
  if (package.commitments().size() < key.min_signers()) {
    return InvalidArgument("FROST: fewer than min_signers signers");
  }
  const std::ptrdiff_t index = IndexOf(package, key.identifier());
  if (index < 0) return InvalidArgument("FROST: this signer is not in the signing package");
  const auto i = static_cast<std::size_t>(index);
  if (!(package.commitments()[i] == mine.commitments())) {
    return InvalidArgument("FROST: the package carries other commitments for this signer");
  }
  const Session<S> session = ComputeSession(key.verifying_key(), package);
  // SerializeElement rejects the identity (sec. 6.1, 6.2); with honest nonces it never occurs.
  if (SuiteOps<S>::IsIdentity(session.group_commitment)) {
    return InvalidArgument("FROST: the group commitment is the identity");
  }
  const std::vector<Identifier> signers = Signers(package);
  const ec::Scalar lambda = InterpolatingValues(signers)[i];
  // z_i = d_i + e_i rho_i + lambda_i sk_i c: rho_i, lambda_i and c are public, the rest secret.
  ec::Scalar z = mine.ExposeHidingNonce() + mine.ExposeBindingNonce() * session.binding_factors[i] +
                 (lambda * session.challenge) * key.signing_share().ExposeScalar();
  // The share is sent to the coordinator.
  VEIL_DECLASSIFY(&z, sizeof z);
  return Internal<S>::MakeSignatureShare(key.identifier(), z);
}

template <class S>
Result<SignatureShare<S>> SignatureShare<S>::Decode(ByteView bytes) {
  if (bytes.size() != kSignatureShareSize) {
    return InvalidArgument("FROST: a signature share is 64 bytes");
  }
  VEIL_ASSIGN_OR_RETURN(Identifier id, Identifier::Decode(bytes.first(32)));
  Result<ec::Scalar> z = ec::Scalar::FromCanonical(bytes.subspan(32));
  if (!z.ok()) return InvalidArgument("FROST: signature share is not a canonical scalar");
  return SignatureShare(id, *z);
}

template <class S>
std::array<std::uint8_t, kSignatureShareSize> SignatureShare<S>::Encode() const {
  std::array<std::uint8_t, kSignatureShareSize> out{};
  const ec::Scalar::Bytes z = z_.ToBytes();
  std::copy(identifier_.Encode().begin(), identifier_.Encode().end(), out.begin());
  std::copy(z.begin(), z.end(), out.begin() + 32);
  return out;
}

// ---- Signatures, share verification, aggregation ----

template <class S>
Result<Signature<S>> Signature<S>::Decode(ByteView bytes) {
  if (bytes.size() != kSignatureSize) return InvalidArgument("FROST: a signature is 64 bytes");
  VEIL_ASSIGN_OR_RETURN(GroupElement<S> r, GroupElement<S>::Decode(bytes.first(32)));
  Result<ec::Scalar> z = ec::Scalar::FromCanonical(bytes.subspan(32));
  if (!z.ok()) return InvalidArgument("FROST: signature z is not a canonical scalar");
  return Signature(r, *z);
}

template <class S>
std::array<std::uint8_t, kSignatureSize> Signature<S>::Encode() const {
  std::array<std::uint8_t, kSignatureSize> out{};
  const ec::Scalar::Bytes z = z_.ToBytes();
  std::copy(r_.Encode().begin(), r_.Encode().end(), out.begin());
  std::copy(z.begin(), z.end(), out.begin() + 32);
  return out;
}

template <class S>
Status VerifySignatureShare(const SigningPackage<S>& package, const SignatureShare<S>& share,
                            const PublicKeyPackage<S>& group) {
  const std::ptrdiff_t index = IndexOf(package, share.identifier());
  if (index < 0) return InvalidArgument("FROST: the signer is not in the signing package");
  const VerifyingShare<S>* pk_i = group.Find(share.identifier());
  if (pk_i == nullptr) return InvalidArgument("FROST: the signer is not in the group");
  if (package.commitments().size() < group.min_signers()) {
    return InvalidArgument("FROST: fewer than min_signers signers");
  }
  const auto i = static_cast<std::size_t>(index);
  const Session<S> session = ComputeSession(group.verifying_key(), package);
  const ec::Scalar lambda = InterpolatingValues(Signers(package))[i];
  return ShareEquationVartime(share.z(), package.commitments()[i], session.binding_factors[i],
                              session.challenge * lambda, *pk_i)
             ? Status::Ok()
             : VerificationFailed();
}

template <class S>
FrostResult<Signature<S>> Aggregate(const SigningPackage<S>& package,
                                    std::span<const SignatureShare<S>> shares,
                                    const PublicKeyPackage<S>& group) {
  using Ops = SuiteOps<S>;
  using Point = typename S::Point;
  const auto& list = package.commitments();
  const std::size_t n = list.size();
  if (n < group.min_signers()) return InvalidArgument("FROST: fewer than min_signers signers");
  // Exactly one share per signer of the package, each signer in the group.
  std::vector<const SignatureShare<S>*> by_signer(n, nullptr);
  for (const SignatureShare<S>& share : shares) {
    const std::ptrdiff_t index = IndexOf(package, share.identifier());
    if (index < 0) {
      const Culprit c{share.identifier(), Fault::kUnknownParticipant};
      return {c, FaultStatus(c)};
    }
    const auto i = static_cast<std::size_t>(index);
    if (by_signer[i] != nullptr) {
      const Culprit c{share.identifier(), Fault::kDuplicateIdentifier};
      return {c, FaultStatus(c)};
    }
    by_signer[i] = &share;
  }
  std::vector<const VerifyingShare<S>*> pk(n, nullptr);
  for (std::size_t i = 0; i < n; ++i) {
    if (by_signer[i] == nullptr) {
      const Culprit c{list[i].identifier(), Fault::kMissingShare};
      return {c, FaultStatus(c)};
    }
    pk[i] = group.Find(list[i].identifier());
    if (pk[i] == nullptr) {
      const Culprit c{list[i].identifier(), Fault::kUnknownParticipant};
      return {c, FaultStatus(c)};
    }
  }
  const Session<S> session = ComputeSession(group.verifying_key(), package);
  if (Ops::IsIdentity(session.group_commitment)) {
    return InvalidArgument("FROST: the group commitment is the identity");
  }
  const std::vector<ec::Scalar> lambdas = InterpolatingValues(Signers(package));
  ec::Scalar z;
  for (const auto* share : by_signer) z += share->z();

  // One equation for all: with independent random 128-bit weights w_i and w_0,
  //   sum_i w_i (z_i B - D_i - rho_i E_i - c lambda_i PK_i) + w_0 (z B - R - c PK) = identity.
  // Every point is in the prime-order group, so a bad share passes with probability <= 2^-128
  // (docs/notes/sigma.md has the argument).
  std::vector<ec::Scalar> scalars;
  std::vector<Point> points;
  scalars.reserve(3 * n + 3);
  points.reserve(3 * n + 3);
  const ec::Scalar w0 = internal::RandomWeight128();
  ec::Scalar b_coefficient = w0 * z;
  for (std::size_t i = 0; i < n; ++i) {
    const ec::Scalar w = internal::RandomWeight128();
    b_coefficient += w * by_signer[i]->z();
    scalars.push_back(-w);
    points.push_back(list[i].hiding().point());
    scalars.push_back(-(w * session.binding_factors[i]));
    points.push_back(list[i].binding().point());
    scalars.push_back(-(w * session.challenge * lambdas[i]));
    points.push_back(pk[i]->point());
  }
  scalars.push_back(-w0);
  points.push_back(session.group_commitment);
  scalars.push_back(-(w0 * session.challenge));
  points.push_back(group.verifying_key().point());
  scalars.push_back(b_coefficient);
  points.push_back(Ops::Generator());
  const GroupElement<S> r = Internal<S>::Element(session.group_commitment);
  if (Ops::IsIdentity(Ops::MsmVartime(scalars, points))) {
    return Internal<S>::MakeSignature(r, z);
  }
  // Something is wrong: find the first bad share, one by one.
  for (std::size_t i = 0; i < n; ++i) {
    if (!ShareEquationVartime(by_signer[i]->z(), list[i], session.binding_factors[i],
                              session.challenge * lambdas[i], *pk[i])) {
      const Culprit c{list[i].identifier(), Fault::kBadSignatureShare};
      return {c, FaultStatus(c)};
    }
  }
  // Every share verifies but the signature does not: the group's verifying shares do not
  // interpolate to its key. Nobody among the signers is to blame.
  return VerificationFailed();
}

template <class S>
Status Verify(const VerifyingKey<S>& key, ByteView message, const Signature<S>& signature) {
  using Ops = SuiteOps<S>;
  const ec::Scalar c = Ops::H2({signature.R().Encode(), key.Encode(), message});
  const typename S::Point lhs = Ops::DoubleBaseVartime(-c, key.point(), signature.z());
  return Ops::SignatureEquation(lhs, signature.R().point()) ? Status::Ok() : VerificationFailed();
}

template <class S>
Status Verify(ByteView key, ByteView message, ByteView signature) {
  VEIL_ASSIGN_OR_RETURN(VerifyingKey<S> k, VerifyingKey<S>::Decode(key));
  VEIL_ASSIGN_OR_RETURN(Signature<S> sig, Signature<S>::Decode(signature));
  return Verify(k, message, sig);
}

// ---- Instantiations ----

#define VEIL_FROST_INSTANTIATE(S)                                                                  \
  template class GroupElement<S>;                                                                  \
  template class KeyPackage<S>;                                                                    \
  template class PublicKeyPackage<S>;                                                              \
  template class SigningCommitments<S>;                                                            \
  template class SigningNonces<S>;                                                                 \
  template class SigningPackage<S>;                                                                \
  template class SignatureShare<S>;                                                                \
  template class Signature<S>;                                                                     \
  template SigningNonces<S> Commit(const KeyPackage<S>&);                                          \
  template SigningNonces<S> CommitWithRandomness(                                                  \
      const KeyPackage<S>&, std::span<const std::uint8_t, 32>, std::span<const std::uint8_t, 32>); \
  template Result<SignatureShare<S>> Sign(const SigningPackage<S>&, SigningNonces<S>&&,            \
                                          const KeyPackage<S>&);                                   \
  template Status VerifySignatureShare(const SigningPackage<S>&, const SignatureShare<S>&,         \
                                       const PublicKeyPackage<S>&);                                \
  template FrostResult<Signature<S>> Aggregate(                                                    \
      const SigningPackage<S>&, std::span<const SignatureShare<S>>, const PublicKeyPackage<S>&);   \
  template Status Verify(const VerifyingKey<S>&, ByteView, const Signature<S>&);                   \
  template Status Verify<S>(ByteView, ByteView, ByteView);                                         \
  template Session<S> ComputeSession(const VerifyingKey<S>&, const SigningPackage<S>&);            \
  template ec::Scalar spec::NonceGenerate<S>(const SigningShare&,                                  \
                                             std::span<const std::uint8_t, 32>);                   \
  template Bytes spec::EncodeCommitmentList(const SigningPackage<S>&);                             \
  template Bytes spec::BindingFactorInput(const VerifyingKey<S>&, const SigningPackage<S>&,        \
                                          const Identifier&);                                      \
  template std::vector<ec::Scalar> spec::BindingFactors(const VerifyingKey<S>&,                    \
                                                        const SigningPackage<S>&);                 \
  template typename S::Point spec::GroupCommitment(const SigningPackage<S>&,                       \
                                                   std::span<const ec::Scalar>);                   \
  template ec::Scalar spec::Challenge<S>(const typename S::Point&, const VerifyingKey<S>&,         \
                                         ByteView);

VEIL_FROST_INSTANTIATE(Ristretto255Sha512)
VEIL_FROST_INSTANTIATE(Ed25519Sha512)

#undef VEIL_FROST_INSTANTIATE

}  // namespace veil::zk::frost
