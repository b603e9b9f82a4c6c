// Fuzzes X25519 with attacker-chosen peer public keys (including low-order and non-canonical
// ones): no crash, and either a clear rejection or a 32-byte shared secret.
#include <cstdlib>

#include "veil/crypto/x25519.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace veil::crypto;
  static const X25519KeyPair kKey = X25519Generate();
  auto pk = X25519PublicKeyFromBytes({data, size});
  if (!pk.ok()) {
    if (size == 32) std::abort();
    return 0;
  }
  auto shared = X25519(kKey.secret_key, *pk);
  if (!shared.ok() && shared.status().code() != veil::Code::kInvalidArgument) std::abort();
  return 0;
}
