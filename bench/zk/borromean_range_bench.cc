// Borromean range proofs (the bit-decomposition backend): prove and verify at 8, 40 and 64 bits,
// with the proof size as a counter. Anchors (not measurable here, quoted in docs/performance.md):
// Elements' Borromean rangeproof at 40 bits, 3,205 B, prove about 4 ms, verify about 3 ms; the
// reference DeFMI's linear backend at 40 bits, 57,939 B, 34.0 ms.
#include <benchmark/benchmark.h>
#include <sodium.h>

#include "veil/zk/borromean_range.h"

namespace {

using namespace veil;
using namespace veil::zk;

Transcript Context() {
  Transcript t("veil.bench", 1);
  t.AppendMessage("session", AsBytes("bench"));
  return t;
}

std::uint64_t ValueFor(unsigned bits) {
  std::uint64_t v;
  randombytes_buf(&v, sizeof v);
  return bits == 64 ? v : v & ((std::uint64_t{1} << bits) - 1);
}

void BM_BorromeanRangeProve(benchmark::State& state) {
  const auto bits = static_cast<unsigned>(state.range(0));
  const std::uint64_t v = ValueFor(bits);
  const ec::Scalar r = ec::Scalar::Random();
  for (auto _ : state) {
    Transcript t = Context();
    benchmark::DoNotOptimize(BorromeanRangeProof::Prove(t, v, r, bits));
  }
  state.counters["bytes"] = static_cast<double>(BorromeanRangeProof::SizeForBits(bits));
}
BENCHMARK(BM_BorromeanRangeProve)->Arg(8)->Arg(40)->Arg(64)->Unit(benchmark::kMillisecond);

void BM_BorromeanRangeVerify(benchmark::State& state) {
  const auto bits = static_cast<unsigned>(state.range(0));
  const std::uint64_t v = ValueFor(bits);
  const ec::Scalar r = ec::Scalar::Random();
  Transcript pt = Context();
  const BorromeanRangeProof proof = BorromeanRangeProof::Prove(pt, v, r, bits).value();
  const Bytes bytes = proof.Encode();
  const Commitment c = PedersenGens::Default().Commit(ec::Scalar::FromUint64(v), r);
  for (auto _ : state) {
    // From the wire: decoding (canonical checks, point decompression) is part of the cost.
    Transcript t = Context();
    auto decoded = BorromeanRangeProof::Decode(bytes);
    benchmark::DoNotOptimize(decoded->Verify(t, c, bits));
  }
  state.counters["bytes"] = static_cast<double>(bytes.size());
}
BENCHMARK(BM_BorromeanRangeVerify)->Arg(8)->Arg(40)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace
