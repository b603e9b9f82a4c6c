// GF(2^255 - 19) against OpenSSL's BIGNUM arithmetic, on random and edge-case operands, and the
// fixed-base X25519 path against libsodium's crypto_scalarmult_base.
#include "veil/crypto/fe25519.h"

#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <sodium.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "veil/crypto/random.h"
#include "veil/crypto/x25519.h"

namespace veil::crypto {
namespace {

using Bytes32 = std::array<std::uint8_t, 32>;

struct BnDeleter {
  void operator()(BIGNUM* b) const { BN_free(b); }
};
using Bn = std::unique_ptr<BIGNUM, BnDeleter>;

struct BnCtxDeleter {
  void operator()(BN_CTX* c) const { BN_CTX_free(c); }
};

// The oracle: values as BIGNUMs mod p.
class Oracle {
 public:
  Oracle() : ctx_(BN_CTX_new()), p_(BN_new()) {
    BN_set_bit(p_.get(), 255);
    BN_sub_word(p_.get(), 19);
  }
  // The 255-bit little-endian value of b (top bit dropped), reduced mod p.
  Bn FromBytes(const Bytes32& b) const {
    Bytes32 c = b;
    c[31] &= 0x7f;
    Bn r(BN_lebin2bn(c.data(), 32, nullptr));
    BN_nnmod(r.get(), r.get(), p_.get(), ctx_.get());
    return r;
  }
  Bytes32 ToBytes(const BIGNUM* x) const {
    Bytes32 out{};
    EXPECT_EQ(BN_bn2lebinpad(x, out.data(), 32), 32);
    return out;
  }
  Bn Mul(const BIGNUM* a, const BIGNUM* b) const {
    Bn r(BN_new());
    BN_mod_mul(r.get(), a, b, p_.get(), ctx_.get());
    return r;
  }
  Bn Add(const BIGNUM* a, const BIGNUM* b) const {
    Bn r(BN_new());
    BN_mod_add(r.get(), a, b, p_.get(), ctx_.get());
    return r;
  }
  Bn Sub(const BIGNUM* a, const BIGNUM* b) const {
    Bn r(BN_new());
    BN_mod_sub(r.get(), a, b, p_.get(), ctx_.get());
    return r;
  }
  Bn Inv(const BIGNUM* a) const {
    Bn r(BN_new());
    if (BN_is_zero(a)) return r;
    BN_mod_inverse(r.get(), a, p_.get(), ctx_.get());
    return r;
  }
  bool IsSquare(const BIGNUM* a) const {
    if (BN_is_zero(a)) return true;
    Bn r(BN_mod_sqrt(nullptr, a, p_.get(), ctx_.get()));
    ERR_clear_error();
    return r != nullptr;
  }

 private:
  std::unique_ptr<BN_CTX, BnCtxDeleter> ctx_;
  Bn p_;
};

// Random bytes, and the edge cases: 0, 1, p - 1, p, p + 1, 2^255 - 1 (all ones), values with
// every limb at its maximum.
std::vector<Bytes32> Operands(std::size_t random_count) {
  std::vector<Bytes32> v;
  Bytes32 b{};
  v.push_back(b);
  b[0] = 1;
  v.push_back(b);
  b.fill(0xff);
  b[31] = 0x7f;
  v.push_back(b);  // 2^255 - 1 = p + 18
  b[0] = 0xec;
  v.push_back(b);  // p - 1
  b[0] = 0xed;
  v.push_back(b);  // p
  b[0] = 0xee;
  v.push_back(b);  // p + 1
  b.fill(0xff);
  v.push_back(b);  // the top bit must be ignored
  for (std::size_t i = 0; i < random_count; ++i) {
    RandomBytes(b);
    v.push_back(b);
  }
  return v;
}

TEST(Fe25519, EncodingIsCanonical) {
  Oracle o;
  for (const Bytes32& b : Operands(200)) {
    EXPECT_EQ(FeToBytes(FeFromBytes(b)), o.ToBytes(o.FromBytes(b).get()));
  }
}

TEST(Fe25519, ArithmeticMatchesBignum) {
  Oracle o;
  const std::vector<Bytes32> ops = Operands(60);
  for (const Bytes32& x : ops) {
    for (const Bytes32& y : ops) {
      const Fe25519 a = FeFromBytes(x), b = FeFromBytes(y);
      const Bn ba = o.FromBytes(x), bb = o.FromBytes(y);
      ASSERT_EQ(FeToBytes(FeMul(a, b)), o.ToBytes(o.Mul(ba.get(), bb.get()).get()));
      ASSERT_EQ(FeToBytes(FeAdd(a, b)), o.ToBytes(o.Add(ba.get(), bb.get()).get()));
      ASSERT_EQ(FeToBytes(FeSub(a, b)), o.ToBytes(o.Sub(ba.get(), bb.get()).get()));
      // Loose inputs: sums of four reduced values are valid multiplication operands.
      const Fe25519 a4 = FeAdd(FeAdd(a, a), FeAdd(a, a)), b4 = FeAdd(FeAdd(b, b), FeAdd(b, b));
      const Bn four_a = o.Add(o.Add(ba.get(), ba.get()).get(), o.Add(ba.get(), ba.get()).get());
      const Bn four_b = o.Add(o.Add(bb.get(), bb.get()).get(), o.Add(bb.get(), bb.get()).get());
      ASSERT_EQ(FeToBytes(FeMul(a4, b4)), o.ToBytes(o.Mul(four_a.get(), four_b.get()).get()));
      ASSERT_EQ(FeToBytes(FeSub(a4, b4)), o.ToBytes(o.Sub(four_a.get(), four_b.get()).get()));
      ASSERT_EQ(FeEqual(a, b), FeToBytes(a) == FeToBytes(b) ? 1U : 0U);
    }
    const Fe25519 a = FeFromBytes(x);
    const Bn ba = o.FromBytes(x);
    EXPECT_EQ(FeToBytes(FeSquare(a)), o.ToBytes(o.Mul(ba.get(), ba.get()).get()));
    EXPECT_EQ(FeToBytes(FeInvert(a)), o.ToBytes(o.Inv(ba.get()).get()));
    EXPECT_EQ(FeToBytes(FeNeg(a)), o.ToBytes(o.Sub(o.FromBytes(Bytes32{}).get(), ba.get()).get()));
    EXPECT_EQ(FeIsZero(a), BN_is_zero(ba.get()) ? 1U : 0U);
    EXPECT_EQ(FeIsNegative(a), BN_is_odd(ba.get()) ? 1U : 0U);
    EXPECT_EQ(FeIsNegative(FeAbs(a)), 0U);
    Bytes32 small{};
    small[0] = 0x42;
    small[1] = 0xdb;
    small[2] = 0x01;  // 121666
    EXPECT_EQ(FeToBytes(FeMulSmall(a, 121666)),
              o.ToBytes(o.Mul(ba.get(), o.FromBytes(small).get()).get()));
    const Fe25519 zero = kFeZero;
    EXPECT_EQ(FeToBytes(FeSelect(zero, a, 1)), FeToBytes(a));
    EXPECT_EQ(FeToBytes(FeSelect(a, zero, 0)), FeToBytes(a));
    Fe25519 s = a, t = kFeOne;
    FeCondSwap(s, t, 1);
    EXPECT_EQ(FeToBytes(t), FeToBytes(a));
    FeCondSwap(s, t, 0);
    EXPECT_EQ(FeToBytes(s), FeToBytes(kFeOne));
  }
}

TEST(Fe25519, SqrtMinusOne) {
  EXPECT_EQ(FeToBytes(FeSquare(kFeSqrtM1)), FeToBytes(FeNeg(kFeOne)));
  EXPECT_EQ(FeIsNegative(kFeSqrtM1), 0U);
}

// RFC 9496 sec. 4.2: was_square says whether u/v is a square; r is the non-negative root of u/v or
// of SQRT_M1 * u/v. Checked against the definition and the BIGNUM square test.
TEST(Fe25519, SqrtRatioM1) {
  Oracle o;
  const std::vector<Bytes32> ops = Operands(150);
  for (std::size_t i = 0; i + 1 < ops.size(); ++i) {
    const Fe25519 u = FeFromBytes(ops[i]), v = FeFromBytes(ops[i + 1]);
    const FeSqrtRatio s = FeSqrtRatioM1(u, v);
    EXPECT_EQ(FeIsNegative(s.r), 0U);
    const Fe25519 vr2 = FeMul(v, FeSquare(s.r));
    if (FeIsZero(v) == 1U) {
      // u/0: RFC 9496 returns (u == 0, 0).
      EXPECT_EQ(s.was_square, FeIsZero(u));
      EXPECT_EQ(FeIsZero(s.r), 1U);
      continue;
    }
    const Bn ratio = o.Mul(o.FromBytes(ops[i]).get(), o.Inv(o.FromBytes(ops[i + 1]).get()).get());
    const bool square = o.IsSquare(ratio.get());
    EXPECT_EQ(s.was_square, square ? 1U : 0U);
    if (square) {
      EXPECT_EQ(FeEqual(vr2, u), 1U);
    } else {
      EXPECT_EQ(FeEqual(vr2, FeMul(kFeSqrtM1, u)), 1U);
    }
  }
}

TEST(X25519BaseMultiply, MatchesTheLadder) {
  ASSERT_GE(sodium_init(), 0);
  std::vector<Bytes32> keys;
  Bytes32 k{};
  keys.push_back(k);  // all zeros: libsodium's Edwards path refuses it; the ladder takes over
  k.fill(0xff);
  keys.push_back(k);
  for (int i = 0; i < 1000; ++i) {
    RandomBytes(k);
    keys.push_back(k);
  }
  for (const Bytes32& key : keys) {
    Bytes32 ours, theirs;
    X25519BaseMultiply(key, ours);
    ASSERT_EQ(crypto_scalarmult_base(theirs.data(), key.data()), 0);
    ASSERT_EQ(ours, theirs);
  }
}

}  // namespace
}  // namespace veil::crypto
