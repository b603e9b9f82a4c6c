// Token buckets per key, the bounded table, and client address keys.
#include "veil/guardian/rate_limiter.h"

#include <gtest/gtest.h>

#include <string>

namespace veil::guardian {
namespace {

TEST(RateLimiter, BurstThenRefill) {
  double now = 100;
  RateLimiter rl(2, 3, [&] { return now; });
  EXPECT_TRUE(rl.Allow("a"));
  EXPECT_TRUE(rl.Allow("a"));
  EXPECT_TRUE(rl.Allow("a"));
  EXPECT_FALSE(rl.Allow("a"));
  EXPECT_TRUE(rl.Allow("b"));
  now += 0.5;  // one token at 2/s
  EXPECT_TRUE(rl.Allow("a"));
  EXPECT_FALSE(rl.Allow("a"));
  now += 100;  // capped at the burst
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(rl.Allow("a"));
  EXPECT_FALSE(rl.Allow("a"));
  RateLimiter off(0, 1);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(off.Allow("x"));
  EXPECT_EQ(off.size(), 0u);
}

TEST(RateLimiter, CostsAndSeveralBucketsPerKey) {
  double now = 0;
  // Bucket 0: 1/s, burst 2 (requests); bucket 1: 10/s, burst 20 (items).
  RateLimiter rl({{1, 2}, {10, 20}}, [&] { return now; });
  EXPECT_TRUE(rl.Allow("k", 1, 15));
  EXPECT_FALSE(rl.Allow("k", 1, 6));  // 5 left: refused, and nothing taken
  EXPECT_TRUE(rl.Allow("k", 1, 5));
  EXPECT_FALSE(rl.Allow("k", 1, 1));
  EXPECT_FALSE(rl.Allow("k", 1, 21));  // above the burst: never
  EXPECT_TRUE(rl.Allow("k", 0));       // the other bucket is separate
  EXPECT_TRUE(rl.Allow("k", 0));
  EXPECT_FALSE(rl.Allow("k", 0));
  now += 1;
  EXPECT_TRUE(rl.Allow("k", 1, 10));
  EXPECT_TRUE(rl.Allow("k", 0));
  EXPECT_EQ(rl.size(), 1u);
}

// A flood of distinct keys keeps the table at max_keys, and a key in use is not forgotten
// because of it: only the least recently used key goes.
TEST(RateLimiter, TableStaysBoundedUnderAFloodOfDistinctKeys) {
  double now = 0;
  constexpr std::size_t kMax = 4;
  RateLimiter rl(
      1, 1, [&] { return now; }, kMax);
  EXPECT_TRUE(rl.Allow("drained"));
  EXPECT_FALSE(rl.Allow("drained"));
  for (int i = 0; i < 1000; ++i) {
    const std::string key = "flood-" + std::to_string(i);
    EXPECT_TRUE(rl.Allow(key));
    EXPECT_LE(rl.size(), kMax);
    // The drained key keeps being used, so it stays the most recently used and keeps its
    // (empty) bucket whatever the flood does.
    EXPECT_FALSE(rl.Allow("drained")) << i;
    EXPECT_LE(rl.size(), kMax);
  }
  EXPECT_EQ(rl.size(), kMax);
  // The flood's own keys were evicted in LRU order: the oldest ones come back with full buckets,
  // the most recent one is still drained.
  EXPECT_FALSE(rl.Allow("flood-999"));
  EXPECT_TRUE(rl.Allow("flood-0"));
  EXPECT_EQ(rl.size(), kMax);
}

}  // namespace
}  // namespace veil::guardian
