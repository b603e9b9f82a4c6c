// Benchmarks of the proofs floor, with libsodium's Ed25519 (sign, verify) in the same binary as
// the baseline for Schnorr signatures: the same kind of signature on an Edwards curve, from a
// mature, assembly-tuned library.
//
// Schnorr: sign, verify, batch verify of 64 (per batch). Adaptor: pre-sign, pre-verify, adapt,
// extract. Pedersen: commit (constant time) and a 16-element vector commit. Sigma: prove and
// verify for discrete log, DLEQ and opening, and batch verification of 64 DLEQ proofs (per
// batch) beside 64 single verifications.
#include <benchmark/benchmark.h>
#include <sodium.h>

#include <array>
#include <vector>

#include "veil/zk/adaptor.h"
#include "veil/zk/pedersen.h"
#include "veil/zk/schnorr.h"
#include "veil/zk/sigma.h"
#include "veil/zk/transcript.h"

namespace {

using namespace veil;
using namespace veil::zk;

const Bytes kMessage(64, 0x42);

Transcript Context() {
  Transcript t("veil.bench", 1);
  t.AppendMessage("session", AsBytes("bench"));
  return t;
}

// ---- Schnorr, with Ed25519 as the baseline ----

void BM_SchnorrSign(benchmark::State& state) {
  const SchnorrSigningKey key = SchnorrSigningKey::Generate();
  for (auto _ : state) benchmark::DoNotOptimize(key.Sign(kMessage));
}
BENCHMARK(BM_SchnorrSign);

void BM_SchnorrVerify(benchmark::State& state) {
  const SchnorrSigningKey key = SchnorrSigningKey::Generate();
  const SchnorrSignature sig = key.Sign(kMessage);
  for (auto _ : state) benchmark::DoNotOptimize(SchnorrVerify(key.public_key(), kMessage, sig));
}
BENCHMARK(BM_SchnorrVerify);

// Decoding included: what a verifier of wire bytes pays.
void BM_SchnorrVerifyBytes(benchmark::State& state) {
  const SchnorrSigningKey key = SchnorrSigningKey::Generate();
  const auto sig = key.Sign(kMessage).Encode();
  const auto pk = key.public_key().Encode();
  for (auto _ : state) benchmark::DoNotOptimize(SchnorrVerify(pk, kMessage, sig));
}
BENCHMARK(BM_SchnorrVerifyBytes);

void BM_SchnorrBatchVerify64(benchmark::State& state) {
  std::vector<SchnorrSigningKey> keys;
  std::vector<SchnorrSignature> sigs;
  std::vector<SchnorrBatchItem> items;
  for (int i = 0; i < 64; ++i) keys.push_back(SchnorrSigningKey::Generate());
  for (auto& k : keys) sigs.push_back(k.Sign(kMessage));
  for (std::size_t i = 0; i < 64; ++i) items.push_back({&keys[i].public_key(), kMessage, &sigs[i]});
  for (auto _ : state) benchmark::DoNotOptimize(SchnorrBatchVerify(items));
  state.counters["per_signature_us"] = benchmark::Counter(
      64, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_SchnorrBatchVerify64)->Unit(benchmark::kMicrosecond);

void BM_Ed25519Sign_Libsodium(benchmark::State& state) {
  if (sodium_init() < 0) state.SkipWithError("sodium_init failed");
  std::array<unsigned char, crypto_sign_PUBLICKEYBYTES> pk{};
  std::array<unsigned char, crypto_sign_SECRETKEYBYTES> sk{};
  crypto_sign_keypair(pk.data(), sk.data());
  std::array<unsigned char, crypto_sign_BYTES> sig{};
  for (auto _ : state) {
    crypto_sign_detached(sig.data(), nullptr, kMessage.data(), kMessage.size(), sk.data());
    benchmark::DoNotOptimize(sig);
  }
}
BENCHMARK(BM_Ed25519Sign_Libsodium);

void BM_Ed25519Verify_Libsodium(benchmark::State& state) {
  if (sodium_init() < 0) state.SkipWithError("sodium_init failed");
  std::array<unsigned char, crypto_sign_PUBLICKEYBYTES> pk{};
  std::array<unsigned char, crypto_sign_SECRETKEYBYTES> sk{};
  crypto_sign_keypair(pk.data(), sk.data());
  std::array<unsigned char, crypto_sign_BYTES> sig{};
  crypto_sign_detached(sig.data(), nullptr, kMessage.data(), kMessage.size(), sk.data());
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        crypto_sign_verify_detached(sig.data(), kMessage.data(), kMessage.size(), pk.data()));
  }
}
BENCHMARK(BM_Ed25519Verify_Libsodium);

// ---- Adaptor signatures ----

struct AdaptorFixture {
  SchnorrSigningKey key = SchnorrSigningKey::Generate();
  ec::Scalar t = ec::Scalar::Random();
  ec::RistrettoPoint T = ec::BasepointMul(t);
  AdaptorPreSignature pre = AdaptorPreSign(key, kMessage, T);
  SchnorrSignature sig = AdaptorAdapt(pre, t);
};

void BM_AdaptorPreSign(benchmark::State& state) {
  const AdaptorFixture f;
  for (auto _ : state) benchmark::DoNotOptimize(AdaptorPreSign(f.key, kMessage, f.T));
}
BENCHMARK(BM_AdaptorPreSign);

void BM_AdaptorPreVerify(benchmark::State& state) {
  const AdaptorFixture f;
  for (auto _ : state) {
    benchmark::DoNotOptimize(AdaptorPreVerify(f.key.public_key(), kMessage, f.T, f.pre));
  }
}
BENCHMARK(BM_AdaptorPreVerify);

void BM_AdaptorAdapt(benchmark::State& state) {
  const AdaptorFixture f;
  for (auto _ : state) benchmark::DoNotOptimize(AdaptorAdapt(f.pre, f.t));
}
BENCHMARK(BM_AdaptorAdapt);

void BM_AdaptorExtract(benchmark::State& state) {
  const AdaptorFixture f;
  for (auto _ : state) benchmark::DoNotOptimize(AdaptorExtract(f.sig, f.pre, f.T));
}
BENCHMARK(BM_AdaptorExtract);

// ---- Pedersen ----

void BM_PedersenCommit(benchmark::State& state) {
  const PedersenGens& gens = PedersenGens::Default();
  const ec::Scalar v = ec::Scalar::Random(), r = ec::Scalar::Random();
  for (auto _ : state) benchmark::DoNotOptimize(gens.Commit(v, r));
}
BENCHMARK(BM_PedersenCommit);

void BM_PedersenVectorCommit16(benchmark::State& state) {
  static const VectorPedersenGens gens(16);
  std::vector<ec::Scalar> a(16);
  for (auto& x : a) x = ec::Scalar::Random();
  const ec::Scalar r = ec::Scalar::Random();
  for (auto _ : state) benchmark::DoNotOptimize(gens.Commit(a, r));
}
BENCHMARK(BM_PedersenVectorCommit16);

// ---- Sigma protocols ----

struct SigmaFixture {
  ec::Scalar x = ec::Scalar::Random();
  ec::RistrettoPoint P = ec::BasepointMul(x);
  ec::RistrettoPoint G = ec::BasepointMul(ec::Scalar::Random());
  ec::RistrettoPoint H = ec::BasepointMul(ec::Scalar::Random());
  ec::RistrettoPoint P2 = x * G, Q = x * H;
  ec::Scalar v = ec::Scalar::Random(), r = ec::Scalar::Random();
  Commitment C = PedersenGens::Default().Commit(v, r);
};

void BM_SigmaDlogProve(benchmark::State& state) {
  const SigmaFixture f;
  for (auto _ : state) {
    Transcript t = Context();
    benchmark::DoNotOptimize(ProveDlog(t, f.x, f.P));
  }
}
BENCHMARK(BM_SigmaDlogProve);

void BM_SigmaDlogVerify(benchmark::State& state) {
  const SigmaFixture f;
  Transcript pt = Context();
  const SigmaProof proof = ProveDlog(pt, f.x, f.P);
  for (auto _ : state) {
    Transcript t = Context();
    benchmark::DoNotOptimize(VerifyDlog(t, f.P, proof));
  }
}
BENCHMARK(BM_SigmaDlogVerify);

void BM_SigmaDleqProve(benchmark::State& state) {
  const SigmaFixture f;
  for (auto _ : state) {
    Transcript t = Context();
    benchmark::DoNotOptimize(ProveDleq(t, f.x, f.G, f.P2, f.H, f.Q));
  }
}
BENCHMARK(BM_SigmaDleqProve);

void BM_SigmaDleqVerify(benchmark::State& state) {
  const SigmaFixture f;
  Transcript pt = Context();
  const SigmaProof proof = ProveDleq(pt, f.x, f.G, f.P2, f.H, f.Q);
  for (auto _ : state) {
    Transcript t = Context();
    benchmark::DoNotOptimize(VerifyDleq(t, f.G, f.P2, f.H, f.Q, proof));
  }
}
BENCHMARK(BM_SigmaDleqVerify);

void BM_SigmaOpeningProve(benchmark::State& state) {
  const SigmaFixture f;
  const PedersenGens& gens = PedersenGens::Default();
  for (auto _ : state) {
    Transcript t = Context();
    benchmark::DoNotOptimize(ProveOpening(t, gens, f.v, f.r, f.C));
  }
}
BENCHMARK(BM_SigmaOpeningProve);

void BM_SigmaOpeningVerify(benchmark::State& state) {
  const SigmaFixture f;
  const PedersenGens& gens = PedersenGens::Default();
  Transcript pt = Context();
  const SigmaProof proof = ProveOpening(pt, gens, f.v, f.r, f.C);
  for (auto _ : state) {
    Transcript t = Context();
    benchmark::DoNotOptimize(VerifyOpening(t, gens, f.C, proof));
  }
}
BENCHMARK(BM_SigmaOpeningVerify);

// 64 DLEQ proofs over shared generators G, H (as in a batch of VRF outputs or decryption shares),
// statements prebuilt: the batch against 64 single verifications of the same proofs.
struct DleqBatch {
  ec::RistrettoPoint G = ec::BasepointMul(ec::Scalar::Random());
  ec::RistrettoPoint H = ec::BasepointMul(ec::Scalar::Random());
  std::vector<LinearRelation> relations;
  std::vector<SigmaProof> proofs;
  DleqBatch() {
    for (int i = 0; i < 64; ++i) {
      const ec::Scalar x = ec::Scalar::Random();
      relations.push_back(DleqRelation(G, x * G, H, x * H));
      Transcript t = Context();
      proofs.push_back(*Prove(t, relations.back(), std::span<const ec::Scalar>(&x, 1)));
    }
  }
};

void BM_SigmaDleqBatchVerify64(benchmark::State& state) {
  const DleqBatch b;
  for (auto _ : state) {
    SigmaBatchVerifier batch;
    for (std::size_t i = 0; i < 64; ++i) {
      Transcript t = Context();
      (void)batch.Add(t, b.relations[i], b.proofs[i]);
    }
    benchmark::DoNotOptimize(batch.Verify());
  }
  state.counters["per_proof_us"] = benchmark::Counter(
      64, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_SigmaDleqBatchVerify64)->Unit(benchmark::kMicrosecond);

void BM_SigmaDleqSingleVerify64(benchmark::State& state) {
  const DleqBatch b;
  for (auto _ : state) {
    for (std::size_t i = 0; i < 64; ++i) {
      Transcript t = Context();
      benchmark::DoNotOptimize(Verify(t, b.relations[i], b.proofs[i]));
    }
  }
}
BENCHMARK(BM_SigmaDleqSingleVerify64)->Unit(benchmark::kMicrosecond);

// 64 discrete-log proofs (each with its own P): the batch shares only the base point.
void BM_SigmaDlogBatchVerify64(benchmark::State& state) {
  std::vector<ec::RistrettoPoint> points;
  std::vector<SigmaProof> proofs;
  for (int i = 0; i < 64; ++i) {
    const ec::Scalar x = ec::Scalar::Random();
    points.push_back(ec::BasepointMul(x));
    Transcript t = Context();
    proofs.push_back(ProveDlog(t, x, points.back()));
  }
  std::vector<LinearRelation> relations;
  for (const auto& p : points) relations.push_back(DlogRelation(p));
  for (auto _ : state) {
    SigmaBatchVerifier batch;
    for (std::size_t i = 0; i < 64; ++i) {
      Transcript t = Context();
      (void)batch.Add(t, relations[i], proofs[i]);
    }
    benchmark::DoNotOptimize(batch.Verify());
  }
}
BENCHMARK(BM_SigmaDlogBatchVerify64)->Unit(benchmark::kMicrosecond);

}  // namespace
