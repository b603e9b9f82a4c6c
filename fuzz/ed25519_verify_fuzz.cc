// Fuzzes Ed25519 verification with attacker-chosen public key, signature and message bytes, and
// checks that the three verifiers agree: libsodium's (crypto::Ed25519Verify), the engine's
// one-shot check and a parsed key's (ec/ed25519.h, which promises libsodium's rules). Two modes,
// by the first byte's low bit:
//   0: the bytes themselves as key, signature and message (every refusal rule);
//   1: a key from a 32-byte seed signs the message, then up to four fuzzer-chosen bytes of the
//      key or signature are XORed (valid signatures and their near misses).
// Any disagreement, and any error but InvalidArgument or VerificationFailed, aborts.
#include <array>
#include <cstdlib>

#include "veil/crypto/ed25519.h"
#include "veil/ec/ed25519.h"

namespace {

void CheckAgreement(veil::ByteView pk, veil::ByteView msg, veil::ByteView sig) {
  const veil::Status sodium = veil::crypto::Ed25519Verify(pk, msg, sig);
  const veil::Status one_shot = veil::ec::Ed25519VerifyVartime(pk, msg, sig);
  for (const veil::Status* s : {&sodium, &one_shot}) {
    if (!s->ok() && s->code() != veil::Code::kInvalidArgument &&
        s->code() != veil::Code::kVerificationFailed) {
      std::abort();
    }
  }
  if (sodium.ok() != one_shot.ok()) std::abort();
  const auto key = veil::ec::Ed25519VerifyingKey::FromBytes(pk);
  const bool parsed = key.ok() && key->Verify(msg, sig).ok();
  if (parsed != sodium.ok()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  veil::ByteView in(data + 1, size - 1);
  if ((data[0] & 1) == 0) {
    const std::size_t pk_len = data[0] % 40;
    if (in.size() < pk_len) return 0;
    const veil::ByteView pk = in.first(pk_len);
    const veil::ByteView rest = in.subspan(pk_len);
    const std::size_t sig_len = rest.size() < 64 ? rest.size() : 64;
    CheckAgreement(pk, rest.subspan(sig_len), rest.first(sig_len));
    return 0;
  }
  // Seed (32), flips (4 x (position, xor)), then the message.
  if (in.size() < 40) return 0;
  const auto key = veil::crypto::Ed25519SigningKey::FromSeedBytes(in.first(32));
  if (!key.ok()) std::abort();
  const veil::ByteView msg = in.subspan(40);
  std::array<std::uint8_t, 96> pk_sig{};  // key (32) then signature (64)
  const auto& pk = key->public_key();
  std::copy(pk.begin(), pk.end(), pk_sig.begin());
  const auto sig = key->Sign(msg);
  std::copy(sig.begin(), sig.end(), pk_sig.begin() + 32);
  for (std::size_t i = 0; i < 4; ++i) {
    const std::uint8_t where = in[32 + 2 * i];
    const std::uint8_t flip = in[33 + 2 * i];
    if (where < pk_sig.size()) pk_sig[where] ^= flip;
  }
  const veil::ByteView both(pk_sig.data(), pk_sig.size());
  CheckAgreement(both.first(32), msg, both.subspan(32));
  return 0;
}
