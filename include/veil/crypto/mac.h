// HMAC (RFC 2104) over SHA-256, SHA-384 and SHA-512, through OpenSSL's EVP_MAC.
//
// An Hmac object keeps the keyed state, so many messages under one key cost no key setup. Tags are
// checked in constant time; a wrong tag is VerificationFailed().
//
// Thread safety: the free functions are safe from any thread; an Hmac object is single-threaded.
#pragma once

#include <memory>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/hash.h"

namespace veil::crypto {

class Hmac {
 public:
  Hmac(HashAlg alg, ByteView key);
  ~Hmac();
  Hmac(Hmac&&) noexcept;
  Hmac& operator=(Hmac&&) noexcept;
  Hmac(const Hmac&) = delete;
  Hmac& operator=(const Hmac&) = delete;

  std::size_t tag_size() const { return DigestSize(alg_); }
  Hmac& Update(ByteView data);
  // Writes the full tag and restarts under the same key.
  void Final(MutableByteView tag);
  Bytes Final();
  // One message: tag = HMAC(key, data).
  Bytes Mac(ByteView data);
  // Constant-time check of a tag of full length, or truncated to at least 16 bytes.
  Status Verify(ByteView data, ByteView tag);

 private:
  HashAlg alg_;
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

Bytes HmacSha256(ByteView key, ByteView data);
Bytes HmacSha512(ByteView key, ByteView data);

}  // namespace veil::crypto
