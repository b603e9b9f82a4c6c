// Keccak-f[1600], SHA3-256/512 and SHAKE128/256: published answers, a plain implementation of the
// specification's step mappings, OpenSSL as an independent implementation, and the streaming
// interface against the one-shot functions.
#include "veil/crypto/keccak.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "veil/base/encoding.h"

namespace veil::crypto {
namespace {

Bytes Hex(std::string_view hex) { return HexDecode(hex).value(); }

template <std::size_t N>
Bytes ToBytes(const std::array<std::uint8_t, N>& a) {
  return Bytes(a.begin(), a.end());
}

Bytes RandomInput(std::mt19937_64& rng, std::size_t n) {
  Bytes out(n);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

std::size_t RandomBelow(std::mt19937_64& rng, std::size_t bound) {
  return std::uniform_int_distribution<std::size_t>(0, bound - 1)(rng);
}

// OpenSSL's EVP interface as the independent implementation. `xof` selects EVP_DigestFinalXOF.
Bytes OpenSslHash(const char* name, ByteView in, std::size_t out_len, bool xof) {
  std::unique_ptr<EVP_MD, decltype(&EVP_MD_free)> md(EVP_MD_fetch(nullptr, name, nullptr),
                                                     &EVP_MD_free);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  EXPECT_NE(md, nullptr);
  EXPECT_NE(ctx, nullptr);
  Bytes out(out_len);
  EXPECT_EQ(EVP_DigestInit_ex2(ctx.get(), md.get(), nullptr), 1);
  EXPECT_EQ(EVP_DigestUpdate(ctx.get(), in.data(), in.size()), 1);
  if (xof) {
    EXPECT_EQ(EVP_DigestFinalXOF(ctx.get(), out.data(), out.size()), 1);
  } else {
    unsigned int n = 0;
    EXPECT_EQ(EVP_DigestFinal_ex(ctx.get(), out.data(), &n), 1);
    EXPECT_EQ(n, out_len);
  }
  return out;
}

// The four functions behind one signature, for the loops below.
struct Function {
  const char* openssl_name;
  bool xof;
  std::size_t rate;
  std::size_t digest_size;  // 0 for the XOFs
  Bytes (*veil_hash)(ByteView in, std::size_t out_len);
};

const Function kFunctions[] = {
    {"SHA3-256", false, 136, 32,
     [](ByteView in, std::size_t) { return ToBytes(Sha3_256::Hash(in)); }},
    {"SHA3-512", false, 72, 64,
     [](ByteView in, std::size_t) { return ToBytes(Sha3_512::Hash(in)); }},
    {"SHAKE128", true, 168, 0, [](ByteView in, std::size_t n) { return Shake128::Hash(in, n); }},
    {"SHAKE256", true, 136, 0, [](ByteView in, std::size_t n) { return Shake256::Hash(in, n); }},
};

std::size_t DigestLength(const Function& f, std::mt19937_64& rng) {
  if (!f.xof) return f.digest_size;
  return RandomBelow(rng, 600);
}

// ---------------------------------------------------------------------------------------------
// Known answers.

// Empty message: NIST's "Examples with Intermediate Values" for FIPS 202 (SHA3-256_Msg0,
// SHA3-512_Msg0, SHAKE128_Msg0, SHAKE256_Msg0; SHAKE outputs are the first 32 and 64 bytes of the
// published 4096-bit outputs). "abc": the values published with the SHA-3 test vectors at
// di-mgt.com.au/sha_testvectors.html. All eight were also reproduced with OpenSSL 3.0's
// `openssl dgst` before being written here.
TEST(Sha3, KnownAnswers) {
  EXPECT_EQ(HexEncode(Sha3_256::Hash({})),
            "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
  EXPECT_EQ(HexEncode(Sha3_256::Hash(AsBytes("abc"))),
            "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532");
  EXPECT_EQ(HexEncode(Sha3_512::Hash({})),
            "a69f73cca23a9ac5c8b567dc185a756e97c982164fe25859e0d1dcc1475c80a6"
            "15b2123af1f5f94c11e3e9402c3ac558f500199d95b6d3e301758586281dcd26");
  EXPECT_EQ(HexEncode(Sha3_512::Hash(AsBytes("abc"))),
            "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e"
            "10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0");
}

TEST(Shake, KnownAnswers) {
  EXPECT_EQ(HexEncode(Shake128::Hash({}, 32)),
            "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26");
  EXPECT_EQ(HexEncode(Shake128::Hash(AsBytes("abc"), 32)),
            "5881092dd818bf5cf8a3ddb793fbcba74097d5c526a6d35f97b83351940f2cc8");
  EXPECT_EQ(HexEncode(Shake256::Hash({}, 64)),
            "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f"
            "d75dc4ddd8c0f200cb05019d67b592f6fc821c49479ab48640292eacb3b7c4be");
  EXPECT_EQ(HexEncode(Shake256::Hash(AsBytes("abc"), 64)),
            "483366601360a8771c6863080cc4114d8db44530f8f1e1ee4f94ea37e78b5739"
            "d5a15bef186a5386c75744c0527e1faa9f8726e462a12a4feb06bd8801e751e4");
}

// Keccak-f[1600] of the all-zero state, lane by lane: the "After permutation" state of the Keccak
// team's KeccakF-1600-IntermediateValues.txt (XKCP, tests/TestVectors). Lane 0 after a second
// application is the first lane of the next state in the same file.
constexpr KeccakState kZeroPermuted = {
    0xF1258F7940E1DDE7, 0x84D5CCF933C0478A, 0xD598261EA65AA9EE, 0xBD1547306F80494D,
    0x8B284E056253D057, 0xFF97A42D7F8E6FD4, 0x90FEE5A0A44647C4, 0x8C5BDA0CD6192E76,
    0xAD30A6F71B19059C, 0x30935AB7D08FFC64, 0xEB5AA93F2317D635, 0xA9A6E6260D712103,
    0x81A57C16DBCF555F, 0x43B831CD0347C826, 0x01F22F1A11A5569F, 0x05E5635A21D9AE61,
    0x64BEFEF28CC970F2, 0x613670957BC46611, 0xB87C5A554FD00ECB, 0x8C3EE88A1CCF32C8,
    0x940C7922AE3A2614, 0x1841F924A2C509E4, 0x16F53526E70465C2, 0x75F644E97F30A13B,
    0xEAF1FF7B5CECA249};
constexpr std::uint64_t kZeroPermutedTwiceLane0 = 0x2D5C954DF96ECB3C;

TEST(KeccakF1600, ZeroStateKnownAnswer) {
  KeccakState state{};
  KeccakF1600(state);
  EXPECT_EQ(state, kZeroPermuted);
  KeccakF1600(state);
  EXPECT_EQ(state[0], kZeroPermutedTwiceLane0);
}

// A deliberately plain Keccak-f[1600]: the step mappings of FIPS 202 sec. 3.2 on A[x][y], the
// rotation offsets of Algorithm 2 and the round constants of Algorithms 5 and 6 computed bit by
// bit. Slow and obviously like the text, so that the unrolled, lane-complemented permutation has
// something to be compared with on any state.
KeccakState SpecKeccakF1600(const KeccakState& in) {
  std::uint64_t a[5][5];
  for (std::size_t x = 0; x < 5; ++x) {
    for (std::size_t y = 0; y < 5; ++y) a[x][y] = in[x + 5 * y];
  }
  std::size_t offset[5][5] = {};
  for (std::size_t t = 0, x = 1, y = 0; t < 24; ++t) {  // Algorithm 2
    offset[x][y] = ((t + 1) * (t + 2) / 2) % 64;
    const std::size_t nx = y;
    y = (2 * x + 3 * y) % 5;
    x = nx;
  }
  auto rc_bit = [](std::size_t t) {  // Algorithm 5, R as a vector of bits R[0..8]
    if (t % 255 == 0) return 1;
    int r[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
    for (std::size_t i = 1; i <= t % 255; ++i) {
      for (std::size_t k = 8; k > 0; --k) r[k] = r[k - 1];
      r[0] = 0;
      r[0] ^= r[8];
      r[4] ^= r[8];
      r[5] ^= r[8];
      r[6] ^= r[8];
    }
    return r[0];
  };
  auto rot = [](std::uint64_t v, std::size_t n) { return n == 0 ? v : (v << n) | (v >> (64 - n)); };
  for (std::size_t ir = 0; ir < 24; ++ir) {
    std::uint64_t c[5], d[5], b[5][5];
    for (std::size_t x = 0; x < 5; ++x)
      c[x] = a[x][0] ^ a[x][1] ^ a[x][2] ^ a[x][3] ^ a[x][4];  // theta
    for (std::size_t x = 0; x < 5; ++x) d[x] = c[(x + 4) % 5] ^ rot(c[(x + 1) % 5], 1);
    for (std::size_t x = 0; x < 5; ++x) {
      for (std::size_t y = 0; y < 5; ++y) a[x][y] ^= d[x];
    }
    for (std::size_t x = 0; x < 5; ++x) {  // rho, then pi: A'[x][y] = A[(x + 3y) mod 5][x]
      for (std::size_t y = 0; y < 5; ++y) b[x][y] = rot(a[x][y], offset[x][y]);
    }
    for (std::size_t x = 0; x < 5; ++x) {
      for (std::size_t y = 0; y < 5; ++y) a[x][y] = b[(x + 3 * y) % 5][x];
    }
    for (std::size_t y = 0; y < 5; ++y) {  // chi
      std::uint64_t row[5];
      for (std::size_t x = 0; x < 5; ++x) row[x] = a[x][y];
      for (std::size_t x = 0; x < 5; ++x) a[x][y] = row[x] ^ (~row[(x + 1) % 5] & row[(x + 2) % 5]);
    }
    for (std::size_t j = 0; j <= 6; ++j) {  // iota
      if (rc_bit(j + 7 * ir) != 0) a[0][0] ^= std::uint64_t{1} << ((1 << j) - 1);
    }
  }
  KeccakState out;
  for (std::size_t x = 0; x < 5; ++x) {
    for (std::size_t y = 0; y < 5; ++y) out[x + 5 * y] = a[x][y];
  }
  return out;
}

TEST(KeccakF1600, SpecReferenceAgreesWithPublishedZeroState) {
  EXPECT_EQ(SpecKeccakF1600(KeccakState{}), kZeroPermuted);
}

TEST(KeccakF1600, MatchesSpecReferenceOnRandomStates) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 500; ++i) {
    KeccakState state;
    for (auto& lane : state) lane = rng();
    // Lanes that are all ones or all zeros exercise the complemented representation's edges.
    if (i % 5 == 1) state[static_cast<std::size_t>(i % 25)] = ~std::uint64_t{0};
    const KeccakState want = SpecKeccakF1600(state);
    KeccakF1600(state);
    ASSERT_EQ(state, want) << "state " << i;
  }
}

// ---------------------------------------------------------------------------------------------
// Differential against OpenSSL.

TEST(Keccak, MatchesOpenSslOnEveryLengthUpTo600) {
  std::mt19937_64 rng(2);
  for (const Function& f : kFunctions) {
    for (std::size_t len = 0; len <= 600; ++len) {
      const Bytes in = RandomInput(rng, len);
      const std::size_t out_len = DigestLength(f, rng);
      ASSERT_EQ(HexEncode(f.veil_hash(in, out_len)),
                HexEncode(OpenSslHash(f.openssl_name, in, out_len, f.xof)))
          << f.openssl_name << " input length " << len << " output length " << out_len;
    }
  }
}

TEST(Keccak, MatchesOpenSslOnLargeInputsAndOutputs) {
  std::mt19937_64 rng(3);
  for (const Function& f : kFunctions) {
    for (std::size_t len : {1000u, 4096u, 65536u + 7u, 1u << 20}) {
      const Bytes in = RandomInput(rng, len);
      const std::size_t out_len = f.xof ? 10000 + RandomBelow(rng, 1000) : DigestLength(f, rng);
      ASSERT_EQ(f.veil_hash(in, out_len), OpenSslHash(f.openssl_name, in, out_len, f.xof))
          << f.openssl_name << " input length " << len;
    }
  }
}

// Output lengths around every multiple of the rate, where squeezing permutes again.
TEST(Shake, MatchesOpenSslAtOutputBlockBoundaries) {
  std::mt19937_64 rng(4);
  const Bytes in = RandomInput(rng, 50);
  for (const Function& f : kFunctions) {
    if (!f.xof) continue;
    for (std::size_t blocks = 0; blocks <= 4; ++blocks) {
      for (std::size_t delta = 0; delta <= 2; ++delta) {
        const std::size_t out_len = blocks * f.rate + delta;
        EXPECT_EQ(f.veil_hash(in, out_len), OpenSslHash(f.openssl_name, in, out_len, true))
            << f.openssl_name << " output length " << out_len;
        if (out_len >= 1) {
          EXPECT_EQ(f.veil_hash(in, out_len - 1),
                    OpenSslHash(f.openssl_name, in, out_len - 1, true));
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The streaming interface against the one-shot functions.

// Absorbs `in` in the given pieces and squeezes `out_len` bytes in one call.
template <class H>
Bytes StreamHash(const std::vector<ByteView>& pieces, std::size_t out_len) {
  H h;
  Bytes out(out_len);
  if constexpr (requires(H & g) { g.Update(ByteView{}); }) {
    for (ByteView p : pieces) h.Update(p);
    h.Final(std::span<std::uint8_t, H::kDigestSize>(out.data(), H::kDigestSize));
  } else {
    for (ByteView p : pieces) h.Absorb(p);
    h.Squeeze(out);
  }
  return out;
}

template <class H>
void CheckEverySplit(std::size_t out_len) {
  std::mt19937_64 rng(5);
  // Long enough to cross two block boundaries of every rate (72, 136, 168).
  const Bytes in = RandomInput(rng, 2 * 168 + 41);
  const ByteView v(in);
  const Bytes want = StreamHash<H>({v}, out_len);
  for (std::size_t i = 0; i <= in.size(); ++i) {
    ASSERT_EQ(StreamHash<H>({v.first(i), v.subspan(i)}, out_len), want) << "split at " << i;
  }
  // Three pieces with the second one tiny, so that partial-block top-ups meet block boundaries.
  for (std::size_t i = 0; i + 3 <= in.size(); ++i) {
    ASSERT_EQ(StreamHash<H>({v.first(i), v.subspan(i, 3), v.subspan(i + 3)}, out_len), want);
  }
  // Random pieces, empty ones included.
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<ByteView> pieces;
    for (std::size_t at = 0; at < in.size();) {
      const std::size_t n = std::min(in.size() - at, RandomBelow(rng, 200));
      pieces.push_back(v.subspan(at, n));
      at += n;
    }
    ASSERT_EQ(StreamHash<H>(pieces, out_len), want) << "trial " << trial;
  }
}

TEST(Sha3, AbsorbSplitAtEveryPosition) {
  CheckEverySplit<Sha3_256>(32);
  CheckEverySplit<Sha3_512>(64);
}

TEST(Shake, AbsorbSplitAtEveryPosition) {
  CheckEverySplit<Shake128>(200);
  CheckEverySplit<Shake256>(200);
}

template <class H>
void CheckSqueezeInChunks() {
  std::mt19937_64 rng(6);
  for (std::size_t in_len : {0u, 1u, 135u, 136u, 167u, 168u, 500u}) {
    const Bytes in = RandomInput(rng, in_len);
    const std::size_t total = 5000;
    const Bytes want = H::Hash(in, total);
    for (int trial = 0; trial < 50; ++trial) {
      H h;
      h.Absorb(in);
      Bytes got(total);
      for (std::size_t at = 0; at < total;) {
        // Mostly short reads, sometimes a long one, sometimes empty.
        const std::size_t bound = trial % 3 == 0 ? 3 * H::kBlockSize : 40;
        const std::size_t n = std::min(total - at, RandomBelow(rng, bound));
        h.Squeeze(MutableByteView(got).subspan(at, n));
        at += n;
      }
      ASSERT_EQ(got, want) << "input length " << in_len << " trial " << trial;
    }
  }
}

TEST(Shake, SqueezeInRandomChunks) {
  CheckSqueezeInChunks<Shake128>();
  CheckSqueezeInChunks<Shake256>();
}

TEST(Shake, SqueezeBlocksMatchesSqueeze) {
  const Bytes seed = Hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f0001");
  const Bytes want = Shake128::Hash(seed, 7 * Shake128::kBlockSize);
  Shake128 x;
  x.Absorb(seed);
  Bytes got(7 * Shake128::kBlockSize);
  MutableByteView out(got);
  x.SqueezeBlocks(out.first(3 * Shake128::kBlockSize));
  x.Squeeze(out.subspan(3 * Shake128::kBlockSize, Shake128::kBlockSize));  // a whole block
  x.SqueezeBlocks(out.subspan(4 * Shake128::kBlockSize, 0));               // zero blocks
  x.SqueezeBlocks(out.subspan(4 * Shake128::kBlockSize));
  EXPECT_EQ(got, want);
}

TEST(Keccak, CopyForksTheState) {
  const Bytes prefix(300, 0xA5);
  Shake256 x;
  x.Absorb(prefix);
  Shake256 y = x;  // fork after the common prefix
  x.Absorb(AsBytes("left"));
  y.Absorb(AsBytes("right"));
  Bytes got_x(100), got_y(100);
  x.Squeeze(got_x);
  y.Squeeze(got_y);
  EXPECT_EQ(got_x, Shake256::Hash(Concat({prefix, AsBytes("left")}), 100));
  EXPECT_EQ(got_y, Shake256::Hash(Concat({prefix, AsBytes("right")}), 100));
}

TEST(Keccak, ResetStartsOver) {
  Shake128 x;
  x.Absorb(AsBytes("something else entirely"));
  Bytes scratch(10);
  x.Squeeze(scratch);
  x.Reset();
  x.Absorb(AsBytes("abc"));
  Bytes got(32);
  x.Squeeze(got);
  EXPECT_EQ(got, Shake128::Hash(AsBytes("abc"), 32));
}

TEST(Sha3, FinalResetsForTheNextMessage) {
  Sha3_256 h;
  std::array<std::uint8_t, 32> d1, d2;
  h.Update(AsBytes("a"));
  h.Update(AsBytes("bc"));
  h.Final(d1);
  h.Update(AsBytes("abc"));
  h.Final(d2);
  EXPECT_EQ(d1, Sha3_256::Hash(AsBytes("abc")));
  EXPECT_EQ(d2, d1);
}

using KeccakSpongeDeathTest = ::testing::Test;

TEST_F(KeccakSpongeDeathTest, AbsorbAfterSqueezeAborts) {
  Shake128 x;
  Bytes out(1);
  x.Squeeze(out);
  EXPECT_DEATH(x.Absorb(AsBytes("late")), "Absorb after Squeeze");
}

TEST_F(KeccakSpongeDeathTest, SqueezeBlocksOffBoundaryAborts) {
  Shake128 x;
  Bytes out(2 * Shake128::kBlockSize);
  EXPECT_DEATH(x.SqueezeBlocks(MutableByteView(out).first(100)), "whole blocks");
  x.Squeeze(MutableByteView(out).first(1));
  EXPECT_DEATH(x.SqueezeBlocks(MutableByteView(out).first(Shake128::kBlockSize)), "whole blocks");
}

}  // namespace
}  // namespace veil::crypto
