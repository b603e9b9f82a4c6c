// SHA-2 hashing (SHA-256, SHA-384, SHA-512) through OpenSSL's EVP interface.
//
// The message-digest implementations are fetched from the provider once per process and the
// one-shot helpers reuse a per-thread context, so a call costs the compression function and little
// else (OpenSSL picks SHA-NI or AVX2 code at run time). SHA-3 and SHAKE live in keccak.h.
//
// Thread safety: the one-shot functions are safe from any thread; a Sha2 object is single-threaded.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "veil/base/bytes.h"

namespace veil::crypto {

enum class HashAlg : std::uint8_t { kSha256, kSha384, kSha512 };

constexpr std::size_t DigestSize(HashAlg alg) {
  return alg == HashAlg::kSha256 ? 32 : alg == HashAlg::kSha384 ? 48 : 64;
}
constexpr std::size_t BlockSize(HashAlg alg) { return alg == HashAlg::kSha256 ? 64 : 128; }

using Sha256Digest = std::array<std::uint8_t, 32>;
using Sha512Digest = std::array<std::uint8_t, 64>;

// Incremental hashing: Update any number of times, then Final once (Reset to start over). Update
// or Final after Final without a Reset, or any use of a moved-from object, aborts: OpenSSL would
// carry on from a cleared state and return a digest of nothing in particular.
class Sha2 {
 public:
  explicit Sha2(HashAlg alg);
  ~Sha2();
  Sha2(Sha2&&) noexcept;
  Sha2& operator=(Sha2&&) noexcept;
  Sha2(const Sha2&) = delete;
  Sha2& operator=(const Sha2&) = delete;

  HashAlg alg() const { return alg_; }
  Sha2& Update(ByteView data);
  // Writes DigestSize(alg) bytes; out must be exactly that long.
  void Final(MutableByteView out);
  Bytes Final();
  void Reset();

 private:
  void CheckUsable() const;
  HashAlg alg_;
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
  bool finished_ = false;
};

Sha256Digest Sha256(ByteView data);
Sha512Digest Sha512(ByteView data);
Bytes Hash(HashAlg alg, ByteView data);
void Hash(HashAlg alg, ByteView data, MutableByteView out);

}  // namespace veil::crypto
