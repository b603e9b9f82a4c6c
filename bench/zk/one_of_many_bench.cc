// Benchmarks of one-of-many proofs and Triptych ring signatures (docs/notes/one_of_many.md).
//
// One-of-many: prove and verify over 64 members (asset membership) and 128 (vetting against a
// group), and batch verification of 16 proofs over one set of 64 (per proof). Ring signatures:
// sign and verify for rings of 8, 64 and 512, and batch verification of 16 signatures over rings
// of 64 that share their members (per signature). Every benchmark reports the proof size as a
// counter, and the set (or ring) is prepared outside the loop: decoding or encoding its members
// is a one-off cost for a verifier that keeps them (BM_RingDecode512 measures it). The
// calibration (one libsodium scalar multiplication) is in the same binary.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "veil/zk/one_of_many.h"
#include "veil/zk/pedersen.h"
#include "veil/zk/ring_signature.h"
#include "veil/zk/transcript.h"

namespace {

using namespace veil;
using namespace veil::zk;

Transcript Context() {
  Transcript t("veil.bench", 1);
  t.AppendMessage("session", AsBytes("bench"));
  return t;
}

struct OomFixture {
  explicit OomFixture(std::size_t N) {
    std::vector<ec::RistrettoPoint> members;
    for (std::size_t k = 0; k < N; ++k) members.push_back(ec::BasepointMul(ec::Scalar::Random()));
    l = N / 3;
    r = ec::Scalar::Random();
    members[l] = r * PedersenGens::Default().H();
    set.emplace(std::move(OneOfManySet::FromPoints(members)).value());
  }
  OneOfManyProof Prove() const {
    Transcript t = Context();
    return std::move(OneOfManyProve(t, *set, l, r)).value();
  }
  std::optional<OneOfManySet> set;
  std::size_t l;
  ec::Scalar r;
};

void SizeCounters(benchmark::State& state, std::size_t bytes, std::size_t n, std::size_t m) {
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["n"] = static_cast<double>(n);
  state.counters["m"] = static_cast<double>(m);
}

void BM_OneOfManyProve(benchmark::State& state) {
  const OomFixture f(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(f.Prove());
  const auto& p = f.set->params();
  SizeCounters(state, p.ProofSize(), p.n, p.m);
}
BENCHMARK(BM_OneOfManyProve)->Arg(64)->Arg(128)->Unit(benchmark::kMillisecond);

void BM_OneOfManyVerify(benchmark::State& state) {
  const OomFixture f(static_cast<std::size_t>(state.range(0)));
  const OneOfManyProof proof = f.Prove();
  for (auto _ : state) {
    Transcript t = Context();
    if (!OneOfManyVerify(t, *f.set, proof).ok()) state.SkipWithError("proof did not verify");
  }
  const auto& p = f.set->params();
  SizeCounters(state, p.ProofSize(), p.n, p.m);
}
BENCHMARK(BM_OneOfManyVerify)->Arg(64)->Arg(128)->Unit(benchmark::kMillisecond);

// Decoding included: what a verifier of wire bytes pays.
void BM_OneOfManyVerifyBytes(benchmark::State& state) {
  const OomFixture f(static_cast<std::size_t>(state.range(0)));
  const Bytes enc = f.Prove().Encode();
  for (auto _ : state) {
    auto proof = OneOfManyProof::Decode(enc, f.set->params());
    Transcript t = Context();
    benchmark::DoNotOptimize(OneOfManyVerify(t, *f.set, *proof));
  }
}
BENCHMARK(BM_OneOfManyVerifyBytes)->Arg(64)->Unit(benchmark::kMillisecond);

void BM_OneOfManyBatchVerify16(benchmark::State& state) {
  const OomFixture f(static_cast<std::size_t>(state.range(0)));
  std::vector<OneOfManyProof> proofs;
  for (int i = 0; i < 16; ++i) proofs.push_back(f.Prove());
  for (auto _ : state) {
    OneOfManyBatchVerifier batch;
    for (const auto& proof : proofs) {
      Transcript t = Context();
      benchmark::DoNotOptimize(batch.Add(t, *f.set, proof));
    }
    if (!batch.Verify().ok()) state.SkipWithError("batch did not verify");
  }
  state.counters["per_proof_us"] = benchmark::Counter(
      16, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  SizeCounters(state, f.set->params().ProofSize(), f.set->params().n, f.set->params().m);
}
BENCHMARK(BM_OneOfManyBatchVerify16)->Arg(64)->Unit(benchmark::kMillisecond);

// ---- Ring signatures ----

const Bytes kMessage(64, 0x42);

struct RingFixture {
  explicit RingFixture(std::size_t N, std::vector<ec::RistrettoPoint> decoys = {}) {
    if (decoys.empty()) {
      for (std::size_t k = 0; k < N; ++k) decoys.push_back(ec::BasepointMul(ec::Scalar::Random()));
    }
    decoys[N / 2] = key.public_key();
    ring.emplace(std::move(Ring::FromPoints(decoys)).value());
  }
  RingSignature Sign() const { return std::move(RingSign(key, *ring, kMessage)).value(); }
  RingSigningKey key = RingSigningKey::Generate();
  std::optional<Ring> ring;
};

void BM_RingSign(benchmark::State& state) {
  const RingFixture f(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(f.Sign());
  const auto& p = f.ring->params();
  SizeCounters(state, RingSignatureSize(p), p.n, p.m);
}
BENCHMARK(BM_RingSign)->Arg(8)->Arg(64)->Arg(512)->Unit(benchmark::kMillisecond);

void BM_RingVerify(benchmark::State& state) {
  const RingFixture f(static_cast<std::size_t>(state.range(0)));
  const RingSignature sig = f.Sign();
  for (auto _ : state) {
    if (!RingVerify(*f.ring, kMessage, sig).ok()) state.SkipWithError("did not verify");
  }
  const auto& p = f.ring->params();
  SizeCounters(state, RingSignatureSize(p), p.n, p.m);
}
BENCHMARK(BM_RingVerify)->Arg(8)->Arg(64)->Arg(512)->Unit(benchmark::kMillisecond);

// Sixteen signers over rings drawn from one pool of 64 keys (each ring is the pool with the
// signer at a different position), so the batch merges the members.
void BM_RingBatchVerify16(benchmark::State& state) {
  const auto N = static_cast<std::size_t>(state.range(0));
  std::vector<ec::RistrettoPoint> pool;
  for (std::size_t k = 0; k < N; ++k) pool.push_back(ec::BasepointMul(ec::Scalar::Random()));
  std::vector<RingFixture> fixtures;
  fixtures.reserve(16);
  for (int i = 0; i < 16; ++i) fixtures.emplace_back(N, pool);
  std::vector<RingSignature> sigs;
  for (const auto& f : fixtures) sigs.push_back(f.Sign());
  std::vector<RingBatchItem> items;
  for (std::size_t i = 0; i < 16; ++i) items.push_back({&*fixtures[i].ring, kMessage, &sigs[i]});
  for (auto _ : state) {
    if (!RingBatchVerify(items).ok()) state.SkipWithError("batch did not verify");
  }
  state.counters["per_signature_us"] = benchmark::Counter(
      16, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  const auto& p = fixtures[0].ring->params();
  SizeCounters(state, RingSignatureSize(p), p.n, p.m);
}
BENCHMARK(BM_RingBatchVerify16)->Arg(64)->Unit(benchmark::kMillisecond);

// Decoding a ring of 512 public keys: a verifier's one-off cost per ring it has not seen.
void BM_RingDecode512(benchmark::State& state) {
  const RingFixture f(512);
  const std::vector<ec::CompressedRistretto> encodings = f.ring->encodings();
  for (auto _ : state) benchmark::DoNotOptimize(Ring::Decode(encodings));
}
BENCHMARK(BM_RingDecode512)->Unit(benchmark::kMillisecond);

}  // namespace
