// Secrets left on the stack: once a function that handles a secret returns, the stack memory its
// frames used must hold no copy of the secret's named buffers (the 4-way Keccak's padded input and
// squeezed block, the long-IV mapping of AES-GCM).
//
// The method: zero a stretch of stack below the test's frame, run the function below a padding
// frame (so the scan's own frame cannot overwrite what it left), then search the dead stack for the
// secret bytes. A canary that leaves a secret unwiped must be found, or the scan is blind (an ASan
// fake stack would hide frames from it). Register spills are out of reach of C++ and of this test
// (docs/notes/mlkem.md, "Wiping").
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>

#include "../../src/crypto/gcm_long_iv.h"
#include "../../src/crypto/keccak4x.h"
#include "veil/crypto/aead.h"
#include "veil/crypto/random.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {
namespace {

constexpr std::size_t kScanBytes = 64 * 1024;
constexpr std::size_t kPadBytes = 4096;

// Zeroes kScanBytes of stack below the caller's frame.
[[gnu::noinline]] void ClearStackBelow() {
  std::uint8_t area[kScanBytes];
  SecureWipe(area, sizeof area);
  __asm__ volatile("" : : "r"(area) : "memory");
}

// Runs fn with its frames at least kPadBytes below the caller's.
[[gnu::noinline]] void RunBelowPadding(const std::function<void()>& fn) {
  std::uint8_t pad[kPadBytes];
  __asm__ volatile("" : : "r"(pad) : "memory");
  fn();
  __asm__ volatile("" : : "r"(pad) : "memory");
}

// Whether `needle` occurs in the dead stack below the caller's frame (within the cleared stretch).
// Reads memory below the stack pointer on purpose, hence no ASan; no calls, so no frame of its own
// below the scanned stretch is written while scanning.
[[gnu::noinline, gnu::no_sanitize_address]] bool DeadStackHolds(ByteView needle) {
  const auto* top = static_cast<const std::uint8_t*>(__builtin_frame_address(0));
  const volatile std::uint8_t* begin = top - kScanBytes + 1024;
  const volatile std::uint8_t* end = top - 512;
  for (const volatile std::uint8_t* p = begin; p + needle.size() <= end; ++p) {
    std::size_t i = 0;
    while (i < needle.size() && p[i] == needle[i]) ++i;
    if (i == needle.size()) return true;
  }
  return false;
}

// The canary: a frame that keeps a copy of a secret and does not wipe it.
[[gnu::noinline]] void LeaveCopy(ByteView secret, bool wipe) {
  std::array<std::uint8_t, 64> copy;
  std::memcpy(copy.data(), secret.data(), secret.size());
  __asm__ volatile("" : : "r"(copy.data()) : "memory");
  if (wipe) SecureWipe(copy.data(), copy.size());
}

TEST(StackResidue, ScanFindsAnUnwipedCopyAndNotAWipedOne) {
  const Bytes secret = RandomBytes(32);
  ClearStackBelow();
  RunBelowPadding([&] { LeaveCopy(secret, /*wipe=*/false); });
  EXPECT_TRUE(DeadStackHolds(secret)) << "the scan does not see the stack: its verdicts are void";
  ClearStackBelow();
  RunBelowPadding([&] { LeaveCopy(secret, /*wipe=*/true); });
  EXPECT_FALSE(DeadStackHolds(secret));
}

#if VEIL_HAVE_AVX2
// Four 34-byte inputs (as ML-DSA's rho' || index) absorbed, then a block squeezed from each: no
// input and no output block may stay in the dead stack.
TEST(StackResidue, Keccak4xLeavesNoPaddedInputOrSqueezedBlock) {
  if (!CpuHasAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  constexpr std::size_t kRate = 136, kLen = 34;
  std::array<Bytes, 4> inputs;
  std::array<const std::uint8_t*, 4> in;
  for (std::size_t n = 0; n < 4; ++n) {
    inputs[n] = RandomBytes(kLen);
    in[n] = inputs[n].data();
  }
  KeccakX4State state;
  ClearStackBelow();
  RunBelowPadding([&] { ShakeX4AbsorbOnceAvx2(state, kRate, in, kLen); });
  for (std::size_t n = 0; n < 4; ++n) {
    EXPECT_FALSE(DeadStackHolds(ByteView(inputs[n]).first(32))) << "input " << n;
  }

  std::array<std::array<std::uint8_t, kRate>, 4> blocks;
  const std::array<std::uint8_t*, 4> out = {blocks[0].data(), blocks[1].data(), blocks[2].data(),
                                            blocks[3].data()};
  ClearStackBelow();
  RunBelowPadding([&] { ShakeX4SqueezeBlockAvx2(state, kRate, out, kRate); });
  for (std::size_t n = 0; n < 4; ++n) {
    EXPECT_FALSE(DeadStackHolds(ByteView(blocks[n]).first(32))) << "block " << n;
    EXPECT_FALSE(DeadStackHolds(ByteView(blocks[n]).subspan(kRate - 32))) << "block " << n;
  }
  SecureWipe(&state, sizeof state);
}
#endif

// AES-GCM with an IV over 128 bytes maps it to a 16-byte IV' that, with the IV, determines the
// GHASH key H; neither H nor IV' may stay in the dead stack.
TEST(StackResidue, LongGcmIvLeavesNoHashKeyOrEquivalentIv) {
  const Bytes key = RandomBytes(32);
  const Bytes iv = RandomBytes(300);
  // H = AES_K(0^128), computed here independently of aead.cc.
  internal::Block h{};
  EVP_CIPHER_CTX* ecb = EVP_CIPHER_CTX_new();
  int len = 0;
  ASSERT_EQ(EVP_EncryptInit_ex(ecb, EVP_aes_256_ecb(), nullptr, key.data(), nullptr), 1);
  ASSERT_EQ(EVP_CIPHER_CTX_set_padding(ecb, 0), 1);
  ASSERT_EQ(EVP_EncryptUpdate(ecb, h.data(), &len, h.data(), 16), 1);
  EVP_CIPHER_CTX_free(ecb);
  internal::Block equivalent;
  internal::GcmEquivalentIv(h, iv, equivalent);
  // H as gcm_long_iv.cc holds it: two 64-bit words, bytes 0..7 and 8..15 read big-endian.
  std::array<std::uint8_t, 16> h_words;
  for (std::size_t i = 0; i < 8; ++i) {
    h_words[i] = h[7 - i];
    h_words[8 + i] = h[15 - i];
  }

  // The mapping alone.
  ClearStackBelow();
  RunBelowPadding([&] {
    internal::Block out;
    internal::GcmEquivalentIv(h, iv, out);
    SecureWipe(out.data(), out.size());
  });
  EXPECT_FALSE(DeadStackHolds(equivalent)) << "IV' from the mapping";
  EXPECT_FALSE(DeadStackHolds(h_words)) << "H as words from the mapping";

  auto gcm = AesGcm::Create(key);
  ASSERT_TRUE(gcm.ok());
  const Bytes plaintext = RandomBytes(40);
  Bytes sealed(plaintext.size() + AesGcm::kTagSize);
  ClearStackBelow();
  RunBelowPadding([&] { ASSERT_TRUE(gcm->Seal(iv, {}, plaintext, sealed).ok()); });
  EXPECT_FALSE(DeadStackHolds(equivalent)) << "IV'";
  EXPECT_FALSE(DeadStackHolds(h)) << "H";
  EXPECT_FALSE(DeadStackHolds(h_words)) << "H as words";

  Bytes opened(plaintext.size());
  ClearStackBelow();
  RunBelowPadding([&] { ASSERT_TRUE(gcm->Open(iv, {}, sealed, opened).ok()); });
  EXPECT_EQ(opened, plaintext);
  EXPECT_FALSE(DeadStackHolds(equivalent)) << "IV'";
  EXPECT_FALSE(DeadStackHolds(h)) << "H";
  EXPECT_FALSE(DeadStackHolds(h_words)) << "H as words";
}

}  // namespace
}  // namespace veil::crypto
