// Schnorr signatures: completeness over random keys and messages, every single-bit change of a
// signature rejected, wrong key and message rejected, strict decoding of keys and signatures, the
// nonce hedging (deterministic for given randomness, randomised otherwise), batch verification,
// key wiping, and a known-answer test checked against libsodium's group arithmetic.
#include "veil/zk/schnorr.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <array>
#include <set>
#include <string>
#include <vector>

#include "veil/zk/transcript.h"
#include "zk_test_util.h"

namespace veil::zk {
namespace {

using test::B;
using test::FlipBit;
using test::H;
using test::Hx;
using test::TestRng;

SchnorrSigningKey KeyFrom(TestRng& rng) {
  auto key = SchnorrSigningKey::FromBytes(rng.Scalar().ToBytes());
  EXPECT_TRUE(key.ok());
  return std::move(key).value();
}

TEST(Schnorr, SignVerifyRandom) {
  TestRng rng(20);
  for (int i = 0; i < 32; ++i) {
    const SchnorrSigningKey key = i % 2 == 0 ? SchnorrSigningKey::Generate() : KeyFrom(rng);
    const Bytes msg = rng.Message(static_cast<std::size_t>(i * 7));
    const SchnorrSignature sig = key.Sign(msg);
    EXPECT_TRUE(SchnorrVerify(key.public_key(), msg, sig).ok());
    const auto enc = sig.Encode();
    EXPECT_TRUE(SchnorrVerify(key.public_key().Encode(), msg, enc).ok());
    // Other message, other key.
    Bytes other = msg;
    other.push_back(0);
    EXPECT_EQ(SchnorrVerify(key.public_key(), other, sig), VerificationFailed());
    const SchnorrSigningKey key2 = SchnorrSigningKey::Generate();
    EXPECT_EQ(SchnorrVerify(key2.public_key(), msg, sig), VerificationFailed());
  }
}

TEST(Schnorr, EveryBitFlipRejected) {
  TestRng rng(21);
  for (int round = 0; round < 2; ++round) {
    const SchnorrSigningKey key = KeyFrom(rng);
    const Bytes msg = B("pay 10 to bob");
    const auto sig = key.Sign(msg).Encode();
    for (std::size_t bit = 0; bit < 8 * sig.size(); ++bit) {
      const Status s = SchnorrVerify(key.public_key().Encode(), msg, FlipBit(sig, bit));
      EXPECT_TRUE(s.code() == Code::kInvalidArgument || s.code() == Code::kVerificationFailed)
          << bit;
      EXPECT_FALSE(s.ok()) << bit;
    }
    // And of the public key and message.
    const auto pk = key.public_key().Encode();
    for (std::size_t bit = 0; bit < 8 * pk.size(); ++bit) {
      EXPECT_FALSE(SchnorrVerify(FlipBit(pk, bit), msg, sig).ok()) << bit;
    }
    for (std::size_t bit = 0; bit < 8 * msg.size(); ++bit) {
      EXPECT_FALSE(SchnorrVerify(pk, FlipBit(msg, bit), sig).ok()) << bit;
    }
  }
}

TEST(Schnorr, StrictDecoding) {
  TestRng rng(22);
  const SchnorrSigningKey key = KeyFrom(rng);
  const auto sig = key.Sign(B("m")).Encode();
  ASSERT_TRUE(SchnorrSignature::Decode(sig).ok());
  Bytes longer(sig.begin(), sig.end());
  longer.push_back(0);
  EXPECT_EQ(SchnorrSignature::Decode(longer).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(SchnorrSignature::Decode(ByteView(sig).first(63)).status().code(),
            Code::kInvalidArgument);
  // s >= l: l itself and all ones.
  Bytes big_s(sig.begin(), sig.end());
  std::copy(ec::kGroupOrderBytes.begin(), ec::kGroupOrderBytes.end(), big_s.begin() + 32);
  EXPECT_EQ(SchnorrSignature::Decode(big_s).status().code(), Code::kInvalidArgument);
  std::fill(big_s.begin() + 32, big_s.end(), 0xff);
  EXPECT_EQ(SchnorrSignature::Decode(big_s).status().code(), Code::kInvalidArgument);
  // R not canonical.
  Bytes bad_r(sig.begin(), sig.end());
  const Bytes p_bytes = H("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
  std::copy(p_bytes.begin(), p_bytes.end(), bad_r.begin());
  EXPECT_EQ(SchnorrSignature::Decode(bad_r).status().code(), Code::kInvalidArgument);

  // Public keys: the identity and non-canonical encodings are rejected.
  EXPECT_EQ(SchnorrPublicKey::Decode(Bytes(32, 0)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(SchnorrPublicKey::Decode(p_bytes).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(SchnorrPublicKey::Decode(Bytes(31, 1)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(SchnorrPublicKey::FromPoint(ec::RistrettoPoint()).status().code(),
            Code::kInvalidArgument);
  auto pk = SchnorrPublicKey::Decode(key.public_key().Encode());
  ASSERT_TRUE(pk.ok());
  EXPECT_TRUE(*pk == key.public_key());

  // Secret keys: zero, >= l, wrong length.
  EXPECT_EQ(SchnorrSigningKey::FromBytes(Bytes(32, 0)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(SchnorrSigningKey::FromBytes(ec::kGroupOrderBytes).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(SchnorrSigningKey::FromBytes(Bytes(33, 1)).status().code(), Code::kInvalidArgument);
  const auto sk = key.ToBytes();
  auto again = SchnorrSigningKey::FromBytes(sk.Expose());
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->public_key() == key.public_key());
}

TEST(Schnorr, NonceHedging) {
  TestRng rng(23);
  const SchnorrSigningKey key = KeyFrom(rng);
  const Bytes msg = B("message");
  std::array<std::uint8_t, 32> zero{}, one{};
  one[0] = 1;
  const auto a = key.SignWithRandomness(msg, zero).Encode();
  const auto b = key.SignWithRandomness(msg, zero).Encode();
  const auto c = key.SignWithRandomness(msg, one).Encode();
  EXPECT_EQ(Hx(a), Hx(b));  // deterministic for given randomness
  EXPECT_NE(Hx(a), Hx(c));
  // With zero randomness the nonce still differs between messages and between keys.
  const auto d = key.SignWithRandomness(B("message2"), zero).Encode();
  EXPECT_NE(Hx(ByteView(a).first(32)), Hx(ByteView(d).first(32)));
  const SchnorrSigningKey key2 = KeyFrom(rng);
  const auto e = key2.SignWithRandomness(msg, zero).Encode();
  EXPECT_NE(Hx(ByteView(a).first(32)), Hx(ByteView(e).first(32)));
  // Fresh randomness: every signature differs, all verify.
  std::set<std::string> seen;
  for (int i = 0; i < 8; ++i) {
    const auto sig = key.Sign(msg);
    EXPECT_TRUE(SchnorrVerify(key.public_key(), msg, sig).ok());
    seen.insert(Hx(sig.Encode()));
  }
  EXPECT_EQ(seen.size(), 8u);
}

TEST(Schnorr, BatchVerification) {
  TestRng rng(24);
  std::vector<SchnorrSigningKey> keys;
  for (int i = 0; i < 8; ++i) keys.push_back(KeyFrom(rng));
  std::vector<Bytes> msgs;
  std::vector<SchnorrSignature> sigs;
  for (int i = 0; i < 64; ++i) {
    msgs.push_back(rng.Message(static_cast<std::size_t>(i)));
    sigs.push_back(keys[static_cast<std::size_t>(i) % keys.size()].Sign(msgs.back()));
  }
  auto items = [&]() {
    std::vector<SchnorrBatchItem> out;
    for (std::size_t i = 0; i < sigs.size(); ++i) {
      out.push_back({&keys[i % keys.size()].public_key(), msgs[i], &sigs[i]});
    }
    return out;
  };
  EXPECT_TRUE(SchnorrBatchVerify(items()).ok());
  EXPECT_TRUE(SchnorrBatchVerify({}).ok());
  for (std::size_t bad : {0u, 17u, 63u}) {
    // Wrong message.
    auto v = items();
    const Bytes other = B("other");
    v[bad].message = other;
    EXPECT_EQ(SchnorrBatchVerify(v), VerificationFailed()) << bad;
    // Wrong key.
    v = items();
    v[bad].public_key = &keys[(bad + 1) % keys.size()].public_key();
    EXPECT_EQ(SchnorrBatchVerify(v), VerificationFailed()) << bad;
    // A signature with s changed by one (decodes fine).
    auto enc = sigs[bad].Encode();
    enc[32] ^= 1;
    auto tampered = SchnorrSignature::Decode(enc);
    ASSERT_TRUE(tampered.ok());
    v = items();
    v[bad].signature = &*tampered;
    EXPECT_EQ(SchnorrBatchVerify(v), VerificationFailed()) << bad;
  }
  auto v = items();
  v[3].signature = nullptr;
  EXPECT_EQ(SchnorrBatchVerify(v).code(), Code::kInvalidArgument);
}

TEST(Schnorr, KeysWipeWhenMoved) {
  TestRng rng(25);
  SchnorrSigningKey key = KeyFrom(rng);
  SchnorrSigningKey moved = std::move(key);
  EXPECT_TRUE(key.ExposeSecretScalar().IsZero());  // NOLINT(bugprone-use-after-move)
  EXPECT_FALSE(moved.ExposeSecretScalar().IsZero());
  SchnorrSigningKey clone = moved.Clone();
  EXPECT_TRUE(clone.ExposeSecretScalar() == moved.ExposeSecretScalar());
}

// Fixed key, message and randomness: the frozen bytes pin the encoding, and libsodium's group
// arithmetic checks s B = R + c A with c recomputed from the documented transcript frames.
TEST(Schnorr, KnownAnswer) {
  ASSERT_GE(sodium_init(), 0);
  TestRng rng(26);
  const SchnorrSigningKey key = KeyFrom(rng);
  const auto randomness = rng.Bytes32();
  const Bytes msg = B("Veil Schnorr known-answer test");
  const auto sig = key.SignWithRandomness(msg, randomness).Encode();
  EXPECT_EQ(Hx(key.public_key().Encode()),
            "fca5845a2135338acf97a8430239e69d6ff6ade61204b4e1a96fc8755f3bf408");
  EXPECT_EQ(Hx(sig),
            "1a384fba435c0a89a8f1bf5dffd3cba04e1c44ea468a3612f2fe109691c5f01b"
            "87b7a2fd6934507356d324c2beb50eab13ca3ecab9cd7039bec2a5d88aa49009");

  Transcript t(kSchnorrProtocol, kSchnorrVersion);
  t.AppendPoint("A", key.public_key().encoding());
  t.AppendMessage("message", msg);
  t.AppendPoint(
      "R", ec::CompressedRistretto(*ec::CompressedRistretto::FromBytes(ByteView(sig).first(32))));
  const auto c = t.ChallengeScalar("c").ToBytes();
  std::array<std::uint8_t, 32> sb{}, ca{}, rhs{};
  ASSERT_EQ(crypto_scalarmult_ristretto255_base(sb.data(), sig.data() + 32), 0);
  ASSERT_EQ(crypto_scalarmult_ristretto255(ca.data(), c.data(), key.public_key().Encode().data()),
            0);
  ASSERT_EQ(crypto_core_ristretto255_add(rhs.data(), sig.data(), ca.data()), 0);
  EXPECT_EQ(Hx(sb), Hx(rhs));
}

}  // namespace
}  // namespace veil::zk
