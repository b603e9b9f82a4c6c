// FROST distributed key generation: Pedersen's DKG with a Schnorr proof of knowledge of each
// participant's constant term (Komlo and Goldberg, "FROST", SAC 2020, Figure 1; the shape of ZF
// FROST's frost_core::keys::dkg), with every proof bound to the run's Ceremony and every check
// naming the participant whose channel delivered the faulty package.
//
// Round one: participant i draws f_i(x) = a_i0 + ... + a_i(t-1) x^(t-1), broadcasts
// C_i = [a_ik B] and (R_i, mu_i) with R_i = k B, c_i = HDKG(ctx || i || C_i0 || R_i),
// mu_i = k + a_i0 c_i, where ctx is the digest of the ceremony (id, participants, t).
// Round two: after checking every other proof (mu_j B = R_j + c_j C_j0), i sends f_i(j) to each j.
// Round three: i checks f_j(i) B = sum_k C_jk i^k for every sender, and takes sk_i = sum_j f_j(i),
// PK = sum_j C_j0 and PK_l = sum_k (sum_j C_jk) l^k for every l. The proofs stop a rogue-key
// attack (a last participant choosing C_j0 to cancel the others'), and their binding to ctx stops a
// package of one run from being replayed into another; the share checks make a bad share
// attributable. Round one needs a broadcast channel: a participant who sends different packages to
// different peers is caught only if the peers compare them (docs/notes/frost.md).
//
// Constant time: the coefficients, the proof nonce and every share are secret. Polynomial
// evaluation is scalar arithmetic; the share check multiplies the (weighted) secret shares by B
// with the constant-time fixed-base multiplication and compares points in constant time, so only
// its verdict is declassified. Checks on public data (the proofs, the commitments) are variable
// time.
//
// Thread safety: stateless functions on values.
#include <algorithm>
#include <string>

#include "frost_internal.h"
#include "frost_suite.h"
#include "msm_batch.h"
#include "veil/base/consttime.h"
#include "veil/crypto/random.h"
#include "veil/zk/frost.h"

namespace veil::zk::frost::dkg {

namespace {

template <class S>
using I = Internal<S>;

template <class S>
GroupElement<S> Published(const typename S::Point& secret_multiple) {
  typename S::Point p = secret_multiple;
  ElementBytes enc = SuiteOps<S>::Serialize(p);
  VEIL_DECLASSIFY(&p, sizeof p);
  VEIL_DECLASSIFY(&enc, sizeof enc);
  return I<S>::Element(p, enc);
}

bool Declassified(bool verdict) {
  VEIL_DECLASSIFY(&verdict, sizeof verdict);
  return verdict;
}

// c = HDKG(ctx || i || C_0 || R): ctx, the ceremony's digest, is 64 bytes and the rest are
// 32 bytes each, so the concatenation is unambiguous.
template <class S>
ec::Scalar ProofChallenge(const Digest& ctx, const Identifier& id, const GroupElement<S>& c0,
                          const GroupElement<S>& r) {
  return Hashes<S>::HDkg({ctx, id.Encode(), c0.Encode(), r.Encode()});
}

// mu B == R + c C_0, on public values.
template <class S>
bool ProofHoldsVartime(const Digest& ctx, const Round1Package<S>& p) {
  const ec::Scalar c = ProofChallenge(ctx, p.identifier(), p.commitment()[0], p.proof_R());
  const typename S::Point lhs =
      SuiteOps<S>::DoubleBaseVartime(-c, p.commitment()[0].point(), p.proof_mu());
  return lhs == p.proof_R().point();
}

template <class T>
FrostResult<T> Blame(const Identifier& who, Fault fault) {
  const Culprit c{who, fault};
  return {c, FaultStatus(c)};
}

// The index of id in an ascending list, or -1.
std::ptrdiff_t IndexIn(const std::vector<Identifier>& ascending, const Identifier& id) {
  const auto it = std::lower_bound(ascending.begin(), ascending.end(), id);
  if (it == ascending.end() || !(*it == id)) return -1;
  return it - ascending.begin();
}

void AppendU16(Bytes& out, std::size_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}

}  // namespace

// ---- The ceremony ----

Result<Ceremony> Ceremony::Create(ByteView id, std::vector<Identifier> participants,
                                  std::uint16_t min_signers) {
  if (id.empty() || id.size() > kMaxIdSize) {
    return InvalidArgument("FROST DKG: a ceremony id is 1 to " + std::to_string(kMaxIdSize) +
                           " bytes");
  }
  if (participants.size() > kMaxParticipants) {
    return InvalidArgument("FROST DKG: too many participants");
  }
  std::sort(participants.begin(), participants.end());
  if (std::adjacent_find(participants.begin(), participants.end()) != participants.end()) {
    return InvalidArgument("FROST DKG: a repeated participant identifier");
  }
  if (min_signers < 2 || min_signers > participants.size()) {
    return InvalidArgument("FROST DKG: need 2 <= min_signers <= the number of participants");
  }
  return Ceremony(Bytes(id.begin(), id.end()), std::move(participants), min_signers);
}

bool Ceremony::Contains(const Identifier& id) const { return IndexIn(participants_, id) >= 0; }

Bytes Ceremony::Encode() const {
  Bytes out;
  out.reserve(6 + id_.size() + kIdentifierSize * participants_.size());
  AppendU16(out, id_.size());
  out.insert(out.end(), id_.begin(), id_.end());
  AppendU16(out, min_signers_);
  AppendU16(out, participants_.size());
  for (const Identifier& p : participants_) {
    out.insert(out.end(), p.Encode().begin(), p.Encode().end());
  }
  return out;
}

// ---- Packages and states ----

template <class S>
Bytes Round1Package<S>::Encode() const {
  Writer w = StartPackage<S>(kTagRound1Package, kVersion);
  w.Fixed(identifier_.Encode()).U16(static_cast<std::uint16_t>(commitment_.size()));
  for (const GroupElement<S>& c : commitment_) w.Fixed(c.Encode());
  w.Fixed(proof_r_.Encode()).Fixed(proof_mu_.ToBytes());
  return std::move(w).Take();
}

template <class S>
Result<Round1Package<S>> Round1Package<S>::Decode(ByteView bytes) {
  Reader r(bytes);
  ReadHeader<S>(r, kTagRound1Package, kVersion);
  const std::optional<Identifier> id = ReadIdentifier(r);
  const std::uint16_t t = r.U16();
  if (r.ok() && (t == 0 || r.remaining() != std::size_t{t} * kElementSize + 64)) {
    r.Fail("FROST DKG: round-one package: bad commitment length");
  }
  std::vector<GroupElement<S>> commitment;
  for (std::uint16_t k = 0; k < t && r.ok(); ++k) {
    std::optional<GroupElement<S>> c = ReadElement<S>(r, "DKG commitment");
    if (c) commitment.push_back(*c);
  }
  const std::optional<GroupElement<S>> proof_r = ReadElement<S>(r, "DKG proof R");
  const std::optional<ec::Scalar> mu = ReadScalar(r, "DKG proof mu");
  VEIL_RETURN_IF_ERROR(r.Finish());
  return Round1Package(*id, std::move(commitment), *proof_r, *mu);
}

template <class S>
Round2Package<S>::Round2Package(Round2Package&& o) noexcept
    : sender_(o.sender_), recipient_(o.recipient_), share_(o.share_) {
  o.share_.Wipe();
}

template <class S>
Round2Package<S>& Round2Package<S>::operator=(Round2Package&& o) noexcept {
  if (this != &o) {
    sender_ = o.sender_;
    recipient_ = o.recipient_;
    share_ = o.share_;
    o.share_.Wipe();
  }
  return *this;
}

template <class S>
crypto::SecretBytes Round2Package<S>::Encode() const {
  Writer w = StartPackage<S>(kTagRound2Package);
  w.Fixed(sender_.Encode()).Fixed(recipient_.Encode());
  ec::Scalar::Bytes share = share_.ToBytes();
  w.Fixed(share);
  crypto::SecureWipe(share.data(), share.size());
  Bytes b = std::move(w).Take();
  crypto::SecretBytes out = crypto::SecretBytes::CopyFrom(b);
  crypto::SecureWipe(b.data(), b.size());
  return out;
}

template <class S>
Result<Round2Package<S>> Round2Package<S>::Decode(ByteView bytes) {
  Reader r(bytes);
  ReadHeader<S>(r, kTagRound2Package);
  const std::optional<Identifier> from = ReadIdentifier(r);
  const std::optional<Identifier> to = ReadIdentifier(r);
  std::optional<ec::Scalar> share = ReadScalar(r, "DKG share");
  VEIL_RETURN_IF_ERROR(r.Finish());
  Round2Package out(*from, *to, *share);
  share->Wipe();
  return out;
}

// A move takes the polynomial along and leaves the source used, so a second Part2 on it is refused
// instead of dealing from an empty polynomial.
template <class S>
Round1Secret<S>::Round1Secret(Round1Secret&& o) noexcept
    : identifier_(o.identifier_),
      ceremony_(std::move(o.ceremony_)),
      coefficients_(std::move(o.coefficients_)),
      commitment_(std::move(o.commitment_)),
      used_(o.used_) {
  o.Wipe();
  o.used_ = true;
}

template <class S>
Round1Secret<S>& Round1Secret<S>::operator=(Round1Secret&& o) noexcept {
  if (this != &o) {
    Wipe();
    identifier_ = o.identifier_;
    ceremony_ = std::move(o.ceremony_);
    coefficients_ = std::move(o.coefficients_);
    commitment_ = std::move(o.commitment_);
    used_ = o.used_;
    o.Wipe();
    o.used_ = true;
  }
  return *this;
}

template <class S>
void Round1Secret<S>::Wipe() {
  for (ec::Scalar& a : coefficients_) a.Wipe();
  coefficients_.clear();
}

template <class S>
Round2Secret<S>::Round2Secret(Round2Secret&& o) noexcept
    : identifier_(o.identifier_),
      own_share_(o.own_share_),
      min_signers_(o.min_signers_),
      commitments_(std::move(o.commitments_)),
      used_(o.used_) {
  o.own_share_.Wipe();
  o.used_ = true;
}

template <class S>
Round2Secret<S>& Round2Secret<S>::operator=(Round2Secret&& o) noexcept {
  if (this != &o) {
    identifier_ = o.identifier_;
    own_share_ = o.own_share_;
    min_signers_ = o.min_signers_;
    commitments_ = std::move(o.commitments_);
    used_ = o.used_;
    o.own_share_.Wipe();
    o.used_ = true;
  }
  return *this;
}

// ---- Round one ----

template <class S>
Result<Part1Output<S>> Part1(const Ceremony& ceremony, const Identifier& me) {
  if (!ceremony.Contains(me)) {
    return InvalidArgument("FROST DKG: participant " + me.ToString() + " is not in the ceremony");
  }
  const std::uint16_t t = ceremony.min_signers();
  const Digest ctx = Hashes<S>::HCeremony(ceremony.Encode());
  // Non-zero coefficients: each commitment is serialized, and SerializeElement rejects the
  // identity (a zero draw has probability 2^-252; the verdict tells nothing else).
  std::vector<ec::Scalar> coefficients(t);
  for (ec::Scalar& a : coefficients) {
    do {
      a = ec::Scalar::Random();
    } while (Declassified(a.IsZero()));
  }
  std::vector<GroupElement<S>> commitment;
  commitment.reserve(t);
  for (const ec::Scalar& a : coefficients) {
    commitment.push_back(Published<S>(SuiteOps<S>::BaseMul(a)));
  }
  // The proof of knowledge of a_0, its nonce hedged like the signing nonces (sec. 4.1) and also
  // over the statement (ctx, i): should the generator repeat its output across two runs, a_0 and
  // the nonce would repeat with it, and two challenges under one nonce would reveal a_0.
  const crypto::Secret<32> random = crypto::RandomSecret<32>();
  ec::Scalar::Bytes a0_enc = coefficients[0].ToBytes();
  ec::Scalar k = Hashes<S>::H3({random.Expose(), a0_enc, ctx, me.Encode()});
  crypto::SecureWipe(a0_enc.data(), a0_enc.size());
  const GroupElement<S> big_r = Published<S>(SuiteOps<S>::BaseMul(k));
  const ec::Scalar c = ProofChallenge(ctx, me, commitment[0], big_r);
  ec::Scalar mu = k + coefficients[0] * c;
  k.Wipe();
  // mu is broadcast.
  VEIL_DECLASSIFY(&mu, sizeof mu);
  Round1Package<S> package = I<S>::MakeRound1Package(me, commitment, big_r, mu);
  Round1Secret<S> secret =
      I<S>::MakeRound1Secret(me, ceremony, std::move(coefficients), std::move(commitment));
  return Part1Output<S>{std::move(secret), std::move(package)};
}

// ---- Round two ----

template <class S>
FrostResult<Part2Output<S>> Part2(Round1Secret<S>&& secret,
                                  std::span<const Received<Round1Package<S>>> round1_packages) {
  using Out = Part2Output<S>;
  // Taken over so that the polynomial is wiped on every return, and the caller's object is used.
  const Round1Secret<S> s(std::move(secret));
  if (s.used()) {
    return FailedPrecondition(
        "FROST DKG: this round-one secret was already used or moved from; start again at Part1");
  }
  const Ceremony& ceremony = s.ceremony();
  const Identifier& me = s.identifier();
  const std::uint16_t t = ceremony.min_signers();
  const std::vector<Identifier>& everyone = ceremony.participants();
  // One package from every other participant, each blamed on the channel it came from.
  std::vector<const Round1Package<S>*> from(everyone.size(), nullptr);
  for (const Received<Round1Package<S>>& r : round1_packages) {
    if (r.from == me) {
      return InvalidArgument("FROST DKG: a round-one package given as sent by this participant");
    }
    const std::ptrdiff_t j = IndexIn(everyone, r.from);
    if (j < 0) return Blame<Out>(r.from, Fault::kUnknownParticipant);
    if (from[static_cast<std::size_t>(j)] != nullptr) {
      return Blame<Out>(r.from, Fault::kDuplicateIdentifier);
    }
    if (!(r.package.identifier() == r.from)) return Blame<Out>(r.from, Fault::kWrongIdentifier);
    if (r.package.commitment().size() != t) {
      return Blame<Out>(r.from, Fault::kWrongCommitmentLength);
    }
    from[static_cast<std::size_t>(j)] = &r.package;
  }
  for (std::size_t j = 0; j < everyone.size(); ++j) {
    if (!(everyone[j] == me) && from[j] == nullptr) {
      return Blame<Out>(everyone[j], Fault::kMissingShare);
    }
  }
  // The proofs, batched: sum_j w_j (mu_j B - R_j - c_j C_j0) = identity with random 128-bit
  // weights; on failure, one by one to name the sender. The challenges bind this ceremony, so a
  // package made for another one fails here.
  const Digest ctx = Hashes<S>::HCeremony(ceremony.Encode());
  {
    std::vector<ec::Scalar> scalars;
    std::vector<typename S::Point> points;
    ec::Scalar b_coefficient;
    for (const Round1Package<S>* p : from) {
      if (p == nullptr) continue;
      const ec::Scalar w = internal::RandomWeight128();
      const ec::Scalar c = ProofChallenge(ctx, p->identifier(), p->commitment()[0], p->proof_R());
      b_coefficient += w * p->proof_mu();
      scalars.push_back(-w);
      points.push_back(p->proof_R().point());
      scalars.push_back(-(w * c));
      points.push_back(p->commitment()[0].point());
    }
    scalars.push_back(b_coefficient);
    points.push_back(SuiteOps<S>::Generator());
    if (!SuiteOps<S>::IsIdentity(SuiteOps<S>::MsmVartime(scalars, points))) {
      for (const Round1Package<S>* p : from) {
        if (p != nullptr && !ProofHoldsVartime(ctx, *p)) {
          return Blame<Out>(p->identifier(), Fault::kBadProofOfKnowledge);
        }
      }
      return VerificationFailed();  // unreachable but for a 2^-128 event
    }
  }
  // Every commitment, ascending by identifier (the ceremony's order), and the shares f_i(j) for
  // the others and this participant's own f_i(i).
  const std::vector<ec::Scalar>& coefficients = I<S>::Coefficients(s);
  std::vector<std::pair<Identifier, std::vector<GroupElement<S>>>> commitments;
  commitments.reserve(everyone.size());
  std::vector<Round2Package<S>> packages;
  packages.reserve(everyone.size() - 1);
  for (std::size_t j = 0; j < everyone.size(); ++j) {
    const Identifier& id = everyone[j];
    if (id == me) {
      commitments.emplace_back(me, I<S>::OwnCommitment(s));
      continue;
    }
    commitments.emplace_back(id, from[j]->commitment());
    ec::Scalar share = PolynomialEvaluate(coefficients, id.scalar());
    packages.push_back(I<S>::MakeRound2Package(me, id, share));
    share.Wipe();
  }
  ec::Scalar own = PolynomialEvaluate(coefficients, me.scalar());
  Round2Secret<S> next = I<S>::MakeRound2Secret(me, own, t, std::move(commitments));
  own.Wipe();
  return Out{std::move(next), std::move(packages)};
}

// ---- Round three ----

template <class S>
FrostResult<Part3Output<S>> Part3(Round2Secret<S>&& secret,
                                  std::span<const Received<Round2Package<S>>> round2_packages) {
  using Point = typename S::Point;
  using Ops = SuiteOps<S>;
  // Taken over so that f_i(i) is wiped on every return, and the caller's object is used.
  const Round2Secret<S> s(std::move(secret));
  if (s.used()) {
    return FailedPrecondition(
        "FROST DKG: this round-two secret was already used or moved from; start again at Part1");
  }
  const Identifier& me = s.identifier();
  const std::uint16_t t = I<S>::MinSigners(s);
  const auto& commitments = I<S>::Commitments(s);
  const std::size_t n = commitments.size();
  auto blame = [](const Identifier& who, Fault fault) { return Blame<Part3Output<S>>(who, fault); };
  auto index_of = [&commitments](const Identifier& id) -> std::ptrdiff_t {
    const auto it = std::lower_bound(
        commitments.begin(), commitments.end(), id,
        [](const auto& entry, const Identifier& key) { return entry.first < key; });
    if (it == commitments.end() || !(it->first == id)) return -1;
    return it - commitments.begin();
  };
  // Structure: one package from every other participant, addressed to this one, each blamed on
  // the channel it came from.
  std::vector<const Round2Package<S>*> from(n, nullptr);
  for (const Received<Round2Package<S>>& r : round2_packages) {
    if (r.from == me) {
      return InvalidArgument("FROST DKG: a round-two package given as sent by this participant");
    }
    const std::ptrdiff_t j = index_of(r.from);
    if (j < 0) return blame(r.from, Fault::kUnknownParticipant);
    if (from[static_cast<std::size_t>(j)] != nullptr) {
      return blame(r.from, Fault::kDuplicateIdentifier);
    }
    if (!(r.package.sender() == r.from)) return blame(r.from, Fault::kWrongIdentifier);
    if (!(r.package.recipient() == me)) return blame(r.from, Fault::kMisaddressedShare);
    from[static_cast<std::size_t>(j)] = &r.package;
  }
  for (std::size_t j = 0; j < n; ++j) {
    if (commitments[j].first == me) continue;
    if (from[j] == nullptr) return blame(commitments[j].first, Fault::kMissingShare);
  }
  // The shares, batched: sum_j w_j f_j(i) B = sum_j w_j sum_k i^k C_jk. The left side holds
  // secrets: a constant-time fixed-base multiplication and a constant-time comparison, with only
  // the verdict declassified. The right side is public (one variable-time multiplication).
  std::vector<ec::Scalar> powers(t);
  powers[0] = ec::Scalar::One();
  for (std::size_t k = 1; k < t; ++k) powers[k] = powers[k - 1] * me.scalar();
  {
    ec::Scalar weighted_sum;
    std::vector<ec::Scalar> scalars;
    std::vector<Point> points;
    for (std::size_t j = 0; j < n; ++j) {
      if (from[j] == nullptr) continue;
      const ec::Scalar w = internal::RandomWeight128();
      weighted_sum += w * from[j]->ExposeShare();
      for (std::size_t k = 0; k < t; ++k) {
        scalars.push_back(w * powers[k]);
        points.push_back(commitments[j].second[k].point());
      }
    }
    const Point lhs = Ops::BaseMul(weighted_sum);
    weighted_sum.Wipe();
    if (!Declassified(lhs == Ops::MsmVartime(scalars, points))) {
      for (std::size_t j = 0; j < n; ++j) {
        if (from[j] == nullptr) continue;
        const Point expected = CommitmentEvaluateVartime<S>(commitments[j].second, me.scalar());
        if (!Declassified(Ops::BaseMul(from[j]->ExposeShare()) == expected)) {
          return blame(commitments[j].first, Fault::kBadShare);
        }
      }
      return VerificationFailed();  // unreachable but for a 2^-128 event
    }
  }
  // sk_i = sum_j f_j(i), this participant's own term included.
  ec::Scalar sk = I<S>::OwnShare(s);
  for (std::size_t j = 0; j < n; ++j) {
    if (from[j] != nullptr) sk += from[j]->ExposeShare();
  }
  if (Declassified(sk.IsZero())) {
    sk.Wipe();
    return InvalidArgument("FROST DKG: the signing share is zero");
  }
  // The group's public values: A_k = sum_j C_jk, PK = A_0, PK_l = sum_k A_k l^k.
  std::vector<GroupElement<S>> aggregate;
  aggregate.reserve(t);
  for (std::size_t k = 0; k < t; ++k) {
    Point a;
    for (const auto& [id, c] : commitments) a += c[k].point();
    if (Ops::IsIdentity(a)) {
      sk.Wipe();
      return InvalidArgument("FROST DKG: a summed commitment is the identity");
    }
    aggregate.push_back(I<S>::Element(a));
  }
  std::vector<std::pair<Identifier, VerifyingShare<S>>> verifying_shares;
  verifying_shares.reserve(n);
  for (const auto& [id, c] : commitments) {
    const Point y = CommitmentEvaluateVartime<S>(aggregate, id.scalar());
    if (Ops::IsIdentity(y)) {
      sk.Wipe();
      return InvalidArgument("FROST DKG: a verifying share is the identity");
    }
    verifying_shares.emplace_back(id, I<S>::Element(y));
  }
  Result<KeyPackage<S>> key = KeyPackage<S>::Create(me, I<S>::Share(sk), aggregate[0], t);
  sk.Wipe();
  if (!key.ok()) return key.status();
  Result<PublicKeyPackage<S>> group =
      PublicKeyPackage<S>::Create(aggregate[0], std::move(verifying_shares), t);
  if (!group.ok()) return group.status();
  // Every share checked, so sk_i B is this participant's entry; a mismatch is a bug here.
  VEIL_CHECK_MSG(*group->Find(me) == key->verifying_share(), "FROST DKG: own verifying share");
  return Part3Output<S>{std::move(key).value(), std::move(group).value()};
}

#define VEIL_FROST_DKG_INSTANTIATE(S)                                                         \
  template class Round1Package<S>;                                                            \
  template class Round2Package<S>;                                                            \
  template class Round1Secret<S>;                                                             \
  template class Round2Secret<S>;                                                             \
  template Result<Part1Output<S>> Part1<S>(const Ceremony&, const Identifier&);               \
  template FrostResult<Part2Output<S>> Part2<S>(Round1Secret<S>&&,                            \
                                                std::span<const Received<Round1Package<S>>>); \
  template FrostResult<Part3Output<S>> Part3<S>(Round2Secret<S>&&,                            \
                                                std::span<const Received<Round2Package<S>>>);

VEIL_FROST_DKG_INSTANTIATE(Ristretto255Sha512)
VEIL_FROST_DKG_INSTANTIATE(Ed25519Sha512)

#undef VEIL_FROST_DKG_INSTANTIATE

}  // namespace veil::zk::frost::dkg
