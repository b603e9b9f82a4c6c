// Keccak under valgrind: SHAKE and SHA3 of a secret input must not branch on or index by it, on
// the scalar sponge and on the 4-way AVX2 one (ML-DSA's rho' and rho'' streams run there).
//
// The input is marked undefined, so every byte of the state and the output is too; memcheck
// reports any conditional jump or address computed from them. The lengths stay public, as they
// are in ML-KEM and ML-DSA.
#include <array>
#include <cstdint>

#include "../../src/crypto/keccak4x.h"
#include "ctime.h"
#include "veil/crypto/keccak.h"

namespace veil::crypto {
namespace {

// A fixed, non-zero buffer; its contents do not matter since valgrind treats them as unknown.
template <std::size_t N>
std::array<std::uint8_t, N> Buffer() {
  std::array<std::uint8_t, N> b;
  for (std::size_t i = 0; i < N; ++i) b[i] = static_cast<std::uint8_t>(i * 13 + 5);
  return b;
}

VEIL_CTIME_CHECK(Shake256SecretInput) {
  // 64 bytes like an ML-KEM seed pair, then 300 bytes to cross the 136-byte rate twice.
  auto seed = Buffer<64>();
  auto longer = Buffer<300>();
  ctime::Classify(seed.data(), seed.size());
  ctime::Classify(longer.data(), longer.size());

  Shake256 x;
  x.Absorb(seed);
  x.Absorb(longer);
  std::array<std::uint8_t, 500> out;
  x.Squeeze(std::span(out).first(7));  // partial block, then the rest across block boundaries
  x.Squeeze(std::span(out).subspan(7));
  ctime::Declassify(out.data(), out.size());  // a hash output would be published or used as a key
}

VEIL_CTIME_CHECK(Shake128SecretSeedSqueezeBlocks) {
  auto seed = Buffer<34>();  // rho || j || i, as in ML-KEM's SampleNTT
  ctime::Classify(seed.data(), seed.size());
  Shake128 x;
  x.Absorb(seed);
  std::array<std::uint8_t, 3 * Shake128::kBlockSize> out;
  x.SqueezeBlocks(out);
  ctime::Declassify(out.data(), out.size());
}

VEIL_CTIME_CHECK(Sha3SecretInput) {
  auto secret = Buffer<200>();
  ctime::Classify(secret.data(), secret.size());
  auto d256 = Sha3_256::Hash(secret);
  auto d512 = Sha3_512::Hash(std::span(secret).first(33));
  ctime::Declassify(d256.data(), d256.size());
  ctime::Declassify(d512.data(), d512.size());
}

#if VEIL_HAVE_AVX2
VEIL_CTIME_CHECK(Shake256X4SecretInputs) {
  if (!CpuHasAvx2()) return;
  // Four rho' || index inputs (66 bytes), absorbed, then three blocks of each stream squeezed.
  std::array<std::array<std::uint8_t, 66>, 4> inputs = {Buffer<66>(), Buffer<66>(), Buffer<66>(),
                                                        Buffer<66>()};
  std::array<const std::uint8_t*, 4> in;
  for (std::size_t n = 0; n < 4; ++n) {
    inputs[n][64] = static_cast<std::uint8_t>(n);
    ctime::Classify(inputs[n].data(), inputs[n].size());
    in[n] = inputs[n].data();
  }
  KeccakX4State state;
  ShakeX4AbsorbOnceAvx2(state, Shake256::kBlockSize, in, 66);
  std::array<std::array<std::uint8_t, 3 * Shake256::kBlockSize>, 4> out;
  for (std::size_t block = 0; block < 3; ++block) {
    std::array<std::uint8_t*, 4> to;
    for (std::size_t n = 0; n < 4; ++n) to[n] = out[n].data() + block * Shake256::kBlockSize;
    ShakeX4SqueezeBlockAvx2(state, Shake256::kBlockSize, to, Shake256::kBlockSize);
  }
  for (auto& o : out) ctime::Declassify(o.data(), o.size());
  SecureWipe(&state, sizeof state);
}
#endif

}  // namespace
}  // namespace veil::crypto
