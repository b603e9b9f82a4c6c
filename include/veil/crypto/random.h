// The CSPRNG: libsodium's randombytes (getrandom(2) on Linux), behind one seam.
//
// Thread safety: every function is safe to call from any thread.
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

}  // namespace veil::crypto
