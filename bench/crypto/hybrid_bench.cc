// Benchmarks of the hybrid constructions: X-Wing, HPKE (X-Wing and DHKEM(X25519)) sealing one
// 33-byte key share, and the ML-DSA-65 + Ed25519 composite signature. The classical-only baselines
// (X25519, Ed25519 through libsodium) run in the same binary (primitives_bench.cc).
#include <benchmark/benchmark.h>

#include "veil/crypto/composite_sig.h"
#include "veil/crypto/hpke.h"
#include "veil/crypto/random.h"
#include "veil/crypto/xwing.h"

namespace {

using namespace veil;
using namespace veil::crypto;

void BM_XWingKeyGen_Veil(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(XWingDecapsulationKey::Generate());
}
BENCHMARK(BM_XWingKeyGen_Veil);

void BM_XWingEncaps_Veil(benchmark::State& state) {
  XWingDecapsulationKey dk = XWingDecapsulationKey::Generate();
  for (auto _ : state) benchmark::DoNotOptimize(XWingEncapsulate(dk.public_key()));
}
BENCHMARK(BM_XWingEncaps_Veil);

void BM_XWingDecaps_Veil(benchmark::State& state) {
  XWingDecapsulationKey dk = XWingDecapsulationKey::Generate();
  auto enc = XWingEncapsulate(dk.public_key());
  for (auto _ : state) benchmark::DoNotOptimize(dk.Decapsulate(enc->ciphertext));
}
BENCHMARK(BM_XWingDecaps_Veil);

// Decapsulation from the 32-byte stored seed, as a guardian that keeps only the seed would.
void BM_XWingDecapsFromSeed_Veil(benchmark::State& state) {
  XWingDecapsulationKey dk = XWingDecapsulationKey::Generate();
  auto enc = XWingEncapsulate(dk.public_key());
  for (auto _ : state) {
    auto k = XWingDecapsulationKey::FromSeed(dk.seed());
    benchmark::DoNotOptimize(k.Decapsulate(enc->ciphertext));
  }
}
BENCHMARK(BM_XWingDecapsFromSeed_Veil);

void HpkeSeal(benchmark::State& state, hpke::KemId kem) {
  const hpke::Suite suite{kem, hpke::KdfId::kHkdfSha256, hpke::AeadId::kAes256Gcm};
  hpke::KeyPair r = hpke::GenerateKeyPair(kem);
  const Bytes share = RandomBytes(33);
  for (auto _ : state) {
    benchmark::DoNotOptimize(hpke::Seal(suite, r.public_key, {}, {}, share));
  }
}

void HpkeOpen(benchmark::State& state, hpke::KemId kem) {
  const hpke::Suite suite{kem, hpke::KdfId::kHkdfSha256, hpke::AeadId::kAes256Gcm};
  hpke::KeyPair r = hpke::GenerateKeyPair(kem);
  const Bytes share = RandomBytes(33);
  auto sealed = hpke::Seal(suite, r.public_key, {}, {}, share);
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        hpke::Open(suite, sealed->enc, r.private_key, {}, {}, sealed->ciphertext));
  }
}

void BM_HpkeXWingAes256GcmSeal33B_Veil(benchmark::State& s) { HpkeSeal(s, hpke::KemId::kXWing); }
void BM_HpkeXWingAes256GcmOpen33B_Veil(benchmark::State& s) { HpkeOpen(s, hpke::KemId::kXWing); }
void BM_HpkeX25519Aes256GcmSeal33B_Veil(benchmark::State& s) {
  HpkeSeal(s, hpke::KemId::kX25519Sha256);
}
void BM_HpkeX25519Aes256GcmOpen33B_Veil(benchmark::State& s) {
  HpkeOpen(s, hpke::KemId::kX25519Sha256);
}
BENCHMARK(BM_HpkeXWingAes256GcmSeal33B_Veil);
BENCHMARK(BM_HpkeXWingAes256GcmOpen33B_Veil);
BENCHMARK(BM_HpkeX25519Aes256GcmSeal33B_Veil);
BENCHMARK(BM_HpkeX25519Aes256GcmOpen33B_Veil);

void BM_CompositeKeyGen_Veil(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(CompositeSigningKey::Generate());
}
BENCHMARK(BM_CompositeKeyGen_Veil);

void BM_CompositeSign_Veil(benchmark::State& state) {
  CompositeSigningKey key = CompositeSigningKey::Generate();
  const Bytes msg = RandomBytes(64);
  for (auto _ : state) benchmark::DoNotOptimize(key.Sign(msg));
}
BENCHMARK(BM_CompositeSign_Veil)->MinTime(1.0);

void BM_CompositeVerify_Veil(benchmark::State& state) {
  CompositeSigningKey key = CompositeSigningKey::Generate();
  const Bytes msg = RandomBytes(64);
  auto sig = key.Sign(msg);
  for (auto _ : state) benchmark::DoNotOptimize(key.verifying_key().Verify(msg, {}, *sig));
}
BENCHMARK(BM_CompositeVerify_Veil);

}  // namespace
