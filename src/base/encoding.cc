// Hex and base64 through libsodium's constant-time codecs, with strict decoding on top.
#include "veil/base/encoding.h"

#include <sodium.h>

#include <algorithm>
#include <array>

#include "veil/base/consttime.h"

namespace veil {
namespace {

int SodiumVariant(Base64Variant v) {
  switch (v) {
    case Base64Variant::kStandard:
      return sodium_base64_VARIANT_ORIGINAL;
    case Base64Variant::kUrlSafe:
      return sodium_base64_VARIANT_URLSAFE;
    case Base64Variant::kUrlSafeNoPadding:
      return sodium_base64_VARIANT_URLSAFE_NO_PADDING;
  }
  return sodium_base64_VARIANT_ORIGINAL;
}

// The variable-time codec's tables: a byte's two digits, and a character's digit value (0xff for
// a character the HexCase does not accept).
constexpr std::array<char, 512> kDigitPairs = [] {
  constexpr char kDigits[] = "0123456789abcdef";
  std::array<char, 512> t{};
  for (std::size_t b = 0; b < 256; ++b) {
    t[2 * b] = kDigits[b >> 4];
    t[2 * b + 1] = kDigits[b & 15];
  }
  return t;
}();

constexpr std::array<std::uint8_t, 256> DigitValues(HexCase digits) {
  std::array<std::uint8_t, 256> t{};
  t.fill(0xff);
  for (int c = 0; c < 10; ++c) t[static_cast<std::size_t>('0' + c)] = static_cast<std::uint8_t>(c);
  for (int c = 0; c < 6; ++c) {
    t[static_cast<std::size_t>('a' + c)] = static_cast<std::uint8_t>(10 + c);
    if (digits == HexCase::kAny) {
      t[static_cast<std::size_t>('A' + c)] = static_cast<std::uint8_t>(10 + c);
    }
  }
  return t;
}
constexpr std::array<std::uint8_t, 256> kAnyDigits = DigitValues(HexCase::kAny);
constexpr std::array<std::uint8_t, 256> kLowerDigits = DigitValues(HexCase::kLower);

// Decodes 2 * out.size() digits; returns the OR of their table entries (bits above the nibble:
// a character that is not a digit). The table is a template argument, not a pointer, so the
// compiler knows the stores to `out` cannot change it and keeps the loop tight.
template <const std::array<std::uint8_t, 256>& kTable>
unsigned DecodeDigits(const unsigned char* in, MutableByteView out) {
  std::uint8_t* p = out.data();
  unsigned bad = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const unsigned hi = kTable[in[2 * i]];
    const unsigned lo = kTable[in[2 * i + 1]];
    bad |= hi | lo;
    p[i] = static_cast<std::uint8_t>((hi << 4) | lo);
  }
  return bad;
}

Status HexLengthError(std::size_t want, std::size_t got) {
  return InvalidArgument("hex: expected " + std::to_string(want) + " digits, got " +
                         std::to_string(got));
}

}  // namespace

std::string HexEncode(ByteView data) {
  std::string out(data.size() * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), data.data(), data.size());
  out.pop_back();
  return out;
}

// Our own decoder rather than sodium_hex2bin, which stops at the first invalid digit (a branch on
// each secret character). Here every digit is decoded with arithmetic, validity is accumulated in a
// mask, and the one branch is on the final verdict, which is public. (The HexCase is public: the
// two branches on it pick constants.)
Status HexDecodeInto(std::string_view hex, MutableByteView out, HexCase digits) {
  if (hex.size() != out.size() * 2) return HexLengthError(out.size() * 2, hex.size());
  // kAny folds 'A'..'F' onto 'a'..'f' by clearing bit 5; kLower keeps it, so 'A'..'F' fall
  // outside 10..15. Below 'W' (87) the subtraction wraps to 2^32 - 87 .. 2^32 - 1, whose two
  // range-check differences agree above bit 7: not a digit.
  const unsigned fold = digits == HexCase::kAny ? ~32u : ~0u;
  const unsigned alpha_base = digits == HexCase::kAny ? 55u : 87u;
  unsigned invalid = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    unsigned byte = 0;
    for (std::size_t k = 0; k < 2; ++k) {
      const unsigned c = static_cast<unsigned char>(hex[2 * i + k]);
      const unsigned num = c ^ 48u;                        // '0'..'9' -> 0..9
      const unsigned num_ok = ((num - 10u) >> 8) & 0xffu;  // 0xff iff num < 10
      const unsigned alpha = (c & fold) - alpha_base;      // 'a'..'f' (and 'A'..'F') -> 10..15
      const unsigned alpha_ok = (((alpha - 10u) ^ (alpha - 16u)) >> 8) & 0xffu;
      invalid |= ~(num_ok | alpha_ok) & 0xffu;
      byte = (byte << 4) | (((num_ok & num) | (alpha_ok & alpha)) & 0xfu);
    }
    out[i] = static_cast<std::uint8_t>(byte);
  }
  VEIL_DECLASSIFY(&invalid, sizeof invalid);  // whether the text was valid hex is public
  if (invalid != 0) {
    sodium_memzero(out.data(), out.size());
    return InvalidArgument("hex: invalid digit");
  }
  return Status::Ok();
}

Result<Bytes> HexDecode(std::string_view hex, HexCase digits) {
  if (hex.size() % 2 != 0) return InvalidArgument("hex: odd number of digits");
  Bytes out(hex.size() / 2);
  VEIL_RETURN_IF_ERROR(HexDecodeInto(hex, out, digits));
  return out;
}

std::string HexEncodeVartime(ByteView data) {
  std::string out;
  AppendHexVartime(data, &out);
  return out;
}

void AppendHexVartime(ByteView data, std::string* out) {
  const std::size_t at = out->size();
  out->resize(at + 2 * data.size());
  char* p = out->data() + at;
  for (const std::uint8_t b : data) {
    p[0] = kDigitPairs[2 * std::size_t{b}];
    p[1] = kDigitPairs[2 * std::size_t{b} + 1];
    p += 2;
  }
}

// Without a branch per digit: a character that is not a digit has bits above the nibble in its
// table entry, which collect in `bad`; the one branch is on the verdict.
Status HexDecodeVartimeInto(std::string_view hex, MutableByteView out, HexCase digits) {
  if (hex.size() != out.size() * 2) return HexLengthError(out.size() * 2, hex.size());
  const auto* in = reinterpret_cast<const unsigned char*>(hex.data());
  const unsigned bad = digits == HexCase::kAny ? DecodeDigits<kAnyDigits>(in, out)
                                               : DecodeDigits<kLowerDigits>(in, out);
  if ((bad & 0xf0u) != 0) {
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    return InvalidArgument("hex: invalid digit");
  }
  return Status::Ok();
}

int HexDigitVartime(char c, HexCase digits) {
  const std::uint8_t v =
      (digits == HexCase::kAny ? kAnyDigits : kLowerDigits)[static_cast<unsigned char>(c)];
  return v == 0xff ? -1 : v;
}

std::string Base64Encode(ByteView data, Base64Variant variant) {
  const int v = SodiumVariant(variant);
  std::string out(sodium_base64_encoded_len(data.size(), v), '\0');
  sodium_bin2base64(out.data(), out.size(), data.data(), data.size(), v);
  out.pop_back();  // the terminating NUL
  return out;
}

Result<Bytes> Base64Decode(std::string_view text, Base64Variant variant) {
  const int v = SodiumVariant(variant);
  if (text.empty()) return Bytes{};
  Bytes out(text.size() / 4 * 3 + 3);
  std::size_t written = 0;
  const char* end = nullptr;
  // libsodium rejects non-zero padding bits and, with ignore = nullptr, any foreign character.
  if (sodium_base642bin(out.data(), out.size(), text.data(), text.size(), nullptr, &written, &end,
                        v) != 0 ||
      end != text.data() + text.size()) {
    return InvalidArgument("base64: malformed input");
  }
  out.resize(written);
  // Canonical: re-encoding must give the input back (catches e.g. missing padding in kStandard).
  if (Base64Encode(out, variant) != text) return InvalidArgument("base64: non-canonical input");
  return out;
}

}  // namespace veil
