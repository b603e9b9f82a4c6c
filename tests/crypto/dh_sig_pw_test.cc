// X25519, Ed25519, scrypt and Argon2id: published known answers and rejection of bad input.
#include <gtest/gtest.h>

#include "test_util.h"
#include "veil/crypto/ed25519.h"
#include "veil/crypto/pwhash.h"
#include "veil/crypto/random.h"
#include "veil/crypto/x25519.h"

namespace veil::crypto {
namespace {

using test::H;
using test::Hx;

// RFC 7748 section 6.1.
TEST(X25519, Rfc7748) {
  auto a = X25519SecretKey::CopyFrom(std::span<const std::uint8_t, 32>(
      H("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")));
  auto b = X25519SecretKey::CopyFrom(std::span<const std::uint8_t, 32>(
      H("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")));
  const X25519PublicKey pa = X25519PublicFromSecret(a);
  const X25519PublicKey pb = X25519PublicFromSecret(b);
  EXPECT_EQ(Hx(pa), "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
  EXPECT_EQ(Hx(pb), "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
  auto s1 = X25519(a, pb);
  auto s2 = X25519(b, pa);
  ASSERT_TRUE(s1.ok() && s2.ok());
  EXPECT_EQ(Hx(s1->Expose()), "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
  EXPECT_TRUE(s1->ConstantTimeEquals(*s2));
}

TEST(X25519, LowOrderPeerRejected) {
  X25519KeyPair kp = X25519Generate();
  X25519PublicKey zero{};
  EXPECT_EQ(X25519(kp.secret_key, zero).status().code(), Code::kInvalidArgument);
  X25519PublicKey one{};
  one[0] = 1;
  EXPECT_EQ(X25519(kp.secret_key, one).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(X25519PublicKeyFromBytes(Bytes(31)).status().code(), Code::kInvalidArgument);
}

// RFC 8032 section 7.1, test 1 (empty message).
TEST(Ed25519, Rfc8032Test1) {
  auto key = Ed25519SigningKey::FromSeedBytes(
      H("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"));
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(Hx(key->public_key()),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  const Ed25519Signature sig = key->Sign({});
  EXPECT_EQ(Hx(sig),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e3"
            "9701cf9b46bd25bf5f0595bbe24655141438e7a100b");
  EXPECT_TRUE(Ed25519Verify(key->public_key(), {}, sig).ok());
}

TEST(Ed25519, SoundnessEveryFlippedBitAndWrongMessage) {
  Ed25519SigningKey key = Ed25519SigningKey::Generate();
  const Bytes msg = test::B("transfer 10 to bob");
  const Ed25519Signature sig = key.Sign(msg);
  ASSERT_TRUE(Ed25519Verify(key.public_key(), msg, sig).ok());
  for (std::size_t i = 0; i < sig.size() * 8; ++i) {
    Ed25519Signature bad = sig;
    bad[i / 8] ^= static_cast<std::uint8_t>(1u << (i % 8));
    EXPECT_FALSE(Ed25519Verify(key.public_key(), msg, bad).ok()) << i;
  }
  EXPECT_EQ(Ed25519Verify(key.public_key(), test::B("transfer 11 to bob"), sig).code(),
            Code::kVerificationFailed);
  EXPECT_EQ(Ed25519Verify(Ed25519SigningKey::Generate().public_key(), msg, sig).code(),
            Code::kVerificationFailed);
}

TEST(Ed25519, NonCanonicalScalarRejected) {
  Ed25519SigningKey key = Ed25519SigningKey::Generate();
  const Bytes msg = test::B("m");
  Ed25519Signature sig = key.Sign(msg);
  // S + L encodes the same scalar mod L but is not canonical (RFC 8032 5.1.7 requires S < L).
  const Bytes l = H("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");
  unsigned carry = 0;
  for (std::size_t i = 0; i < 32; ++i) {
    const unsigned v = sig[32 + i] + l[i] + carry;
    sig[32 + i] = static_cast<std::uint8_t>(v);
    carry = v >> 8;
  }
  if (carry == 0) {
    EXPECT_EQ(Ed25519Verify(key.public_key(), msg, sig).code(), Code::kVerificationFailed);
  }
}

TEST(Ed25519, WrongLengthsAreInvalidArgument) {
  Ed25519SigningKey key = Ed25519SigningKey::Generate();
  EXPECT_EQ(Ed25519Verify(Bytes(31), {}, Bytes(64)).code(), Code::kInvalidArgument);
  EXPECT_EQ(Ed25519Verify(key.public_key(), {}, Bytes(63)).code(), Code::kInvalidArgument);
  EXPECT_EQ(Ed25519SigningKey::FromSeedBytes(Bytes(33)).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(key.seed().ConstantTimeEquals(Ed25519SigningKey::FromSeed(key.seed()).seed()));
}

// RFC 7914 section 12.
TEST(Scrypt, Rfc7914) {
  auto a = Scrypt({}, {}, {16, 1, 1}, 64);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(Hx(a->Expose()),
            "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a7"
            "53a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906");
  auto b = Scrypt(AsBytes("password"), AsBytes("NaCl"), {1024, 8, 16}, 64);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(Hx(b->Expose()),
            "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff10"
            "9279d9830dac727afb94a83ee6d8360cbdfa2cc0640");
}

TEST(Scrypt, BadParameters) {
  EXPECT_EQ(Scrypt({}, {}, {1000, 8, 1}, 32).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Scrypt({}, {}, {1, 8, 1}, 32).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Scrypt({}, {}, {16, 0, 1}, 32).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Scrypt({}, {}, {16, 1, 1}, 0).status().code(), Code::kInvalidArgument);
}

TEST(Argon2id, DeterministicAndSaltBound) {
  const Argon2idParams p{1, 64};
  const Bytes salt(16, 7);
  auto a = Argon2id(AsBytes("pw"), salt, p, 32);
  auto b = Argon2id(AsBytes("pw"), salt, p, 32);
  auto c = Argon2id(AsBytes("pw"), Bytes(16, 8), p, 32);
  auto d = Argon2id(AsBytes("pX"), salt, p, 32);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok() && d.ok());
  EXPECT_TRUE(a->ConstantTimeEquals(*b));
  EXPECT_FALSE(a->ConstantTimeEquals(*c));
  EXPECT_FALSE(a->ConstantTimeEquals(*d));
  EXPECT_EQ(Argon2id({}, Bytes(15), p, 32).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Argon2id({}, salt, {0, 64}, 32).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Argon2id({}, salt, {1, 4}, 32).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Argon2id({}, salt, p, 8).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace veil::crypto
