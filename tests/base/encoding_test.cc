// Hex, base64 and the canonical binary codec: round trips and strict rejection.
#include "veil/base/encoding.h"

#include <gtest/gtest.h>

#include "veil/base/codec.h"

namespace veil {
namespace {

TEST(Hex, RoundTripAndStrictness) {
  const Bytes b = {0x00, 0x01, 0xab, 0xff};
  EXPECT_EQ(HexEncode(b), "0001abff");
  EXPECT_EQ(*HexDecode("0001abff"), b);
  EXPECT_EQ(*HexDecode("0001ABFF"), b);
  EXPECT_EQ(*HexDecode(""), Bytes{});
  EXPECT_FALSE(HexDecode("abc").ok());
  EXPECT_FALSE(HexDecode("zz").ok());
  EXPECT_FALSE(HexDecode("00 1").ok());
  EXPECT_FALSE(HexDecode("0x00").ok());
  Bytes out(2, 0x55);
  EXPECT_FALSE(HexDecodeInto("00zz", out).ok());
  EXPECT_EQ(out, Bytes(2, 0));  // wiped, not half-written
  EXPECT_FALSE(HexDecodeInto("00", out).ok());
}

TEST(Hex, LowercaseOnlyRefusesUppercase) {
  const Bytes b = {0x00, 0xab};
  EXPECT_EQ(*HexDecode("00ab", HexCase::kLower), b);
  EXPECT_FALSE(HexDecode("00AB", HexCase::kLower).ok());
  EXPECT_FALSE(HexDecode("00aB", HexCase::kLower).ok());
  Bytes out(2, 0x55);
  EXPECT_FALSE(HexDecodeVartimeInto("00Ab", out, HexCase::kLower).ok());
  EXPECT_EQ(out, Bytes(2, 0));
  Bytes keep(2, 0x55);
  EXPECT_EQ(HexDecodeVartimeInto("00", keep).message(), "hex: expected 4 digits, got 2");
  EXPECT_EQ(keep, Bytes(2, 0x55));  // a wrong length changes nothing
}

// The variable-time codec against the constant-time one: every pair of characters (so every
// byte value and every non-digit, in either position), for both digit sets.
TEST(Hex, VartimeDecodeAgreesWithConstantTimeOnEveryDigitPair) {
  for (HexCase digits : {HexCase::kAny, HexCase::kLower}) {
    for (int c = 0; c < 256; ++c) {
      const char ch = static_cast<char>(c);
      std::uint8_t ct = 0;
      const bool ct_ok = HexDecodeInto(std::string{'0', ch}, MutableByteView(&ct, 1), digits).ok();
      EXPECT_EQ(HexDigitVartime(ch, digits) >= 0, ct_ok) << c;
      if (ct_ok) {
        EXPECT_EQ(HexDigitVartime(ch, digits), ct) << c;
      }
      for (int d = 0; d < 256; ++d) {
        const std::string text{ch, static_cast<char>(d)};
        std::uint8_t a = 0x55, b = 0x55;
        const Status sa = HexDecodeInto(text, MutableByteView(&a, 1), digits);
        const Status sb = HexDecodeVartimeInto(text, MutableByteView(&b, 1), digits);
        ASSERT_EQ(sa.ok(), sb.ok()) << c << " " << d;
        ASSERT_EQ(sa.message(), sb.message());
        ASSERT_EQ(a, b) << c << " " << d;
      }
    }
  }
  EXPECT_EQ(HexDigitVartime('F'), 15);
  EXPECT_EQ(HexDigitVartime('F', HexCase::kLower), -1);
  EXPECT_EQ(HexDigitVartime('g'), -1);
}

TEST(Hex, VartimeEncodeAgreesWithConstantTime) {
  Bytes b;
  for (int n = 0; n < 300; ++n) {
    EXPECT_EQ(HexEncodeVartime(b), HexEncode(b));
    b.push_back(static_cast<std::uint8_t>(n * 113 + 7));
  }
  Bytes all(256);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint8_t>(i);
  const std::string hex = HexEncodeVartime(all);
  EXPECT_EQ(hex, HexEncode(all));
  Bytes back(all.size());
  ASSERT_TRUE(HexDecodeVartimeInto(hex, back, HexCase::kLower).ok());
  EXPECT_EQ(back, all);
  std::string text = "0x";
  AppendHexVartime(Bytes{0xde, 0xad}, &text);
  AppendHexVartime({}, &text);
  EXPECT_EQ(text, "0xdead");
}

TEST(Base64, RoundTripAllVariants) {
  for (auto v :
       {Base64Variant::kStandard, Base64Variant::kUrlSafe, Base64Variant::kUrlSafeNoPadding}) {
    for (std::size_t n = 0; n < 40; ++n) {
      Bytes b(n);
      for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i * 37 + 250);
      auto back = Base64Decode(Base64Encode(b, v), v);
      ASSERT_TRUE(back.ok());
      EXPECT_EQ(*back, b);
    }
  }
  EXPECT_EQ(Base64Encode(AsBytes("foob")), "Zm9vYg==");
}

TEST(Base64, RejectsNonCanonical) {
  EXPECT_FALSE(Base64Decode("Zm9vYh==").ok());   // non-zero unused bits
  EXPECT_FALSE(Base64Decode("Zm9vYg").ok());     // missing padding
  EXPECT_FALSE(Base64Decode("Zm9v Yg==").ok());  // space
  EXPECT_FALSE(Base64Decode("Zm9vYg==\n").ok());
  EXPECT_FALSE(Base64Decode("Zm9-Yg==").ok());  // url alphabet in standard
  EXPECT_FALSE(Base64Decode("Zm9vYg==", Base64Variant::kUrlSafeNoPadding).ok());
}

TEST(Codec, RoundTrip) {
  Writer w(0x5631, 1);
  w.U8(7).U16(0x1234).U32(0xdeadbeef).U64(1ull << 63).Bool(true).Varint(300).String("hello");
  w.Fixed(Bytes{1, 2, 3});
  Reader r(w.bytes());
  r.Header(0x5631, 1);
  EXPECT_EQ(r.U8(), 7);
  EXPECT_EQ(r.U16(), 0x1234);
  EXPECT_EQ(r.U32(), 0xdeadbeefu);
  EXPECT_EQ(r.U64(), 1ull << 63);
  EXPECT_TRUE(r.Bool());
  EXPECT_EQ(r.Varint(), 300u);
  EXPECT_EQ(r.String(16), "hello");
  Bytes fixed(3);
  r.Fixed(fixed);
  EXPECT_EQ(fixed, (Bytes{1, 2, 3}));
  EXPECT_TRUE(r.Finish().ok());
}

TEST(Codec, VarintEdgeCases) {
  for (std::uint64_t v : {0ull, 1ull, 127ull, 128ull, 16383ull, 16384ull, ~0ull}) {
    Writer w;
    w.Varint(v);
    Reader r(w.bytes());
    EXPECT_EQ(r.Varint(), v);
    EXPECT_TRUE(r.Finish().ok());
  }
  const Bytes non_minimal = {0x80, 0x00};
  Reader r1(non_minimal);
  r1.Varint();
  EXPECT_FALSE(r1.Finish().ok());
  const Bytes overflow = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
  Reader r2(overflow);
  r2.Varint();
  EXPECT_FALSE(r2.Finish().ok());
  const Bytes too_long = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  Reader r3(too_long);
  r3.Varint();
  EXPECT_FALSE(r3.Finish().ok());
}

// U8, U64 and a one-byte Varint are inline fast paths: after the first error every read gives 0
// and the first error stays the one reported, and a read past the end is a truncation.
TEST(Codec, ReadsAfterAnErrorGiveZeroAndKeepTheFirstError) {
  const Bytes in = {0x00, 0x01, 0x07, 0x05, 0x05, 0x05, 0x05, 0x05, 0x05, 0x05, 0x05};
  Reader r(in);
  r.Header(1, 2);  // tag 1, version 7: unsupported
  ASSERT_FALSE(r.ok());
  const std::string first = r.Finish().message();
  EXPECT_EQ(first, "unsupported version 7");
  EXPECT_EQ(r.Varint(), 0u);  // 0x05 is next: a one-byte varint, but the reader has failed
  EXPECT_EQ(r.U8(), 0u);
  EXPECT_EQ(r.U64(), 0u);
  EXPECT_EQ(r.Finish().message(), first);

  for (std::size_t n = 0; n < 8; ++n) {
    Reader t(ByteView(in).first(n));
    EXPECT_EQ(t.U64(), 0u) << n;
    EXPECT_EQ(t.Finish().message(), "truncated input reading u64") << n;
  }
  Reader empty(ByteView{});
  EXPECT_EQ(empty.Varint(), 0u);
  EXPECT_EQ(empty.Finish().message(), "truncated input reading varint");
  Reader u8(ByteView{});
  EXPECT_EQ(u8.U8(), 0u);
  EXPECT_EQ(u8.Finish().message(), "truncated input reading u8");
}

TEST(Codec, RejectsBadInput) {
  Writer w(1, 1);
  w.U8(2).VarBytes(Bytes(10));
  const Bytes good = w.bytes();
  {
    Reader r(good);
    r.Header(1, 2);
    EXPECT_FALSE(r.Finish().ok());  // wrong version
  }
  {
    Reader r(good);
    r.Header(2, 1);
    EXPECT_FALSE(r.Finish().ok());  // wrong tag
  }
  {
    Reader r(good);
    r.Header(1, 1);
    EXPECT_FALSE(r.Bool());  // 2 is not a boolean
    EXPECT_FALSE(r.Finish().ok());
  }
  {
    Reader r(good);
    r.Header(1, 1);
    r.U8();
    r.VarBytes(9);  // over the caller's limit
    EXPECT_FALSE(r.Finish().ok());
  }
  {
    Bytes trailing = good;
    trailing.push_back(0);
    Reader r(trailing);
    r.Header(1, 1);
    r.U8();
    r.VarBytes(10);
    EXPECT_EQ(r.Finish().message(), "1 trailing bytes");
  }
  {
    Reader r(ByteView(good).first(good.size() - 1));
    r.Header(1, 1);
    r.U8();
    r.VarBytes(10);
    EXPECT_FALSE(r.Finish().ok());  // truncated
  }
}

}  // namespace
}  // namespace veil
