// HPKE: the RFC 9180 vectors, round trips over every supported suite and mode, and rejection of
// misuse and tampering.
#include "veil/crypto/hpke.h"

#include <gtest/gtest.h>

#include "hpke_vectors.h"
#include "test_util.h"
#include "veil/crypto/random.h"
#include "wycheproof.h"

namespace veil::crypto::hpke {
namespace {

TEST(Hpke, Rfc9180Vectors) {
  auto j = vectors::LoadJsonFile(test::DataPath("rfc9180/test-vectors.json"));
  ASSERT_TRUE(j.ok());
  auto r = vectors::RunHpkeVectors(*j);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->failed, 0);
  EXPECT_EQ(r->passed, 2116);  // 12 entries: keys, enc, 8 x 257 encryptions, 12 x 3 exports
  for (const auto& f : r->failures) ADD_FAILURE() << f;
}

TEST(Hpke, VectorRunnerCatchesAWrongExpectation) {
  auto j = vectors::LoadJsonFile(test::DataPath("rfc9180/test-vectors.json"));
  ASSERT_TRUE(j.ok());
  nlohmann::json one = nlohmann::json::array({(*j)[0]});
  std::string ct = one[0]["encryptions"][256]["ct"];
  ct[0] = ct[0] == '0' ? '1' : '0';
  one[0]["encryptions"][256]["ct"] = ct;
  auto r = vectors::RunHpkeVectors(one);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->failed, 1);
}

struct Case {
  KemId kem;
  KdfId kdf;
  AeadId aead;
  Mode mode;
};

class HpkeRoundTrip : public testing::TestWithParam<Case> {};

TEST_P(HpkeRoundTrip, SealOpenExport) {
  const Case c = GetParam();
  const Suite suite{c.kem, c.kdf, c.aead};
  KeyPair r = GenerateKeyPair(c.kem);
  KeyPair s = GenerateKeyPair(c.kem);
  const Bytes psk = RandomBytes(32), psk_id = test::B("psk id"), info = test::B("info");
  SetupOptions so;
  so.mode = c.mode;
  so.info = info;
  if (c.mode == Mode::kPsk || c.mode == Mode::kAuthPsk) {
    so.psk = psk;
    so.psk_id = psk_id;
  }
  SetupOptions ro = so;
  if (c.mode == Mode::kAuth || c.mode == Mode::kAuthPsk) {
    so.sender_private_key = &s.private_key;
    ro.sender_public_key = s.public_key;
  }
  auto sender = SetupSender(suite, r.public_key, so);
  ASSERT_TRUE(sender.ok()) << sender.status().ToString();
  auto recipient = SetupRecipient(suite, sender->enc, r.private_key, ro);
  ASSERT_TRUE(recipient.ok()) << recipient.status().ToString();

  auto e1 = sender->context.Export(test::B("ctx"), 42);
  auto e2 = recipient->Export(test::B("ctx"), 42);
  ASSERT_TRUE(e1.ok() && e2.ok());
  EXPECT_TRUE(e1->ConstantTimeEquals(*e2));

  if (c.aead == AeadId::kExportOnly) {
    EXPECT_EQ(sender->context.Seal({}, {}).status().code(), Code::kFailedPrecondition);
    return;
  }
  for (int i = 0; i < 3; ++i) {
    const Bytes pt = RandomBytes(static_cast<std::size_t>(i * 50));
    auto ct = sender->context.Seal(test::B("aad"), pt);
    ASSERT_TRUE(ct.ok());
    // A tampered ciphertext fails and does not advance the recipient.
    Bytes bad = *ct;
    bad[0] ^= 1;
    EXPECT_EQ(recipient->Open(test::B("aad"), bad).status().code(), Code::kVerificationFailed);
    EXPECT_EQ(recipient->sequence_number(), static_cast<std::uint64_t>(i));
    auto pt2 = recipient->Open(test::B("aad"), *ct);
    ASSERT_TRUE(pt2.ok());
    EXPECT_TRUE(ConstantTimeEquals(pt2->Expose(), pt));
  }
  EXPECT_EQ(sender->context.sequence_number(), 3u);
  EXPECT_EQ(recipient->Seal({}, {}).status().code(), Code::kFailedPrecondition);
  EXPECT_EQ(sender->context.Open({}, Bytes(16)).status().code(), Code::kFailedPrecondition);
}

std::vector<Case> AllX25519Cases() {
  std::vector<Case> out;
  for (KdfId kdf : {KdfId::kHkdfSha256, KdfId::kHkdfSha384, KdfId::kHkdfSha512}) {
    for (AeadId aead :
         {AeadId::kAes128Gcm, AeadId::kAes256Gcm, AeadId::kChaCha20Poly1305, AeadId::kExportOnly}) {
      for (Mode m : {Mode::kBase, Mode::kPsk, Mode::kAuth, Mode::kAuthPsk}) {
        out.push_back({KemId::kX25519Sha256, kdf, aead, m});
      }
    }
  }
  return out;
}
INSTANTIATE_TEST_SUITE_P(X25519, HpkeRoundTrip, testing::ValuesIn(AllX25519Cases()));

TEST(Hpke, ModeInputsAreChecked) {
  const Suite suite{KemId::kX25519Sha256, KdfId::kHkdfSha256, AeadId::kAes128Gcm};
  KeyPair r = GenerateKeyPair(suite.kem);
  const Bytes psk(32, 7);
  SetupOptions o;
  o.mode = Mode::kPsk;  // psk missing
  EXPECT_EQ(SetupSender(suite, r.public_key, o).status().code(), Code::kInvalidArgument);
  o.psk = psk;  // psk_id missing
  EXPECT_EQ(SetupSender(suite, r.public_key, o).status().code(), Code::kInvalidArgument);
  o.mode = Mode::kBase;
  o.psk_id = psk;  // psk given to base
  EXPECT_EQ(SetupSender(suite, r.public_key, o).status().code(), Code::kInvalidArgument);
  SetupOptions short_psk;
  short_psk.mode = Mode::kPsk;
  short_psk.psk = ByteView(psk).first(16);
  short_psk.psk_id = psk;
  EXPECT_EQ(SetupSender(suite, r.public_key, short_psk).status().code(), Code::kInvalidArgument);
  SetupOptions auth;
  auth.mode = Mode::kAuth;  // no sender key
  EXPECT_EQ(SetupSender(suite, r.public_key, auth).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(SetupRecipient(suite, Bytes(32, 9), r.private_key, auth).status().code(),
            Code::kInvalidArgument);
}

TEST(Hpke, BadKeysAndEncapsulations) {
  const Suite suite{KemId::kX25519Sha256, KdfId::kHkdfSha256, AeadId::kAes256Gcm};
  KeyPair r = GenerateKeyPair(suite.kem);
  EXPECT_EQ(SetupSender(suite, Bytes(31), {}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(SetupSender(suite, Bytes(32, 0), {}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(SetupRecipient(suite, Bytes(33), r.private_key, {}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(SetupRecipient(suite, Bytes(32, 0), r.private_key, {}).status().code(),
            Code::kInvalidArgument);  // low-order enc
  EXPECT_FALSE(SuiteFromIds(0x0010, 1, 1).ok());
  EXPECT_FALSE(SuiteFromIds(0x0020, 4, 1).ok());
  EXPECT_FALSE(SuiteFromIds(0x0020, 1, 4).ok());
}

TEST(Hpke, AuthBindsTheSender) {
  const Suite suite{KemId::kX25519Sha256, KdfId::kHkdfSha256, AeadId::kChaCha20Poly1305};
  KeyPair r = GenerateKeyPair(suite.kem), s = GenerateKeyPair(suite.kem),
          mallory = GenerateKeyPair(suite.kem);
  SetupOptions so;
  so.mode = Mode::kAuth;
  so.sender_private_key = &s.private_key;
  auto sealed = Seal(suite, r.public_key, so, {}, test::B("from s"));
  ASSERT_TRUE(sealed.ok());
  SetupOptions ro;
  ro.mode = Mode::kAuth;
  ro.sender_public_key = mallory.public_key;
  EXPECT_EQ(Open(suite, sealed->enc, r.private_key, ro, {}, sealed->ciphertext).status().code(),
            Code::kVerificationFailed);
  ro.sender_public_key = s.public_key;
  EXPECT_TRUE(Open(suite, sealed->enc, r.private_key, ro, {}, sealed->ciphertext).ok());
}

}  // namespace
}  // namespace veil::crypto::hpke
