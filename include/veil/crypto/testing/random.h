// Test hooks into the CSPRNG (veil/crypto/random.h): only tests include this header.
//
// They let a test watch the reseed rule and force the fallback fork detection (the getpid check)
// on a machine whose kernel honours MADV_WIPEONFORK.
//
// The namespace is for_testing rather than testing so that it does not hide GoogleTest's
// ::testing in test code that lives in veil::crypto.
//
// Thread safety: SimulateWipeOnForkFailure is safe from any thread; the statistics are those of
// the calling thread.
#pragma once

#include <cstdint>

namespace veil::crypto::for_testing {

// While on, threads whose generator state is created afterwards (a thread's first draw) behave as
// if madvise(MADV_WIPEONFORK) had failed. States that already exist keep their mode.
void SimulateWipeOnForkFailure(bool on);

struct RandomThreadStats {
  std::uint64_t reseeds = 0;  // kernel reseeds of this thread's generator so far
  bool wipe_on_fork = false;  // false: this thread's state relies on the getpid check
};
// The calling thread's generator (created by this call if the thread has not drawn yet).
RandomThreadStats CurrentThreadRandomStats();

}  // namespace veil::crypto::for_testing
