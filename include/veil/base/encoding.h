// Text encodings of bytes: hex and base64.
//
// Both run in constant time with respect to the data (libsodium's encoders, which avoid table
// lookups indexed by data, and our own branch-free hex decoder), so they are safe for keys.
// Decoding is strict: the whole input must be consumed, hex needs an even number of digits (and
// only lowercase ones with HexCase::kLower), base64 must be padded and canonical (unused bits
// zero); anything else is kInvalidArgument.
//
// The ...Vartime hex functions are the same codec with a table lookup per byte or digit, for
// public data on a hot path (a ledger page's keys and payloads, cursors, query literals,
// certificate fingerprints): they give the same text, accept the same digits and fail the same
// way (tests/base/encoding_test.cc holds them to the constant-time ones), but their timing and
// memory accesses depend on the data, so they must never see a secret.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "veil/base/bytes.h"
#include "veil/base/result.h"

namespace veil {

// The hex digits a decoder accepts.
enum class HexCase : std::uint8_t {
  kAny,    // 0-9, a-f, A-F
  kLower,  // 0-9, a-f: formats that allow one spelling of a value
};

std::string HexEncode(ByteView data);  // lowercase
Result<Bytes> HexDecode(std::string_view hex, HexCase digits = HexCase::kAny);
// Decodes into a buffer of exactly out.size() bytes. A wrong length leaves out as it was; an
// invalid digit zeroes it (no half-decoded secret stays behind).
Status HexDecodeInto(std::string_view hex, MutableByteView out, HexCase digits = HexCase::kAny);

// Variable time: public data only (see above).
std::string HexEncodeVartime(ByteView data);  // lowercase
// Appends the 2 * data.size() lowercase digits of data to *out.
void AppendHexVartime(ByteView data, std::string* out);
// HexDecodeInto's contract: exactly out.size() bytes, the same digits, the same errors, the same
// state of out after a failure.
Status HexDecodeVartimeInto(std::string_view hex, MutableByteView out,
                            HexCase digits = HexCase::kAny);
// The value of one hex digit (0..15), or -1 for any other character.
int HexDigitVartime(char c, HexCase digits = HexCase::kAny);

enum class Base64Variant { kStandard, kUrlSafe, kUrlSafeNoPadding };
std::string Base64Encode(ByteView data, Base64Variant variant = Base64Variant::kStandard);
Result<Bytes> Base64Decode(std::string_view text, Base64Variant variant = Base64Variant::kStandard);

}  // namespace veil
