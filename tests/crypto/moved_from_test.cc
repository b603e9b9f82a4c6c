// Keys and contexts that were moved from must not go on working. A moved-from Secret<N> is all
// zeros and a moved-from SecretBytes empty, and both are valid-looking keys (an all-zero X25519 or
// Ed25519 seed, an empty HMAC key); a moved-from object holding a pointer would dereference null.
// Every one of them aborts with a message naming the misuse instead (a programming error, so not a
// Status).
#include <gtest/gtest.h>

#include <utility>

#include "veil/crypto/aead.h"
#include "veil/crypto/composite_sig.h"
#include "veil/crypto/ed25519.h"
#include "veil/crypto/hpke.h"
#include "veil/crypto/mac.h"
#include "veil/crypto/mldsa65.h"
#include "veil/crypto/mlkem768.h"
#include "veil/crypto/random.h"
#include "veil/crypto/shamir.h"
#include "veil/crypto/x25519.h"
#include "veil/crypto/xwing.h"

namespace veil::crypto {
namespace {

// NOLINTBEGIN(bugprone-use-after-move): using moved-from objects is the point of these tests.

TEST(MovedFromDeathTest, X25519SecretKey) {
  X25519KeyPair kp = X25519Generate();
  const X25519KeyPair peer = X25519Generate();
  X25519SecretKey taken = std::move(kp.secret_key);
  EXPECT_TRUE(X25519(taken, peer.public_key).ok());
  // Before, the all-zero key clamped to 2^254 and both calls succeeded with a public scalar.
  EXPECT_DEATH((void)X25519PublicFromSecret(kp.secret_key), "moved-from");
  EXPECT_DEATH((void)X25519(kp.secret_key, peer.public_key), "moved-from");
}

TEST(MovedFromDeathTest, Ed25519SigningKey) {
  Ed25519SigningKey key = Ed25519SigningKey::Generate();
  Ed25519SigningKey taken = std::move(key);
  EXPECT_TRUE(Ed25519Verify(taken.public_key(), AsBytes("m"), taken.Sign(AsBytes("m"))).ok());
  EXPECT_DEATH((void)key.Sign(AsBytes("m")), "moved-from");
  EXPECT_DEATH((void)key.seed(), "moved-from");
}

TEST(MovedFromDeathTest, MlKem768DecapsulationKey) {
  MlKem768KeyPair kp = MlKem768KeyGen();
  const MlKem768Encapsulation enc = MlKem768Encaps(kp.ek);
  MlKem768DecapsulationKey taken = std::move(kp.dk);
  EXPECT_TRUE(MlKem768Decaps(taken, enc.ciphertext).ok());
  EXPECT_DEATH((void)MlKem768Decaps(kp.dk, enc.ciphertext), "moved-from");
  EXPECT_DEATH((void)kp.dk.Encode(), "moved-from");
}

TEST(MovedFromDeathTest, MlDsa65Keys) {
  MlDsa65KeyPair kp = MlDsa65KeyGen();
  MlDsa65SecretKey sk = std::move(kp.sk);
  MlDsa65PublicKey pk = std::move(kp.pk);
  auto sig = MlDsa65Sign(sk, AsBytes("m"));
  ASSERT_TRUE(sig.ok());
  EXPECT_TRUE(MlDsa65Verify(pk, AsBytes("m"), {}, *sig).ok());
  EXPECT_DEATH((void)MlDsa65Sign(kp.sk, AsBytes("m")), "moved-from");
  EXPECT_DEATH((void)MlDsa65Verify(kp.pk, AsBytes("m"), {}, *sig), "moved-from");
  EXPECT_DEATH((void)kp.pk.bytes(), "moved-from");
}

TEST(MovedFromDeathTest, XWingDecapsulationKey) {
  XWingDecapsulationKey dk = XWingDecapsulationKey::Generate();
  auto enc = XWingEncapsulate(dk.public_key());
  ASSERT_TRUE(enc.ok());
  XWingDecapsulationKey taken = std::move(dk);
  EXPECT_TRUE(taken.Decapsulate(enc->ciphertext).ok());
  EXPECT_DEATH((void)dk.Decapsulate(enc->ciphertext), "moved-from");
  EXPECT_DEATH((void)dk.public_key(), "moved-from");
  EXPECT_DEATH((void)dk.seed(), "moved-from");
}

TEST(MovedFromDeathTest, CompositeKeys) {
  CompositeSigningKey sk = CompositeSigningKey::Generate();
  CompositeVerifyingKey vk = sk.verifying_key();
  CompositeSigningKey taken_sk = std::move(sk);
  CompositeVerifyingKey taken_vk = std::move(vk);
  auto sig = taken_sk.Sign(AsBytes("m"));
  ASSERT_TRUE(sig.ok());
  EXPECT_TRUE(taken_vk.Verify(AsBytes("m"), {}, *sig).ok());
  EXPECT_DEATH((void)sk.Sign(AsBytes("m")), "moved-from");
  EXPECT_DEATH((void)sk.Encode(), "moved-from");
  EXPECT_DEATH((void)sk.verifying_key(), "moved-from");
  EXPECT_DEATH((void)vk.Verify(AsBytes("m"), {}, *sig), "moved-from");
  EXPECT_DEATH((void)vk.bytes(), "moved-from");
}

TEST(MovedFromDeathTest, HpkeContexts) {
  const hpke::Suite suite{hpke::KemId::kX25519Sha256, hpke::KdfId::kHkdfSha256,
                          hpke::AeadId::kChaCha20Poly1305};
  const hpke::KeyPair recipient = hpke::GenerateKeyPair(suite.kem);
  auto sender = hpke::SetupSender(suite, recipient.public_key, {});
  ASSERT_TRUE(sender.ok());
  auto opener = hpke::SetupRecipient(suite, sender->enc, recipient.private_key, {});
  ASSERT_TRUE(opener.ok());
  hpke::Context sealing = std::move(sender->context);
  hpke::Context opening = std::move(*opener);
  auto ct = sealing.Seal({}, AsBytes("m"));
  ASSERT_TRUE(ct.ok());
  EXPECT_TRUE(opening.Open({}, *ct).ok());
  // The moved-from sender would otherwise be a second holder of the key and sequence number.
  EXPECT_DEATH((void)sender->context.Seal({}, AsBytes("m")), "moved-from");
  EXPECT_DEATH((void)sender->context.Export(AsBytes("x"), 32), "moved-from");
  EXPECT_DEATH((void)sender->context.sequence_number(), "moved-from");
  EXPECT_DEATH((void)opener->Open({}, *ct), "moved-from");
}

TEST(MovedFromDeathTest, AeadAndHmac) {
  for (AeadAlg alg : {AeadAlg::kAes256Gcm, AeadAlg::kChaCha20Poly1305}) {
    auto aead = Aead::Create(alg, RandomBytes(32));
    ASSERT_TRUE(aead.ok());
    Aead taken = std::move(*aead);
    const Bytes nonce(taken.nonce_size(), 0);
    EXPECT_TRUE(taken.Seal(nonce, {}, AsBytes("m")).ok());
    EXPECT_DEATH((void)aead->Seal(nonce, {}, AsBytes("m")), "moved-from");
  }
  auto gcm = AesGcm::Create(RandomBytes(16));
  ASSERT_TRUE(gcm.ok());
  AesGcm taken_gcm = std::move(*gcm);
  Bytes out(16 + 1);
  EXPECT_TRUE(taken_gcm.Seal(Bytes(12, 0), {}, AsBytes("m"), out).ok());
  EXPECT_DEATH((void)gcm->Seal(Bytes(12, 0), {}, AsBytes("m"), out), "moved-from");

  Hmac mac(HashAlg::kSha256, AsBytes("key"));
  Hmac taken_mac = std::move(mac);
  EXPECT_EQ(taken_mac.Mac(AsBytes("m")), HmacSha256(AsBytes("key"), AsBytes("m")));
  EXPECT_DEATH((void)mac.Mac(AsBytes("m")), "moved-from");
}

TEST(MovedFromDeathTest, ShamirShare) {
  auto shares = ShamirSplit(RandomSecret(16), 2, 3);
  ASSERT_TRUE(shares.ok());
  ShamirShare taken = std::move((*shares)[0]);
  EXPECT_FALSE(taken.Encode().empty());
  EXPECT_DEATH((void)(*shares)[0].Encode(), "moved-from");
  EXPECT_DEATH((void)ShamirCombine(*shares), "moved-from");
}

// NOLINTEND(bugprone-use-after-move)

}  // namespace
}  // namespace veil::crypto
