// Secret byte containers: move-only, wiped on destruction, never printed, compared in constant
// time.
//
// SecretBytes holds a secret of run-time length; Secret<N> one of fixed length. Neither has
// operator<< or operator==: the only comparison is ConstantTimeEquals, and reading the bytes takes
// an explicit Expose() so every place a secret flows out is visible in review. Copying takes an
// explicit Clone(). Memory is wiped with sodium_memzero, which the compiler may not elide.
//
// Thread safety: values; the usual rules for a non-const object shared between threads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "veil/base/bytes.h"

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

  SecretBytes(SecretBytes&& o) noexcept : data_(o.data_), size_(o.size_) {
    o.data_ = nullptr;
    o.size_ = 0;
  }
  SecretBytes& operator=(SecretBytes&& o) noexcept;
  SecretBytes(const SecretBytes&) = delete;
  SecretBytes& operator=(const SecretBytes&) = delete;
  ~SecretBytes() { Reset(); }

  SecretBytes Clone() const { return CopyFrom(Expose()); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  ByteView Expose() const { return {data_, size_}; }
  MutableByteView ExposeMutable() { return {data_, size_}; }

  bool ConstantTimeEquals(const SecretBytes& o) const {
    return crypto::ConstantTimeEquals(Expose(), o.Expose());
  }

 private:
  void Reset();
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
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
  Secret(Secret&& o) noexcept : bytes_(o.bytes_) { SecureWipe(o.bytes_.data(), N); }
  Secret& operator=(Secret&& o) noexcept {
    if (this != &o) {
      bytes_ = o.bytes_;
      SecureWipe(o.bytes_.data(), N);
    }
    return *this;
  }
  Secret(const Secret&) = delete;
  Secret& operator=(const Secret&) = delete;
  ~Secret() { SecureWipe(bytes_.data(), N); }

  Secret Clone() const { return CopyFrom(Expose()); }

  std::span<const std::uint8_t, N> Expose() const { return bytes_; }
  std::span<std::uint8_t, N> ExposeMutable() { return bytes_; }

  bool ConstantTimeEquals(const Secret& o) const {
    return crypto::ConstantTimeEquals(Expose(), o.Expose());
  }

 private:
  std::array<std::uint8_t, N> bytes_;
};

}  // namespace veil::crypto
