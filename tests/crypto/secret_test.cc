// SecretBytes and Secret<N>: move-only, wiped, compared in constant time.
#include "veil/crypto/secret.h"

#include <gtest/gtest.h>

#include <type_traits>

#include "veil/crypto/random.h"

namespace veil::crypto {
namespace {

static_assert(!std::is_copy_constructible_v<SecretBytes>);
static_assert(!std::is_copy_assignable_v<SecretBytes>);
static_assert(std::is_nothrow_move_constructible_v<SecretBytes>);
static_assert(!std::is_copy_constructible_v<Secret<32>>);

TEST(SecretBytes, CopyCloneCompare) {
  const Bytes raw = {1, 2, 3, 4};
  SecretBytes a = SecretBytes::CopyFrom(raw);
  SecretBytes b = a.Clone();
  EXPECT_TRUE(a.ConstantTimeEquals(b));
  b.ExposeMutable()[3] ^= 1;
  EXPECT_FALSE(a.ConstantTimeEquals(b));
  EXPECT_FALSE(a.ConstantTimeEquals(SecretBytes::CopyFrom(Bytes{1, 2, 3})));
  EXPECT_TRUE(SecretBytes().ConstantTimeEquals(SecretBytes()));
}

TEST(SecretBytes, MoveLeavesSourceEmpty) {
  SecretBytes a = RandomSecret(32);
  SecretBytes b = std::move(a);
  EXPECT_EQ(b.size(), 32u);
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): documented state
  a = std::move(b);
  EXPECT_EQ(a.size(), 32u);
}

TEST(Secret, MoveWipesSource) {
  Secret<16> a = RandomSecret<16>();
  Secret<16> copy = a.Clone();
  Secret<16> b = std::move(a);
  EXPECT_TRUE(b.ConstantTimeEquals(copy));
  Secret<16> zero;
  EXPECT_TRUE(a.ConstantTimeEquals(zero));  // NOLINT(bugprone-use-after-move)
}

}  // namespace
}  // namespace veil::crypto
