// SecretBytes and Secret<N>: move-only, compared in constant time, wiped when destroyed and when
// moved from (the memory itself is inspected), and unusable once moved from.
#include "veil/crypto/secret.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "veil/crypto/random.h"
#include "veil/crypto/testing/secret.h"

namespace veil::crypto {
namespace {

static_assert(!std::is_copy_constructible_v<SecretBytes>);
static_assert(!std::is_copy_assignable_v<SecretBytes>);
static_assert(std::is_nothrow_move_constructible_v<SecretBytes>);
static_assert(!std::is_copy_constructible_v<Secret<32>>);
static_assert(std::is_nothrow_move_constructible_v<Secret<32>>);

bool AllZero(const std::uint8_t* p, std::size_t n) {
  return std::all_of(p, p + n, [](std::uint8_t b) { return b == 0; });
}

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

TEST(SecretBytes, MoveHandsOverTheBufferAndLeavesSourceEmpty) {
  SecretBytes a = RandomSecret(32);
  const std::uint8_t* buffer = a.Expose().data();
  SecretBytes b = std::move(a);
  EXPECT_EQ(b.Expose().data(), buffer);  // the same buffer, so no copy is left behind
  EXPECT_EQ(b.size(), 32u);
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): documented state
  EXPECT_TRUE(a.empty());   // NOLINT(bugprone-use-after-move)
  a = std::move(b);
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a.Expose().data(), buffer);
}

// The buffers freed while an observer is set, as seen just before each free.
struct Freed {
  std::vector<const std::uint8_t*> where;
  std::vector<bool> zero;
};
Freed g_freed;

class ObserveFrees {
 public:
  ObserveFrees() {
    g_freed = {};
    for_testing::SetFreedSecretObserver([](ByteView b) {
      g_freed.where.push_back(b.data());
      g_freed.zero.push_back(AllZero(b.data(), b.size()));
    });
  }
  ~ObserveFrees() { for_testing::SetFreedSecretObserver(nullptr); }
};

TEST(SecretBytes, BufferIsWipedBeforeItIsFreed) {
  ObserveFrees observe;
  const std::uint8_t* buffer = nullptr;
  {
    SecretBytes s(100);
    std::fill(s.ExposeMutable().begin(), s.ExposeMutable().end(), 0xa5);
    buffer = s.Expose().data();
  }
  ASSERT_EQ(g_freed.where.size(), 1u);
  EXPECT_EQ(g_freed.where[0], buffer);
  EXPECT_TRUE(g_freed.zero[0]);
}

TEST(SecretBytes, AssignmentWipesTheOldBufferAndMoveLeavesNothingToWipe) {
  ObserveFrees observe;
  SecretBytes target(64);
  std::fill(target.ExposeMutable().begin(), target.ExposeMutable().end(), 0x11);
  const std::uint8_t* old_buffer = target.Expose().data();
  const std::uint8_t* moved_buffer = nullptr;
  {
    SecretBytes source(48);
    std::fill(source.ExposeMutable().begin(), source.ExposeMutable().end(), 0x22);
    moved_buffer = source.Expose().data();
    target = std::move(source);
    // The target's old buffer was wiped and freed.
    ASSERT_EQ(g_freed.where.size(), 1u);
    EXPECT_EQ(g_freed.where[0], old_buffer);
    EXPECT_TRUE(g_freed.zero[0]);
  }
  // The moved-from source owned nothing, so its destruction freed nothing; the moved buffer lives
  // on, intact, in the target.
  EXPECT_EQ(g_freed.where.size(), 1u);
  EXPECT_EQ(target.Expose().data(), moved_buffer);
  EXPECT_EQ(target.Expose()[47], 0x22);
  { SecretBytes last = std::move(target); }
  ASSERT_EQ(g_freed.where.size(), 2u);
  EXPECT_EQ(g_freed.where[1], moved_buffer);
  EXPECT_TRUE(g_freed.zero[1]);
}

// A Secret<N> built in a buffer of our own, so that the bytes can be read after its destructor.
template <std::size_t N>
struct alignas(Secret<N>) Slot {
  std::uint8_t bytes[sizeof(Secret<N>)];
  Secret<N>* get() { return std::launder(reinterpret_cast<Secret<N>*>(bytes)); }
  // Where the N secret bytes sit inside the object: found by content, not by layout assumption.
  const std::uint8_t* Find(std::uint8_t fill) const {
    for (std::size_t i = 0; i + N <= sizeof bytes; ++i) {
      if (std::all_of(bytes + i, bytes + i + N, [&](std::uint8_t b) { return b == fill; })) {
        return bytes + i;
      }
    }
    return nullptr;
  }
};

TEST(Secret, DestructorWipesTheBytes) {
  Slot<32> slot;
  Secret<32>* s = new (slot.bytes) Secret<32>();
  std::fill(s->ExposeMutable().begin(), s->ExposeMutable().end(), 0xc3);
  const std::uint8_t* at = slot.Find(0xc3);
  ASSERT_NE(at, nullptr);
  s->~Secret<32>();
  EXPECT_TRUE(AllZero(at, 32));
}

TEST(Secret, MoveWipesTheSource) {
  Slot<16> slot;
  Secret<16>* a = new (slot.bytes) Secret<16>();
  std::fill(a->ExposeMutable().begin(), a->ExposeMutable().end(), 0x5c);
  const std::uint8_t* at = slot.Find(0x5c);
  ASSERT_NE(at, nullptr);
  Secret<16> b = std::move(*a);  // move construction
  EXPECT_TRUE(AllZero(at, 16));
  EXPECT_EQ(b.Expose()[15], 0x5c);
  a->~Secret<16>();

  Secret<16>* c = new (slot.bytes) Secret<16>();
  std::fill(c->ExposeMutable().begin(), c->ExposeMutable().end(), 0x77);
  ASSERT_EQ(slot.Find(0x77), at);
  b = std::move(*c);  // move assignment
  EXPECT_TRUE(AllZero(at, 16));
  EXPECT_EQ(b.Expose()[0], 0x77);
  c->~Secret<16>();
}

TEST(SecretDeathTest, MovedFromSecretsCannotBeRead) {
  Secret<32> a = RandomSecret<32>();
  Secret<32> b = std::move(a);
  EXPECT_DEATH((void)a.Expose(), "moved-from");         // NOLINT(bugprone-use-after-move)
  EXPECT_DEATH((void)a.ExposeMutable(), "moved-from");  // NOLINT(bugprone-use-after-move)
  EXPECT_DEATH((void)a.Clone(), "moved-from");          // NOLINT(bugprone-use-after-move)
  EXPECT_DEATH((void)a.ConstantTimeEquals(b), "moved-from");
  Secret<32> c;
  c = std::move(b);
  EXPECT_DEATH((void)b.Expose(), "moved-from");  // NOLINT(bugprone-use-after-move)
  // Assigning makes it a value again; moving a moved-from one passes the state on.
  a = c.Clone();
  EXPECT_TRUE(a.ConstantTimeEquals(c));
  Secret<32> e = std::move(b);
  EXPECT_DEATH((void)e.Expose(), "moved-from");

  SecretBytes x = RandomSecret(16);
  SecretBytes y = std::move(x);
  EXPECT_DEATH((void)x.Expose(), "moved-from");         // NOLINT(bugprone-use-after-move)
  EXPECT_DEATH((void)x.ExposeMutable(), "moved-from");  // NOLINT(bugprone-use-after-move)
  EXPECT_DEATH((void)x.Clone(), "moved-from");          // NOLINT(bugprone-use-after-move)
  SecretBytes z;
  z = std::move(y);
  EXPECT_DEATH((void)y.Expose(), "moved-from");  // NOLINT(bugprone-use-after-move)
  x = z.Clone();
  EXPECT_TRUE(x.ConstantTimeEquals(z));
  // A default-constructed empty secret is a value, not a moved-from one.
  EXPECT_TRUE(SecretBytes().Expose().empty());
}

}  // namespace
}  // namespace veil::crypto
