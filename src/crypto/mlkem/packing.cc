// ByteEncode_12 / ByteDecode_12, the modulus check and the message encoding (see packing.h). With
// AVX2 (simd.h) each dispatches to its twin in avx2.h, which computes the same values.
#include "packing.h"

#include "avx2.h"
#include "simd.h"

namespace veil::crypto::mlkem {

void PolyToBytes(std::span<std::uint8_t, kPolyBytes> out, const Poly& a) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::PolyToBytes(out, a);
#endif
  for (std::size_t i = 0; i < kN / 2; ++i) {
    const auto t0 = static_cast<std::uint16_t>(AddQIfNegative(a.c[2 * i]));
    const auto t1 = static_cast<std::uint16_t>(AddQIfNegative(a.c[2 * i + 1]));
    out[3 * i] = static_cast<std::uint8_t>(t0);
    out[3 * i + 1] = static_cast<std::uint8_t>((t0 >> 8) | (t1 << 4));
    out[3 * i + 2] = static_cast<std::uint8_t>(t1 >> 4);
  }
}

namespace {
// The two 12-bit values packed in bytes 3i..3i+2.
inline void Unpack12(std::span<const std::uint8_t, kPolyBytes> in, std::size_t i, std::uint16_t& t0,
                     std::uint16_t& t1) {
  const std::uint16_t b0 = in[3 * i];
  const std::uint16_t b1 = in[3 * i + 1];
  const std::uint16_t b2 = in[3 * i + 2];
  t0 = static_cast<std::uint16_t>((b0 | (b1 << 8)) & 0xFFF);
  t1 = static_cast<std::uint16_t>((b1 >> 4) | (b2 << 4));
}

// x mod q for x in [0, 2q): subtract q, add it back when that went negative (a mask).
inline std::int16_t ReduceOnce(std::uint16_t x) {
  const auto t = static_cast<std::int16_t>(static_cast<std::int16_t>(x) - kQ);
  return AddQIfNegative(t);
}
}  // namespace

void PolyFromBytes(Poly& r, std::span<const std::uint8_t, kPolyBytes> in) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::PolyFromBytes(r, in);
#endif
  for (std::size_t i = 0; i < kN / 2; ++i) {
    std::uint16_t t0 = 0;
    std::uint16_t t1 = 0;
    Unpack12(in, i, t0, t1);
    r.c[2 * i] = ReduceOnce(t0);
    r.c[2 * i + 1] = ReduceOnce(t1);
  }
}

bool PolyBytesAreCanonical(std::span<const std::uint8_t, kPolyBytes> in) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::PolyBytesAreCanonical(in);
#endif
  std::uint32_t bad = 0;  // bit 31 of (q - 1 - t) is set exactly when t >= q
  for (std::size_t i = 0; i < kN / 2; ++i) {
    std::uint16_t t0 = 0;
    std::uint16_t t1 = 0;
    Unpack12(in, i, t0, t1);
    bad |= (static_cast<std::uint32_t>(kQ - 1) - t0) | (static_cast<std::uint32_t>(kQ - 1) - t1);
  }
  return (bad >> 31) == 0;
}

void PolyFromMessage(Poly& r, std::span<const std::uint8_t, kSymBytes> m) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::PolyFromMessage(r, m);
#endif
  constexpr auto kHalfQ = static_cast<std::int16_t>(Decompress<1>(1));
  static_assert(kHalfQ == 1665);
  for (std::size_t i = 0; i < kN; ++i) {
    const auto bit = static_cast<std::int16_t>((m[i / 8] >> (i % 8)) & 1);
    r.c[i] = static_cast<std::int16_t>(-bit & kHalfQ);
  }
}

void PolyToMessage(std::span<std::uint8_t, kSymBytes> m, const Poly& w) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::PolyToMessage(m, w);
#endif
  for (std::size_t i = 0; i < kSymBytes; ++i) {
    unsigned byte = 0;
    for (std::size_t j = 0; j < 8; ++j) {
      const auto x = static_cast<std::uint16_t>(AddQIfNegative(w.c[8 * i + j]));
      byte |= static_cast<unsigned>(Compress<1>(x)) << j;
    }
    m[i] = static_cast<std::uint8_t>(byte);
  }
}

}  // namespace veil::crypto::mlkem
