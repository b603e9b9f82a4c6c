// Keccak-f[1600] and the FIPS 202 sponge functions: SHA3-256, SHA3-512, SHAKE128, SHAKE256.
//
// We carry our own Keccak because OpenSSL 3.0 cannot squeeze a SHAKE output in several calls, and
// ML-KEM (FIPS 203), ML-DSA (FIPS 204) and the Fiat-Shamir transcript all need to. KeccakSponge is
// the sponge construction of FIPS 202 sec. 4 over Keccak-f[1600] (sec. 3.3, 3.4) with pad10*1
// (sec. 5.1) after the domain-separation suffix of sec. 6: absorb any number of times, then squeeze
// any number of times. Absorbing after the first squeeze is a programming error and aborts. The
// run time depends only on lengths, never on the bytes (Keccak has no data-dependent branch or
// table index), so secret inputs are fine; for the same reason the state is wiped when an object is
// destroyed. Objects are copyable on purpose: a transcript forks, and a hash of a common prefix is
// reused, by copying the sponge; each copy wipes itself.
//
// Thread safety: values; the usual rules for a non-const object shared between threads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "veil/base/bytes.h"
#include "veil/base/status.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {

// The 1600-bit state as 25 lanes of 64 bits: lane (x, y) at index x + 5 * y, bit z of a lane is
// bit z of the word (FIPS 202 sec. 3.1.2); bytes map to lanes little-endian (sec. B.1).
using KeccakState = std::array<std::uint64_t, 25>;

// Keccak-f[1600] = Keccak-p[1600, 24] (FIPS 202 sec. 3.3, 3.4), in place.
void KeccakF1600(KeccakState& state);

namespace internal {
// The byte-level sponge steps behind KeccakSponge, out of line so that every rate shares one copy.
// `pos` is the byte offset in the current block: while absorbing, bytes already absorbed into it;
// while squeezing, bytes already read from it (rate means the block is used up). Each returns the
// new position.
std::size_t KeccakAbsorb(KeccakState& state, std::size_t pos, std::size_t rate, ByteView in);
// Appends the domain suffix and pad10*1 to the partial block at `pos` (FIPS 202 sec. B.2).
void KeccakPad(KeccakState& state, std::size_t pos, std::size_t rate, std::uint8_t domain);
std::size_t KeccakSqueeze(KeccakState& state, std::size_t pos, std::size_t rate,
                          MutableByteView out);
}  // namespace internal

// The sponge over Keccak-f[1600] with a rate of kRate bytes and the domain-separation suffix and
// first padding bit folded into one byte kDomain (FIPS 202 sec. B.2): 0x06 for SHA3 (suffix 01),
// 0x1F for SHAKE (suffix 1111).
template <std::size_t kRate, std::uint8_t kDomain>
class KeccakSponge {
  // Whole lanes keep the absorb and squeeze loops simple; every FIPS 202 instance has such a rate.
  static_assert(kRate > 0 && kRate < 200 && kRate % 8 == 0, "rate must be whole lanes, < 200");

 public:
  static constexpr std::size_t kRateBytes = kRate;

  KeccakSponge() = default;
  KeccakSponge(const KeccakSponge&) = default;
  KeccakSponge& operator=(const KeccakSponge&) = default;
  ~KeccakSponge() { SecureWipe(state_.data(), sizeof(state_)); }

  void Absorb(ByteView in) {
    VEIL_CHECK_MSG(!squeezing_, "Keccak: Absorb after Squeeze; call Reset first");
    pos_ = internal::KeccakAbsorb(state_, pos_, kRate, in);
  }

  // Output continues where the previous Squeeze stopped.
  void Squeeze(MutableByteView out) {
    Finish();
    pos_ = internal::KeccakSqueeze(state_, pos_, kRate, out);
  }

  // Squeeze whole blocks when nothing of the current block is left over, as ML-KEM's
  // SampleNTT (FIPS 203 Algorithm 7) does: out.size() must be a multiple of kRate and every
  // earlier squeeze must have been whole blocks too; anything else is a programming error.
  void SqueezeBlocks(MutableByteView out) {
    Finish();
    VEIL_CHECK_MSG(pos_ == kRate && out.size() % kRate == 0,
                   "Keccak: SqueezeBlocks needs whole blocks at a block boundary");
    pos_ = internal::KeccakSqueeze(state_, pos_, kRate, out);
  }

  // Back to the empty state: absorbing may start again.
  void Reset() {
    SecureWipe(state_.data(), sizeof(state_));
    pos_ = 0;
    squeezing_ = false;
  }

 private:
  void Finish() {
    if (squeezing_) return;
    internal::KeccakPad(state_, pos_, kRate, kDomain);
    pos_ = kRate;  // the padded block is permuted by the first squeeze
    squeezing_ = true;
  }

  KeccakState state_{};
  std::size_t pos_ = 0;
  bool squeezing_ = false;
};

// SHA3-d for d = 8 * kDigestBytes: Keccak[c = 2d] with suffix 01 (FIPS 202 sec. 6.1).
template <std::size_t kDigestBytes>
class Sha3 {
 public:
  static constexpr std::size_t kDigestSize = kDigestBytes;
  static constexpr std::size_t kBlockSize = 200 - 2 * kDigestBytes;

  void Update(ByteView in) { sponge_.Absorb(in); }
  // Writes the digest and resets, so the object can hash another message.
  void Final(std::span<std::uint8_t, kDigestSize> out) {
    sponge_.Squeeze(out);
    sponge_.Reset();
  }

  static std::array<std::uint8_t, kDigestSize> Hash(ByteView in) {
    Sha3 h;
    h.Update(in);
    std::array<std::uint8_t, kDigestSize> out;
    h.Final(out);
    return out;
  }

 private:
  KeccakSponge<kBlockSize, 0x06> sponge_;
};

using Sha3_256 = Sha3<32>;  // rate 136 bytes
using Sha3_512 = Sha3<64>;  // rate 72 bytes
static_assert(Sha3_256::kBlockSize == 136 && Sha3_512::kBlockSize == 72);

// SHAKE128 / SHAKE256: Keccak[c = 2 * kSecurityBits] with suffix 1111 (FIPS 202 sec. 6.2). The
// streaming interface is the sponge's: Absorb, then Squeeze or SqueezeBlocks as often as needed.
template <std::size_t kSecurityBits>
class Shake : public KeccakSponge<200 - kSecurityBits / 4, 0x1F> {
 public:
  static constexpr std::size_t kBlockSize = 200 - kSecurityBits / 4;

  static Bytes Hash(ByteView in, std::size_t out_len) {
    Shake x;
    x.Absorb(in);
    Bytes out(out_len);
    x.Squeeze(out);
    return out;
  }
};

using Shake128 = Shake<128>;  // rate 168 bytes
using Shake256 = Shake<256>;  // rate 136 bytes
static_assert(Shake128::kBlockSize == 168 && Shake256::kBlockSize == 136);

}  // namespace veil::crypto
