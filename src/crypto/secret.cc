// SecretBytes storage and the constant-time helpers behind it.
#include "veil/crypto/secret.h"

#include <sodium.h>

#include <atomic>
#include <cstring>

#include "veil/crypto/testing/secret.h"

namespace veil::crypto {
namespace {

std::atomic<for_testing::FreedSecretObserver> g_freed_observer{nullptr};

}  // namespace

void for_testing::SetFreedSecretObserver(FreedSecretObserver observer) {
  g_freed_observer.store(observer, std::memory_order_relaxed);
}

void SecureWipe(void* p, std::size_t n) {
  if (n != 0) sodium_memzero(p, n);
}

bool ConstantTimeEquals(ByteView a, ByteView b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

SecretBytes::SecretBytes(std::size_t n) : size_(n) {
  if (n != 0) data_ = new std::uint8_t[n]();
}

SecretBytes SecretBytes::CopyFrom(ByteView b) {
  SecretBytes s(b.size());
  if (!b.empty()) std::memcpy(s.data_, b.data(), b.size());
  return s;
}

SecretBytes& SecretBytes::operator=(SecretBytes&& o) noexcept {
  if (this != &o) {
    Reset();
    data_ = o.data_;
    size_ = o.size_;
    moved_from_ = o.moved_from_;
    o.data_ = nullptr;
    o.size_ = 0;
    o.moved_from_ = true;
  }
  return *this;
}

void SecretBytes::Reset() {
  if (data_ != nullptr) {
    SecureWipe(data_, size_);
    if (auto observer = g_freed_observer.load(std::memory_order_relaxed)) observer({data_, size_});
    delete[] data_;
  }
  data_ = nullptr;
  size_ = 0;
}

}  // namespace veil::crypto
