// The batch verifier's accumulator (src/zk/msm_batch.h): terms of one encoding merge into one,
// and points whose encodings an attacker chose to share a prefix neither break the merge nor pile
// up in one bucket of its table (the hash covers the whole encoding under a per-batch key).
#include "../../src/zk/msm_batch.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "zk_test_util.h"

namespace veil::zk::internal {
namespace {

using Encoded = std::pair<ec::CompressedRistretto, ec::RistrettoPoint>;

// Valid encodings that all begin with the same 8 bytes: what anyone gets by trying random tails
// behind a fixed even first byte (about one canonical non-negative field element in four decodes).
std::vector<Encoded> SharedPrefixPoints(std::size_t count) {
  test::TestRng rng(39);
  const std::array<std::uint8_t, 8> prefix = {0x2a, 0x11, 0x5e, 0x00, 0x99, 0x42, 0x07, 0xc8};
  std::vector<Encoded> out;
  std::set<ec::CompressedRistretto::Bytes> seen;
  while (out.size() < count) {
    std::array<std::uint8_t, 32> b = rng.Bytes32();
    std::copy(prefix.begin(), prefix.end(), b.begin());
    b[31] &= 0x7f;
    const ec::CompressedRistretto enc(b);
    Result<ec::RistrettoPoint> p = enc.Decode();
    if (!p.ok() || !seen.insert(b).second) continue;
    out.emplace_back(enc, *p);
  }
  return out;
}

TEST(MsmBatchTest, SharedPrefixesStillMerge) {
  const std::vector<Encoded> points = SharedPrefixPoints(256);
  test::TestRng rng(1);
  MsmBatch batch;
  // Each point added twice, with s and -s: the sum is the identity only if every pair merged
  // with its own point (a wrong merge leaves some s P' - s P).
  for (const auto& [enc, p] : points) batch.AddShared(enc, p, rng.Scalar());
  EXPECT_EQ(batch.size(), points.size());
  EXPECT_FALSE(batch.IsIdentityVartime());
  MsmBatch cancel;
  std::vector<ec::Scalar> s;
  for (const auto& [enc, p] : points) {
    s.push_back(rng.Scalar());
    cancel.AddShared(enc, p, s.back());
  }
  for (std::size_t i = points.size(); i-- > 0;) {
    cancel.AddShared(points[i].first, points[i].second, -s[i]);
  }
  EXPECT_EQ(cancel.size(), points.size());
  EXPECT_TRUE(cancel.IsIdentityVartime());
  // The same with the last pair not cancelling.
  MsmBatch off;
  for (std::size_t i = 0; i < points.size(); ++i) {
    off.AddShared(points[i].first, points[i].second, s[i]);
    off.AddShared(points[i].first, points[i].second, i + 1 == points.size() ? -s[i] - s[i] : -s[i]);
  }
  EXPECT_FALSE(off.IsIdentityVartime());
}

// With a hash of the first 8 bytes every one of these lands in one bucket (a quadratic merge);
// with the keyed hash of the whole encoding they spread like random keys.
TEST(MsmBatchTest, SharedPrefixesDoNotPileUpInOneBucket) {
  const std::vector<Encoded> points = SharedPrefixPoints(1024);
  MsmBatch batch;
  for (const auto& [enc, p] : points) batch.AddShared(enc, p, ec::Scalar::One());
  ASSERT_EQ(batch.size(), points.size());
  // 1024 keys in at least 1024 buckets: the longest chain of random keys is a handful.
  EXPECT_LE(batch.LongestSharedBucket(), 12u);
  std::set<std::size_t> hashes;
  for (const auto& [enc, p] : points) hashes.insert(batch.SharedHash(enc));
  EXPECT_EQ(hashes.size(), points.size());
}

// The key is drawn per batch, so nobody can precompute encodings that collide in every batch.
TEST(MsmBatchTest, TheHashDependsOnAPerBatchKey) {
  const std::vector<Encoded> points = SharedPrefixPoints(8);
  MsmBatch a, b;
  std::size_t same = 0;
  for (const auto& [enc, p] : points) {
    if (a.SharedHash(enc) == b.SharedHash(enc)) ++same;
  }
  EXPECT_EQ(same, 0u);
  // And within a batch the hash of one encoding is stable (the table relies on it).
  EXPECT_EQ(a.SharedHash(points[0].first), a.SharedHash(points[0].first));
}

}  // namespace
}  // namespace veil::zk::internal
