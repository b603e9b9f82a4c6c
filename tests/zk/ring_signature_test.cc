// Triptych ring signatures: keys and key images (J = r^{-1} U, the same public key as a Schnorr
// key from the same secret); completeness for rings of 8 (every position), 64, 100 and 512;
// linkability; soundness against every single-bit change of a signature over 8 keys and one
// random bit per byte over 64, another message, ring, member order or key image, and a signer
// outside the ring; strict decoding of signatures, key images, keys and rings; batch
// verification.
#include "veil/zk/ring_signature.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <utility>
#include <vector>

#include "veil/zk/schnorr.h"
#include "zk_test_util.h"

namespace veil::zk {
namespace {

using test::B;
using test::FlipBit;
using test::H;
using test::Hx;
using test::TestRng;

const Bytes kMessage = B("transfer 10 to bob");

RingSigningKey KeyFrom(TestRng& rng) {
  auto k = RingSigningKey::FromBytes(rng.Scalar().ToBytes());
  EXPECT_TRUE(k.ok());
  return std::move(k).value();
}

// N random public keys with the signer's at position l.
Ring MakeRing(TestRng& rng, const RingSigningKey& signer, std::size_t N, std::size_t l,
              std::size_t base = 0) {
  std::vector<ec::RistrettoPoint> keys;
  for (std::size_t k = 0; k < N; ++k) keys.push_back(rng.Point());
  keys[l] = signer.public_key();
  auto ring = Ring::FromPoints(keys, base);
  EXPECT_TRUE(ring.ok()) << ring.status().ToString();
  return std::move(ring).value();
}

Ring RingOf(const std::vector<ec::RistrettoPoint>& keys) {
  auto ring = Ring::FromPoints(keys);
  EXPECT_TRUE(ring.ok());
  return std::move(ring).value();
}

RingSignature Sign(const RingSigningKey& key, const Ring& ring, ByteView message = kMessage) {
  auto sig = RingSign(key, ring, message);
  EXPECT_TRUE(sig.ok()) << sig.status().ToString();
  return std::move(sig).value();
}

void ExpectComplete(const RingSigningKey& key, const Ring& ring) {
  const RingSignature sig = Sign(key, ring);
  const Bytes enc = sig.Encode();
  EXPECT_EQ(enc.size(), RingSignatureSize(ring.params()));
  auto decoded = RingSignature::Decode(enc, ring.params());
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(Hx(decoded->Encode()), Hx(enc));
  EXPECT_TRUE(RingVerify(ring, kMessage, *decoded).ok()) << "N " << ring.size();
  EXPECT_TRUE(decoded->key_image() == key.key_image());
}

TEST(RingSignature, KeysAndKeyImages) {
  TestRng rng(30);
  const RingSigningKey key = KeyFrom(rng);
  // r J = U.
  const auto r = ec::Scalar::FromCanonical(key.ToBytes().Expose());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(*r * key.key_image().point() == KeyImageGenerator());
  EXPECT_TRUE(KeyImageGenerator() ==
              ec::RistrettoPoint::HashToGroup(AsBytes("U"), AsBytes(kKeyImageDst)));
  // The same secret makes the same public key as a Schnorr key.
  auto schnorr = SchnorrSigningKey::FromBytes(key.ToBytes().Expose());
  ASSERT_TRUE(schnorr.ok());
  EXPECT_TRUE(schnorr->public_key().point() == key.public_key());
  EXPECT_TRUE(key.public_key_encoding() == key.public_key().Encode());

  auto again = RingSigningKey::FromBytes(key.ToBytes().Expose());
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->key_image() == key.key_image());
  EXPECT_FALSE(RingSigningKey::Generate().key_image() == key.key_image());

  EXPECT_EQ(RingSigningKey::FromBytes(Bytes(32, 0)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(RingSigningKey::FromBytes(ec::kGroupOrderBytes).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(RingSigningKey::FromBytes(Bytes(31, 1)).status().code(), Code::kInvalidArgument);

  auto j = KeyImage::Decode(key.key_image().Encode());
  ASSERT_TRUE(j.ok());
  EXPECT_TRUE(*j == key.key_image());
  EXPECT_EQ(KeyImage::Decode(Bytes(32, 0)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(KeyImage::Decode(Bytes(33, 0)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(KeyImage::Decode(H("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"))
                .status()
                .code(),
            Code::kInvalidArgument);

  // Moving a key wipes the source.
  RingSigningKey moved = KeyFrom(rng);
  const RingSigningKey target = std::move(moved);
  EXPECT_TRUE(ec::Scalar::FromCanonical(moved.ToBytes().Expose())->IsZero());  // NOLINT
}

TEST(RingSignature, ParametersAndSizes) {
  const struct {
    std::size_t N, n, m, bytes;
  } kChoices[] = {{8, 3, 2, 512}, {64, 8, 2, 832}, {100, 10, 2, 960}, {512, 8, 3, 1120}};
  for (const auto& c : kChoices) {
    auto p = DefaultRingParams(c.N);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->n, c.n) << c.N;
    EXPECT_EQ(p->m, c.m) << c.N;
    EXPECT_EQ(RingSignatureSize(*p), c.bytes) << c.N;
  }
  EXPECT_LE(RingSignatureSize(*DefaultRingParams(64)), 1200u);
  EXPECT_EQ(DefaultRingParams(0).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(DefaultRingParams(4097).status().code(), Code::kInvalidArgument);
}

TEST(RingSignature, CompletenessEveryPositionRing8) {
  TestRng rng(31);
  const RingSigningKey key = KeyFrom(rng);
  for (std::size_t l = 0; l < 8; ++l) ExpectComplete(key, MakeRing(rng, key, 8, l));
  // Base 2 (three digits) and base 8 (one digit) for the same size.
  ExpectComplete(key, MakeRing(rng, key, 8, 6, 2));
  ExpectComplete(key, MakeRing(rng, key, 8, 7, 8));
}

TEST(RingSignature, CompletenessLargerRings) {
  TestRng rng(32);
  const RingSigningKey key = KeyFrom(rng);
  for (std::size_t N : std::initializer_list<std::size_t>{64, 100}) {
    for (std::size_t l : {std::size_t{0}, N - 1, N / 2 + 3}) {
      ExpectComplete(key, MakeRing(rng, key, N, l));
    }
  }
  ExpectComplete(key, MakeRing(rng, key, 512, 300));
}

TEST(RingSignature, Linkability) {
  TestRng rng(33);
  const RingSigningKey alice = KeyFrom(rng), bob = KeyFrom(rng);
  // Alice signs twice, in different rings, different messages: linked.
  const Ring r1 = MakeRing(rng, alice, 8, 1);
  const Ring r2 = MakeRing(rng, alice, 16, 9);
  const RingSignature a1 = Sign(alice, r1, B("first"));
  const RingSignature a2 = Sign(alice, r2, B("second"));
  ASSERT_TRUE(RingVerify(r1, B("first"), a1).ok());
  ASSERT_TRUE(RingVerify(r2, B("second"), a2).ok());
  EXPECT_TRUE(Linked(a1, a2));
  EXPECT_TRUE(a1.key_image() == alice.key_image());
  // Bob in the same ring as Alice: not linked to her.
  std::vector<ec::RistrettoPoint> keys = {alice.public_key(), bob.public_key(), rng.Point()};
  const Ring shared = RingOf(keys);
  const RingSignature b1 = Sign(bob, shared, B("first"));
  const RingSignature a3 = Sign(alice, shared, B("first"));
  EXPECT_TRUE(RingVerify(shared, B("first"), b1).ok());
  EXPECT_TRUE(RingVerify(shared, B("first"), a3).ok());
  EXPECT_FALSE(Linked(a3, b1));
  EXPECT_TRUE(Linked(a3, a1));
}

TEST(RingSignature, Soundness) {
  TestRng rng(34);
  const RingSigningKey key = KeyFrom(rng), other = KeyFrom(rng);
  std::vector<ec::RistrettoPoint> keys;
  for (int k = 0; k < 64; ++k) keys.push_back(rng.Point());
  keys[20] = key.public_key();
  keys[21] = other.public_key();
  const Ring ring = RingOf(keys);
  const RingSignature sig = Sign(key, ring);
  ASSERT_TRUE(RingVerify(ring, kMessage, sig).ok());

  // Another message.
  EXPECT_EQ(RingVerify(ring, B("transfer 11 to bob"), sig), VerificationFailed());
  EXPECT_EQ(RingVerify(ring, {}, sig), VerificationFailed());
  // Another ring: a decoy replaced, the signer replaced, two members swapped (order is bound).
  std::vector<ec::RistrettoPoint> changed = keys;
  changed[5] = rng.Point();
  EXPECT_EQ(RingVerify(RingOf(changed), kMessage, sig), VerificationFailed());
  std::vector<ec::RistrettoPoint> no_signer = keys;
  no_signer[20] = rng.Point();
  EXPECT_EQ(RingVerify(RingOf(no_signer), kMessage, sig), VerificationFailed());
  std::vector<ec::RistrettoPoint> swapped = keys;
  std::swap(swapped[20], swapped[21]);
  EXPECT_EQ(RingVerify(RingOf(swapped), kMessage, sig), VerificationFailed());
  std::vector<ec::RistrettoPoint> decoys_swapped = keys;
  std::swap(decoys_swapped[0], decoys_swapped[63]);
  EXPECT_EQ(RingVerify(RingOf(decoys_swapped), kMessage, sig), VerificationFailed());
  // Another ring size or base: a parameter mismatch.
  std::vector<ec::RistrettoPoint> longer = keys;
  longer.push_back(rng.Point());
  EXPECT_EQ(RingVerify(RingOf(longer), kMessage, sig).code(), Code::kInvalidArgument);
  EXPECT_EQ(RingVerify(*Ring::FromPoints(keys, 2), kMessage, sig).code(), Code::kInvalidArgument);

  // Another key image in the encoding: another member's, a random point, the signer's negated.
  const Bytes enc = sig.Encode();
  for (const ec::RistrettoPoint& j :
       {other.key_image().point(), rng.Point(), -key.key_image().point()}) {
    Bytes bad = enc;
    const auto jb = j.Encode().bytes();
    std::copy(jb.begin(), jb.end(), bad.begin());
    auto decoded = RingSignature::Decode(bad, ring.params());
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(RingVerify(ring, kMessage, *decoded), VerificationFailed());
  }

  // A signer outside the ring cannot sign.
  const RingSigningKey outsider = KeyFrom(rng);
  EXPECT_EQ(RingSign(outsider, ring, kMessage).status().code(), Code::kInvalidArgument);
  // A signature by `other` does not verify under a ring without other's key.
  const RingSignature by_other = Sign(other, ring);
  EXPECT_TRUE(RingVerify(ring, kMessage, by_other).ok());
  std::vector<ec::RistrettoPoint> without_other = keys;
  without_other[21] = rng.Point();
  EXPECT_EQ(RingVerify(RingOf(without_other), kMessage, by_other), VerificationFailed());
}

void ExpectBitFlipsRejected(const Ring& ring, const Bytes& enc,
                            const std::vector<std::size_t>& bits) {
  std::size_t decoded = 0;
  for (std::size_t bit : bits) {
    auto sig = RingSignature::Decode(FlipBit(enc, bit), ring.params());
    if (!sig.ok()) {
      EXPECT_EQ(sig.status().code(), Code::kInvalidArgument);
      continue;
    }
    ++decoded;
    EXPECT_EQ(RingVerify(ring, kMessage, *sig), VerificationFailed()) << "bit " << bit;
  }
  EXPECT_GT(decoded, bits.size() / 2);
}

TEST(RingSignature, EveryBitFlipRejectedRing8) {
  TestRng rng(35);
  const RingSigningKey key = KeyFrom(rng);
  const Ring ring = MakeRing(rng, key, 8, 3);
  const Bytes enc = Sign(key, ring).Encode();
  std::vector<std::size_t> bits(8 * enc.size());
  for (std::size_t b = 0; b < bits.size(); ++b) bits[b] = b;
  ExpectBitFlipsRejected(ring, enc, bits);
}

TEST(RingSignature, SampledBitFlipsRejectedRing64) {
  TestRng rng(36);
  const RingSigningKey key = KeyFrom(rng);
  const Ring ring = MakeRing(rng, key, 64, 0);
  const Bytes enc = Sign(key, ring).Encode();
  std::vector<std::size_t> bits;
  for (std::size_t byte = 0; byte < enc.size(); ++byte) {
    bits.push_back(8 * byte + (rng.Bytes32()[0] & 7));
  }
  ExpectBitFlipsRejected(ring, enc, bits);
}

TEST(RingSignature, StrictDecoding) {
  TestRng rng(37);
  const RingSigningKey key = KeyFrom(rng);
  const Ring ring = MakeRing(rng, key, 8, 4);
  const OneOfManyParams& p = ring.params();
  const Bytes enc = Sign(key, ring).Encode();
  ASSERT_TRUE(RingSignature::Decode(enc, p).ok());

  Bytes longer = enc;
  longer.push_back(0);
  EXPECT_EQ(RingSignature::Decode(longer, p).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(RingSignature::Decode(ByteView(enc).first(enc.size() - 1), p).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(RingSignature::Decode({}, p).status().code(), Code::kInvalidArgument);
  OneOfManyParams bad = p;
  bad.n += 1;
  EXPECT_EQ(RingSignature::Decode(Bytes(RingSignatureSize(bad), 0), bad).status().code(),
            Code::kInvalidArgument);

  // The identity as key image.
  Bytes identity_j = enc;
  std::fill(identity_j.begin(), identity_j.begin() + 32, 0);
  EXPECT_EQ(RingSignature::Decode(identity_j, p).status().code(), Code::kInvalidArgument);
  // A non-canonical point in each point slot; a scalar >= l in each scalar slot.
  const Bytes p_bytes = H("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
  const std::size_t points = 2 * p.m + 5;
  for (std::size_t slot = 0; slot < enc.size() / 32; ++slot) {
    Bytes b = enc;
    if (slot < points) {
      std::copy(p_bytes.begin(), p_bytes.end(), b.begin() + static_cast<std::ptrdiff_t>(32 * slot));
    } else {
      std::copy(ec::kGroupOrderBytes.begin(), ec::kGroupOrderBytes.end(),
                b.begin() + static_cast<std::ptrdiff_t>(32 * slot));
    }
    EXPECT_EQ(RingSignature::Decode(b, p).status().code(), Code::kInvalidArgument) << slot;
  }
}

TEST(RingSignature, Rings) {
  TestRng rng(38);
  const RingSigningKey key = KeyFrom(rng);
  const Ring ring = MakeRing(rng, key, 10, 9);
  auto decoded = Ring::Decode(ring.encodings());
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(Hx(decoded->digest()), Hx(ring.digest()));
  EXPECT_TRUE(RingVerify(*decoded, kMessage, Sign(key, ring)).ok());

  EXPECT_EQ(Ring::FromPoints({}).status().code(), Code::kInvalidArgument);
  std::vector<ec::RistrettoPoint> with_identity = ring.points();
  with_identity[2] = ec::RistrettoPoint();
  EXPECT_EQ(Ring::FromPoints(with_identity).status().code(), Code::kInvalidArgument);
  std::vector<ec::CompressedRistretto> encodings = ring.encodings();
  encodings[2] = ec::CompressedRistretto();
  EXPECT_EQ(Ring::Decode(encodings).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Ring::FromPoints(ring.points(), 17).status().code(), Code::kInvalidArgument);

  // A key that appears twice, and a ring of one.
  std::vector<ec::RistrettoPoint> twice = ring.points();
  twice[0] = key.public_key();
  const Ring ring_twice = RingOf(twice);
  EXPECT_TRUE(RingVerify(ring_twice, kMessage, Sign(key, ring_twice)).ok());
  const Ring alone = RingOf({key.public_key()});
  EXPECT_TRUE(RingVerify(alone, kMessage, Sign(key, alone)).ok());
}

TEST(RingSignature, BatchVerification) {
  TestRng rng(39);
  const RingSigningKey k1 = KeyFrom(rng), k2 = KeyFrom(rng);
  const Ring shared = MakeRing(rng, k1, 64, 10);
  std::vector<ec::RistrettoPoint> keys = shared.points();
  keys[11] = k2.public_key();
  const Ring shared2 = RingOf(keys);
  const Ring small = MakeRing(rng, k2, 8, 0);
  std::vector<Bytes> messages = {B("m0"), B("m1"), B("m2"), B("m3")};
  std::vector<std::pair<const Ring*, RingSignature>> sigs;
  sigs.emplace_back(&shared, Sign(k1, shared, messages[0]));
  sigs.emplace_back(&shared2, Sign(k2, shared2, messages[1]));
  sigs.emplace_back(&shared2, Sign(k1, shared2, messages[2]));
  sigs.emplace_back(&small, Sign(k2, small, messages[3]));
  std::vector<RingBatchItem> items;
  for (std::size_t i = 0; i < sigs.size(); ++i) {
    items.push_back({sigs[i].first, messages[i], &sigs[i].second});
  }
  EXPECT_TRUE(RingBatchVerify(items).ok());
  EXPECT_TRUE(RingBatchVerify({}).ok());

  // One wrong message anywhere spoils the batch.
  for (std::size_t bad_at = 0; bad_at < items.size(); ++bad_at) {
    std::vector<RingBatchItem> bad = items;
    bad[bad_at].message = kMessage;
    EXPECT_EQ(RingBatchVerify(bad), VerificationFailed()) << bad_at;
  }
  // A signature with another key image.
  Bytes enc = sigs[3].second.Encode();
  const auto jb = k1.key_image().Encode();
  std::copy(jb.begin(), jb.end(), enc.begin());
  const RingSignature forged = *RingSignature::Decode(enc, small.params());
  std::vector<RingBatchItem> with_forged = items;
  with_forged[3].signature = &forged;
  EXPECT_EQ(RingBatchVerify(with_forged), VerificationFailed());

  std::vector<RingBatchItem> with_null = items;
  with_null[1].ring = nullptr;
  EXPECT_EQ(RingBatchVerify(with_null).code(), Code::kInvalidArgument);
  std::vector<RingBatchItem> mismatch = items;
  mismatch[0].ring = &small;
  EXPECT_EQ(RingBatchVerify(mismatch).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace veil::zk
