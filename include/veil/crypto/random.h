// The CSPRNG.
//
// Bytes come from a per-thread ChaCha20 generator with fast key erasure (Bernstein,
// "Fast-key-erasure random-number generators", 2017; the design of OpenBSD's arc4random): each
// refill runs ChaCha20 (libsodium) under the current key, the first 32 output bytes become the next
// key, and the rest are handed out once and wiped as they are. The key is seeded from the kernel
// (getrandom(2), through libsodium's randombytes) on first use, after every fork and after every 1
// MiB of output. We keep our own generator because both of libsodium's make a system call per
// request (getrandom, or getpid for fork detection), about 1.5 us each on this project's hosts,
// which would dominate a Shamir split or a nonce draw.
//
// Fork safety: a pthread_atfork child handler bumps a generation counter, so a child process never
// reuses its parent's stream; the state also lives on a page marked MADV_WIPEONFORK where the
// kernel supports it.
//
// Thread safety: every function is safe to call from any thread (the state is per thread).
#pragma once

#include <cstdint>

#include "veil/base/bytes.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {

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
