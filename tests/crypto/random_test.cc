// The CSPRNG: fresh output, no repeats across threads or any kind of child process (fork, glibc's
// _Fork and a raw clone(2), which run no atfork handler, with and without MADV_WIPEONFORK),
// reseeding by the header's rule, unbiased bytes, and the rejection sampler's range.
#include "veil/crypto/random.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <functional>
#include <set>
#include <thread>

#include "veil/crypto/testing/random.h"

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

// Draws 32 bytes in a child made by `spawn` (which returns 0 in the child, as fork does) and 32 in
// the parent afterwards; the parent has drawn before, so its stream exists when the child is made.
std::pair<Bytes, Bytes> ParentAndChildDraws(const std::function<pid_t()>& spawn) {
  (void)RandomBytes(8);
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = spawn();
  if (pid == 0) {
    // Only async-signal-safe work here: no allocation (a raw clone leaves glibc's locks as they
    // were), just the generator, write and _exit.
    std::array<std::uint8_t, 32> c;
    RandomBytes(c);
    const ssize_t w = write(fds[1], c.data(), c.size());
    _exit(w == 32 ? 0 : 1);
  }
  Bytes parent = RandomBytes(32);
  Bytes child(32);
  const bool got = pid > 0 && read(fds[0], child.data(), child.size()) == 32;
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  close(fds[0]);
  close(fds[1]);
  EXPECT_TRUE(got && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return {parent, child};
}

// clone(2) with only the exit signal: a fork that glibc does not see, so no atfork handler runs.
pid_t RawClone() {
  return static_cast<pid_t>(syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, nullptr));
}

TEST(Random, ChildOfRawCloneOrForkWithoutHandlersDoesNotRepeatParent) {
  auto [parent, child] = ParentAndChildDraws(RawClone);
  EXPECT_NE(parent, child);
  auto [parent2, child2] = ParentAndChildDraws([] { return _Fork(); });
  EXPECT_NE(parent2, child2);
}

// Where MADV_WIPEONFORK fails, the getpid check must catch the children that no atfork handler
// sees. A fresh thread gets a state made while the failure is simulated.
TEST(Random, PidCheckCatchesChildrenWhenWipeOnForkFails) {
  for_testing::SimulateWipeOnForkFailure(true);
  std::thread t([] {
    EXPECT_FALSE(for_testing::CurrentThreadRandomStats().wipe_on_fork);
    auto [parent, child] = ParentAndChildDraws(RawClone);
    EXPECT_NE(parent, child);
    auto [parent2, child2] = ParentAndChildDraws([] { return _Fork(); });
    EXPECT_NE(parent2, child2);
    auto [parent3, child3] = ParentAndChildDraws(fork);
    EXPECT_NE(parent3, child3);
  });
  t.join();
  for_testing::SimulateWipeOnForkFailure(false);
  std::thread fresh([] { EXPECT_TRUE(for_testing::CurrentThreadRandomStats().wipe_on_fork); });
  fresh.join();
}

// One request far beyond the reseed interval still gets a fresh key every kRandomReseedBytes.
TEST(Random, LongRequestReseedsWithin) {
  const std::uint64_t before = for_testing::CurrentThreadRandomStats().reseeds;
  Bytes big(3 * kRandomReseedBytes + 5);
  RandomBytes(big);
  EXPECT_GE(for_testing::CurrentThreadRandomStats().reseeds - before, 3u);
}

// Many small requests reseed by count, long before their bytes reach kRandomReseedBytes.
TEST(Random, ManySmallRequestsReseed) {
  const std::uint64_t before = for_testing::CurrentThreadRandomStats().reseeds;
  std::array<std::uint8_t, 1> b;
  for (std::uint64_t i = 0; i < 2 * kRandomReseedCalls + 1; ++i) RandomBytes(b);
  EXPECT_GE(for_testing::CurrentThreadRandomStats().reseeds - before, 2u);
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
