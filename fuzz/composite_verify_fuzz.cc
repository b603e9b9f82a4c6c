// Fuzzes composite ML-DSA-65 + Ed25519 decoding and verification: arbitrary public keys, contexts
// and signatures. No crash; nothing random verifies.
#include <cstdlib>

#include "veil/crypto/composite_sig.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace veil::crypto;
  static const CompositeSigningKey kKey = CompositeSigningKey::Generate();
  const veil::ByteView in(data, size);
  if (size >= kCompositePublicKeySize) {
    auto vk = CompositeVerifyingKey::Decode(in.first(kCompositePublicKeySize));
    if (vk.ok() && vk->Verify({}, {}, in.subspan(kCompositePublicKeySize)).ok()) std::abort();
  }
  const std::size_t ctx_len = size > 0 ? data[0] : 0;
  if (size < 1 + ctx_len) return 0;
  const veil::Status s = kKey.verifying_key().Verify(veil::AsBytes("m"), in.subspan(1, ctx_len),
                                                     in.subspan(1 + ctx_len));
  if (s.ok()) std::abort();
  if (CompositeSigningKey::Decode(in).ok() && size != kCompositePrivateKeySize) std::abort();
  return 0;
}
