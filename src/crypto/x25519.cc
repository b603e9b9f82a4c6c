// X25519 over libsodium's crypto_scalarmult.
#include "veil/crypto/x25519.h"

#include <sodium.h>

#include "veil/base/consttime.h"
#include "veil/crypto/random.h"

namespace veil::crypto {

X25519PublicKey X25519PublicFromSecret(const X25519SecretKey& sk) {
  EnsureInitialized();
  X25519PublicKey pk;
  crypto_scalarmult_base(pk.data(), sk.Expose().data());
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
