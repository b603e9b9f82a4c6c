// Secret byte containers: move-only, wiped on destruction and when moved from, never printed,
// compared in constant time.
//
// SecretBytes holds a secret of run-time length; Secret<N> one of fixed length. Neither has
// operator<< or operator==: the only comparison is ConstantTimeEquals, and reading the bytes takes
// an explicit Expose() so every place a secret flows out is visible in review. Copying takes an
// explicit Clone(). Memory is wiped with sodium_memzero, which the compiler may not elide: a
// Secret<N> wipes its bytes when destroyed and when moved from; a SecretBytes wipes its heap buffer
// before freeing it (destruction, assignment over it) and hands the buffer itself to the object it
// is moved to, so no copy is left behind.
//
// Moved-from: a moved-from object may only be assigned to, moved from again or destroyed (size()
// and empty() answer 0 and true). Expose(), ExposeMutable(), Clone() and ConstantTimeEquals() on it
// abort: a key that was moved away must not go on working as an all-zero or empty key (an X25519
// key of zeros is a valid, public scalar; HMAC takes an empty key). Assigning to it makes it a
// normal value again.
//
// Thread safety: values; the usual rules for a non-const object shared between threads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "veil/base/bytes.h"
#include "veil/base/status.h"

namespace veil::crypto {

// Wipes memory in a way the optimiser keeps (sodium_memzero).
void SecureWipe(void* p, std::size_t n);
// Constant-time equality of two equal-length buffers; different lengths compare unequal (the
// lengths themselves are public).
bool ConstantTimeEquals(ByteView a, ByteView b);

class SecretBytes {
 public:
  SecretBytes() = default;
  explicit SecretBytes(std::size_t n);  // n zero bytes
  // Copies from a buffer the caller then wipes or owns.
  static SecretBytes CopyFrom(ByteView b);

  SecretBytes(SecretBytes&& o) noexcept
      : data_(o.data_), size_(o.size_), moved_from_(o.moved_from_) {
    o.data_ = nullptr;
    o.size_ = 0;
    o.moved_from_ = true;
  }
  SecretBytes& operator=(SecretBytes&& o) noexcept;
  SecretBytes(const SecretBytes&) = delete;
  SecretBytes& operator=(const SecretBytes&) = delete;
  ~SecretBytes() { Reset(); }

  SecretBytes Clone() const { return CopyFrom(Expose()); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  ByteView Expose() const {
    CheckNotMovedFrom();
    return {data_, size_};
  }
  MutableByteView ExposeMutable() {
    CheckNotMovedFrom();
    return {data_, size_};
  }

  bool ConstantTimeEquals(const SecretBytes& o) const {
    return crypto::ConstantTimeEquals(Expose(), o.Expose());
  }

 private:
  void Reset();
  void CheckNotMovedFrom() const {
    VEIL_CHECK_MSG(!moved_from_, "SecretBytes: use of a moved-from secret");
  }
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  bool moved_from_ = false;
};

template <std::size_t N>
class Secret {
 public:
  static constexpr std::size_t kSize = N;
  Secret() { bytes_.fill(0); }
  static Secret CopyFrom(std::span<const std::uint8_t, N> b) {
    Secret s;
    for (std::size_t i = 0; i < N; ++i) s.bytes_[i] = b[i];
    return s;
  }
  Secret(Secret&& o) noexcept : bytes_(o.bytes_), moved_from_(o.moved_from_) {
    SecureWipe(o.bytes_.data(), N);
    o.moved_from_ = true;
  }
  Secret& operator=(Secret&& o) noexcept {
    if (this != &o) {
      bytes_ = o.bytes_;
      moved_from_ = o.moved_from_;
      SecureWipe(o.bytes_.data(), N);
      o.moved_from_ = true;
    }
    return *this;
  }
  Secret(const Secret&) = delete;
  Secret& operator=(const Secret&) = delete;
  ~Secret() { SecureWipe(bytes_.data(), N); }

  Secret Clone() const { return CopyFrom(Expose()); }

  std::span<const std::uint8_t, N> Expose() const {
    CheckNotMovedFrom();
    return bytes_;
  }
  std::span<std::uint8_t, N> ExposeMutable() {
    CheckNotMovedFrom();
    return bytes_;
  }

  bool ConstantTimeEquals(const Secret& o) const {
    return crypto::ConstantTimeEquals(Expose(), o.Expose());
  }

 private:
  void CheckNotMovedFrom() const {
    VEIL_CHECK_MSG(!moved_from_, "Secret: use of a moved-from secret");
  }
  std::array<std::uint8_t, N> bytes_;
  bool moved_from_ = false;
};

}  // namespace veil::crypto
