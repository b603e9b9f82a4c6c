// Per-owner token buckets.
#include "veil/guardian/rate_limiter.h"

#include <gtest/gtest.h>

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
}

TEST(RateLimiter, BoundedTable) {
  double now = 0;
  RateLimiter rl(
      1, 1, [&] { return now; }, 4);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(rl.Allow(std::to_string(i)));
  RateLimiter off(0, 1);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(off.Allow("x"));
}

}  // namespace
}  // namespace veil::guardian
