// Internal glue to OpenSSL 3.0: fetched algorithm handles, cached for the life of the process.
//
// EVP_MD_fetch / EVP_CIPHER_fetch look a name up in the provider tables, which costs more than
// hashing a short message; the handles are immutable and safe to share between threads, so each is
// fetched once. Failure to fetch a standard algorithm means a broken OpenSSL install: abort.
#pragma once

#include <openssl/evp.h>

#include "veil/crypto/hash.h"

namespace veil::crypto::internal {

const EVP_MD* Md(HashAlg alg);
const char* MdName(HashAlg alg);
const EVP_CIPHER* AesGcmCipher(std::size_t key_size);  // 16, 24 or 32

}  // namespace veil::crypto::internal
