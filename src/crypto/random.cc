// The per-thread fast-key-erasure ChaCha20 generator (see random.h for the design and why).
#include "veil/crypto/random.h"

#include <pthread.h>
#include <sodium.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <new>

#include "veil/base/status.h"
#include "veil/crypto/testing/random.h"

namespace veil::crypto {
namespace {

constexpr std::size_t kKeySize = crypto_stream_chacha20_ietf_KEYBYTES;
constexpr std::size_t kBufferSize = 2048;

// Bumped in every child after fork(); a state made in another generation reseeds before use.
std::atomic<std::uint64_t> g_fork_generation{1};
std::atomic<bool> g_simulate_wipe_on_fork_failure{false};

void OnForkChild() { g_fork_generation.fetch_add(1, std::memory_order_relaxed); }

struct State {
  std::uint64_t generation;  // 0: never seeded (also what MADV_WIPEONFORK leaves in a child)
  std::uint64_t bytes_since_reseed;
  std::uint64_t calls_since_reseed;
  pid_t pid;              // the process that seeded this state
  std::size_t available;  // unread bytes at the end of buffer
  std::uint8_t key[kKeySize];
  std::uint8_t buffer[kBufferSize];
};
static_assert(sizeof(State) <= 4096, "the state must fit in one page");

// One page per thread, wiped and unmapped when the thread ends. Whether the kernel wipes it in a
// child is known here, outside the page, so that a wiped child still knows it.
class ThreadState {
 public:
  ThreadState() {
    void* p = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    VEIL_CHECK_MSG(p != MAP_FAILED, "cannot map the random generator's state");
#ifdef MADV_WIPEONFORK
    if (!g_simulate_wipe_on_fork_failure.load(std::memory_order_relaxed)) {
      wipe_on_fork_ = madvise(p, kPage, MADV_WIPEONFORK) == 0;
    }
#endif
#ifdef MADV_DONTDUMP
    (void)madvise(p, kPage, MADV_DONTDUMP);
#endif
    state_ = new (p) State{};
  }
  ~ThreadState() {
    sodium_memzero(state_, sizeof(State));
    munmap(state_, kPage);
  }
  ThreadState(const ThreadState&) = delete;
  ThreadState& operator=(const ThreadState&) = delete;
  State* get() { return state_; }
  bool wipe_on_fork() const { return wipe_on_fork_; }

  std::uint64_t reseeds = 0;

 private:
  static constexpr std::size_t kPage = 4096;
  State* state_;
  bool wipe_on_fork_ = false;
};

void Reseed(ThreadState& ts, std::uint64_t generation) {
  State& s = *ts.get();
  randombytes_buf(s.key, kKeySize);
  sodium_memzero(s.buffer, kBufferSize);
  s.available = 0;
  s.bytes_since_reseed = 0;
  s.calls_since_reseed = 0;
  s.pid = getpid();
  s.generation = generation;
  ++ts.reseeds;
}

// ChaCha20 under the current key: the first 32 bytes replace the key, the rest fill the buffer.
void Refill(State& s) {
  static const std::uint8_t kNonce[crypto_stream_chacha20_ietf_NONCEBYTES] = {};
  std::uint8_t block[kKeySize + kBufferSize];
  crypto_stream_chacha20_ietf(block, sizeof block, kNonce, s.key);
  std::memcpy(s.key, block, kKeySize);
  std::memcpy(s.buffer, block + kKeySize, kBufferSize);
  sodium_memzero(block, sizeof block);
  s.available = kBufferSize;
  s.bytes_since_reseed += kBufferSize;
}

ThreadState& CurrentThreadState() {
  thread_local ThreadState state;
  return state;
}

}  // namespace

void EnsureInitialized() {
  static const bool kReady = [] {
    const int rc = sodium_init();
    VEIL_CHECK_MSG(rc >= 0, "libsodium failed to initialise");
    VEIL_CHECK(pthread_atfork(nullptr, nullptr, &OnForkChild) == 0);
    return true;
  }();
  (void)kReady;
}

void SystemRandomBytes(MutableByteView out) {
  EnsureInitialized();
  if (!out.empty()) randombytes_buf(out.data(), out.size());
}

void RandomBytes(MutableByteView out) {
  EnsureInitialized();
  ThreadState& ts = CurrentThreadState();
  State& s = *ts.get();
  const std::uint64_t generation = g_fork_generation.load(std::memory_order_relaxed);
  // A state from another process: a zeroed page (generation 0) where MADV_WIPEONFORK works, a
  // stale fork generation after fork(), and, where the page is not wiped, a pid that is not ours
  // (a raw clone or _Fork runs no atfork handler). getpid() is a system call, so it is made only
  // when the page is not wiped.
  const bool other_process =
      s.generation != generation || (!ts.wipe_on_fork() && s.pid != getpid());
  if (other_process || s.calls_since_reseed >= kRandomReseedCalls) Reseed(ts, generation);
  ++s.calls_since_reseed;
  std::size_t done = 0;
  while (done < out.size()) {
    if (s.available == 0) {
      // The byte limit holds inside one request too: no key yields more than kRandomReseedBytes.
      if (s.bytes_since_reseed >= kRandomReseedBytes) Reseed(ts, generation);
      Refill(s);
    }
    const std::size_t n = std::min(out.size() - done, s.available);
    std::uint8_t* src = s.buffer + (kBufferSize - s.available);
    std::memcpy(out.data() + done, src, n);
    sodium_memzero(src, n);  // handed out once: wipe it
    s.available -= n;
    done += n;
  }
}

Bytes RandomBytes(std::size_t n) {
  Bytes b(n);
  RandomBytes(b);
  return b;
}

SecretBytes RandomSecret(std::size_t n) {
  SecretBytes s(n);
  RandomBytes(s.ExposeMutable());
  return s;
}

std::uint32_t RandomUniform(std::uint32_t upper) {
  VEIL_CHECK(upper > 0);
  // Rejection sampling: draw from the largest multiple of upper below 2^32.
  const std::uint32_t limit = static_cast<std::uint32_t>((0x100000000ull / upper) * upper - 1);
  for (;;) {
    std::uint32_t v = 0;
    RandomBytes({reinterpret_cast<std::uint8_t*>(&v), sizeof v});
    if (v <= limit) return v % upper;
  }
}

namespace for_testing {

void SimulateWipeOnForkFailure(bool on) {
  g_simulate_wipe_on_fork_failure.store(on, std::memory_order_relaxed);
}

RandomThreadStats CurrentThreadRandomStats() {
  const ThreadState& ts = CurrentThreadState();
  return {ts.reseeds, ts.wipe_on_fork()};
}

}  // namespace for_testing
}  // namespace veil::crypto
