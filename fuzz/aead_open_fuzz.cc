// Fuzzes AEAD opening (the decoder of every sealed record and share) for all four algorithms with
// attacker-chosen nonce, associated data and ciphertext: no crash, and nothing random verifies.
#include <cstdlib>

#include "veil/crypto/aead.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace veil::crypto;
  if (size < 3) return 0;
  const auto alg = static_cast<AeadAlg>(data[0] % 4);
  const std::size_t nonce_len = data[1] % 40;
  const std::size_t aad_len = data[2] % 16;
  veil::ByteView rest(data + 3, size - 3);
  if (rest.size() < nonce_len + aad_len) return 0;
  static const veil::Bytes kKey(32, 0x42);
  auto aead = Aead::Create(alg, veil::ByteView(kKey).first(AeadKeySize(alg)));
  if (!aead.ok()) std::abort();
  auto r = aead->Open(rest.first(nonce_len), rest.subspan(nonce_len, aad_len),
                      rest.subspan(nonce_len + aad_len));
  // A forgery from random bytes would be a catastrophe (probability 2^-128).
  if (r.ok()) std::abort();
  auto gcm = AesGcm::Create(veil::ByteView(kKey).first(16));
  veil::ByteView ct = rest.subspan(nonce_len + aad_len);
  if (ct.size() >= 16) {
    veil::Bytes out(ct.size() - 16);
    if (gcm->Open(rest.first(nonce_len), {}, ct, out).ok()) std::abort();
  }
  return 0;
}
