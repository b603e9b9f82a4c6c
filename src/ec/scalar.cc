// Scalars mod l in five 52-bit limbs with Montgomery multiplication (R = 2^260); see
// docs/notes/ec.md for the bounds. Every function but ToNafVartime is constant time.
#include "veil/ec/scalar.h"

#include <vector>

#include "veil/base/consttime.h"
#include "veil/crypto/random.h"

namespace veil::ec {

// Access to the private limb constructor for this file.
struct ScalarInternal {
  static Scalar Make(const std::array<std::uint64_t, 5>& v) { return Scalar(v); }
};

namespace {

// __extension__ keeps -Wpedantic quiet about the GCC/Clang 128-bit type.
__extension__ typedef unsigned __int128 U128;  // NOLINT(modernize-use-using)
using Limbs = std::array<std::uint64_t, 5>;

constexpr std::uint64_t kMask52 = (std::uint64_t{1} << 52) - 1;
// l in radix 2^52.
constexpr Limbs kL = {0x0002631a5cf5d3edULL, 0x000dea2f79cd6581ULL, 0x000000000014def9ULL, 0,
                      0x0000100000000000ULL};
// -l^-1 mod 2^52.
constexpr std::uint64_t kLFactor = 0x51da312547e1bULL;
// R = 2^260 mod l and R^2 mod l.
constexpr Limbs kR = {0x000f48bd6721e6edULL, 0x0003bab5ac67e45aULL, 0x000fffffeb35e51bULL,
                      0x000fffffffffffffULL, 0x00000fffffffffffULL};
constexpr Limbs kRR = {0x0009d265e952d13bULL, 0x000d63c715bea69fULL, 0x0005be65cb687604ULL,
                       0x0003dceec73d217fULL, 0x000009411b7c309aULL};

U128 M(std::uint64_t a, std::uint64_t b) { return static_cast<U128>(a) * b; }

// 256 bits into limbs (the top limb holds 48 bits).
Limbs Unpack(const std::uint8_t* b) {
  std::array<std::uint64_t, 4> w;
  for (std::size_t i = 0; i < 4; ++i) w[i] = LoadLe64(b + 8 * i);
  return {w[0] & kMask52, ((w[0] >> 52) | (w[1] << 12)) & kMask52,
          ((w[1] >> 40) | (w[2] << 24)) & kMask52, ((w[2] >> 28) | (w[3] << 36)) & kMask52,
          w[3] >> 16};
}

// a - b + (l if the difference is negative): for a, b < l the result is (a - b) mod l. The borrow
// becomes a mask, never a branch.
Limbs SubModL(const Limbs& a, const Limbs& b) {
  Limbs d;
  std::uint64_t borrow = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    borrow = a[i] - (b[i] + (borrow >> 63));
    d[i] = borrow & kMask52;
  }
  const std::uint64_t underflow = 0 - (borrow >> 63);
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    carry = (carry >> 52) + d[i] + (kL[i] & underflow);
    d[i] = carry & kMask52;
  }
  return d;
}

// 1 when a < l (a with limbs < 2^52), computed as the borrow of a - l.
std::uint64_t LessThanL(const Limbs& a) {
  std::uint64_t borrow = 0;
  for (std::size_t i = 0; i < 5; ++i) borrow = a[i] - (kL[i] + (borrow >> 63));
  return borrow >> 63;
}

Limbs AddModL(const Limbs& a, const Limbs& b) {
  Limbs s;
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    carry = a[i] + b[i] + (carry >> 52);
    s[i] = carry & kMask52;
  }
  return SubModL(s, kL);
}

// a * b as nine 104-bit columns.
std::array<U128, 9> MulWide(const Limbs& a, const Limbs& b) {
  std::array<U128, 9> z{};
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t j = 0; j < 5; ++j) z[i + j] += M(a[i], b[j]);
  }
  return z;
}

// z / R mod l for z < l R (e.g. a product of two values below 2^260 and l): five rounds each
// adding the multiple of l that clears the low 52 bits, then one conditional subtraction.
Limbs MontgomeryReduce(std::array<U128, 9> z) {
  Limbs n;
  for (std::size_t i = 0; i < 5; ++i) {
    n[i] = (static_cast<std::uint64_t>(z[i]) * kLFactor) & kMask52;
    for (std::size_t j = 0; j < 5; ++j) z[i + j] += M(n[i], kL[j]);
    z[i + 1] += z[i] >> 52;  // the low 52 bits of z[i] are now zero
  }
  Limbs r;
  for (std::size_t i = 5; i < 8; ++i) {
    z[i + 1] += z[i] >> 52;
    r[i - 5] = static_cast<std::uint64_t>(z[i]) & kMask52;
  }
  r[3] = static_cast<std::uint64_t>(z[8]) & kMask52;
  r[4] = static_cast<std::uint64_t>(z[8] >> 52);
  return SubModL(r, kL);
}

Limbs MontMul(const Limbs& a, const Limbs& b) { return MontgomeryReduce(MulWide(a, b)); }

// 1 when every limb is zero, else 0, without a branch.
std::uint64_t IsZeroMask(const Limbs& v) {
  std::uint64_t acc = 0;
  for (const std::uint64_t x : v) acc |= x;
  return (acc - 1) >> 63 & ((~acc) >> 63);
}

void Store(const Limbs& v, std::uint8_t* out) {
  // 260 bits of limbs, of which the value uses at most 253.
  const std::array<std::uint64_t, 4> w = {v[0] | v[1] << 52, v[1] >> 12 | v[2] << 40,
                                          v[2] >> 24 | v[3] << 28, v[3] >> 36 | v[4] << 16};
  for (std::size_t i = 0; i < 4; ++i) StoreLe64(out + 8 * i, w[i]);
}

}  // namespace

const Scalar::Bytes kGroupOrderBytes = {
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0x10};

Scalar Scalar::One() { return Scalar({1, 0, 0, 0, 0}); }

Scalar Scalar::FromUint64(std::uint64_t v) { return Scalar({v & kMask52, v >> 52, 0, 0, 0}); }

Result<Scalar> Scalar::FromCanonical(ByteView bytes) {
  if (bytes.size() != kSize) return InvalidArgument("scalar: must be 32 bytes");
  const Limbs v = Unpack(bytes.data());
  // The verdict on a secret key's canonicity is public: a non-canonical key is rejected outright.
  std::uint64_t canonical = LessThanL(v);
  VEIL_DECLASSIFY(&canonical, sizeof canonical);
  if (canonical == 0) return InvalidArgument("scalar: not reduced mod the group order");
  return Scalar(v);
}

Scalar Scalar::FromBytesModOrder(std::span<const std::uint8_t, 32> bytes) {
  // Unpack(x) < 2^256 and R < l, so the product is below l R and MontMul gives x R / R = x mod l.
  return Scalar(MontMul(Unpack(bytes.data()), kR));
}

Scalar Scalar::FromBytesModOrderWide(std::span<const std::uint8_t, 64> bytes) {
  // x = lo + 2^260 hi with lo, hi < 2^260: x mod l = lo R / R + hi R^2 / R.
  Limbs lo, hi;
  std::array<std::uint64_t, 8> w;
  for (std::size_t i = 0; i < 8; ++i) w[i] = LoadLe64(bytes.data() + 8 * i);
  lo = {w[0] & kMask52, ((w[0] >> 52) | (w[1] << 12)) & kMask52,
        ((w[1] >> 40) | (w[2] << 24)) & kMask52, ((w[2] >> 28) | (w[3] << 36)) & kMask52,
        ((w[3] >> 16) | (w[4] << 48)) & kMask52};
  hi = {(w[4] >> 4) & kMask52, ((w[4] >> 56) | (w[5] << 8)) & kMask52,
        ((w[5] >> 44) | (w[6] << 20)) & kMask52, ((w[6] >> 32) | (w[7] << 32)) & kMask52,
        w[7] >> 20};
  return Scalar(AddModL(MontMul(lo, kR), MontMul(hi, kRR)));
}

Scalar Scalar::Random() {
  std::array<std::uint8_t, 64> b;
  crypto::RandomBytes(b);
  Scalar s = FromBytesModOrderWide(b);
  volatile std::uint8_t* p = b.data();
  for (std::size_t i = 0; i < b.size(); ++i) p[i] = 0;
  return s;
}

Scalar::Bytes Scalar::ToBytes() const {
  Bytes out;
  Store(v_, out.data());
  return out;
}

Scalar Scalar::operator+(const Scalar& b) const { return Scalar(AddModL(v_, b.v_)); }
Scalar Scalar::operator-(const Scalar& b) const { return Scalar(SubModL(v_, b.v_)); }
Scalar Scalar::operator-() const { return Scalar(SubModL(Limbs{}, v_)); }
Scalar Scalar::operator*(const Scalar& b) const { return Scalar(MontMul(MontMul(v_, b.v_), kRR)); }

Scalar Scalar::Invert() const {
  // x^(l-2) in the Montgomery domain with a fixed 4-bit window; the exponent is public.
  std::array<Limbs, 16> table;
  table[0] = kR;                // 1 R
  table[1] = MontMul(v_, kRR);  // x R
  for (std::size_t i = 2; i < 16; ++i) table[i] = MontMul(table[i - 1], table[1]);
  Bytes e = kGroupOrderBytes;
  e[0] = static_cast<std::uint8_t>(e[0] - 2);  // l - 2 (no borrow: the low byte is 0xed)
  Limbs acc = kR;
  for (std::size_t i = 64; i-- > 0;) {
    for (int k = 0; k < 4; ++k) acc = MontMul(acc, acc);
    const unsigned nibble = (static_cast<unsigned>(e[i / 2]) >> (4 * (i % 2))) & 15U;
    if (nibble != 0) acc = MontMul(acc, table[nibble]);
  }
  return Scalar(MontMul(acc, Limbs{1, 0, 0, 0, 0}));  // out of the Montgomery domain
}

void Scalar::BatchInvert(std::span<Scalar> scalars) {
  // Zeros are replaced by one for the running products and restored at the end, by masks.
  const std::size_t n = scalars.size();
  if (n == 0) return;
  std::vector<Scalar> prefix(n);
  std::vector<std::uint64_t> zero(n);
  Scalar acc = One();
  for (std::size_t i = 0; i < n; ++i) {
    zero[i] = IsZeroMask(scalars[i].limbs());
    prefix[i] = acc;
    acc = acc * Select(scalars[i], One(), zero[i]);
  }
  Scalar inv = acc.Invert();
  for (std::size_t i = n; i-- > 0;) {
    const Scalar x = Select(scalars[i], One(), zero[i]);
    const Scalar r = inv * prefix[i];
    inv = inv * x;
    scalars[i] = Select(r, Zero(), zero[i]);
  }
}

bool Scalar::IsZero() const { return IsZeroMask(v_) != 0; }

bool operator==(const Scalar& a, const Scalar& b) {
  std::uint64_t acc = 0;
  for (std::size_t i = 0; i < 5; ++i) acc |= a.v_[i] ^ b.v_[i];
  return ((acc - 1) >> 63) != 0;
}

Scalar Scalar::Select(const Scalar& a, const Scalar& b, std::uint64_t choice) {
  const std::uint64_t mask = 0 - choice;
  Limbs r;
  for (std::size_t i = 0; i < 5; ++i) r[i] = a.v_[i] ^ (mask & (a.v_[i] ^ b.v_[i]));
  return Scalar(r);
}

void Scalar::Wipe() {
  volatile std::uint64_t* p = v_.data();
  for (std::size_t i = 0; i < 5; ++i) p[i] = 0;
}

std::array<std::int8_t, 64> Scalar::ToRadix16() const {
  const Bytes b = ToBytes();
  std::array<std::int8_t, 64> d;
  for (std::size_t i = 0; i < 32; ++i) {
    d[2 * i] = static_cast<std::int8_t>(b[i] & 15);
    d[2 * i + 1] = static_cast<std::int8_t>(b[i] >> 4);
  }
  // Recenters each digit into [-8, 8) by carrying into the next; the top digit stays below 8
  // because the value is below 2^253.
  for (std::size_t i = 0; i < 63; ++i) {
    const std::int8_t carry = static_cast<std::int8_t>((d[i] + 8) >> 4);
    d[i] = static_cast<std::int8_t>(d[i] - (carry << 4));
    d[i + 1] = static_cast<std::int8_t>(d[i + 1] + carry);
  }
  return d;
}

std::array<std::int8_t, 256> Scalar::ToNafVartime(int w) const {
  const Bytes b = ToBytes();
  std::array<std::uint64_t, 5> x{};
  for (std::size_t i = 0; i < 4; ++i) x[i] = LoadLe64(b.data() + 8 * i);
  std::array<std::int8_t, 256> naf{};
  const std::uint64_t width = std::uint64_t{1} << w;
  const std::uint64_t window_mask = width - 1;
  std::size_t pos = 0;
  std::uint64_t carry = 0;
  while (pos < 256) {
    const std::size_t idx = pos / 64, bit = pos % 64;
    std::uint64_t buf = x[idx] >> bit;
    if (bit + static_cast<std::size_t>(w) > 64 && idx + 1 < 5) buf |= x[idx + 1] << (64 - bit);
    const std::uint64_t window = carry + (buf & window_mask);
    if ((window & 1) == 0) {
      ++pos;
      continue;
    }
    if (window < width / 2) {
      carry = 0;
      naf[pos] = static_cast<std::int8_t>(window);
    } else {
      carry = 1;
      naf[pos] = static_cast<std::int8_t>(static_cast<std::int64_t>(window) -
                                          static_cast<std::int64_t>(width));
    }
    pos += static_cast<std::size_t>(w);
  }
  return naf;
}

unsigned Scalar::Bit(std::size_t i) const {
  return static_cast<unsigned>((v_[i / 52] >> (i % 52)) & 1U);
}

}  // namespace veil::ec
