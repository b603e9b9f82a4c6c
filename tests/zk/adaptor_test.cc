// Adaptor signatures: pre-sign / pre-verify / adapt / extract round trips, tampering and wrong
// adaptor points rejected, a wrong t gives an invalid signature, strict decoding, nonce
// separation from ordinary signing, an atomic swap end to end, and a known-answer test.
#include "veil/zk/adaptor.h"

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "zk_test_util.h"

namespace veil::zk {
namespace {

using test::B;
using test::FlipBit;
using test::Hx;
using test::TestRng;

SchnorrSigningKey KeyFrom(TestRng& rng) {
  return std::move(SchnorrSigningKey::FromBytes(rng.Scalar().ToBytes())).value();
}

TEST(Adaptor, RoundTrip) {
  TestRng rng(30);
  for (int i = 0; i < 16; ++i) {
    const SchnorrSigningKey key = KeyFrom(rng);
    const ec::Scalar t = rng.Scalar();
    const ec::RistrettoPoint T = ec::BasepointMul(t);
    const Bytes msg = rng.Message(static_cast<std::size_t>(i * 5));
    const AdaptorPreSignature pre = AdaptorPreSign(key, msg, T);
    ASSERT_TRUE(AdaptorPreVerify(key.public_key(), msg, T, pre).ok());
    // The pre-signature is not a signature.
    auto as_sig = SchnorrSignature::Decode(pre.Encode());
    ASSERT_TRUE(as_sig.ok());
    EXPECT_EQ(SchnorrVerify(key.public_key(), msg, *as_sig), VerificationFailed());

    const SchnorrSignature sig = AdaptorAdapt(pre, t);
    EXPECT_TRUE(SchnorrVerify(key.public_key(), msg, sig).ok());
    EXPECT_TRUE(SchnorrVerify(key.public_key().Encode(), msg, sig.Encode()).ok());
    auto extracted = AdaptorExtract(sig, pre, T);
    ASSERT_TRUE(extracted.ok());
    EXPECT_TRUE(*extracted == t);

    // Wrong t: invalid signature, and extraction against the real T fails.
    const SchnorrSignature wrong = AdaptorAdapt(pre, t + ec::Scalar::One());
    EXPECT_EQ(SchnorrVerify(key.public_key(), msg, wrong), VerificationFailed());
    EXPECT_EQ(AdaptorExtract(wrong, pre, T).status(), VerificationFailed());
    // Extract against another T, or from an unrelated signature.
    EXPECT_EQ(AdaptorExtract(sig, pre, T + ec::RistrettoPoint::Generator()).status(),
              VerificationFailed());
    EXPECT_EQ(AdaptorExtract(key.Sign(msg), pre, T).status(), VerificationFailed());

    // Pre-verify with another T, message or key.
    EXPECT_EQ(AdaptorPreVerify(key.public_key(), msg, T + T, pre), VerificationFailed());
    Bytes other = msg;
    other.push_back(1);
    EXPECT_EQ(AdaptorPreVerify(key.public_key(), other, T, pre), VerificationFailed());
    EXPECT_EQ(AdaptorPreVerify(KeyFrom(rng).public_key(), msg, T, pre), VerificationFailed());
  }
}

TEST(Adaptor, EveryBitFlipOfAPreSignatureRejected) {
  TestRng rng(31);
  const SchnorrSigningKey key = KeyFrom(rng);
  const ec::RistrettoPoint T = ec::BasepointMul(rng.Scalar());
  const Bytes msg = B("swap leg 1");
  const auto enc = AdaptorPreSign(key, msg, T).Encode();
  for (std::size_t bit = 0; bit < 8 * enc.size(); ++bit) {
    auto pre = AdaptorPreSignature::Decode(FlipBit(enc, bit));
    if (!pre.ok()) {
      EXPECT_EQ(pre.status().code(), Code::kInvalidArgument);
      continue;
    }
    EXPECT_EQ(AdaptorPreVerify(key.public_key(), msg, T, *pre), VerificationFailed()) << bit;
  }
}

TEST(Adaptor, StrictDecoding) {
  TestRng rng(32);
  const SchnorrSigningKey key = KeyFrom(rng);
  const auto enc = AdaptorPreSign(key, B("m"), ec::BasepointMul(rng.Scalar())).Encode();
  auto back = AdaptorPreSignature::Decode(enc);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(Hx(back->Encode()), Hx(enc));
  Bytes longer(enc.begin(), enc.end());
  longer.push_back(0);
  EXPECT_EQ(AdaptorPreSignature::Decode(longer).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(AdaptorPreSignature::Decode(ByteView(enc).first(32)).status().code(),
            Code::kInvalidArgument);
  Bytes big_s(enc.begin(), enc.end());
  std::copy(ec::kGroupOrderBytes.begin(), ec::kGroupOrderBytes.end(), big_s.begin() + 32);
  EXPECT_EQ(AdaptorPreSignature::Decode(big_s).status().code(), Code::kInvalidArgument);
}

TEST(Adaptor, NoncesSeparated) {
  TestRng rng(33);
  const SchnorrSigningKey key = KeyFrom(rng);
  const Bytes msg = B("m");
  std::array<std::uint8_t, 32> zero{};
  const ec::RistrettoPoint T1 = ec::BasepointMul(rng.Scalar());
  const ec::RistrettoPoint T2 = ec::BasepointMul(rng.Scalar());
  // Same message and (broken, zero) randomness under two adaptor points: different nonces R'.
  const auto p1 = AdaptorPreSignWithRandomness(key, msg, T1, zero);
  const auto p2 = AdaptorPreSignWithRandomness(key, msg, T2, zero);
  EXPECT_FALSE(p1.R_prime() == p2.R_prime());
  // And different from the ordinary signature's nonce.
  const auto sig = key.SignWithRandomness(msg, zero);
  EXPECT_FALSE(p1.R_prime() == sig.R());
  // Deterministic for fixed randomness.
  EXPECT_EQ(Hx(AdaptorPreSignWithRandomness(key, msg, T1, zero).Encode()), Hx(p1.Encode()));
}

// The swap of docs/notes/sigma.md: Alice knows t; both pre-sign their payment under T; Alice
// completes Bob's payment to her, which publishes t; Bob extracts it and completes Alice's.
TEST(Adaptor, AtomicSwap) {
  TestRng rng(34);
  const SchnorrSigningKey alice = KeyFrom(rng), bob = KeyFrom(rng);
  const ec::Scalar t = rng.Scalar();
  const ec::RistrettoPoint T = ec::BasepointMul(t);
  const Bytes tx_a = B("chain A: alice pays bob 5 coins");
  const Bytes tx_b = B("chain B: bob pays alice 7 tokens");

  const AdaptorPreSignature pre_a = AdaptorPreSign(alice, tx_a, T);  // Alice -> Bob
  ASSERT_TRUE(AdaptorPreVerify(alice.public_key(), tx_a, T, pre_a).ok());
  const AdaptorPreSignature pre_b = AdaptorPreSign(bob, tx_b, T);  // Bob -> Alice
  ASSERT_TRUE(AdaptorPreVerify(bob.public_key(), tx_b, T, pre_b).ok());

  const SchnorrSignature sig_b = AdaptorAdapt(pre_b, t);  // Alice claims, publishing sig_b
  ASSERT_TRUE(SchnorrVerify(bob.public_key(), tx_b, sig_b).ok());
  auto learned = AdaptorExtract(sig_b, pre_b, T);  // Bob reads t off the chain
  ASSERT_TRUE(learned.ok());
  const SchnorrSignature sig_a = AdaptorAdapt(pre_a, *learned);
  EXPECT_TRUE(SchnorrVerify(alice.public_key(), tx_a, sig_a).ok());
}

TEST(Adaptor, KnownAnswer) {
  TestRng rng(35);
  const SchnorrSigningKey key = KeyFrom(rng);
  const ec::Scalar t = rng.Scalar();
  const auto randomness = rng.Bytes32();
  const Bytes msg = B("Veil adaptor known-answer test");
  const AdaptorPreSignature pre =
      AdaptorPreSignWithRandomness(key, msg, ec::BasepointMul(t), randomness);
  EXPECT_EQ(Hx(pre.Encode()),
            "be8f4f307069d932d019b71a6dea3a0a4fa9a31556474e0341964fd5c86bed46"
            "d06d9c84348d17a8930718718134cdbaf574b259b2a42650a2cd7a7a68b0b405");
  EXPECT_EQ(Hx(AdaptorAdapt(pre, t).Encode()),
            "042118c9341793b2f12e8d208560d23ae5b378013dce44ac68ef809d9d5dff03"
            "d1015a7d6aab14cb71a90383a7434855d163882457bb06d7c3c493686d685a0a");
}

}  // namespace
}  // namespace veil::zk
