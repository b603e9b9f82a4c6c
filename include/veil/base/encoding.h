// Text encodings of bytes: hex and base64.
//
// Both run in constant time with respect to the data (they come from libsodium, whose codecs avoid
// table lookups indexed by data), so they are safe for keys. Decoding is strict: the whole input
// must be consumed, hex needs an even number of digits, base64 must be padded and canonical (unused
// bits zero); anything else is kInvalidArgument.
#pragma once

#include <string>
#include <string_view>

#include "veil/base/bytes.h"
#include "veil/base/result.h"

namespace veil {

std::string HexEncode(ByteView data);  // lowercase
Result<Bytes> HexDecode(std::string_view hex);
// Decodes into a buffer of exactly out.size() bytes.
Status HexDecodeInto(std::string_view hex, MutableByteView out);

enum class Base64Variant { kStandard, kUrlSafe, kUrlSafeNoPadding };
std::string Base64Encode(ByteView data, Base64Variant variant = Base64Variant::kStandard);
Result<Bytes> Base64Decode(std::string_view text, Base64Variant variant = Base64Variant::kStandard);

}  // namespace veil
