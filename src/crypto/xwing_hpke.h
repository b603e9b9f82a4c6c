// X-Wing as an HPKE KEM (draft-connolly-cfrg-xwing-kem, section 5.6): the glue hpke.cc calls.
#pragma once

#include <utility>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/hpke.h"
#include "veil/crypto/secret.h"

namespace veil::crypto::hpke::internal {

// DeriveKeyPair(ikm) = GenerateKeyPairDerand(SHAKE256(ikm, 32)).
KeyPair XWingDeriveKeyPair(ByteView ikm);
Result<Bytes> XWingPublicKeyOf(const SecretBytes& private_key);
// (shared secret, enc); `eseed` empty for fresh randomness, else the 64-byte test seed.
Result<std::pair<SecretBytes, Bytes>> XWingEncap(ByteView public_key, ByteView eseed);
Result<SecretBytes> XWingDecap(ByteView enc, const SecretBytes& private_key);

}  // namespace veil::crypto::hpke::internal
