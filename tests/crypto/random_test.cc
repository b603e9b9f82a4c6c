// The CSPRNG: fresh output, no repeats across threads or a fork, unbiased bytes, and the rejection
// sampler's range.
#include "veil/crypto/random.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <set>
#include <thread>

namespace veil::crypto {
namespace {

TEST(Random, NoRepeatsAcrossCallsAndRefills) {
  std::set<Bytes> seen;
  for (int i = 0; i < 2000; ++i) EXPECT_TRUE(seen.insert(RandomBytes(16)).second);
  // Requests larger than the internal buffer cross several refills.
  Bytes big = RandomBytes(10000);
  std::set<Bytes> blocks;
  for (std::size_t off = 0; off + 16 <= big.size(); off += 16) {
    EXPECT_TRUE(blocks
                    .insert(Bytes(big.begin() + static_cast<long>(off),
                                  big.begin() + static_cast<long>(off) + 16))
                    .second);
  }
}

// Chi-square on 1 MiB (crosses the reseed interval): 255 degrees of freedom; 400 is beyond
// p = 1e-6, so a correct generator fails this about once in a million runs.
TEST(Random, BytesLookUniform) {
  Bytes b = RandomBytes(1u << 20);
  std::array<double, 256> counts{};
  for (auto v : b) counts[v] += 1;
  const double expected = static_cast<double>(b.size()) / 256;
  double chi2 = 0;
  for (double c : counts) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 400.0);
  // A blatantly biased source must fail the same statistic.
  std::array<double, 256> biased{};
  for (std::size_t i = 0; i < b.size(); ++i) biased[b[i] & 0xfe] += 1;
  double chi2_biased = 0;
  for (double c : biased) chi2_biased += (c - expected) * (c - expected) / expected;
  EXPECT_GT(chi2_biased, 400.0);
}

TEST(Random, ThreadsGetDistinctStreams) {
  Bytes a, b;
  std::thread t1([&] { a = RandomBytes(64); });
  std::thread t2([&] { b = RandomBytes(64); });
  t1.join();
  t2.join();
  EXPECT_NE(a, b);
  EXPECT_NE(a, RandomBytes(64));
}

TEST(Random, ChildAfterForkDoesNotRepeatParent) {
  (void)RandomBytes(8);  // make sure the parent's stream exists before the fork
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    Bytes c = RandomBytes(32);
    const ssize_t w = write(fds[1], c.data(), c.size());
    _exit(w == 32 ? 0 : 1);
  }
  Bytes parent = RandomBytes(32);
  Bytes child(32);
  ASSERT_EQ(read(fds[0], child.data(), child.size()), 32);
  int status = 0;
  waitpid(pid, &status, 0);
  close(fds[0]);
  close(fds[1]);
  EXPECT_NE(parent, child);
}

TEST(Random, UniformRangeAndSpread) {
  std::array<int, 7> hits{};
  for (int i = 0; i < 7000; ++i) {
    const auto v = RandomUniform(7);
    ASSERT_LT(v, 7u);
    hits[v]++;
  }
  for (int h : hits) EXPECT_GT(h, 800);
  EXPECT_EQ(RandomUniform(1), 0u);
  EXPECT_LT(RandomUniform(0xffffffffu), 0xffffffffu);
}

TEST(Random, SystemSourceWorks) {
  Bytes a(32), b(32);
  SystemRandomBytes(a);
  SystemRandomBytes(b);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace veil::crypto
