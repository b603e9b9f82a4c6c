// FROST (RFC 9591), both ciphersuites: the Appendix E vector files with every intermediate value,
// signing with every t-subset of small groups (2-of-3, 3-of-5, 3-of-3) and with several subsets of
// 3-of-7, dealer and DKG keys, the signatures checked independently of our verifier (libsodium's
// crypto_sign_verify_detached for Ed25519; libsodium's ristretto255 arithmetic and SHA-512 for
// ristretto255), blame (a cheating signer named by the aggregator; a bad proof of knowledge, a bad
// share, a wrong-length commitment, a duplicate, impersonating or missing participant named by the
// DKG, always the sender), the DKG's binding to its ceremony (a package replayed from another run),
// one-use secrets (used or moved-from nonces and DKG states are refused, and wiped), fewer-than-t
// and duplicate signers, every single-bit flip of a signature share and of a final signature,
// strict decoding, and round trips of every wire object.
#include "veil/zk/frost.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../../src/zk/frost_internal.h"
#include "frost_vectors.h"
#include "veil/crypto/random.h"
#include "zk_test_util.h"

namespace veil::zk::frost {
namespace {

using test::FlipBit;
using test::H;

Identifier Id(std::uint64_t v) { return Identifier::FromInteger(v).value(); }

template <class S>
typename S::Point BaseMul(const ec::Scalar& s) {
  if constexpr (std::is_same_v<S, Ed25519Sha512>) {
    return ec::EdwardsPoint::MulBase(s);
  } else {
    return ec::BasepointMul(s);
  }
}

template <class S>
struct Group {
  std::vector<KeyPackage<S>> keys;  // ascending identifiers
  PublicKeyPackage<S> pub;
};

template <class S>
Group<S> Dealer(std::uint16_t t, std::uint16_t n) {
  auto out = TrustedDealerKeygen<S>(t, n);
  EXPECT_TRUE(out.ok());
  std::vector<KeyPackage<S>> keys;
  for (const SecretShare<S>& s : out->shares) keys.push_back(s.Verify().value());
  return {std::move(keys), std::move(out->public_key_package)};
}

std::vector<Identifier> Ids(std::uint16_t n) {
  std::vector<Identifier> ids;
  for (std::uint16_t i = 1; i <= n; ++i) ids.push_back(Id(i));
  return ids;
}

// A ceremony of participants 1..n.
dkg::Ceremony MakeCeremony(std::uint16_t t, std::uint16_t n, std::string_view id = "test run") {
  return dkg::Ceremony::Create(AsBytes(id), Ids(n), t).value();
}

template <class S>
using R1 = dkg::Received<dkg::Round1Package<S>>;
template <class S>
using R2 = dkg::Received<dkg::Round2Package<S>>;

// Every round-one package but index i's, each as delivered by its author.
template <class S>
std::vector<R1<S>> AllBut(const std::vector<dkg::Round1Package<S>>& all, std::size_t i) {
  std::vector<R1<S>> out;
  for (std::size_t j = 0; j < all.size(); ++j) {
    if (j != i) out.push_back({all[j].identifier(), all[j]});
  }
  return out;
}

// The round-two packages addressed to `me`, decoded from their encodings, each as delivered by its
// author.
template <class S>
std::vector<R2<S>> InboxFor(const std::vector<std::vector<dkg::Round2Package<S>>>& outbox,
                            const Identifier& me) {
  std::vector<R2<S>> inbox;
  for (const auto& box : outbox) {
    for (const auto& p : box) {
      if (p.recipient() == me) {
        inbox.push_back({p.sender(), dkg::Round2Package<S>::Decode(p.Encode().Expose()).value()});
      }
    }
  }
  return inbox;
}

template <class S>
Group<S> RunDkg(std::uint16_t t, std::uint16_t n) {
  const dkg::Ceremony ceremony = MakeCeremony(t, n);
  std::vector<dkg::Round1Secret<S>> r1_secrets;
  std::vector<dkg::Round1Package<S>> r1_packages;
  for (std::uint16_t i = 1; i <= n; ++i) {
    auto out = dkg::Part1<S>(ceremony, Id(i));
    EXPECT_TRUE(out.ok());
    r1_secrets.push_back(std::move(out->secret));
    r1_packages.push_back(std::move(out->package));
  }
  std::vector<dkg::Round2Secret<S>> r2_secrets;
  std::vector<std::vector<dkg::Round2Package<S>>> outbox;
  for (std::uint16_t i = 0; i < n; ++i) {
    auto out = dkg::Part2<S>(std::move(r1_secrets[i]), AllBut(r1_packages, i));
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    r2_secrets.push_back(std::move(out->secret));
    outbox.push_back(std::move(out->packages));
  }
  std::vector<KeyPackage<S>> keys;
  std::optional<PublicKeyPackage<S>> pub;
  for (std::uint16_t i = 0; i < n; ++i) {
    auto out = dkg::Part3<S>(std::move(r2_secrets[i]), InboxFor(outbox, Id(i + 1u)));
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    // Every participant derives the same public key package.
    if (pub) {
      EXPECT_TRUE(out->public_key_package == *pub);
    } else {
      pub = out->public_key_package;
    }
    keys.push_back(std::move(out->key_package));
  }
  return {std::move(keys), std::move(*pub)};
}

// One signing session over the given signers (indices into g.keys); the final signature.
template <class S>
FrostResult<Signature<S>> Ceremony(const Group<S>& g, const std::vector<std::size_t>& signers,
                                   ByteView msg) {
  std::vector<SigningNonces<S>> nonces;
  std::vector<SigningCommitments<S>> commitments;
  for (std::size_t i : signers) {
    nonces.push_back(Commit(g.keys[i]));
    commitments.push_back(nonces.back().commitments());
  }
  auto package = SigningPackage<S>::Create(commitments, msg).value();
  std::vector<SignatureShare<S>> shares;
  for (std::size_t k = 0; k < signers.size(); ++k) {
    auto share = Sign(package, std::move(nonces[k]), g.keys[signers[k]]);
    EXPECT_TRUE(share.ok()) << share.status().ToString();
    EXPECT_TRUE(VerifySignatureShare(package, *share, g.pub).ok());
    shares.push_back(*share);
  }
  return Aggregate<S>(package, shares, g.pub);
}

// The signature checked without our verifier.
bool IndependentlyValid(const PublicKeyPackage<Ed25519Sha512>& pub, ByteView msg,
                        const Signature<Ed25519Sha512>& sig) {
  const auto s = sig.Encode();
  return crypto_sign_verify_detached(s.data(), msg.data(), msg.size(),
                                     pub.verifying_key().Encode().data()) == 0;
}
bool IndependentlyValid(const PublicKeyPackage<Ristretto255Sha512>& pub, ByteView msg,
                        const Signature<Ristretto255Sha512>& sig) {
  // c = SHA-512(contextString || "chal" || R || PK || msg) mod l; z B == R + c PK.
  const std::string prefix = "FROST-RISTRETTO255-SHA512-v1chal";
  crypto_hash_sha512_state st;
  crypto_hash_sha512_init(&st);
  crypto_hash_sha512_update(&st, reinterpret_cast<const unsigned char*>(prefix.data()),
                            prefix.size());
  const auto s = sig.Encode();
  const auto& pk = pub.verifying_key().Encode();
  crypto_hash_sha512_update(&st, s.data(), 32);
  crypto_hash_sha512_update(&st, pk.data(), 32);
  crypto_hash_sha512_update(&st, msg.data(), msg.size());
  std::array<unsigned char, 64> digest;
  crypto_hash_sha512_final(&st, digest.data());
  std::array<unsigned char, 32> c, zb, cpk, rhs;
  crypto_core_ristretto255_scalar_reduce(c.data(), digest.data());
  if (crypto_scalarmult_ristretto255_base(zb.data(), s.data() + 32) != 0) return false;
  if (crypto_scalarmult_ristretto255(cpk.data(), c.data(), pk.data()) != 0) return false;
  if (crypto_core_ristretto255_add(rhs.data(), s.data(), cpk.data()) != 0) return false;
  return zb == rhs;
}

// All k-subsets of {0..n-1}.
std::vector<std::vector<std::size_t>> Subsets(std::size_t n, std::size_t k) {
  std::vector<std::vector<std::size_t>> out;
  std::vector<bool> pick(n, false);
  std::fill(pick.end() - static_cast<std::ptrdiff_t>(k), pick.end(), true);
  do {
    std::vector<std::size_t> s;
    for (std::size_t i = 0; i < n; ++i) {
      if (pick[i]) s.push_back(i);
    }
    out.push_back(s);
  } while (std::next_permutation(pick.begin(), pick.end()));
  return out;
}

template <class S>
class FrostTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_GE(sodium_init(), 0); }
};
using Suites = ::testing::Types<Ristretto255Sha512, Ed25519Sha512>;
class SuiteNames {
 public:
  template <class S>
  static std::string GetName(int) {
    return std::is_same_v<S, Ed25519Sha512> ? "Ed25519" : "Ristretto255";
  }
};
TYPED_TEST_SUITE(FrostTest, Suites, SuiteNames);

// ---- RFC 9591 Appendix E ----

// Every intermediate value of both files (dealer shares, nonces, commitments, binding factors,
// group commitment, signature shares, signature), through the same runner as `veil-vectors frost`.
void CheckVectorFile(const std::string& name, int cases) {
  std::ifstream in(std::string(VEIL_TEST_DATA_DIR) + "/rfc9591/" + name);
  ASSERT_TRUE(in.good()) << name;
  auto report = vectors::RunFrostVectors(nlohmann::json::parse(in));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  for (const auto& f : report->failures) ADD_FAILURE() << f;
  EXPECT_EQ(report->failed, 0);
  EXPECT_EQ(report->passed, cases);
}

TEST(FrostVectors, Rfc9591Ristretto255) { CheckVectorFile("frost-ristretto255-sha512.json", 26); }
TEST(FrostVectors, Rfc9591Ed25519) { CheckVectorFile("frost-ed25519-sha512.json", 27); }

// ---- Signing ----

TYPED_TEST(FrostTest, EverySubsetSigns) {
  using S = TypeParam;
  const Bytes msg = test::B("committee attestation");
  for (const auto& [t, n] : std::vector<std::pair<int, int>>{{2, 3}, {3, 5}, {3, 3}}) {
    const Group<S> g = Dealer<S>(static_cast<std::uint16_t>(t), static_cast<std::uint16_t>(n));
    for (const auto& subset : Subsets(static_cast<std::size_t>(n), static_cast<std::size_t>(t))) {
      auto sig = Ceremony(g, subset, msg);
      ASSERT_TRUE(sig.ok()) << t << "-of-" << n;
      ASSERT_TRUE(Verify(g.pub.verifying_key(), msg, *sig).ok());
      ASSERT_TRUE(IndependentlyValid(g.pub, msg, *sig));
      Bytes other = msg;
      other.push_back('!');
      ASSERT_EQ(Verify(g.pub.verifying_key(), other, *sig), VerificationFailed());
    }
  }
}

TYPED_TEST(FrostTest, ThreeOfSevenDealerAndDkg) {
  using S = TypeParam;
  const Bytes msg = test::B("3-of-7");
  for (bool use_dkg : {false, true}) {
    const Group<S> g = use_dkg ? RunDkg<S>(3, 7) : Dealer<S>(3, 7);
    for (const auto& subset : std::vector<std::vector<std::size_t>>{
             {0, 1, 2}, {4, 5, 6}, {0, 3, 6}, {1, 2, 3, 4}, {0, 1, 2, 3, 4, 5, 6}}) {
      auto sig = Ceremony(g, subset, msg);
      ASSERT_TRUE(sig.ok()) << use_dkg;
      ASSERT_TRUE(IndependentlyValid(g.pub, msg, *sig));
    }
    // Any t shares interpolate to the group secret: sum lambda_i sk_i B = PK.
    const std::vector<Identifier> ids = {Id(2), Id(5), Id(7)};
    ec::Scalar s;
    for (std::size_t k = 0; k < 3; ++k) {
      s += spec::InterpolatingValue(ids, ids[k]).value() *
           g.keys[std::stoul(ids[k].ToString()) - 1].signing_share().ExposeScalar();
    }
    EXPECT_TRUE(GroupElement<S>::FromPoint(BaseMul<S>(s)).value() == g.pub.verifying_key());
  }
}

// ---- Blame: signing ----

TYPED_TEST(FrostTest, AggregatorNamesACheatingSigner) {
  using S = TypeParam;
  const Group<S> g = Dealer<S>(3, 5);
  const Bytes msg = test::B("pay 10");
  const std::vector<std::size_t> signers = {0, 2, 4};
  std::vector<SigningNonces<S>> nonces;
  std::vector<SigningCommitments<S>> commitments;
  for (std::size_t i : signers) {
    nonces.push_back(Commit(g.keys[i]));
    commitments.push_back(nonces.back().commitments());
  }
  const auto package = SigningPackage<S>::Create(commitments, msg).value();
  std::vector<SignatureShare<S>> shares;
  for (std::size_t k = 0; k < 3; ++k) {
    shares.push_back(Sign(package, std::move(nonces[k]), g.keys[signers[k]]).value());
  }
  // Signer 3 (index 1) sends z_3 + 1.
  auto enc = shares[1].Encode();
  enc[32] ^= 1;
  const SignatureShare<S> bad = SignatureShare<S>::Decode(enc).value();
  std::vector<SignatureShare<S>> tampered = {shares[0], bad, shares[2]};
  auto sig = Aggregate<S>(package, tampered, g.pub);
  ASSERT_FALSE(sig.ok());
  EXPECT_EQ(sig.status(), VerificationFailed());
  ASSERT_TRUE(sig.culprit().has_value());
  EXPECT_EQ(sig.culprit()->participant, Id(3));
  EXPECT_EQ(sig.culprit()->fault, Fault::kBadSignatureShare);
  EXPECT_EQ(VerifySignatureShare(package, bad, g.pub), VerificationFailed());
  // A share from someone outside the session, a repeated one, a missing one.
  auto outsider = shares[0].Encode();
  const auto id2 = Id(2).Encode();
  std::copy(id2.begin(), id2.end(), outsider.begin());
  std::vector<SignatureShare<S>> with_outsider = {shares[0], shares[1],
                                                  SignatureShare<S>::Decode(outsider).value()};
  auto r1 = Aggregate<S>(package, with_outsider, g.pub);
  ASSERT_TRUE(r1.culprit().has_value());
  EXPECT_EQ(r1.culprit()->participant, Id(2));
  EXPECT_EQ(r1.culprit()->fault, Fault::kUnknownParticipant);
  EXPECT_EQ(r1.status().code(), Code::kInvalidArgument);
  std::vector<SignatureShare<S>> repeated = {shares[0], shares[1], shares[1]};
  auto r2 = Aggregate<S>(package, repeated, g.pub);
  ASSERT_TRUE(r2.culprit().has_value());
  EXPECT_EQ(r2.culprit()->participant, Id(3));
  EXPECT_EQ(r2.culprit()->fault, Fault::kDuplicateIdentifier);
  std::vector<SignatureShare<S>> missing = {shares[0], shares[2]};
  auto r3 = Aggregate<S>(package, missing, g.pub);
  ASSERT_TRUE(r3.culprit().has_value());
  EXPECT_EQ(r3.culprit()->participant, Id(3));
  EXPECT_EQ(r3.culprit()->fault, Fault::kMissingShare);
  // The honest shares still aggregate.
  EXPECT_TRUE(Aggregate<S>(package, shares, g.pub).ok());
}

TYPED_TEST(FrostTest, FewerThanThresholdAndDuplicatesFailCleanly) {
  using S = TypeParam;
  const Group<S> g = Dealer<S>(3, 4);
  const Bytes msg = test::B("m");
  SigningNonces<S> n0 = Commit(g.keys[0]);
  SigningNonces<S> n1 = Commit(g.keys[1]);
  const auto package = SigningPackage<S>::Create({n0.commitments(), n1.commitments()}, msg).value();
  auto share = Sign(package, std::move(n0), g.keys[0]);
  EXPECT_EQ(share.status().code(), Code::kInvalidArgument);
  // The nonces were consumed (wiped) even so.
  EXPECT_TRUE(n0.ExposeHidingNonce().IsZero());
  EXPECT_TRUE(n0.ExposeBindingNonce().IsZero());
  EXPECT_EQ(Aggregate<S>(package, {}, g.pub).status().code(), Code::kInvalidArgument);
  // Duplicate commitments, and a signer whose package lacks it or carries other commitments.
  EXPECT_EQ(SigningPackage<S>::Create({n1.commitments(), n1.commitments()}, msg).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(SigningPackage<S>::Create({}, msg).status().code(), Code::kInvalidArgument);
  SigningNonces<S> a = Commit(g.keys[0]), b = Commit(g.keys[1]), c = Commit(g.keys[2]);
  SigningNonces<S> a2 = Commit(g.keys[0]);
  const auto p3 =
      SigningPackage<S>::Create({a.commitments(), b.commitments(), c.commitments()}, msg).value();
  EXPECT_EQ(Sign(p3, std::move(a2), g.keys[0]).status().code(), Code::kInvalidArgument);
  SigningNonces<S> d = Commit(g.keys[3]);
  EXPECT_EQ(Sign(p3, std::move(d), g.keys[3]).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(Sign(p3, std::move(a), g.keys[0]).ok());
  // Dealer and DKG parameters.
  EXPECT_FALSE(TrustedDealerKeygen<S>(1, 3).ok());
  EXPECT_FALSE(TrustedDealerKeygen<S>(4, 3).ok());
  EXPECT_FALSE(dkg::Ceremony::Create(AsBytes("c"), Ids(3), 1).ok());
  EXPECT_FALSE(dkg::Ceremony::Create(AsBytes("c"), Ids(3), 4).ok());
  EXPECT_FALSE(dkg::Ceremony::Create({}, Ids(3), 2).ok());
  EXPECT_FALSE(dkg::Ceremony::Create(Bytes(dkg::Ceremony::kMaxIdSize + 1, 'x'), Ids(3), 2).ok());
  EXPECT_FALSE(dkg::Ceremony::Create(AsBytes("c"), {Id(1), Id(2), Id(1)}, 2).ok());
  EXPECT_FALSE(dkg::Part1<S>(MakeCeremony(2, 3), Id(4)).ok());
  // Public key package with a duplicate identifier.
  std::vector<std::pair<Identifier, VerifyingShare<S>>> dup = g.pub.verifying_shares();
  dup[1].first = dup[0].first;
  EXPECT_EQ(PublicKeyPackage<S>::Create(g.pub.verifying_key(), dup, 3).status().code(),
            Code::kInvalidArgument);
  // The interpolation helper.
  const std::vector<Identifier> ids = {Id(1), Id(2), Id(1)};
  EXPECT_FALSE(spec::InterpolatingValue(ids, Id(2)).ok());
  const std::vector<Identifier> ids2 = {Id(1), Id(2)};
  EXPECT_FALSE(spec::InterpolatingValue(ids2, Id(3)).ok());
  EXPECT_FALSE(Identifier::FromInteger(0).ok());
}

// ---- Blame: DKG ----

template <class S>
struct DkgRound1 {
  dkg::Ceremony ceremony;
  std::vector<dkg::Round1Secret<S>> secrets;
  std::vector<dkg::Round1Package<S>> packages;
};

template <class S>
DkgRound1<S> DkgStart(const dkg::Ceremony& ceremony) {
  DkgRound1<S> r{ceremony, {}, {}};
  for (const Identifier& id : ceremony.participants()) {
    auto out = dkg::Part1<S>(ceremony, id);
    r.secrets.push_back(std::move(out->secret));
    r.packages.push_back(std::move(out->package));
  }
  return r;
}

template <class S>
DkgRound1<S> DkgStart(std::uint16_t t, std::uint16_t n) {
  return DkgStart<S>(MakeCeremony(t, n));
}

// Everyone's round two: the secrets and each participant's outgoing packages.
template <class S>
struct DkgRound2 {
  std::vector<dkg::Round2Secret<S>> secrets;
  std::vector<std::vector<dkg::Round2Package<S>>> outbox;
};

template <class S>
DkgRound2<S> DkgToRound3(std::uint16_t t, std::uint16_t n) {
  DkgRound1<S> r = DkgStart<S>(t, n);
  DkgRound2<S> out;
  for (std::size_t i = 0; i < n; ++i) {
    auto o = dkg::Part2<S>(std::move(r.secrets[i]), AllBut(r.packages, i));
    EXPECT_TRUE(o.ok()) << o.status().ToString();
    out.secrets.push_back(std::move(o->secret));
    out.outbox.push_back(std::move(o->packages));
  }
  return out;
}

template <class T>
void ExpectCulprit(const FrostResult<T>& r, std::uint64_t who, Fault fault) {
  ASSERT_FALSE(r.ok());
  ASSERT_TRUE(r.culprit().has_value()) << r.status().ToString();
  EXPECT_EQ(r.culprit()->participant, Id(who)) << r.culprit()->ToString();
  EXPECT_EQ(r.culprit()->fault, fault) << r.culprit()->ToString();
}

// A round-one encoding: tag (2), version (1), suite (1), identifier (32) at 4, u16 t at 36,
// t elements from 38, then R and mu.
constexpr std::size_t kR1IdOffset = 4;
constexpr std::size_t kR1LengthOffset = 36;

TYPED_TEST(FrostTest, DkgNamesABadProofOfKnowledge) {
  using S = TypeParam;
  DkgRound1<S> r = DkgStart<S>(2, 3);
  // Participant 2's proof with mu + 1 (the low bit of a canonical scalar keeps it canonical
  // unless it carries, which the decode check below would show).
  Bytes enc = r.packages[1].Encode();
  enc[enc.size() - 32] ^= 1;
  r.packages[1] = dkg::Round1Package<S>::Decode(enc).value();
  auto out = dkg::Part2<S>(std::move(r.secrets[0]), AllBut(r.packages, 0));
  ExpectCulprit(out, 2, Fault::kBadProofOfKnowledge);
  EXPECT_EQ(out.status(), VerificationFailed());
  // The proof is bound to the identifier: participant 3's package relabelled as 2, sent by 2.
  DkgRound1<S> r2 = DkgStart<S>(2, 3);
  Bytes enc3 = r2.packages[2].Encode();
  const auto id2 = Id(2).Encode();
  std::copy(id2.begin(), id2.end(), enc3.begin() + kR1IdOffset);
  r2.packages[1] = dkg::Round1Package<S>::Decode(enc3).value();
  ExpectCulprit(dkg::Part2<S>(std::move(r2.secrets[0]), AllBut(r2.packages, 0)), 2,
                Fault::kBadProofOfKnowledge);
}

// Each structural fault is blamed on the participant whose channel delivered the package, never on
// the receiver and never on whoever the package claims to be.
TYPED_TEST(FrostTest, DkgBlamesTheSenderInRoundTwo) {
  using S = TypeParam;
  {  // Participant 3 runs round one with t = 4.
    DkgRound1<S> r = DkgStart<S>(3, 4);
    r.packages[2] = std::move(dkg::Part1<S>(MakeCeremony(4, 4), Id(3))->package);
    ExpectCulprit(dkg::Part2<S>(std::move(r.secrets[0]), AllBut(r.packages, 0)), 3,
                  Fault::kWrongCommitmentLength);
  }
  {  // Two packages from 2.
    DkgRound1<S> r = DkgStart<S>(3, 4);
    const std::vector<R1<S>> dup = {
        {Id(2), r.packages[1]}, {Id(3), r.packages[2]}, {Id(2), r.packages[1]}};
    ExpectCulprit(dkg::Part2<S>(std::move(r.secrets[0]), dup), 2, Fault::kDuplicateIdentifier);
  }
  {  // Participant 4 forwards the receiver's own package (which names 1): 4 is blamed, not 1.
    DkgRound1<S> r = DkgStart<S>(3, 4);
    const std::vector<R1<S>> own = {
        {Id(2), r.packages[1]}, {Id(3), r.packages[2]}, {Id(4), r.packages[0]}};
    ExpectCulprit(dkg::Part2<S>(std::move(r.secrets[0]), own), 4, Fault::kWrongIdentifier);
  }
  {  // Participant 4 forwards 2's package, so two packages name 2: 4 is blamed, not 2.
    DkgRound1<S> r = DkgStart<S>(3, 4);
    const std::vector<R1<S>> copy = {
        {Id(2), r.packages[1]}, {Id(3), r.packages[2]}, {Id(4), r.packages[1]}};
    ExpectCulprit(dkg::Part2<S>(std::move(r.secrets[0]), copy), 4, Fault::kWrongIdentifier);
  }
  {  // A package from outside the ceremony.
    DkgRound1<S> r = DkgStart<S>(3, 4);
    std::vector<R1<S>> all = AllBut(r.packages, 0);
    all.push_back({Id(9), r.packages[1]});
    ExpectCulprit(dkg::Part2<S>(std::move(r.secrets[0]), all), 9, Fault::kUnknownParticipant);
  }
  {  // Nothing from 3.
    DkgRound1<S> r = DkgStart<S>(3, 4);
    const std::vector<R1<S>> few = {{Id(2), r.packages[1]}, {Id(4), r.packages[3]}};
    ExpectCulprit(dkg::Part2<S>(std::move(r.secrets[0]), few), 3, Fault::kMissingShare);
  }
  {  // A package given as sent by the receiver itself is the caller's mistake: no culprit.
    DkgRound1<S> r = DkgStart<S>(3, 4);
    std::vector<R1<S>> all = AllBut(r.packages, 0);
    all.push_back({Id(1), r.packages[0]});
    auto out = dkg::Part2<S>(std::move(r.secrets[0]), all);
    EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
    EXPECT_FALSE(out.culprit().has_value());
  }
}

TYPED_TEST(FrostTest, DkgNamesABadShare) {
  using S = TypeParam;
  const std::uint16_t n = 4;
  DkgRound2<S> r = DkgToRound3<S>(3, n);
  // Participant 1's inbox: from 2, 3 and 4; participant 4's share altered.
  std::vector<R2<S>> inbox = InboxFor(r.outbox, Id(1));
  ASSERT_EQ(inbox.size(), 3U);
  const crypto::SecretBytes enc = inbox[2].package.Encode();
  ASSERT_EQ(inbox[2].package.sender(), Id(4));
  Bytes tampered(enc.Expose().begin(), enc.Expose().end());
  tampered[tampered.size() - 32] ^= 1;
  inbox[2].package = dkg::Round2Package<S>::Decode(tampered).value();
  auto out = dkg::Part3<S>(std::move(r.secrets[0]), inbox);
  ExpectCulprit(out, 4, Fault::kBadShare);
  EXPECT_EQ(out.status(), VerificationFailed());
  // Participant 2 with a missing package (from 3) and with one addressed to someone else.
  std::vector<R2<S>> short_inbox;
  for (auto& p : InboxFor(r.outbox, Id(2))) {
    if (!(p.from == Id(3))) short_inbox.push_back(std::move(p));
  }
  ExpectCulprit(dkg::Part3<S>(std::move(r.secrets[1]), short_inbox), 3, Fault::kMissingShare);
  std::vector<R2<S>> inbox3 = InboxFor(r.outbox, Id(3));
  inbox3[0] = std::move(InboxFor(r.outbox, Id(4))[0]);  // from 1, for 4
  ExpectCulprit(dkg::Part3<S>(std::move(r.secrets[2]), inbox3), 1, Fault::kMisaddressedShare);
  // Participant 4, untouched, completes.
  EXPECT_TRUE(dkg::Part3<S>(std::move(r.secrets[3]), InboxFor(r.outbox, Id(4))).ok());
}

TYPED_TEST(FrostTest, DkgBlamesTheSenderInRoundThree) {
  using S = TypeParam;
  // The round-two package from `sender` to `recipient`, decoded afresh.
  auto package = [](const DkgRound2<S>& r, std::uint64_t sender, std::uint64_t recipient) {
    for (const auto& p : r.outbox[sender - 1]) {
      if (p.recipient() == Id(recipient)) {
        return dkg::Round2Package<S>::Decode(p.Encode().Expose()).value();
      }
    }
    ADD_FAILURE() << "no package " << sender << " -> " << recipient;
    return dkg::Round2Package<S>::Decode(r.outbox[0][0].Encode().Expose()).value();
  };
  {  // Participant 4 delivers a package naming 2 as its sender: 4 is blamed, not 2.
    DkgRound2<S> r = DkgToRound3<S>(3, 4);
    std::vector<R2<S>> inbox;
    inbox.push_back({Id(2), package(r, 2, 1)});
    inbox.push_back({Id(3), package(r, 3, 1)});
    inbox.push_back({Id(4), package(r, 2, 1)});
    ExpectCulprit(dkg::Part3<S>(std::move(r.secrets[0]), inbox), 4, Fault::kWrongIdentifier);
  }
  {  // A package that names the receiver itself as its sender: the channel's sender is blamed.
    DkgRound2<S> r = DkgToRound3<S>(3, 4);
    const crypto::SecretBytes from2 = package(r, 2, 1).Encode();
    Bytes forged(from2.Expose().begin(), from2.Expose().end());
    const auto id1 = Id(1).Encode();
    std::copy(id1.begin(), id1.end(), forged.begin() + 4);  // the sender field
    std::vector<R2<S>> inbox;
    inbox.push_back({Id(2), dkg::Round2Package<S>::Decode(forged).value()});
    inbox.push_back({Id(3), package(r, 3, 1)});
    inbox.push_back({Id(4), package(r, 4, 1)});
    ExpectCulprit(dkg::Part3<S>(std::move(r.secrets[0]), inbox), 2, Fault::kWrongIdentifier);
  }
  {  // Two packages from 3; one from outside the ceremony.
    DkgRound2<S> r = DkgToRound3<S>(3, 4);
    std::vector<R2<S>> inbox;
    inbox.push_back({Id(3), package(r, 3, 1)});
    inbox.push_back({Id(3), package(r, 3, 1)});
    ExpectCulprit(dkg::Part3<S>(std::move(r.secrets[0]), inbox), 3, Fault::kDuplicateIdentifier);
    std::vector<R2<S>> outsider = InboxFor(r.outbox, Id(2));
    outsider.push_back({Id(9), package(r, 3, 2)});
    ExpectCulprit(dkg::Part3<S>(std::move(r.secrets[1]), outsider), 9, Fault::kUnknownParticipant);
    // Given as sent by the receiver itself: the caller's mistake, no culprit.
    std::vector<R2<S>> self = InboxFor(r.outbox, Id(3));
    self.push_back({Id(3), package(r, 1, 3)});
    auto out = dkg::Part3<S>(std::move(r.secrets[2]), self);
    EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
    EXPECT_FALSE(out.culprit().has_value());
  }
}

// ---- The DKG's ceremony ----

// Participant 2's round-one package of ceremony `a`, replayed into ceremony `b` where everyone
// else is honest: participant 1's Part2 in `b`.
template <class S>
FrostResult<dkg::Part2Output<S>> Replay(const dkg::Ceremony& a, const dkg::Ceremony& b,
                                        std::size_t extra_elements = 0) {
  Bytes from_a = dkg::Part1<S>(a, Id(2))->package.Encode();
  // Padded with copies of C_0 to b's threshold: the proof covers C_0 only, so only the binding
  // to t tells the padded package from a genuine one.
  for (std::size_t k = 0; k < extra_elements; ++k) {
    const std::size_t t = (std::size_t{from_a[kR1LengthOffset]} << 8) | from_a[kR1LengthOffset + 1];
    const Bytes c0(from_a.begin() + 38, from_a.begin() + 70);
    from_a.insert(from_a.begin() + static_cast<std::ptrdiff_t>(38 + 32 * t), c0.begin(), c0.end());
    from_a[kR1LengthOffset] = static_cast<std::uint8_t>((t + 1) >> 8);
    from_a[kR1LengthOffset + 1] = static_cast<std::uint8_t>(t + 1);
  }
  DkgRound1<S> r = DkgStart<S>(b);
  r.packages[1] = dkg::Round1Package<S>::Decode(from_a).value();
  return dkg::Part2<S>(std::move(r.secrets[0]), AllBut(r.packages, 0));
}

TYPED_TEST(FrostTest, DkgPackagesAreBoundToTheirCeremony) {
  using S = TypeParam;
  const auto make = [](std::string_view id, std::vector<Identifier> ids, std::uint16_t t) {
    return dkg::Ceremony::Create(AsBytes(id), std::move(ids), t).value();
  };
  const dkg::Ceremony a = make("run A", Ids(3), 2);
  // The same ceremony (a value built independently) accepts it.
  EXPECT_TRUE(Replay<S>(a, make("run A", {Id(3), Id(1), Id(2)}, 2)).ok());
  // Another id, another participant set, another threshold: blamed on the sender.
  for (const dkg::Ceremony& b : {make("run B", Ids(3), 2), make("run A", Ids(4), 2),
                                 make("run A", {Id(1), Id(2), Id(5)}, 2)}) {
    auto out = Replay<S>(a, b);
    ExpectCulprit(out, 2, Fault::kBadProofOfKnowledge);
    EXPECT_EQ(out.status(), VerificationFailed());
  }
  auto out = Replay<S>(a, make("run A", Ids(3), 3), 1);
  ExpectCulprit(out, 2, Fault::kBadProofOfKnowledge);
  // The encoding is injective where a plain concatenation would not be: the id's length is
  // part of it.
  EXPECT_NE(make("ab", Ids(3), 2).Encode(), make("a", Ids(3), 2).Encode());
  EXPECT_EQ(make("run A", {Id(3), Id(1), Id(2)}, 2).Encode(), a.Encode());
  const Bytes expected_prefix = {0, 5, 'r', 'u', 'n', ' ', 'A', 0, 2, 0, 3};
  const Bytes enc = a.Encode();
  ASSERT_EQ(enc.size(), expected_prefix.size() + 3 * 32);
  EXPECT_TRUE(std::equal(expected_prefix.begin(), expected_prefix.end(), enc.begin()));
  // Version 1 round-one packages (bound to i only) no longer decode.
  Bytes v1 = DkgStart<S>(2, 3).packages[0].Encode();
  ASSERT_EQ(v1[2], 2);
  v1[2] = 1;
  EXPECT_EQ(dkg::Round1Package<S>::Decode(v1).status().code(), Code::kInvalidArgument);
}

// ---- One-use secrets ----

TYPED_TEST(FrostTest, UsedNoncesAreRefused) {
  using S = TypeParam;
  const Group<S> g = Dealer<S>(2, 3);
  const Bytes msg = test::B("once");
  SigningNonces<S> n0 = Commit(g.keys[0]);
  SigningNonces<S> n1 = Commit(g.keys[1]);
  const auto package = SigningPackage<S>::Create({n0.commitments(), n1.commitments()}, msg).value();
  EXPECT_FALSE(n0.used());
  ASSERT_TRUE(Sign(package, std::move(n0), g.keys[0]).ok());
  EXPECT_TRUE(n0.used());
  // The same object again, as a retry would: refused, and no share comes out (the share would be
  // lambda c sk, which reveals sk).
  auto again = Sign(package, std::move(n0), g.keys[0]);
  EXPECT_EQ(again.status().code(), Code::kFailedPrecondition);
  // A retry after the first attempt failed (a package without this signer) is refused as well.
  SigningNonces<S> n2 = Commit(g.keys[2]);
  const auto other =
      SigningPackage<S>::Create({n1.commitments(), Commit(g.keys[0]).commitments()}, msg).value();
  EXPECT_EQ(Sign(other, std::move(n2), g.keys[2]).status().code(), Code::kInvalidArgument);
  const auto retry = SigningPackage<S>::Create({n1.commitments(), n2.commitments()}, msg).value();
  EXPECT_EQ(Sign(retry, std::move(n2), g.keys[2]).status().code(), Code::kFailedPrecondition);
  // n1 was never used: it still signs.
  EXPECT_TRUE(Sign(package, std::move(n1), g.keys[1]).ok());
}

TYPED_TEST(FrostTest, MovedFromNoncesAreRefused) {
  using S = TypeParam;
  const Group<S> g = Dealer<S>(2, 3);
  const Bytes msg = test::B("moved");
  SigningNonces<S> n0 = Commit(g.keys[0]);
  SigningNonces<S> n1 = Commit(g.keys[1]);
  const auto package = SigningPackage<S>::Create({n0.commitments(), n1.commitments()}, msg).value();
  // Move construction: the source is used, keeps its commitments, and its nonces are wiped.
  SigningNonces<S> moved = std::move(n0);
  EXPECT_TRUE(n0.used());
  EXPECT_FALSE(moved.used());
  EXPECT_TRUE(n0.commitments() == moved.commitments());
  EXPECT_TRUE(n0.ExposeHidingNonce().IsZero());
  EXPECT_TRUE(n0.ExposeBindingNonce().IsZero());
  EXPECT_EQ(Sign(package, std::move(n0), g.keys[0]).status().code(), Code::kFailedPrecondition);
  // Move assignment likewise, and a used object moved on stays used.
  SigningNonces<S> target = Commit(g.keys[0]);
  target = std::move(moved);
  EXPECT_TRUE(moved.used());
  EXPECT_EQ(Sign(package, std::move(moved), g.keys[0]).status().code(), Code::kFailedPrecondition);
  SigningNonces<S> used_copy = std::move(n0);
  EXPECT_TRUE(used_copy.used());
  EXPECT_EQ(Sign(package, std::move(used_copy), g.keys[0]).status().code(),
            Code::kFailedPrecondition);
  // The object the nonces went to signs, and the signature verifies.
  std::vector<SignatureShare<S>> shares = {Sign(package, std::move(target), g.keys[0]).value(),
                                           Sign(package, std::move(n1), g.keys[1]).value()};
  auto sig = Aggregate<S>(package, shares, g.pub);
  ASSERT_TRUE(sig.ok());
  EXPECT_TRUE(IndependentlyValid(g.pub, msg, *sig));
}

TYPED_TEST(FrostTest, UsedOrMovedFromDkgStatesAreRefused) {
  using S = TypeParam;
  {  // Round one: a second Part2 on the same object, and a moved-from object.
    DkgRound1<S> r = DkgStart<S>(2, 3);
    ASSERT_TRUE(dkg::Part2<S>(std::move(r.secrets[0]), AllBut(r.packages, 0)).ok());
    EXPECT_TRUE(r.secrets[0].used());
    EXPECT_TRUE(Internal<S>::Coefficients(r.secrets[0]).empty());
    EXPECT_EQ(dkg::Part2<S>(std::move(r.secrets[0]), AllBut(r.packages, 0)).status().code(),
              Code::kFailedPrecondition);
    dkg::Round1Secret<S> moved = std::move(r.secrets[1]);
    EXPECT_TRUE(r.secrets[1].used());
    EXPECT_FALSE(moved.used());
    EXPECT_TRUE(Internal<S>::Coefficients(r.secrets[1]).empty());
    EXPECT_EQ(dkg::Part2<S>(std::move(r.secrets[1]), AllBut(r.packages, 1)).status().code(),
              Code::kFailedPrecondition);
    r.secrets[2] = std::move(moved);  // move assignment
    EXPECT_TRUE(moved.used());
    EXPECT_EQ(dkg::Part2<S>(std::move(moved), AllBut(r.packages, 1)).status().code(),
              Code::kFailedPrecondition);
    EXPECT_TRUE(dkg::Part2<S>(std::move(r.secrets[2]), AllBut(r.packages, 1)).ok());
  }
  {  // Round two: a moved-from secret holds no share, and neither it nor a used one is taken.
    DkgRound2<S> r = DkgToRound3<S>(2, 3);
    ASSERT_FALSE(Internal<S>::OwnShare(r.secrets[0]).IsZero());
    dkg::Round2Secret<S> moved = std::move(r.secrets[0]);
    EXPECT_TRUE(r.secrets[0].used());
    EXPECT_TRUE(Internal<S>::OwnShare(r.secrets[0]).IsZero());
    EXPECT_FALSE(Internal<S>::OwnShare(moved).IsZero());
    EXPECT_EQ(dkg::Part3<S>(std::move(r.secrets[0]), InboxFor(r.outbox, Id(1))).status().code(),
              Code::kFailedPrecondition);
    ASSERT_TRUE(dkg::Part3<S>(std::move(moved), InboxFor(r.outbox, Id(1))).ok());
    EXPECT_TRUE(moved.used());
    EXPECT_TRUE(Internal<S>::OwnShare(moved).IsZero());
    EXPECT_EQ(dkg::Part3<S>(std::move(moved), InboxFor(r.outbox, Id(1))).status().code(),
              Code::kFailedPrecondition);
    r.secrets[2] = std::move(r.secrets[1]);  // move assignment
    EXPECT_TRUE(Internal<S>::OwnShare(r.secrets[1]).IsZero());
    EXPECT_EQ(dkg::Part3<S>(std::move(r.secrets[1]), InboxFor(r.outbox, Id(2))).status().code(),
              Code::kFailedPrecondition);
    EXPECT_TRUE(dkg::Part3<S>(std::move(r.secrets[2]), InboxFor(r.outbox, Id(2))).ok());
  }
}

TYPED_TEST(FrostTest, DkgKeysSign) {
  using S = TypeParam;
  const Bytes msg = test::B("dkg");
  for (const auto& [t, n] : std::vector<std::pair<int, int>>{{2, 3}, {3, 3}}) {
    const Group<S> g = RunDkg<S>(static_cast<std::uint16_t>(t), static_cast<std::uint16_t>(n));
    for (const auto& subset : Subsets(static_cast<std::size_t>(n), static_cast<std::size_t>(t))) {
      auto sig = Ceremony(g, subset, msg);
      ASSERT_TRUE(sig.ok());
      ASSERT_TRUE(IndependentlyValid(g.pub, msg, *sig));
    }
  }
}

// ---- Soundness: every bit flip ----

TYPED_TEST(FrostTest, EveryBitFlipOfAShareAndASignatureIsRejected) {
  using S = TypeParam;
  const Group<S> g = Dealer<S>(2, 3);
  const Bytes msg = test::B("flip");
  SigningNonces<S> a = Commit(g.keys[0]), b = Commit(g.keys[2]);
  const auto package = SigningPackage<S>::Create({a.commitments(), b.commitments()}, msg).value();
  const SignatureShare<S> sa = Sign(package, std::move(a), g.keys[0]).value();
  const SignatureShare<S> sb = Sign(package, std::move(b), g.keys[2]).value();
  const auto share_enc = sb.Encode();
  for (std::size_t bit = 0; bit < 8 * share_enc.size(); ++bit) {
    auto flipped = SignatureShare<S>::Decode(FlipBit(share_enc, bit));
    if (!flipped.ok()) {
      EXPECT_EQ(flipped.status().code(), Code::kInvalidArgument);
      continue;
    }
    EXPECT_FALSE(VerifySignatureShare(package, *flipped, g.pub).ok()) << bit;
    const std::vector<SignatureShare<S>> shares = {sa, *flipped};
    EXPECT_FALSE(Aggregate<S>(package, shares, g.pub).ok()) << bit;
  }
  const std::vector<SignatureShare<S>> shares = {sa, sb};
  const auto sig = Aggregate<S>(package, shares, g.pub).value().Encode();
  const auto& pk = g.pub.verifying_key().Encode();
  ASSERT_TRUE(Verify<S>(pk, msg, sig).ok());
  for (std::size_t bit = 0; bit < 8 * sig.size(); ++bit) {
    const Status s = Verify<S>(pk, msg, FlipBit(sig, bit));
    EXPECT_TRUE(s.code() == Code::kInvalidArgument || s.code() == Code::kVerificationFailed) << bit;
  }
  for (std::size_t bit = 0; bit < 8 * pk.size(); ++bit) {
    EXPECT_FALSE(Verify<S>(FlipBit(pk, bit), msg, sig).ok()) << bit;
  }
}

// ---- Wire formats ----

template <class T, class Enc>
void ExpectStrict(const Enc& enc) {
  // Every truncation and one trailing byte are rejected.
  Bytes b(enc.begin(), enc.end());
  for (std::size_t len = 0; len < b.size(); ++len) {
    EXPECT_FALSE(T::Decode(ByteView(b).first(len)).ok()) << len;
  }
  b.push_back(0);
  EXPECT_FALSE(T::Decode(b).ok());
}

TYPED_TEST(FrostTest, WireRoundTrips) {
  using S = TypeParam;
  using Other =
      std::conditional_t<std::is_same_v<S, Ed25519Sha512>, Ristretto255Sha512, Ed25519Sha512>;
  auto dealer = TrustedDealerKeygen<S>(2, 3).value();
  const SecretShare<S>& share = dealer.shares[0];
  const crypto::SecretBytes share_enc = share.Encode();
  EXPECT_EQ(share_enc.size(), 70U + 32U * 2);
  const auto share2 = SecretShare<S>::Decode(share_enc.Expose()).value();
  EXPECT_TRUE(share2.Encode().ConstantTimeEquals(share_enc));
  ExpectStrict<SecretShare<S>>(share_enc.Expose());
  EXPECT_FALSE(SecretShare<Other>::Decode(share_enc.Expose()).ok());

  const KeyPackage<S> key = share.Verify().value();
  const crypto::SecretBytes key_enc = key.Encode();
  EXPECT_EQ(key_enc.size(), 134U);
  EXPECT_TRUE(KeyPackage<S>::Decode(key_enc.Expose()).value().Encode().ConstantTimeEquals(key_enc));
  ExpectStrict<KeyPackage<S>>(key_enc.Expose());
  EXPECT_FALSE(KeyPackage<Other>::Decode(key_enc.Expose()).ok());
  // A key package whose share does not match its verifying share.
  Bytes bad_key(key_enc.Expose().begin(), key_enc.Expose().end());
  bad_key[6 + 32] ^= 1;
  EXPECT_EQ(KeyPackage<S>::Decode(bad_key).status().code(), Code::kInvalidArgument);

  const Bytes pub_enc = dealer.public_key_package.Encode();
  EXPECT_EQ(pub_enc.size(), 40U + 64U * 3);
  EXPECT_EQ(PublicKeyPackage<S>::Decode(pub_enc).value().Encode(), pub_enc);
  ExpectStrict<PublicKeyPackage<S>>(pub_enc);
  EXPECT_FALSE(PublicKeyPackage<Other>::Decode(pub_enc).ok());

  SigningNonces<S> nonces = Commit(key);
  const auto c_enc = nonces.commitments().Encode();
  EXPECT_TRUE(SigningCommitments<S>::Decode(c_enc).value() == nonces.commitments());
  ExpectStrict<SigningCommitments<S>>(c_enc);
  const KeyPackage<S> key2 = dealer.shares[1].Verify().value();
  SigningNonces<S> nonces2 = Commit(key2);
  const auto package =
      SigningPackage<S>::Create({nonces2.commitments(), nonces.commitments()}, test::B("msg"))
          .value();
  EXPECT_EQ(package.commitments()[0].identifier(), Id(1));  // sorted
  const Bytes pkg_enc = package.Encode();
  EXPECT_EQ(pkg_enc.size(), 4U + 2 + 2 * 96 + 1 + 3);
  EXPECT_EQ(SigningPackage<S>::Decode(pkg_enc).value().Encode(), pkg_enc);
  ExpectStrict<SigningPackage<S>>(pkg_enc);
  // Commitments out of order are rejected.
  Bytes swapped = pkg_enc;
  std::swap_ranges(swapped.begin() + 6, swapped.begin() + 102, swapped.begin() + 102);
  EXPECT_FALSE(SigningPackage<S>::Decode(swapped).ok());

  const SignatureShare<S> z = Sign(package, std::move(nonces), key).value();
  const auto z_enc = z.Encode();
  EXPECT_EQ(SignatureShare<S>::Decode(z_enc).value().Encode(), z_enc);
  ExpectStrict<SignatureShare<S>>(z_enc);

  const dkg::Ceremony ceremony =
      dkg::Ceremony::Create(AsBytes("wire"), {Id(7), Id(8), Id(9)}, 2).value();
  auto r1 = dkg::Part1<S>(ceremony, Id(7)).value();
  const Bytes r1_enc = r1.package.Encode();
  EXPECT_EQ(r1_enc.size(), 102U + 32U * 2);
  EXPECT_EQ(dkg::Round1Package<S>::Decode(r1_enc).value().Encode(), r1_enc);
  ExpectStrict<dkg::Round1Package<S>>(r1_enc);
  EXPECT_FALSE(dkg::Round1Package<Other>::Decode(r1_enc).ok());
  auto peer1 = dkg::Part1<S>(ceremony, Id(8)).value();
  auto peer2 = dkg::Part1<S>(ceremony, Id(9)).value();
  const std::vector<R1<S>> others = {{Id(8), peer1.package}, {Id(9), peer2.package}};
  auto r2 = dkg::Part2<S>(std::move(r1.secret), others);
  ASSERT_TRUE(r2.ok());
  const crypto::SecretBytes r2_enc = r2->packages[0].Encode();
  EXPECT_EQ(r2_enc.size(), 100U);
  EXPECT_TRUE(
      dkg::Round2Package<S>::Decode(r2_enc.Expose()).value().Encode().ConstantTimeEquals(r2_enc));
  ExpectStrict<dkg::Round2Package<S>>(r2_enc.Expose());
}

TYPED_TEST(FrostTest, StrictElementsAndScalars) {
  using S = TypeParam;
  const Group<S> g = Dealer<S>(2, 3);
  SigningNonces<S> a = Commit(g.keys[0]);
  const auto enc = a.commitments().Encode();
  // The identity as D, a non-canonical scalar as identifier, identifier 0.
  Bytes with_identity(enc.begin(), enc.end());
  const Bytes identity =
      std::is_same_v<S, Ed25519Sha512> ? H("01" + std::string(62, '0')) : Bytes(32, 0);
  std::copy(identity.begin(), identity.end(), with_identity.begin() + 32);
  EXPECT_EQ(SigningCommitments<S>::Decode(with_identity).status().code(), Code::kInvalidArgument);
  Bytes zero_id(enc.begin(), enc.end());
  std::fill(zero_id.begin(), zero_id.begin() + 32, 0);
  EXPECT_FALSE(SigningCommitments<S>::Decode(zero_id).ok());
  Bytes big_id(enc.begin(), enc.end());
  std::copy(ec::kGroupOrderBytes.begin(), ec::kGroupOrderBytes.end(), big_id.begin());
  EXPECT_FALSE(SigningCommitments<S>::Decode(big_id).ok());
  EXPECT_FALSE(VerifyingKey<S>::Decode(identity).ok());
  EXPECT_FALSE(SigningShare::Decode(Bytes(32, 0)).ok());
  EXPECT_FALSE(SigningShare::Decode(ec::kGroupOrderBytes).ok());
  // A signature with z = l.
  SigningNonces<S> b = Commit(g.keys[1]);
  a = Commit(g.keys[0]);
  const auto package = SigningPackage<S>::Create({a.commitments(), b.commitments()}, {}).value();
  std::vector<SignatureShare<S>> shares = {Sign(package, std::move(a), g.keys[0]).value(),
                                           Sign(package, std::move(b), g.keys[1]).value()};
  auto sig = Aggregate<S>(package, shares, g.pub).value().Encode();
  std::copy(ec::kGroupOrderBytes.begin(), ec::kGroupOrderBytes.end(), sig.begin() + 32);
  EXPECT_EQ(Signature<S>::Decode(sig).status().code(), Code::kInvalidArgument);
  if constexpr (std::is_same_v<S, Ed25519Sha512>) {
    // Ed25519: a point of order 8, and a valid key plus a torsion point, are rejected as keys,
    // commitments and R.
    const Bytes order8 = H("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05");
    EXPECT_FALSE(VerifyingKey<S>::Decode(order8).ok());
    const auto torsioned =
        (g.pub.verifying_key().point() + ec::EdwardsPoint::Decode(order8).value()).Encode().bytes();
    EXPECT_FALSE(VerifyingKey<S>::Decode(torsioned).ok());
    EXPECT_FALSE(GroupElement<S>::FromPoint(ec::EdwardsPoint::Decode(torsioned).value()).ok());
    Bytes torsion_d(enc.begin(), enc.end());
    std::copy(torsioned.begin(), torsioned.end(), torsion_d.begin() + 64);
    EXPECT_FALSE(SigningCommitments<S>::Decode(torsion_d).ok());
  }
}

}  // namespace
}  // namespace veil::zk::frost
