// Guardian identities (key file, public encoding, fingerprint) and destroy receipts.
#include "veil/guardian/identity.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "guardian/guardian_test_util.h"
#include "veil/guardian/receipt.h"

namespace veil::guardian {
namespace {

using testing::ScratchDir;

TEST(GuardianIdentity, CreatedOnceWithMode0600AndReloaded) {
  ScratchDir dir;
  const auto sub = dir.path() / "g";
  auto a = GuardianIdentity::LoadOrCreate(sub);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  struct stat st {};
  ASSERT_EQ(::stat((sub / kIdentityFileName).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(sub.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0077, 0u);
  EXPECT_FALSE(std::filesystem::exists(sub / "identity.key.tmp"));
  auto b = GuardianIdentity::LoadOrCreate(sub);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->public_identity().FingerprintHex(), b->public_identity().FingerprintHex());
  EXPECT_TRUE(a->storage_key().ConstantTimeEquals(b->storage_key()));
  // Never overwritten.
  EXPECT_EQ(GuardianIdentity::Generate().Save(sub).code(), Code::kFailedPrecondition);
  // A file others may read is refused.
  ASSERT_EQ(::chmod((sub / kIdentityFileName).c_str(), 0644), 0);
  EXPECT_EQ(GuardianIdentity::Load(sub).status().code(), Code::kFailedPrecondition);
  ASSERT_EQ(::chmod((sub / kIdentityFileName).c_str(), 0600), 0);
  // A truncated file is data loss; a missing one not found.
  std::filesystem::resize_file(sub / kIdentityFileName, 10);
  EXPECT_EQ(GuardianIdentity::Load(sub).status().code(), Code::kDataLoss);
  EXPECT_EQ(GuardianIdentity::Load(dir.path()).status().code(), Code::kNotFound);
}

TEST(GuardianIdentity, PublicEncodingAndFingerprint) {
  const GuardianIdentity id = GuardianIdentity::Generate();
  const PublicIdentity& pub = id.public_identity();
  EXPECT_EQ(pub.Encode().size(), 3u + 1984u + 1216u);
  EXPECT_EQ(pub.FingerprintHex(), HexEncode(crypto::Sha256(pub.Encode())));
  auto back = PublicIdentity::Decode(pub.Encode());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->fingerprint(), pub.fingerprint());
  Bytes longer = pub.Encode();
  longer.push_back(0);
  EXPECT_FALSE(PublicIdentity::Decode(longer).ok());
  EXPECT_FALSE(PublicIdentity::Decode(ByteView(pub.Encode()).first(100)).ok());
  EXPECT_NE(GuardianIdentity::Generate().public_identity().FingerprintHex(), pub.FingerprintHex());
}

TEST(DestroyReceipt, VerifiesAndEveryMutationFails) {
  const GuardianIdentity id = GuardianIdentity::Generate();
  const ShareId share_id = testing::RandomId();
  Commitment c{};
  c.fill(3);
  auto r = SignDestroyReceipt(id, share_id, 1700000000, c);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(VerifyDestroyReceipt(id.public_identity(), *r).ok());
  EXPECT_EQ(r->commitment_hash, CommitmentHash(c));

  // Binary and JSON forms round-trip.
  const Bytes enc = EncodeDestroyReceipt(*r);
  auto dec = DecodeDestroyReceipt(enc);
  ASSERT_TRUE(dec.ok());
  EXPECT_EQ(*dec, *r);
  auto fromjson = DestroyReceiptFromJson(DestroyReceiptToJson(*r));
  ASSERT_TRUE(fromjson.ok());
  EXPECT_EQ(*fromjson, *r);
  Bytes trailing = enc;
  trailing.push_back(0);
  EXPECT_FALSE(DecodeDestroyReceipt(trailing).ok());
  EXPECT_FALSE(DecodeDestroyReceipt(ByteView(enc).first(enc.size() - 1)).ok());

  // Every single-byte change of the encoding either fails to decode or fails to verify.
  for (std::size_t i = 0; i < enc.size(); i += (i < 200 ? 1 : 97)) {
    Bytes m = enc;
    m[i] ^= 0x01;
    auto d = DecodeDestroyReceipt(m);
    if (d.ok()) {
      EXPECT_EQ(VerifyDestroyReceipt(id.public_identity(), *d), VerificationFailed()) << i;
    }
  }
  // Another guardian's key does not verify it.
  EXPECT_FALSE(VerifyDestroyReceipt(GuardianIdentity::Generate().public_identity(), *r).ok());
  DestroyReceipt later = *r;
  later.destroyed_at += 1;
  EXPECT_FALSE(VerifyDestroyReceipt(id.public_identity(), later).ok());
}

}  // namespace
}  // namespace veil::guardian
