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

namespace veil::crypto {
namespace {

constexpr std::size_t kKeySize = crypto_stream_chacha20_ietf_KEYBYTES;
constexpr std::size_t kBufferSize = 2048;
constexpr std::uint64_t kReseedInterval = 1u << 20;  // bytes of output between kernel reseeds

// Bumped in every child after fork(); a state made in another generation reseeds before use.
std::atomic<std::uint64_t> g_fork_generation{1};

void OnForkChild() { g_fork_generation.fetch_add(1, std::memory_order_relaxed); }

struct State {
  std::uint64_t generation;  // 0: never seeded (also what MADV_WIPEONFORK leaves in a child)
  std::uint64_t since_reseed;
  std::size_t available;  // unread bytes at the end of buffer
  std::uint8_t key[kKeySize];
  std::uint8_t buffer[kBufferSize];
};
static_assert(sizeof(State) <= 4096, "the state must fit in one page");

// One page per thread, wiped and unmapped when the thread ends.
class ThreadState {
 public:
  ThreadState() {
    void* p = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    VEIL_CHECK_MSG(p != MAP_FAILED, "cannot map the random generator's state");
#ifdef MADV_WIPEONFORK
    (void)madvise(p, kPage, MADV_WIPEONFORK);  // best effort; the fork generation covers the rest
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

 private:
  static constexpr std::size_t kPage = 4096;
  State* state_;
};

void Reseed(State& s, std::uint64_t generation) {
  randombytes_buf(s.key, kKeySize);
  sodium_memzero(s.buffer, kBufferSize);
  s.available = 0;
  s.since_reseed = 0;
  s.generation = generation;
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
  s.since_reseed += kBufferSize;
}

State& CurrentState() {
  thread_local ThreadState state;
  return *state.get();
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
  State& s = CurrentState();
  const std::uint64_t generation = g_fork_generation.load(std::memory_order_relaxed);
  if (s.generation != generation || s.since_reseed >= kReseedInterval) Reseed(s, generation);
  std::size_t done = 0;
  while (done < out.size()) {
    if (s.available == 0) Refill(s);
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

}  // namespace veil::crypto
