// The CSPRNG.
//
// Bytes come from a per-thread ChaCha20 generator with fast key erasure (Bernstein,
// "Fast-key-erasure random-number generators", 2017; the design of OpenBSD's arc4random): each
// refill runs ChaCha20 (libsodium) under the current key, the first 32 output bytes become the next
// key, and the rest are handed out once and wiped as they are. We keep our own generator because
// both of libsodium's make a system call per request (getrandom, or getpid for fork detection),
// about 1.5 us each on this project's hosts, which would dominate a Shamir split or a nonce draw.
//
// Reseeding: the key is replaced from the kernel (getrandom(2), through libsodium's randombytes) on
// a thread's first draw, in a child process before its first draw (below), after at most
// kRandomReseedBytes of output and after kRandomReseedCalls requests, whichever comes first. The
// byte limit holds inside one request too: a single large RandomBytes call reseeds every
// kRandomReseedBytes, so no key ever produces more than that.
//
// Fork safety: a child process must never continue its parent's stream. Three mechanisms, so that
// no way of making a child is missed:
//   - the state lives on a page marked MADV_WIPEONFORK: the kernel hands every child (fork, vfork
//     excepted, raw clone(2) without CLONE_VM, glibc's _Fork) a zeroed page, which reads as
//     "never seeded";
//   - where that madvise fails (kernels before 4.14, some sandboxes), every draw compares getpid()
//     with the pid recorded when the state was seeded and reseeds on a mismatch; this costs a
//     system call per draw, so it is only the fallback;
//   - a pthread_atfork child handler bumps a generation counter, which covers fork() even there.
// The pid check cannot tell a process from a later one that reuses its pid, which takes two raw
// clones in a row with the middle process drawing nothing; MADV_WIPEONFORK has no such gap.
//
// Thread safety: every function is safe to call from any thread (the state is per thread).
#pragma once

#include <cstdint>

#include "veil/base/bytes.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {

// The reseed rule (see above): at most this much output, and at most this many requests, per key
// drawn from the kernel.
inline constexpr std::uint64_t kRandomReseedBytes = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kRandomReseedCalls = std::uint64_t{1} << 16;

// Initialises libsodium once; every entry point of the crypto floor calls it. Aborts if the
// library cannot start (no entropy source), since nothing secure can run after that.
void EnsureInitialized();

void RandomBytes(MutableByteView out);
Bytes RandomBytes(std::size_t n);
SecretBytes RandomSecret(std::size_t n);
template <std::size_t N>
Secret<N> RandomSecret() {
  Secret<N> s;
  RandomBytes(s.ExposeMutable());
  return s;
}
// Uniform in [0, upper), without modulo bias; upper must be > 0.
std::uint32_t RandomUniform(std::uint32_t upper);

// Straight from the kernel (one system call), for seeding and for tests that compare the two.
void SystemRandomBytes(MutableByteView out);

}  // namespace veil::crypto
