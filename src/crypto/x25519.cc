// X25519 over libsodium's crypto_scalarmult; the fixed-base path through the Edwards form
// (x25519.h).
#include "veil/crypto/x25519.h"

#include <sodium.h>

#include "veil/base/consttime.h"
#include "veil/crypto/fe25519.h"
#include "veil/crypto/random.h"

namespace veil::crypto {

void X25519BaseMultiply(std::span<const std::uint8_t, 32> k, std::span<std::uint8_t, 32> u) {
  EnsureInitialized();
  std::array<std::uint8_t, 32> edwards;  // libsodium also uses it as the clamped scalar's scratch
  int rc = crypto_scalarmult_ed25519_base(edwards.data(), k.data());
  // rc is -1 only when k is all zeros (libsodium refuses that input although the clamped scalar
  // 2^254 is a valid one) or the product is the identity, which no clamped scalar gives (it is
  // below the group order times 8 and not a multiple of it). So the verdict reveals only whether
  // the key is all zeros, a fact of probability 2^-256; that case takes the ladder.
  VEIL_DECLASSIFY(&rc, sizeof rc);
  if (rc != 0) {
    crypto_scalarmult_base(u.data(), k.data());
    sodium_memzero(edwards.data(), edwards.size());
    return;
  }
  const Fe25519 y = FeFromBytes(edwards);  // bit 255 (the sign of x) is ignored
  const Fe25519 mont_u = FeMul(FeAdd(kFeOne, y), FeInvert(FeSub(kFeOne, y)));
  const std::array<std::uint8_t, 32> bytes = FeToBytes(mont_u);
  std::copy(bytes.begin(), bytes.end(), u.begin());
  sodium_memzero(edwards.data(), edwards.size());
}

X25519PublicKey X25519PublicFromSecret(const X25519SecretKey& sk) {
  X25519PublicKey pk;
  X25519BaseMultiply(sk.Expose(), pk);
  return pk;
}

X25519KeyPair X25519Generate() {
  X25519KeyPair kp{RandomSecret<kX25519KeySize>(), {}};
  kp.public_key = X25519PublicFromSecret(kp.secret_key);
  return kp;
}

Result<X25519PublicKey> X25519PublicKeyFromBytes(ByteView b) {
  if (b.size() != kX25519KeySize) return InvalidArgument("X25519: public key must be 32 bytes");
  X25519PublicKey pk;
  std::copy(b.begin(), b.end(), pk.begin());
  return pk;
}

Result<Secret<32>> X25519(const X25519SecretKey& sk, const X25519PublicKey& peer) {
  EnsureInitialized();
  Secret<32> shared;
  // libsodium returns -1 exactly when the result is all zeros (a low-order peer key). Whether the
  // peer key has low order is a public fact about the peer key, so the verdict is public.
  int rc = crypto_scalarmult(shared.ExposeMutable().data(), sk.Expose().data(), peer.data());
  VEIL_DECLASSIFY(&rc, sizeof rc);
  if (rc != 0) {
    return InvalidArgument("X25519: peer public key has low order");
  }
  return shared;
}

}  // namespace veil::crypto
