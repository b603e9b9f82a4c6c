// HKDF (RFC 5869) over SHA-256, SHA-384 and SHA-512, through OpenSSL's EVP_KDF.
//
// Extract turns input keying material into a pseudorandom key; Expand stretches a pseudorandom key
// into at most 255 * HashLen bytes bound to `info`. Asking for more is kInvalidArgument.
//
// Thread safety: every function is safe from any thread.
#pragma once

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/hash.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {

// PRK = HMAC-Hash(salt, IKM); an empty salt means HashLen zero bytes (RFC 5869 section 2.2).
SecretBytes HkdfExtract(HashAlg alg, ByteView salt, ByteView ikm);
Result<SecretBytes> HkdfExpand(HashAlg alg, ByteView prk, ByteView info, std::size_t length);
Result<SecretBytes> Hkdf(HashAlg alg, ByteView salt, ByteView ikm, ByteView info,
                         std::size_t length);

}  // namespace veil::crypto
