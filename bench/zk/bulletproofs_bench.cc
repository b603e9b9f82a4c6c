// Benchmarks of the Bulletproofs range proofs (docs/notes/bulletproofs.md, "Costs").
//
// Prove and verify for single proofs of n = 8, 32, 64 bits and aggregated 64-bit proofs of m = 2,
// 3 (padded to 4), 4, 8 and 16 values; decoding of a 64-bit proof; batch verification of 64 single
// 64-bit proofs beside the same 64 verified one by one. Every row carries the proof size
// (proof_bytes); batch rows carry per_proof_us. The anchor we compare with is
// dalek-cryptography/bulletproofs on its u64 / AVX2 backends (its README): 64-bit prove 11.3 /
// 7.3 ms, verify 1.49 / 1.04 ms, 672 bytes; the host's calibration row is in zk_bench.cc, in the
// same binary.
#include <benchmark/benchmark.h>

#include <vector>

#include "veil/zk/bulletproofs.h"
#include "veil/zk/transcript.h"

namespace {

using namespace veil;
using namespace veil::zk;

Transcript Context() {
  Transcript t("veil.bench.bulletproofs", 1);
  t.AppendMessage("session", AsBytes("bench"));
  return t;
}

struct Witness {
  std::vector<ec::Scalar> values, blindings;
  Witness(std::size_t n, std::size_t m) {
    for (std::size_t j = 0; j < m; ++j) {
      // A value with n significant bits (the cost does not depend on it: constant time).
      const std::uint64_t v = n == 64 ? 0xfedcba9876543210 - j : (std::uint64_t{1} << n) - 1 - j;
      values.push_back(ec::Scalar::FromUint64(v));
      blindings.push_back(ec::Scalar::Random());
    }
  }
  RangeProofWithCommitments Prove(std::size_t n) const {
    Transcript t = Context();
    return ProveRange(t, n, values, blindings).value();
  }
};

void SetSize(benchmark::State& state, std::size_t n, std::size_t m) {
  state.counters["proof_bytes"] = static_cast<double>(RangeProofSize(n, m));
}

// Args: n, m.
void BM_RangeProve(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto m = static_cast<std::size_t>(state.range(1));
  const Witness w(n, m);
  (void)w.Prove(n);  // generators computed outside the timing
  for (auto _ : state) {
    Transcript t = Context();
    benchmark::DoNotOptimize(ProveRange(t, n, w.values, w.blindings));
  }
  SetSize(state, n, m);
}
BENCHMARK(BM_RangeProve)
    ->Args({8, 1})
    ->Args({32, 1})
    ->Args({64, 1})
    ->Args({64, 2})
    ->Args({64, 3})
    ->Args({64, 4})
    ->Args({64, 8})
    ->Args({64, 16})
    ->Unit(benchmark::kMillisecond);

void BM_RangeVerify(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto m = static_cast<std::size_t>(state.range(1));
  const RangeProofWithCommitments p = Witness(n, m).Prove(n);
  for (auto _ : state) {
    Transcript t = Context();
    benchmark::DoNotOptimize(VerifyRange(t, n, p.commitments, p.proof));
  }
  SetSize(state, n, m);
}
BENCHMARK(BM_RangeVerify)
    ->Args({8, 1})
    ->Args({32, 1})
    ->Args({64, 1})
    ->Args({64, 2})
    ->Args({64, 3})
    ->Args({64, 4})
    ->Args({64, 8})
    ->Args({64, 16})
    ->Unit(benchmark::kMicrosecond);

// What a verifier of wire bytes pays on top: the strict decoding (16 point decodings).
void BM_RangeDecode64(benchmark::State& state) {
  const Bytes enc = Witness(64, 1).Prove(64).proof.Encode();
  for (auto _ : state) benchmark::DoNotOptimize(RangeProof::Decode(enc, 64, 1));
  SetSize(state, 64, 1);
}
BENCHMARK(BM_RangeDecode64)->Unit(benchmark::kMicrosecond);

struct Batch64 {
  std::vector<RangeProofWithCommitments> proofs;
  Batch64() {
    for (int i = 0; i < 64; ++i) proofs.push_back(Witness(64, 1).Prove(64));
  }
};

const Batch64& SharedBatch() {
  static const Batch64 b;
  return b;
}

void BM_RangeBatchVerify64(benchmark::State& state) {
  const Batch64& b = SharedBatch();
  for (auto _ : state) {
    RangeProofBatchVerifier v;
    for (const auto& p : b.proofs) {
      Transcript t = Context();
      (void)v.Add(t, 64, p.commitments, p.proof);
    }
    benchmark::DoNotOptimize(v.Verify());
  }
  state.counters["per_proof_us"] = benchmark::Counter(
      64, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  SetSize(state, 64, 1);
}
BENCHMARK(BM_RangeBatchVerify64)->Unit(benchmark::kMillisecond);

void BM_RangeSingleVerify64(benchmark::State& state) {
  const Batch64& b = SharedBatch();
  for (auto _ : state) {
    for (const auto& p : b.proofs) {
      Transcript t = Context();
      benchmark::DoNotOptimize(VerifyRange(t, 64, p.commitments, p.proof));
    }
  }
  state.counters["per_proof_us"] = benchmark::Counter(
      64, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  SetSize(state, 64, 1);
}
BENCHMARK(BM_RangeSingleVerify64)->Unit(benchmark::kMillisecond);

}  // namespace
