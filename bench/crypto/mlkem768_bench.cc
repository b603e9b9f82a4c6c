// ML-KEM-768 (our C++, src/crypto/mlkem/) beside X25519 through libsodium, the classical key
// agreement it is paired with in hybrid schemes, measured in the same run.
//
// The operations correspond: ML-KEM KeyGen ~ X25519 key generation (one fixed-base scalar
// multiplication); ML-KEM Encaps ~ an ephemeral X25519 key generation plus one DH; ML-KEM Decaps ~
// one X25519 DH. The _Veil figures are what a caller gets (the hand-vectorised AVX2 code where the
// CPU has it, src/crypto/mlkem/simd.h), whose target is within 1.5x of liboqs 0.16 with AVX2
// (10.2 / 10.3 / 12.3 us on the project's hosts); the _VeilPortable figures force the portable
// code, whose target is <= 40 us per operation. Encaps and KeyGen include drawing their randomness
// from the CSPRNG, as a caller pays it. Decaps of a tampered ciphertext takes the
// implicit-rejection path; it should cost the same as a valid one (it is the same code).
// DecapsFromBytes decodes the 2400-byte dk first (length, hash and modulus checks), as a caller
// that stores keys encoded pays per message.
#include <benchmark/benchmark.h>
#include <sodium.h>

#include <array>

#include "../../src/crypto/mlkem/simd.h"
#include "veil/crypto/mlkem768.h"

namespace {

using veil::crypto::MlKem768Decaps;
using veil::crypto::MlKem768Encaps;
using veil::crypto::MlKem768KeyGen;

// Forces the portable code for the lifetime of one benchmark.
class PortableOnly {
 public:
  PortableOnly() { veil::crypto::mlkem::SetPortableOnlyForTesting(true); }
  ~PortableOnly() { veil::crypto::mlkem::SetPortableOnlyForTesting(false); }
  PortableOnly(const PortableOnly&) = delete;
  PortableOnly& operator=(const PortableOnly&) = delete;
};

void BM_MlKem768KeyGen_Veil(benchmark::State& state) {
  for (auto _ : state) {
    auto kp = MlKem768KeyGen();
    benchmark::DoNotOptimize(kp);
  }
}
BENCHMARK(BM_MlKem768KeyGen_Veil);

void BM_MlKem768Encaps_Veil(benchmark::State& state) {
  const auto kp = MlKem768KeyGen();
  for (auto _ : state) {
    auto enc = MlKem768Encaps(kp.ek);
    benchmark::DoNotOptimize(enc);
  }
}
BENCHMARK(BM_MlKem768Encaps_Veil);

void BM_MlKem768Decaps_Veil(benchmark::State& state) {
  const auto kp = MlKem768KeyGen();
  const auto enc = MlKem768Encaps(kp.ek);
  for (auto _ : state) {
    auto k = MlKem768Decaps(kp.dk, enc.ciphertext);
    benchmark::DoNotOptimize(k);
  }
}
BENCHMARK(BM_MlKem768Decaps_Veil);

void BM_MlKem768DecapsFromBytes_Veil(benchmark::State& state) {
  const auto kp = MlKem768KeyGen();
  const auto enc = MlKem768Encaps(kp.ek);
  const auto dk_bytes = kp.dk.Encode();
  for (auto _ : state) {
    auto dk = veil::crypto::MlKem768DecapsulationKey::Decode(dk_bytes.Expose());
    auto k = MlKem768Decaps(*dk, enc.ciphertext);
    benchmark::DoNotOptimize(k);
  }
}
BENCHMARK(BM_MlKem768DecapsFromBytes_Veil);

void BM_MlKem768DecapsImplicitReject_Veil(benchmark::State& state) {
  const auto kp = MlKem768KeyGen();
  auto c = MlKem768Encaps(kp.ek).ciphertext;
  c[100] ^= 1;
  for (auto _ : state) {
    auto k = MlKem768Decaps(kp.dk, c);
    benchmark::DoNotOptimize(k);
  }
}
BENCHMARK(BM_MlKem768DecapsImplicitReject_Veil);

void BM_MlKem768KeyGen_VeilPortable(benchmark::State& state) {
  const PortableOnly portable;
  BM_MlKem768KeyGen_Veil(state);
}
BENCHMARK(BM_MlKem768KeyGen_VeilPortable);

void BM_MlKem768Encaps_VeilPortable(benchmark::State& state) {
  const PortableOnly portable;
  BM_MlKem768Encaps_Veil(state);
}
BENCHMARK(BM_MlKem768Encaps_VeilPortable);

void BM_MlKem768Decaps_VeilPortable(benchmark::State& state) {
  const PortableOnly portable;
  BM_MlKem768Decaps_Veil(state);
}
BENCHMARK(BM_MlKem768Decaps_VeilPortable);

// Classical baseline: a fresh X25519 key pair (random scalar, fixed-base multiplication).
void BM_X25519KeyGen_Libsodium(benchmark::State& state) {
  if (sodium_init() < 0) state.SkipWithError("sodium_init failed");
  std::array<unsigned char, crypto_scalarmult_BYTES> pk;
  std::array<unsigned char, crypto_scalarmult_SCALARBYTES> sk;
  for (auto _ : state) {
    randombytes_buf(sk.data(), sk.size());
    benchmark::DoNotOptimize(crypto_scalarmult_base(pk.data(), sk.data()));
  }
}
BENCHMARK(BM_X25519KeyGen_Libsodium);

// Classical baseline: one X25519 Diffie-Hellman with a peer's public key.
void BM_X25519Dh_Libsodium(benchmark::State& state) {
  if (sodium_init() < 0) state.SkipWithError("sodium_init failed");
  std::array<unsigned char, crypto_scalarmult_SCALARBYTES> sk;
  std::array<unsigned char, crypto_scalarmult_BYTES> pk;
  std::array<unsigned char, crypto_scalarmult_BYTES> out;
  randombytes_buf(sk.data(), sk.size());
  crypto_scalarmult_base(pk.data(), sk.data());
  randombytes_buf(sk.data(), sk.size());
  for (auto _ : state)
    benchmark::DoNotOptimize(crypto_scalarmult(out.data(), sk.data(), pk.data()));
}
BENCHMARK(BM_X25519Dh_Libsodium);

}  // namespace
