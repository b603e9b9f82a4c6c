// Fuzzes HPKE recipients (the network input of every sealed key share): arbitrary encapsulation,
// ciphertext, mode and suite against fixed keys of both KEMs. No crash, and nothing random opens.
#include <cstdlib>

#include "veil/crypto/hpke.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace veil::crypto::hpke;
  static const KeyPair kX25519 = DeriveKeyPair(KemId::kX25519Sha256, veil::Bytes(32, 1));
  static const KeyPair kXWing = DeriveKeyPair(KemId::kXWing, veil::Bytes(32, 2));
  static const veil::Bytes kPsk(32, 3);
  if (size < 4) return 0;
  const bool xwing = (data[0] & 1) != 0;
  const auto kdf = static_cast<KdfId>(1 + data[0] / 2 % 3);
  const AeadId aeads[] = {AeadId::kAes128Gcm, AeadId::kAes256Gcm, AeadId::kChaCha20Poly1305,
                          AeadId::kExportOnly};
  const Suite suite{xwing ? KemId::kXWing : KemId::kX25519Sha256, kdf, aeads[data[1] % 4]};
  const std::size_t enc_len = xwing ? 1120 : 32;
  const veil::ByteView in(data + 2, size - 2);
  // Usually a well-sized encapsulation, sometimes a wrong size.
  const std::size_t take =
      (data[0] & 0x80) != 0 ? std::min(in.size(), std::size_t{data[1]}) : enc_len;
  if (in.size() < take) return 0;
  SetupOptions o;
  if ((data[0] & 0x40) != 0) {
    o.mode = Mode::kPsk;
    o.psk = kPsk;
    o.psk_id = kPsk;
  }
  const KeyPair& r = xwing ? kXWing : kX25519;
  auto pt = Open(suite, in.first(take), r.private_key, o, {}, in.subspan(take));
  if (pt.ok()) std::abort();  // a forgery from random bytes
  return 0;
}
