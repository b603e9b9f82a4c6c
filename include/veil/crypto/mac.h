// HMAC (RFC 2104) over SHA-256, SHA-384 and SHA-512, through OpenSSL's EVP_MAC.
//
// An Hmac object keeps the keyed state, so many messages under one key cost no key setup. Tags are
// checked in constant time; a wrong tag is VerificationFailed(). A truncated tag is accepted only
// where the caller states the length its protocol fixes (VerifyTruncated): a plain Verify wants the
// full tag, so a protocol that sends full tags cannot be downgraded to a guessable prefix of one.
//
// A moved-from Hmac aborts when used.
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
  // Constant-time check of a full-length tag (tag_size() bytes); a tag of any other length is
  // VerificationFailed().
  Status Verify(ByteView data, ByteView tag);
  // Constant-time check of a tag truncated to the first `expected_len` bytes, the length fixed by
  // the caller's protocol (RFC 2104 sec. 5); a tag of any other length is VerificationFailed().
  // expected_len must lie in [kMinTruncatedTagSize, tag_size()]: anything else aborts.
  static constexpr std::size_t kMinTruncatedTagSize = 16;
  Status VerifyTruncated(ByteView data, ByteView tag, std::size_t expected_len);

 private:
  HashAlg alg_;
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

Bytes HmacSha256(ByteView key, ByteView data);
Bytes HmacSha512(ByteView key, ByteView data);

}  // namespace veil::crypto
