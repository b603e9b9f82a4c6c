// Hex and base64 through libsodium's constant-time codecs, with strict decoding on top.
#include "veil/base/encoding.h"

#include <sodium.h>

#include <algorithm>

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

}  // namespace

std::string HexEncode(ByteView data) {
  std::string out(data.size() * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), data.data(), data.size());
  out.pop_back();
  return out;
}

// Our own decoder rather than sodium_hex2bin, which stops at the first invalid digit (a branch on
// each secret character). Here every digit is decoded with arithmetic, validity is accumulated in a
// mask, and the one branch is on the final verdict, which is public.
Status HexDecodeInto(std::string_view hex, MutableByteView out) {
  if (hex.size() != out.size() * 2) {
    return InvalidArgument("hex: expected " + std::to_string(out.size() * 2) + " digits, got " +
                           std::to_string(hex.size()));
  }
  unsigned invalid = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    unsigned byte = 0;
    for (std::size_t k = 0; k < 2; ++k) {
      const unsigned c = static_cast<unsigned char>(hex[2 * i + k]);
      const unsigned num = c ^ 48u;                        // '0'..'9' -> 0..9
      const unsigned num_ok = ((num - 10u) >> 8) & 0xffu;  // 0xff iff num < 10
      const unsigned alpha = (c & ~32u) - 55u;             // 'A'..'F' / 'a'..'f' -> 10..15
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

Result<Bytes> HexDecode(std::string_view hex) {
  if (hex.size() % 2 != 0) return InvalidArgument("hex: odd number of digits");
  Bytes out(hex.size() / 2);
  VEIL_RETURN_IF_ERROR(HexDecodeInto(hex, out));
  return out;
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
