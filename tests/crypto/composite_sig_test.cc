// Composite ML-DSA-65 + Ed25519: the draft's vector, round trips, and that either component
// failing (or being lifted out) is rejected.
#include "veil/crypto/composite_sig.h"

#include <gtest/gtest.h>

#include "test_util.h"
#include "veil/base/encoding.h"
#include "veil/crypto/ed25519.h"
#include "wycheproof.h"

namespace veil::crypto {
namespace {

Bytes B64(const nlohmann::json& j) { return Base64Decode(j.get<std::string>()).value(); }

// draft-ietf-lamps-pq-composite-sigs-19 testvectors.json, test id-MLDSA65-Ed25519-SHA512.
TEST(CompositeSig, DraftVector) {
  auto j = vectors::LoadJsonFile(test::DataPath("composite/testvectors-mldsa65-ed25519.json"));
  ASSERT_TRUE(j.ok());
  const Bytes m = B64((*j)["m"]), ctx = B64((*j)["ctx"]);
  int checked = 0;
  for (const auto& t : (*j)["tests"]) {
    if (t["tcId"] != "id-MLDSA65-Ed25519-SHA512") continue;
    const Bytes pk = B64(t["pk"]), sk = B64(t["sk"]);
    auto vk = CompositeVerifyingKey::Decode(pk);
    ASSERT_TRUE(vk.ok());
    EXPECT_TRUE(vk->Verify(m, {}, B64(t["s"])).ok());
    EXPECT_TRUE(vk->Verify(m, ctx, B64(t["sWithContext"])).ok());
    // The contexts are not interchangeable.
    EXPECT_EQ(vk->Verify(m, ctx, B64(t["s"])).code(), Code::kVerificationFailed);
    // The private key reproduces the public key, and signs what the public key accepts.
    auto key = CompositeSigningKey::Decode(sk);
    ASSERT_TRUE(key.ok());
    EXPECT_EQ(test::Hx(key->verifying_key().bytes()), test::Hx(pk));
    EXPECT_TRUE(ConstantTimeEquals(key->Encode().Expose(), sk));
    auto sig = key->Sign(m, ctx, MlDsaSigning::kDeterministic);
    ASSERT_TRUE(sig.ok());
    EXPECT_TRUE(vk->Verify(m, ctx, *sig).ok());
    ++checked;
  }
  EXPECT_EQ(checked, 1);
}

TEST(CompositeSig, EachComponentMustVerify) {
  CompositeSigningKey key = CompositeSigningKey::Generate();
  const Bytes msg = test::B("settle batch 7"), ctx = test::B("defmi/attest");
  auto sig = key.Sign(msg, ctx);
  ASSERT_TRUE(sig.ok());
  const CompositeVerifyingKey& vk = key.verifying_key();
  ASSERT_TRUE(vk.Verify(msg, ctx, *sig).ok());
  // A flipped bit in the ML-DSA part, or in the Ed25519 part, fails the whole signature.
  for (std::size_t pos : {0u, 1000u, 3308u, 3309u, 3340u, 3372u}) {
    CompositeSignature bad = *sig;
    bad[pos] ^= 0x01;
    EXPECT_EQ(vk.Verify(msg, ctx, bad).code(), Code::kVerificationFailed) << pos;
  }
  EXPECT_EQ(vk.Verify(test::B("settle batch 8"), ctx, *sig).code(), Code::kVerificationFailed);
  EXPECT_EQ(vk.Verify(msg, test::B("other"), *sig).code(), Code::kVerificationFailed);
  EXPECT_EQ(CompositeSigningKey::Generate().verifying_key().Verify(msg, ctx, *sig).code(),
            Code::kVerificationFailed);
}

// Non-separability: the Ed25519 half is not a signature over the message itself.
TEST(CompositeSig, ComponentsCannotBeLiftedOut) {
  CompositeSigningKey key = CompositeSigningKey::Generate();
  const Bytes msg = test::B("pay 100");
  auto sig = key.Sign(msg);
  ASSERT_TRUE(sig.ok());
  const ByteView ed_pk = ByteView(key.verifying_key().bytes()).subspan(kMlDsa65PublicKeySize);
  EXPECT_EQ(Ed25519Verify(ed_pk, msg, ByteView(*sig).subspan(kMlDsa65SignatureSize)).code(),
            Code::kVerificationFailed);
  auto mldsa_pk =
      MlDsa65PublicKey::Decode(ByteView(key.verifying_key().bytes()).first(kMlDsa65PublicKeySize));
  ASSERT_TRUE(mldsa_pk.ok());
  EXPECT_FALSE(MlDsa65Verify(*mldsa_pk, msg, {}, ByteView(*sig).first(kMlDsa65SignatureSize)).ok());
}

TEST(CompositeSig, BadInput) {
  CompositeSigningKey key = CompositeSigningKey::Generate();
  EXPECT_EQ(CompositeSigningKey::Decode(Bytes(63)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(CompositeVerifyingKey::Decode(Bytes(1983)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(key.Sign({}, Bytes(256)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(key.verifying_key().Verify({}, {}, Bytes(3372)).code(), Code::kInvalidArgument);
  EXPECT_EQ(key.verifying_key().Verify({}, Bytes(256), Bytes(3373)).code(), Code::kInvalidArgument);
  auto round = CompositeSigningKey::Decode(key.Encode().Expose());
  ASSERT_TRUE(round.ok());
  EXPECT_EQ(round->verifying_key().bytes(), key.verifying_key().bytes());
}

}  // namespace
}  // namespace veil::crypto
