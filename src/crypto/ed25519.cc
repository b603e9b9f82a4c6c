// Ed25519 over libsodium's crypto_sign (strict verification; see the header).
#include "veil/crypto/ed25519.h"

#include <sodium.h>

#include "veil/crypto/random.h"

namespace veil::crypto {

Ed25519SigningKey Ed25519SigningKey::FromSeed(const Secret<kEd25519SeedSize>& seed) {
  EnsureInitialized();
  Ed25519SigningKey k;
  crypto_sign_seed_keypair(k.public_key_.data(), k.expanded_.ExposeMutable().data(),
                           seed.Expose().data());
  return k;
}

Ed25519SigningKey Ed25519SigningKey::Generate() {
  return FromSeed(RandomSecret<kEd25519SeedSize>());
}

Result<Ed25519SigningKey> Ed25519SigningKey::FromSeedBytes(ByteView seed) {
  if (seed.size() != kEd25519SeedSize) return InvalidArgument("Ed25519: seed must be 32 bytes");
  Secret<kEd25519SeedSize> s = Secret<kEd25519SeedSize>::CopyFrom(seed.first<kEd25519SeedSize>());
  return FromSeed(s);
}

Secret<kEd25519SeedSize> Ed25519SigningKey::seed() const {
  return Secret<kEd25519SeedSize>::CopyFrom(expanded_.Expose().first<kEd25519SeedSize>());
}

Ed25519Signature Ed25519SigningKey::Sign(ByteView message) const {
  Ed25519Signature sig;
  crypto_sign_detached(sig.data(), nullptr, message.data(), message.size(),
                       expanded_.Expose().data());
  return sig;
}

Status Ed25519Verify(ByteView public_key, ByteView message, ByteView signature) {
  EnsureInitialized();
  if (public_key.size() != kEd25519PublicKeySize) {
    return InvalidArgument("Ed25519: public key must be 32 bytes");
  }
  if (signature.size() != kEd25519SignatureSize) {
    return InvalidArgument("Ed25519: signature must be 64 bytes");
  }
  if (crypto_sign_verify_detached(signature.data(), message.data(), message.size(),
                                  public_key.data()) != 0) {
    return VerificationFailed();
  }
  return Status::Ok();
}

}  // namespace veil::crypto
