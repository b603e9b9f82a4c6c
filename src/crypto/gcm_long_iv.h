// Long GCM IVs on top of OpenSSL, which keeps at most 128 IV bytes.
//
// For an IV that is not 96 bits, GCM's pre-counter block is J0 = GHASH_H(IV || 0-pad || [len]_64)
// (NIST SP 800-38D, section 7.1), and GHASH is linear in its input blocks. So for any IV there is a
// 16-byte IV' with the same J0:  J0 = GHASH_H(IV' || [0]_64 || [128]_64) = IV'·H^2 + L·H, hence
// IV' = (J0 + L·H) · H^-2, where H = AES_K(0^128) is never 0 except with probability 2^-128.
// OpenSSL then runs the usual GCM with IV', giving the same ciphertext and tag as with IV.
// The GF(2^128) arithmetic here is constant time (masks, no tables), since H is key material.
#pragma once

#include <array>
#include <cstdint>

#include "veil/base/bytes.h"

namespace veil::crypto::internal {

using Block = std::array<std::uint8_t, 16>;

// The 16-byte IV equivalent to `iv` under hash key `h`, written to `out`. It is secret: with iv it
// determines h (the equation IV'·H^2 = J0(H) + L·H has H as a root), so the caller wipes it once
// the cipher has it. An out-parameter rather than a return value, so that no copy is left in a
// frame that no one wipes (a returned array is not always constructed in place).
void GcmEquivalentIv(const Block& h, ByteView iv, Block& out);

// GF(2^128) product in GCM's bit order (exposed for tests).
Block GcmMul(const Block& x, const Block& y);

}  // namespace veil::crypto::internal
