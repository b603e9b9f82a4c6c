// SecretBytes storage and the constant-time helpers behind it.
#include "veil/crypto/secret.h"

#include <sodium.h>

#include <cstring>

namespace veil::crypto {

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
    o.data_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

void SecretBytes::Reset() {
  if (data_ != nullptr) {
    SecureWipe(data_, size_);
    delete[] data_;
  }
  data_ = nullptr;
  size_ = 0;
}

}  // namespace veil::crypto
