// Bit packing, hints, and the key and signature formats of FIPS 204 sec. 7.1-7.3; see packing.h.
#include "packing.h"

#include <algorithm>
#include <array>
#include <cstddef>

namespace veil::crypto::mldsa {
namespace {

// Little-endian packing of 256 values of kBits bits each (BitsToBytes order): value_of(i) gives
// the i-th value, already in [0, 2^kBits). The byte loop depends only on the public bit count.
template <int kBits, class ValueOf>
void PackBits(std::uint8_t* out, ValueOf value_of) {
  std::uint64_t acc = 0;
  int bits = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    acc |= static_cast<std::uint64_t>(value_of(i)) << bits;
    bits += kBits;
    while (bits >= 8) {
      *out++ = static_cast<std::uint8_t>(acc);
      acc >>= 8;
      bits -= 8;
    }
  }
}

// The inverse: store(i, v) receives the i-th kBits-bit value.
template <int kBits, class Store>
void UnpackBits(const std::uint8_t* in, Store store) {
  constexpr std::uint64_t kMask = (std::uint64_t{1} << kBits) - 1;
  std::uint64_t acc = 0;
  int bits = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    while (bits < kBits) {
      acc |= static_cast<std::uint64_t>(*in++) << bits;
      bits += 8;
    }
    store(i, static_cast<std::uint32_t>(acc & kMask));
    acc >>= kBits;
    bits -= kBits;
  }
}

// BitPack(w, a, b) stores b - w_i (Algorithm 17); BitUnpack returns b - v (Algorithm 19).
constexpr std::int32_t kT0Offset = 1 << (kD - 1);

std::uint32_t ToU32(std::int32_t v) { return static_cast<std::uint32_t>(v); }
std::int32_t ToI32(std::uint32_t v) { return static_cast<std::int32_t>(v); }

// All ones when a == b, for a, b < 2^31; no branch.
std::uint64_t EqMask64(std::uint32_t a, std::uint32_t b) {
  const std::uint32_t x = a ^ b;
  return std::uint64_t{0} - static_cast<std::uint64_t>((x - 1u) >> 31);
}

}  // namespace

void PackT1(std::span<std::uint8_t, kPolyT1Bytes> out, const Poly& t1) {
  PackBits<10>(out.data(), [&](std::size_t i) { return ToU32(t1.c[i]); });
}

void UnpackT1(Poly& t1, std::span<const std::uint8_t, kPolyT1Bytes> in) {
  UnpackBits<10>(in.data(), [&](std::size_t i, std::uint32_t v) { t1.c[i] = ToI32(v); });
}

void PackT0(std::span<std::uint8_t, kPolyT0Bytes> out, const Poly& t0) {
  PackBits<13>(out.data(), [&](std::size_t i) { return ToU32(kT0Offset - t0.c[i]); });
}

void UnpackT0(Poly& t0, std::span<const std::uint8_t, kPolyT0Bytes> in) {
  UnpackBits<13>(in.data(),
                 [&](std::size_t i, std::uint32_t v) { t0.c[i] = kT0Offset - ToI32(v); });
}

void PackEta(std::span<std::uint8_t, kPolyEtaBytes> out, const Poly& s) {
  PackBits<4>(out.data(), [&](std::size_t i) { return ToU32(kEta - s.c[i]); });
}

std::uint32_t UnpackEta(Poly& s, std::span<const std::uint8_t, kPolyEtaBytes> in) {
  std::uint32_t bad = 0;
  UnpackBits<4>(in.data(), [&](std::size_t i, std::uint32_t v) {
    bad |= GeMask(ToI32(v), 2 * kEta + 1);
    s.c[i] = kEta - ToI32(v);
  });
  return bad;
}

// 20-bit packing is on the signing loop's path (ExpandMask decodes 1280 values per iteration), so
// it has its own straight-line form: two values in five bytes.
void PackZ(std::span<std::uint8_t, kPolyZBytes> out, const Poly& z) {
  for (std::size_t i = 0; i < kN / 2; ++i) {
    const std::uint32_t v0 = ToU32(kGamma1 - z.c[2 * i]);
    const std::uint32_t v1 = ToU32(kGamma1 - z.c[2 * i + 1]);
    std::uint8_t* o = out.data() + 5 * i;
    o[0] = static_cast<std::uint8_t>(v0);
    o[1] = static_cast<std::uint8_t>(v0 >> 8);
    o[2] = static_cast<std::uint8_t>(v0 >> 16 | v1 << 4);
    o[3] = static_cast<std::uint8_t>(v1 >> 4);
    o[4] = static_cast<std::uint8_t>(v1 >> 12);
  }
}

void UnpackZ(Poly& z, std::span<const std::uint8_t, kPolyZBytes> in) {
  for (std::size_t i = 0; i < kN / 2; ++i) {
    const std::uint8_t* b = in.data() + 5 * i;
    const std::uint32_t v0 = b[0] | static_cast<std::uint32_t>(b[1]) << 8 |
                             static_cast<std::uint32_t>(b[2] & 0x0f) << 16;
    const std::uint32_t v1 = static_cast<std::uint32_t>(b[2]) >> 4 |
                             static_cast<std::uint32_t>(b[3]) << 4 |
                             static_cast<std::uint32_t>(b[4]) << 12;
    z.c[2 * i] = kGamma1 - ToI32(v0);
    z.c[2 * i + 1] = kGamma1 - ToI32(v1);
  }
}

void W1Encode(std::span<std::uint8_t, kW1EncodedBytes> out, const PolyVecK& w1) {
  for (std::size_t i = 0; i < kK; ++i) {
    for (std::size_t j = 0; j < kN / 2; ++j) {
      out[i * kPolyW1Bytes + j] =
          static_cast<std::uint8_t>(w1.p[i].c[2 * j] | w1.p[i].c[2 * j + 1] << 4);
    }
  }
}

void HintBitPack(std::span<std::uint8_t, kHintBytes> out, const PolyVecK& h) {
  // y[0 .. omega) as 64-bit words. The running count `index` is secret, so each index j is
  // OR-ed into every word under a mask that selects only byte `index`; each byte is written at
  // most once because the count moves on after every write.
  constexpr std::size_t kWords = (kOmega + 7) / 8;
  std::array<std::uint64_t, kWords> y{};
  std::uint32_t index = 0;
  for (std::size_t i = 0; i < kK; ++i) {
    for (std::size_t j = 0; j < kN; ++j) {
      const auto bit = ToU32(h.p[i].c[j]) & 1u;
      const std::uint64_t write = std::uint64_t{0} - bit;
      const std::uint32_t shift = (index & 7u) * 8u;
      const std::uint64_t value = static_cast<std::uint64_t>(j) << shift;
      for (std::size_t w = 0; w < kWords; ++w) {
        y[w] |= EqMask64(static_cast<std::uint32_t>(w), index >> 3) & write & value;
      }
      index += bit;
    }
    out[kOmega + i] = static_cast<std::uint8_t>(index);
  }
  for (std::size_t t = 0; t < kOmega; ++t) {
    out[t] = static_cast<std::uint8_t>(y[t / 8] >> (8 * (t % 8)));
  }
}

bool HintBitUnpackVartime(PolyVecK& h, std::span<const std::uint8_t, kHintBytes> in) {
  std::size_t index = 0;
  for (std::size_t i = 0; i < kK; ++i) {
    h.p[i].c.fill(0);
    const std::size_t end = in[kOmega + i];
    if (end < index || end > kOmega) return false;
    const std::size_t first = index;
    for (; index < end; ++index) {
      // Indices within one polynomial must be strictly increasing: one encoding per hint.
      if (index > first && in[index - 1] >= in[index]) return false;
      h.p[i].c[in[index]] = 1;
    }
  }
  for (; index < kOmega; ++index) {
    if (in[index] != 0) return false;  // padding must be zero
  }
  return true;
}

void PkEncode(std::span<std::uint8_t, kPublicKeyBytes> out,
              std::span<const std::uint8_t, kSeedBytes> rho, const PolyVecK& t1) {
  std::copy(rho.begin(), rho.end(), out.begin());
  for (std::size_t i = 0; i < kK; ++i) {
    PackT1(out.subspan(kSeedBytes + i * kPolyT1Bytes).first<kPolyT1Bytes>(), t1.p[i]);
  }
}

void PkDecode(std::span<std::uint8_t, kSeedBytes> rho, PolyVecK& t1,
              std::span<const std::uint8_t, kPublicKeyBytes> in) {
  std::copy_n(in.begin(), kSeedBytes, rho.begin());
  for (std::size_t i = 0; i < kK; ++i) {
    UnpackT1(t1.p[i], in.subspan(kSeedBytes + i * kPolyT1Bytes).first<kPolyT1Bytes>());
  }
}

void SkEncode(std::span<std::uint8_t, kSecretKeyBytes> out,
              std::span<const std::uint8_t, kSeedBytes> rho,
              std::span<const std::uint8_t, kSeedBytes> key,
              std::span<const std::uint8_t, kTrBytes> tr, const PolyVecL& s1, const PolyVecK& s2,
              const PolyVecK& t0) {
  std::size_t off = 0;
  const auto put = [&](auto src) {
    std::copy(src.begin(), src.end(), out.begin() + static_cast<std::ptrdiff_t>(off));
    off += src.size();
  };
  put(rho);
  put(key);
  put(tr);
  for (const Poly& p : s1.p) {
    PackEta(out.subspan(off).first<kPolyEtaBytes>(), p);
    off += kPolyEtaBytes;
  }
  for (const Poly& p : s2.p) {
    PackEta(out.subspan(off).first<kPolyEtaBytes>(), p);
    off += kPolyEtaBytes;
  }
  for (const Poly& p : t0.p) {
    PackT0(out.subspan(off).first<kPolyT0Bytes>(), p);
    off += kPolyT0Bytes;
  }
}

std::uint32_t SkDecode(const SecretKeyParts& out,
                       std::span<const std::uint8_t, kSecretKeyBytes> in) {
  std::size_t off = 0;
  const auto take = [&](auto dst) {
    std::copy_n(in.begin() + static_cast<std::ptrdiff_t>(off), dst.size(), dst.begin());
    off += dst.size();
  };
  take(out.rho);
  take(out.key);
  take(out.tr);
  std::uint32_t bad = 0;
  for (Poly& p : out.s1.p) {
    bad |= UnpackEta(p, in.subspan(off).first<kPolyEtaBytes>());
    off += kPolyEtaBytes;
  }
  for (Poly& p : out.s2.p) {
    bad |= UnpackEta(p, in.subspan(off).first<kPolyEtaBytes>());
    off += kPolyEtaBytes;
  }
  for (Poly& p : out.t0.p) {
    UnpackT0(p, in.subspan(off).first<kPolyT0Bytes>());
    off += kPolyT0Bytes;
  }
  return bad;
}

void SigEncode(std::span<std::uint8_t, kSignatureBytes> out,
               std::span<const std::uint8_t, kCTildeBytes> c_tilde, const PolyVecL& z,
               const PolyVecK& h) {
  std::copy(c_tilde.begin(), c_tilde.end(), out.begin());
  for (std::size_t i = 0; i < kL; ++i) {
    PackZ(out.subspan(kCTildeBytes + i * kPolyZBytes).first<kPolyZBytes>(), z.p[i]);
  }
  HintBitPack(out.subspan(kCTildeBytes + kL * kPolyZBytes).first<kHintBytes>(), h);
}

bool SigDecodeVartime(std::span<std::uint8_t, kCTildeBytes> c_tilde, PolyVecL& z, PolyVecK& h,
                      std::span<const std::uint8_t, kSignatureBytes> in) {
  std::copy_n(in.begin(), kCTildeBytes, c_tilde.begin());
  for (std::size_t i = 0; i < kL; ++i) {
    UnpackZ(z.p[i], in.subspan(kCTildeBytes + i * kPolyZBytes).first<kPolyZBytes>());
  }
  return HintBitUnpackVartime(h, in.subspan(kCTildeBytes + kL * kPolyZBytes).first<kHintBytes>());
}

}  // namespace veil::crypto::mldsa
