// X-Wing: the draft's vectors, round trips, implicit rejection and bad input.
#include "veil/crypto/xwing.h"

#include <gtest/gtest.h>

#include "test_util.h"
#include "veil/crypto/hpke.h"
#include "veil/crypto/random.h"
#include "veil/crypto/testing/xwing.h"
#include "wycheproof.h"

namespace veil::crypto {
namespace {

// draft-connolly-cfrg-xwing-kem, spec/test-vectors.json (3 vectors; see tests/data/README.md).
TEST(XWing, DraftVectors) {
  auto j = vectors::LoadJsonFile(test::DataPath("xwing/test-vectors.json"));
  ASSERT_TRUE(j.ok());
  ASSERT_EQ(j->size(), 3u);
  for (const auto& v : *j) {
    const Bytes seed = test::H(v["seed"].get<std::string>());
    auto dk = XWingDecapsulationKey::FromSeedBytes(seed);
    ASSERT_TRUE(dk.ok());
    EXPECT_EQ(test::Hx(dk->public_key()), v["pk"].get<std::string>());
    EXPECT_EQ(test::Hx(dk->seed().Expose()), v["sk"].get<std::string>());
    const Bytes eseed = test::H(v["eseed"].get<std::string>());
    auto enc = for_testing::XWingEncapsulateDerand(
        dk->public_key(), Secret<64>::CopyFrom(std::span<const std::uint8_t, 64>(eseed)));
    ASSERT_TRUE(enc.ok());
    EXPECT_EQ(test::Hx(enc->ciphertext), v["ct"].get<std::string>());
    EXPECT_EQ(test::Hx(enc->shared_secret.Expose()), v["ss"].get<std::string>());
    auto ss = dk->Decapsulate(test::H(v["ct"].get<std::string>()));
    ASSERT_TRUE(ss.ok());
    EXPECT_EQ(test::Hx(ss->Expose()), v["ss"].get<std::string>());
  }
}

TEST(XWing, RoundTripAndImplicitRejection) {
  XWingDecapsulationKey dk = XWingDecapsulationKey::Generate();
  auto enc = XWingEncapsulate(dk.public_key());
  ASSERT_TRUE(enc.ok());
  auto ss = dk.Decapsulate(enc->ciphertext);
  ASSERT_TRUE(ss.ok());
  EXPECT_TRUE(ss->ConstantTimeEquals(enc->shared_secret));
  // Any change to either half of the ciphertext changes the key (and decapsulation still works).
  for (std::size_t pos : {0u, 500u, 1087u, 1088u, 1119u}) {
    XWingCiphertext bad = enc->ciphertext;
    bad[pos] ^= 1;
    auto other = dk.Decapsulate(bad);
    ASSERT_TRUE(other.ok());
    EXPECT_FALSE(other->ConstantTimeEquals(enc->shared_secret)) << pos;
  }
  // Another key gets another secret.
  XWingDecapsulationKey dk2 = XWingDecapsulationKey::Generate();
  auto wrong = dk2.Decapsulate(enc->ciphertext);
  ASSERT_TRUE(wrong.ok());
  EXPECT_FALSE(wrong->ConstantTimeEquals(enc->shared_secret));
}

TEST(XWing, BadInput) {
  XWingDecapsulationKey dk = XWingDecapsulationKey::Generate();
  EXPECT_EQ(dk.Decapsulate(Bytes(1119)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(XWingEncapsulate(Bytes(1215)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(XWingDecapsulationKey::FromSeedBytes(Bytes(31)).status().code(),
            Code::kInvalidArgument);
  // An ML-KEM key with a coefficient >= q fails the FIPS 203 7.2 modulus check.
  XWingPublicKey pk = dk.public_key();
  pk[0] = 0xff;
  pk[1] |= 0x0f;
  EXPECT_EQ(XWingEncapsulate(pk).status().code(), Code::kInvalidArgument);
}

TEST(XWingHpke, AllSuitesBaseAndPsk) {
  using namespace hpke;
  for (KdfId kdf : {KdfId::kHkdfSha256, KdfId::kHkdfSha384, KdfId::kHkdfSha512}) {
    for (AeadId aead :
         {AeadId::kAes128Gcm, AeadId::kAes256Gcm, AeadId::kChaCha20Poly1305, AeadId::kExportOnly}) {
      for (Mode mode : {Mode::kBase, Mode::kPsk}) {
        const Suite suite{KemId::kXWing, kdf, aead};
        KeyPair r = GenerateKeyPair(KemId::kXWing);
        ASSERT_EQ(r.public_key.size(), kXWingPublicKeySize);
        ASSERT_EQ(*PublicKeyOf(KemId::kXWing, r.private_key), r.public_key);
        const Bytes psk(32, 3), psk_id = test::B("id"), info = test::B("veil guardian share");
        SetupOptions o;
        o.mode = mode;
        o.info = info;  // SetupOptions holds views: the bytes must outlive the setup call
        if (mode == Mode::kPsk) {
          o.psk = psk;
          o.psk_id = psk_id;
        }
        auto s = SetupSender(suite, r.public_key, o);
        ASSERT_TRUE(s.ok()) << s.status().ToString();
        ASSERT_EQ(s->enc.size(), kXWingCiphertextSize);
        auto rc = SetupRecipient(suite, s->enc, r.private_key, o);
        ASSERT_TRUE(rc.ok());
        EXPECT_TRUE(
            s->context.Export(test::B("x"), 32)->ConstantTimeEquals(*rc->Export(test::B("x"), 32)));
        if (aead == AeadId::kExportOnly) continue;
        auto ct = s->context.Seal(test::B("aad"), test::B("33-byte key share goes here......"));
        ASSERT_TRUE(ct.ok());
        auto pt = rc->Open(test::B("aad"), *ct);
        ASSERT_TRUE(pt.ok());
        EXPECT_EQ(AsChars(pt->Expose()), "33-byte key share goes here......");
      }
    }
  }
}

TEST(XWingHpke, AuthModesRejectedAndDeriveIsDeterministic) {
  using namespace hpke;
  const Suite suite{KemId::kXWing, KdfId::kHkdfSha256, AeadId::kAes256Gcm};
  KeyPair r = GenerateKeyPair(KemId::kXWing), s = GenerateKeyPair(KemId::kXWing);
  SetupOptions o;
  o.mode = Mode::kAuth;
  o.sender_private_key = &s.private_key;
  EXPECT_EQ(SetupSender(suite, r.public_key, o).status().code(), Code::kInvalidArgument);
  const Bytes ikm = RandomBytes(32);
  KeyPair a = DeriveKeyPair(KemId::kXWing, ikm), b = DeriveKeyPair(KemId::kXWing, ikm);
  EXPECT_EQ(a.public_key, b.public_key);
  EXPECT_TRUE(a.private_key.ConstantTimeEquals(b.private_key));
}

}  // namespace
}  // namespace veil::crypto
