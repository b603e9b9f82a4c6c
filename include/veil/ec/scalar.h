// Scalars modulo the order l = 2^252 + 27742317777372353535851937790883648493 of ristretto255.
//
// A Scalar is always fully reduced (in [0, l)). Arithmetic, inversion and comparison are constant
// time; decoding from untrusted bytes is FromCanonical (rejects values >= l and wrong lengths).
// Five 52-bit limbs, products by Montgomery multiplication (docs/notes/ec.md).
//
// Secret scalars (keys, nonces, openings) are ordinary values of this type: the protocols that hold
// them call Wipe() when done, and the key types wipe in their destructors.
//
// Thread safety: values; no shared state.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "veil/base/bytes.h"
#include "veil/base/result.h"

namespace veil::ec {

class Scalar {
 public:
  static constexpr std::size_t kSize = 32;
  using Bytes = std::array<std::uint8_t, kSize>;

  // Zero.
  constexpr Scalar() = default;

  static Scalar Zero() { return Scalar(); }
  static Scalar One();
  static Scalar FromUint64(std::uint64_t v);
  // Strict decoding: exactly 32 bytes, little-endian, value < l. Anything else is
  // kInvalidArgument. Constant time in the value (it may be a secret key).
  static Result<Scalar> FromCanonical(ByteView bytes);
  // The 256-bit little-endian value reduced mod l (accepts every input).
  static Scalar FromBytesModOrder(std::span<const std::uint8_t, 32> bytes);
  // The 512-bit little-endian value reduced mod l: a uniform scalar from 64 uniform bytes.
  static Scalar FromBytesModOrderWide(std::span<const std::uint8_t, 64> bytes);
  // A uniformly random scalar from the CSPRNG (64 bytes, wide reduction).
  static Scalar Random();

  // The canonical 32-byte little-endian encoding.
  Bytes ToBytes() const;

  Scalar operator+(const Scalar& b) const;
  Scalar operator-(const Scalar& b) const;
  Scalar operator*(const Scalar& b) const;
  Scalar operator-() const;
  Scalar& operator+=(const Scalar& b) { return *this = *this + b; }
  Scalar& operator-=(const Scalar& b) { return *this = *this - b; }
  Scalar& operator*=(const Scalar& b) { return *this = *this * b; }
  Scalar Square() const { return *this * *this; }

  // The inverse mod l (x^(l-2)); zero maps to zero. Constant time.
  Scalar Invert() const;
  // Inverts every element in place with one inversion and 3(n-1) multiplications (Montgomery's
  // trick). Zero elements stay zero and do not spoil the others. Constant time in the values.
  static void BatchInvert(std::span<Scalar> scalars);

  // Constant-time comparisons (the result itself is the caller's to keep secret or not).
  bool IsZero() const;
  friend bool operator==(const Scalar& a, const Scalar& b);

  // r = choice ? b : a for choice in {0, 1}, without a branch.
  static Scalar Select(const Scalar& a, const Scalar& b, std::uint64_t choice);

  // Overwrites the value with zero in a way the compiler keeps.
  void Wipe();

  // --- recodings used by the scalar multiplications (src/ec) ---

  // 64 signed radix-16 digits d_i in [-8, 8) with value sum d_i 16^i. Constant time.
  std::array<std::int8_t, 64> ToRadix16() const;
  // Width-w non-adjacent form (2 <= w <= 8): 256 digits, each zero or odd with |d| < 2^(w-1).
  // Variable time: only for public scalars.
  std::array<std::int8_t, 256> ToNafVartime(int w) const;
  // Bit i (0 = least significant) of the canonical value.
  unsigned Bit(std::size_t i) const;

  // The limbs (radix 2^52, little-endian), for the arithmetic in src/ec.
  const std::array<std::uint64_t, 5>& limbs() const { return v_; }

 private:
  explicit constexpr Scalar(const std::array<std::uint64_t, 5>& v) : v_(v) {}
  friend struct ScalarInternal;
  std::array<std::uint64_t, 5> v_{};
};

// The group order l, little-endian.
extern const Scalar::Bytes kGroupOrderBytes;

}  // namespace veil::ec
