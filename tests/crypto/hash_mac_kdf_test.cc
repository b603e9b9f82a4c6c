// SHA-2, HMAC and HKDF: published known answers, incremental use, limits.
#include <gtest/gtest.h>

#include "test_util.h"
#include "veil/crypto/hash.h"
#include "veil/crypto/kdf.h"
#include "veil/crypto/mac.h"
#include "veil/crypto/random.h"

namespace veil::crypto {
namespace {

using test::H;
using test::Hx;

// FIPS 180-4 example "abc" (NIST CSRC SHA examples).
TEST(Sha2, KnownAnswersAbc) {
  EXPECT_EQ(Hx(Sha256(AsBytes("abc"))),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Hx(Hash(HashAlg::kSha384, AsBytes("abc"))),
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358bae"
            "ca134c825a7");
  EXPECT_EQ(Hx(Sha512(AsBytes("abc"))),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c"
            "23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
}

TEST(Sha2, IncrementalEqualsOneShot) {
  for (HashAlg alg : {HashAlg::kSha256, HashAlg::kSha384, HashAlg::kSha512}) {
    Bytes msg = RandomBytes(1000);
    for (std::size_t split : {0u, 1u, 63u, 64u, 65u, 500u, 1000u}) {
      Sha2 h(alg);
      h.Update(ByteView(msg).first(split)).Update(ByteView(msg).subspan(split));
      EXPECT_EQ(h.Final(), Hash(alg, msg));
    }
    Sha2 h(alg);
    h.Update(AsBytes("garbage"));
    h.Reset();
    EXPECT_EQ(h.Update(msg).Final(), Hash(alg, msg));
  }
}

// Final finishes the object: going on without Reset would hash from OpenSSL's cleared state.
TEST(Sha2DeathTest, UseAfterFinalWithoutResetAborts) {
  Sha2 h(HashAlg::kSha256);
  h.Update(AsBytes("m"));
  const Bytes d = h.Final();
  EXPECT_DEATH((void)h.Final(), "call Reset first");
  EXPECT_DEATH((void)h.Update(AsBytes("m")), "call Reset first");
  h.Reset();
  EXPECT_EQ(h.Update(AsBytes("m")).Final(), d);
  Sha2 taken = std::move(h);
  EXPECT_DEATH(h.Reset(), "moved-from");  // NOLINT(bugprone-use-after-move)
}

// RFC 4231 test case 1 and 2.
TEST(Hmac, Rfc4231) {
  const Bytes key(20, 0x0b);
  EXPECT_EQ(Hx(HmacSha256(key, AsBytes("Hi There"))),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(Hx(HmacSha512(key, AsBytes("Hi There"))),
            "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b2"
            "74eaea3f4e4be9d914eeb61f1702e696c203a126854");
  EXPECT_EQ(Hx(HmacSha256(AsBytes("Jefe"), AsBytes("what do ya want for nothing?"))),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Hmac, ReuseKeyAndVerify) {
  Hmac mac(HashAlg::kSha256, AsBytes("key"));
  Bytes t1 = mac.Mac(AsBytes("one"));
  Bytes t2 = mac.Mac(AsBytes("two"));
  EXPECT_EQ(t1, HmacSha256(AsBytes("key"), AsBytes("one")));
  EXPECT_EQ(t2, HmacSha256(AsBytes("key"), AsBytes("two")));
  EXPECT_TRUE(mac.Verify(AsBytes("one"), t1).ok());
  EXPECT_TRUE(mac.Verify(AsBytes("two"), t2).ok());
  t1[31] ^= 1;
  EXPECT_EQ(mac.Verify(AsBytes("one"), t1).code(), Code::kVerificationFailed);
  EXPECT_EQ(HmacSha256({}, {}).size(), 32u);
}

// A full-length check refuses every shorter tag, even a correct prefix: a protocol that sends
// 32-byte tags must not accept a 16-byte one.
TEST(Hmac, VerifyWantsTheFullTag) {
  Hmac mac(HashAlg::kSha512, AsBytes("key"));
  const Bytes tag = mac.Mac(AsBytes("m"));
  ASSERT_EQ(tag.size(), 64u);
  for (std::size_t len : {0u, 15u, 16u, 32u, 63u}) {
    EXPECT_EQ(mac.Verify(AsBytes("m"), ByteView(tag).first(len)).code(), Code::kVerificationFailed)
        << len;
  }
  Bytes longer = tag;
  longer.push_back(0);
  EXPECT_EQ(mac.Verify(AsBytes("m"), longer).code(), Code::kVerificationFailed);
  EXPECT_TRUE(mac.Verify(AsBytes("m"), tag).ok());
}

// A truncated check takes exactly the length the caller states, nothing shorter or longer.
TEST(Hmac, VerifyTruncatedTakesOnlyTheStatedLength) {
  Hmac mac(HashAlg::kSha256, AsBytes("key"));
  const Bytes tag = mac.Mac(AsBytes("m"));
  const ByteView t16 = ByteView(tag).first(16), t20 = ByteView(tag).first(20);
  EXPECT_TRUE(mac.VerifyTruncated(AsBytes("m"), t16, 16).ok());
  EXPECT_TRUE(mac.VerifyTruncated(AsBytes("m"), t20, 20).ok());
  EXPECT_TRUE(mac.VerifyTruncated(AsBytes("m"), tag, 32).ok());
  EXPECT_EQ(mac.VerifyTruncated(AsBytes("m"), t16, 20).code(), Code::kVerificationFailed);
  EXPECT_EQ(mac.VerifyTruncated(AsBytes("m"), t20, 16).code(), Code::kVerificationFailed);
  EXPECT_EQ(mac.VerifyTruncated(AsBytes("m"), tag, 16).code(), Code::kVerificationFailed);
  Bytes bad(t16.begin(), t16.end());
  bad[15] ^= 1;
  EXPECT_EQ(mac.VerifyTruncated(AsBytes("m"), bad, 16).code(), Code::kVerificationFailed);
  EXPECT_EQ(mac.VerifyTruncated(AsBytes("x"), t16, 16).code(), Code::kVerificationFailed);
}

TEST(HmacDeathTest, VerifyTruncatedRefusesLengthsOutsideTheRange) {
  Hmac mac(HashAlg::kSha256, AsBytes("key"));
  const Bytes tag = mac.Mac(AsBytes("m"));
  EXPECT_DEATH((void)mac.VerifyTruncated(AsBytes("m"), ByteView(tag).first(15), 15), "16 bytes");
  EXPECT_DEATH((void)mac.VerifyTruncated(AsBytes("m"), tag, 33), "16 bytes");
}

// RFC 5869 test cases 1 and 3.
TEST(Hkdf, Rfc5869) {
  const Bytes ikm(22, 0x0b);
  const Bytes salt = H("000102030405060708090a0b0c");
  const Bytes info = H("f0f1f2f3f4f5f6f7f8f9");
  SecretBytes prk = HkdfExtract(HashAlg::kSha256, salt, ikm);
  EXPECT_EQ(Hx(prk.Expose()), "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5");
  auto okm = HkdfExpand(HashAlg::kSha256, prk.Expose(), info, 42);
  ASSERT_TRUE(okm.ok());
  EXPECT_EQ(Hx(okm->Expose()),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
  auto okm3 = Hkdf(HashAlg::kSha256, {}, ikm, {}, 42);
  ASSERT_TRUE(okm3.ok());
  EXPECT_EQ(Hx(okm3->Expose()),
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8");
}

TEST(Hkdf, LengthLimits) {
  const Bytes prk(32, 1);
  EXPECT_TRUE(HkdfExpand(HashAlg::kSha256, prk, {}, 255 * 32).ok());
  EXPECT_EQ(HkdfExpand(HashAlg::kSha256, prk, {}, 255 * 32 + 1).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(HkdfExpand(HashAlg::kSha256, prk, {}, 0).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(HkdfExpand(HashAlg::kSha512, prk, {}, 64).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(HkdfExpand(HashAlg::kSha512, Bytes(64, 1), {}, 255 * 64).ok());
}

}  // namespace
}  // namespace veil::crypto
