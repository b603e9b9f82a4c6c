// CSPRNG entry points over libsodium.
#include "veil/crypto/random.h"

#include <sodium.h>

#include "veil/base/status.h"

namespace veil::crypto {

void EnsureInitialized() {
  static const bool kReady = [] {
    const int rc = sodium_init();
    VEIL_CHECK_MSG(rc >= 0, "libsodium failed to initialise");
    return true;
  }();
  (void)kReady;
}

void RandomBytes(MutableByteView out) {
  EnsureInitialized();
  if (!out.empty()) randombytes_buf(out.data(), out.size());
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
  EnsureInitialized();
  return randombytes_uniform(upper);
}

}  // namespace veil::crypto
