// The byte encodings of ML-DSA (FIPS 204 sec. 7.1 to 7.3): bit packing of polynomials
// (SimpleBitPack / BitPack, Algorithms 16 to 19), the hint encoding (HintBitPack / HintBitUnpack,
// Algorithms 20 and 21), and the key and signature formats (pkEncode ... sigDecode, Algorithms 22
// to 27) plus w1Encode (Algorithm 28). Bits are packed little-endian, as BitsToBytes defines.
//
// The encoders and the secret-key decoder are branch-free and index memory only by public
// counters: HintBitPack places each hint index with a masked write over the whole output, since
// which coefficients carry a hint is secret until the signature is released. skDecode reports an
// out-of-range s1 or s2 coefficient as a mask that the caller declassifies once, as the verdict of
// the whole decode. The signature decoder works on public data and is named ...Vartime: it
// branches on the hint bytes, rejecting every non-canonical encoding as Algorithm 21 does.
//
// Thread safety: pure functions on caller-owned buffers.
#pragma once

#include <cstdint>
#include <span>

#include "params.h"
#include "polyvec.h"

namespace veil::crypto::mldsa {

// 10-bit t1 in [0, 2^10) (SimpleBitPack with b = 2^10 - 1).
void PackT1(std::span<std::uint8_t, kPolyT1Bytes> out, const Poly& t1);
void UnpackT1(Poly& t1, std::span<const std::uint8_t, kPolyT1Bytes> in);

// 13-bit t0 in (-2^12, 2^12] (BitPack with a = 2^12 - 1, b = 2^12).
void PackT0(std::span<std::uint8_t, kPolyT0Bytes> out, const Poly& t0);
void UnpackT0(Poly& t0, std::span<const std::uint8_t, kPolyT0Bytes> in);

// 4-bit s in [-eta, eta] (BitPack with a = b = eta). Unpack returns all ones when a nibble is
// above 2 eta, i.e. a coefficient would fall outside [-eta, eta] (a malformed secret key).
void PackEta(std::span<std::uint8_t, kPolyEtaBytes> out, const Poly& s);
std::uint32_t UnpackEta(Poly& s, std::span<const std::uint8_t, kPolyEtaBytes> in);

// 20-bit z in (-gamma_1, gamma_1] (BitPack with a = gamma_1 - 1, b = gamma_1); also ExpandMask's
// decoding of y (Algorithm 34). Pack takes centred coefficients.
void PackZ(std::span<std::uint8_t, kPolyZBytes> out, const Poly& z);
void UnpackZ(Poly& z, std::span<const std::uint8_t, kPolyZBytes> in);

// w1Encode (Algorithm 28): 4-bit w1 in [0, 16).
inline constexpr std::size_t kW1EncodedBytes = kK * kPolyW1Bytes;
void W1Encode(std::span<std::uint8_t, kW1EncodedBytes> out, const PolyVecK& w1);

// HintBitPack / HintBitUnpack (Algorithms 20 and 21); h has coefficients in {0, 1}.
inline constexpr std::size_t kHintBytes = kOmega + kK;
// Requires at most omega ones in h (Algorithm 7 rejects more before encoding); constant time.
void HintBitPack(std::span<std::uint8_t, kHintBytes> out, const PolyVecK& h);
// False (Algorithm 21's bottom) for a non-canonical encoding: a count below the previous one or
// above omega, indices within a polynomial not strictly increasing, or non-zero padding.
bool HintBitUnpackVartime(PolyVecK& h, std::span<const std::uint8_t, kHintBytes> in);

// pkEncode / pkDecode (Algorithms 22 and 23). Every 1952-byte string decodes.
void PkEncode(std::span<std::uint8_t, kPublicKeyBytes> out,
              std::span<const std::uint8_t, kSeedBytes> rho, const PolyVecK& t1);
void PkDecode(std::span<std::uint8_t, kSeedBytes> rho, PolyVecK& t1,
              std::span<const std::uint8_t, kPublicKeyBytes> in);

// skEncode / skDecode (Algorithms 24 and 25). Decode returns all ones when s1 or s2 has a
// coefficient outside [-eta, eta]; the caller declassifies that single verdict.
struct SecretKeyParts {
  std::span<std::uint8_t, kSeedBytes> rho;
  std::span<std::uint8_t, kSeedBytes> key;  // K
  std::span<std::uint8_t, kTrBytes> tr;
  PolyVecL& s1;
  PolyVecK& s2;
  PolyVecK& t0;
};
void SkEncode(std::span<std::uint8_t, kSecretKeyBytes> out,
              std::span<const std::uint8_t, kSeedBytes> rho,
              std::span<const std::uint8_t, kSeedBytes> key,
              std::span<const std::uint8_t, kTrBytes> tr, const PolyVecL& s1, const PolyVecK& s2,
              const PolyVecK& t0);
std::uint32_t SkDecode(const SecretKeyParts& out,
                       std::span<const std::uint8_t, kSecretKeyBytes> in);

// sigEncode / sigDecode (Algorithms 26 and 27). z is centred. Decode returns false when the hint
// encoding is not canonical; z's range is checked by verification, not here.
void SigEncode(std::span<std::uint8_t, kSignatureBytes> out,
               std::span<const std::uint8_t, kCTildeBytes> c_tilde, const PolyVecL& z,
               const PolyVecK& h);
bool SigDecodeVartime(std::span<std::uint8_t, kCTildeBytes> c_tilde, PolyVecL& z, PolyVecK& h,
                      std::span<const std::uint8_t, kSignatureBytes> in);

}  // namespace veil::crypto::mldsa
