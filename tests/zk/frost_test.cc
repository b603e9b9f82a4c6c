// FROST (RFC 9591), both ciphersuites: the Appendix E vector files with every intermediate value,
// signing with every t-subset of small groups (2-of-3, 3-of-5, 3-of-3) and with several subsets of
// 3-of-7, dealer and DKG keys, the signatures checked independently of our verifier (libsodium's
// crypto_sign_verify_detached for Ed25519; libsodium's ristretto255 arithmetic and SHA-512 for
// ristretto255), blame (a cheating signer named by the aggregator; a bad proof of knowledge, a bad
// share, a wrong-length commitment, a duplicate or missing participant named by the DKG),
// fewer-than-t and duplicate signers, every single-bit flip of a signature share and of a final
// signature, strict decoding, and round trips of every wire object.
#include "veil/zk/frost.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

template <class S>
Group<S> RunDkg(std::uint16_t t, std::uint16_t n) {
  std::vector<dkg::Round1Secret<S>> r1_secrets;
  std::vector<dkg::Round1Package<S>> r1_packages;
  for (std::uint16_t i = 1; i <= n; ++i) {
    auto out = dkg::Part1<S>(Id(i), t, n);
    EXPECT_TRUE(out.ok());
    r1_secrets.push_back(std::move(out->secret));
    r1_packages.push_back(std::move(out->package));
  }
  std::vector<dkg::Round2Secret<S>> r2_secrets;
  std::vector<std::vector<dkg::Round2Package<S>>> outbox;
  for (std::uint16_t i = 0; i < n; ++i) {
    std::vector<dkg::Round1Package<S>> others;
    for (std::uint16_t j = 0; j < n; ++j) {
      if (j != i) others.push_back(r1_packages[j]);
    }
    auto out = dkg::Part2<S>(std::move(r1_secrets[i]), others);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    r2_secrets.push_back(std::move(out->secret));
    outbox.push_back(std::move(out->packages));
  }
  std::vector<KeyPackage<S>> keys;
  std::optional<PublicKeyPackage<S>> pub;
  for (std::uint16_t i = 0; i < n; ++i) {
    std::vector<dkg::Round2Package<S>> inbox;
    for (auto& box : outbox) {
      for (auto& p : box) {
        if (p.recipient() == Id(i + 1u)) {
          inbox.push_back(dkg::Round2Package<S>::Decode(p.Encode().Expose()).value());
        }
      }
    }
    auto out = dkg::Part3<S>(std::move(r2_secrets[i]), inbox);
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
  EXPECT_FALSE(dkg::Part1<S>(Id(1), 1, 3).ok());
  EXPECT_FALSE(dkg::Part1<S>(Id(1), 4, 3).ok());
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
  std::vector<dkg::Round1Secret<S>> secrets;
  std::vector<dkg::Round1Package<S>> packages;
};

template <class S>
DkgRound1<S> DkgStart(std::uint16_t t, std::uint16_t n) {
  DkgRound1<S> r;
  for (std::uint16_t i = 1; i <= n; ++i) {
    auto out = dkg::Part1<S>(Id(i), t, n);
    r.secrets.push_back(std::move(out->secret));
    r.packages.push_back(std::move(out->package));
  }
  return r;
}

template <class S>
std::vector<dkg::Round1Package<S>> AllBut(const std::vector<dkg::Round1Package<S>>& all,
                                          std::size_t i) {
  std::vector<dkg::Round1Package<S>> out;
  for (std::size_t j = 0; j < all.size(); ++j) {
    if (j != i) out.push_back(all[j]);
  }
  return out;
}

template <class S>
void ExpectCulprit(const FrostResult<dkg::Part2Output<S>>& r, std::uint64_t who, Fault fault) {
  ASSERT_FALSE(r.ok());
  ASSERT_TRUE(r.culprit().has_value()) << r.status().ToString();
  EXPECT_EQ(r.culprit()->participant, Id(who));
  EXPECT_EQ(r.culprit()->fault, fault);
}

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
  // The proof is bound to the identifier: participant 3's package relabelled as 4 fails too.
  DkgRound1<S> r2 = DkgStart<S>(2, 3);
  Bytes enc3 = r2.packages[2].Encode();
  const auto id4 = Id(4).Encode();
  std::copy(id4.begin(), id4.end(), enc3.begin() + 4);
  r2.packages[2] = dkg::Round1Package<S>::Decode(enc3).value();
  ExpectCulprit(dkg::Part2<S>(std::move(r2.secrets[0]), AllBut(r2.packages, 0)), 4,
                Fault::kBadProofOfKnowledge);
}

TYPED_TEST(FrostTest, DkgNamesAWrongLengthCommitmentAndDuplicates) {
  using S = TypeParam;
  DkgRound1<S> r = DkgStart<S>(3, 4);
  // Participant 3 runs round one with t = 4.
  r.packages[2] = std::move(dkg::Part1<S>(Id(3), 4, 4)->package);
  ExpectCulprit(dkg::Part2<S>(std::move(r.secrets[0]), AllBut(r.packages, 0)), 3,
                Fault::kWrongCommitmentLength);
  // Two packages with identifier 2 (and none from 4).
  DkgRound1<S> r2 = DkgStart<S>(3, 4);
  std::vector<dkg::Round1Package<S>> dup = {r2.packages[1], r2.packages[2], r2.packages[1]};
  ExpectCulprit(dkg::Part2<S>(std::move(r2.secrets[0]), dup), 2, Fault::kDuplicateIdentifier);
  // A package claiming the receiver's own identifier.
  DkgRound1<S> r3 = DkgStart<S>(3, 4);
  std::vector<dkg::Round1Package<S>> own = {r3.packages[0], r3.packages[1], r3.packages[2]};
  ExpectCulprit(dkg::Part2<S>(std::move(r3.secrets[0]), own), 1, Fault::kDuplicateIdentifier);
  // The wrong number of packages has no culprit.
  DkgRound1<S> r4 = DkgStart<S>(3, 4);
  std::vector<dkg::Round1Package<S>> few = {r4.packages[1]};
  auto out = dkg::Part2<S>(std::move(r4.secrets[0]), few);
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
  EXPECT_FALSE(out.culprit().has_value());
}

TYPED_TEST(FrostTest, DkgNamesABadShare) {
  using S = TypeParam;
  const std::uint16_t n = 4;
  DkgRound1<S> r = DkgStart<S>(3, n);
  std::vector<dkg::Round2Secret<S>> secrets;
  std::vector<std::vector<dkg::Round2Package<S>>> outbox;
  for (std::size_t i = 0; i < n; ++i) {
    auto out = dkg::Part2<S>(std::move(r.secrets[i]), AllBut(r.packages, i));
    ASSERT_TRUE(out.ok());
    secrets.push_back(std::move(out->secret));
    outbox.push_back(std::move(out->packages));
  }
  // Participant 1's inbox: from 2, 3 and 4; participant 4's share altered.
  auto inbox_for = [&](std::size_t me) {
    std::vector<dkg::Round2Package<S>> inbox;
    for (auto& box : outbox) {
      for (auto& p : box) {
        if (p.recipient() == Id(me + 1)) {
          inbox.push_back(dkg::Round2Package<S>::Decode(p.Encode().Expose()).value());
        }
      }
    }
    return inbox;
  };
  std::vector<dkg::Round2Package<S>> inbox = inbox_for(0);
  ASSERT_EQ(inbox.size(), 3U);
  const crypto::SecretBytes enc = inbox[2].Encode();
  ASSERT_EQ(inbox[2].sender(), Id(4));
  Bytes tampered(enc.Expose().begin(), enc.Expose().end());
  tampered[tampered.size() - 32] ^= 1;
  inbox[2] = dkg::Round2Package<S>::Decode(tampered).value();
  auto out = dkg::Part3<S>(std::move(secrets[0]), inbox);
  ASSERT_FALSE(out.ok());
  ASSERT_TRUE(out.culprit().has_value());
  EXPECT_EQ(out.culprit()->participant, Id(4));
  EXPECT_EQ(out.culprit()->fault, Fault::kBadShare);
  EXPECT_EQ(out.status(), VerificationFailed());
  // Participant 2 with a missing package (from 3) and with one addressed to someone else.
  std::vector<dkg::Round2Package<S>> inbox2 = inbox_for(1);
  std::vector<dkg::Round2Package<S>> short_inbox;
  for (auto& p : inbox2) {
    if (!(p.sender() == Id(3))) short_inbox.push_back(std::move(p));
  }
  auto missing = dkg::Part3<S>(std::move(secrets[1]), short_inbox);
  ASSERT_TRUE(missing.culprit().has_value());
  EXPECT_EQ(missing.culprit()->participant, Id(3));
  EXPECT_EQ(missing.culprit()->fault, Fault::kMissingShare);
  std::vector<dkg::Round2Package<S>> inbox3 = inbox_for(2);
  inbox3[0] = std::move(inbox_for(3)[0]);  // from 1, for 4
  auto misaddressed = dkg::Part3<S>(std::move(secrets[2]), inbox3);
  ASSERT_TRUE(misaddressed.culprit().has_value());
  EXPECT_EQ(misaddressed.culprit()->participant, Id(1));
  EXPECT_EQ(misaddressed.culprit()->fault, Fault::kMisaddressedShare);
  // Participant 4, untouched, completes.
  EXPECT_TRUE(dkg::Part3<S>(std::move(secrets[3]), inbox_for(3)).ok());
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

  auto r1 = dkg::Part1<S>(Id(7), 2, 3).value();
  const Bytes r1_enc = r1.package.Encode();
  EXPECT_EQ(r1_enc.size(), 102U + 32U * 2);
  EXPECT_EQ(dkg::Round1Package<S>::Decode(r1_enc).value().Encode(), r1_enc);
  ExpectStrict<dkg::Round1Package<S>>(r1_enc);
  EXPECT_FALSE(dkg::Round1Package<Other>::Decode(r1_enc).ok());
  auto peer1 = dkg::Part1<S>(Id(8), 2, 3).value();
  auto peer2 = dkg::Part1<S>(Id(9), 2, 3).value();
  const std::vector<dkg::Round1Package<S>> others = {peer1.package, peer2.package};
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
