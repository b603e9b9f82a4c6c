// The GHASH arithmetic behind GcmEquivalentIv (see gcm_long_iv.h).
#include "gcm_long_iv.h"

#include <cstring>

#include "veil/crypto/secret.h"

namespace veil::crypto::internal {
namespace {

struct U128 {
  std::uint64_t hi, lo;  // hi holds bytes 0..7 (big-endian), where GCM's bit 0 is the MSB.
};

U128 Load(const Block& b) {
  U128 v{0, 0};
  for (int i = 0; i < 8; ++i) v.hi = (v.hi << 8) | b[static_cast<std::size_t>(i)];
  for (int i = 8; i < 16; ++i) v.lo = (v.lo << 8) | b[static_cast<std::size_t>(i)];
  return v;
}

void Store(U128 v, Block& b) {
  for (int i = 7; i >= 0; --i, v.hi >>= 8)
    b[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v.hi);
  for (int i = 15; i >= 8; --i, v.lo >>= 8)
    b[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v.lo);
}

// SP 800-38D Algorithm 1, with masks instead of branches.
U128 Mul(U128 x, U128 y) {
  U128 z{0, 0};
  U128 v = y;
  for (int i = 0; i < 128; ++i) {
    const std::uint64_t word = i < 64 ? x.hi : x.lo;
    const std::uint64_t bit = (word >> (63 - (i & 63))) & 1u;
    const std::uint64_t take = 0 - bit;
    z.hi ^= v.hi & take;
    z.lo ^= v.lo & take;
    const std::uint64_t carry = 0 - (v.lo & 1u);
    v.lo = (v.lo >> 1) | (v.hi << 63);
    v.hi = (v.hi >> 1) ^ (0xe100000000000000ull & carry);
  }
  return z;
}

U128 Xor(U128 a, U128 b) { return {a.hi ^ b.hi, a.lo ^ b.lo}; }

void Wipe(U128& v) { SecureWipe(&v, sizeof v); }

// a^(2^128 - 2) = a^-1 for a != 0: the product of a^(2^i) for i = 1..127.
U128 Inverse(U128 a) {
  U128 result{0x8000000000000000ull, 0};  // the field's 1 in GCM bit order
  U128 t = a;
  for (int i = 1; i < 128; ++i) {
    t = Mul(t, t);
    result = Mul(result, t);
  }
  Wipe(t);  // a power of a, as secret as a
  return result;
}

}  // namespace

Block GcmMul(const Block& x, const Block& y) {
  Block b;
  Store(Mul(Load(x), Load(y)), b);
  return b;
}

// Every U128 here but the IV blocks and L is the hash key H or derived from it, and so is the
// result (IV and IV' together determine H): all are wiped, and the caller wipes IV' after use.
void GcmEquivalentIv(const Block& h_bytes, ByteView iv, Block& out) {
  U128 h = Load(h_bytes);
  // J0 = GHASH_H(IV || 0-pad || [0]_64 || [len(IV) in bits]_64)
  U128 y{0, 0};
  for (std::size_t off = 0; off < iv.size(); off += 16) {
    Block blk{};
    std::memcpy(blk.data(), iv.data() + off, std::min<std::size_t>(16, iv.size() - off));
    y = Mul(Xor(y, Load(blk)), h);
  }
  const U128 len_block{0, static_cast<std::uint64_t>(iv.size()) * 8};
  U128 j0 = Mul(Xor(y, len_block), h);
  // IV' = (J0 + L·H) · H^-2 with L = [0]_64 || [128]_64.
  const U128 l{0, 128};
  U128 h_inv = Inverse(h);
  U128 h_inv2 = Mul(h_inv, h_inv);
  U128 sum = Xor(j0, Mul(l, h));
  Store(Mul(sum, h_inv2), out);
  Wipe(h);
  Wipe(y);
  Wipe(j0);
  Wipe(h_inv);
  Wipe(h_inv2);
  Wipe(sum);
}

}  // namespace veil::crypto::internal
