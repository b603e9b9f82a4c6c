// Record statements (Kalypso's `prove`): the range statement lo <= slot <= hi at 32- and 64-bit
// spans, and the other kinds once each, with the proof size as a counter. Anchor (quoted in
// docs/performance.md, not measurable here): Noir/UltraHonk for Kalypso's range statement, prove
// 169-370 ms, verify 15-18.6 ms, 14,656 B plus a 3,680 B verification key.
#include <benchmark/benchmark.h>

#include <vector>

#include "veil/zk/record.h"

namespace {

using namespace veil;
using namespace veil::zk;

const Bytes kKey = {1, 2, 3};
const Bytes kNonce = {4, 5, 6};
const RecordContext kCtx{kKey, "balance in range", kNonce};

RecordOpening Record() {
  const std::vector<ec::Scalar> slots = {RecordSlotFromInteger(3000000000),
                                         RecordSlotFromInteger(42), RecordSlotFromString("alice")};
  return RecordOpening(slots);
}

// Arg: the span's width in bits (32 or 64).
std::uint64_t Hi(int bits) { return bits == 64 ? ~std::uint64_t{0} : std::uint64_t{4000000000}; }

void BM_RecordRangeProve(benchmark::State& state) {
  const RecordOpening r = Record();
  const std::uint64_t hi = Hi(static_cast<int>(state.range(0)));
  std::size_t size = 0;
  for (auto _ : state) {
    auto proof = ProveSlotInRange(kCtx, r, 0, 1000, hi);
    size = proof->Encode().size();
    benchmark::DoNotOptimize(proof);
  }
  state.counters["bytes"] = static_cast<double>(size);
}
BENCHMARK(BM_RecordRangeProve)->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond);

void BM_RecordRangeVerify(benchmark::State& state) {
  const RecordOpening r = Record();
  const Commitment c = r.Commit();
  const std::uint64_t hi = Hi(static_cast<int>(state.range(0)));
  const Bytes bytes = ProveSlotInRange(kCtx, r, 0, 1000, hi)->Encode();
  for (auto _ : state) {
    auto proof = RecordProof::Decode(bytes);
    benchmark::DoNotOptimize(VerifySlotInRange(kCtx, c, 0, 1000, hi, *proof));
  }
  state.counters["bytes"] = static_cast<double>(bytes.size());
}
BENCHMARK(BM_RecordRangeVerify)->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond);

void BM_RecordSlotEqualsProveVerify(benchmark::State& state) {
  const RecordOpening r = Record();
  const Commitment c = r.Commit();
  for (auto _ : state) {
    auto proof = ProveSlotEquals(kCtx, r, 2, RecordSlotFromString("alice"));
    benchmark::DoNotOptimize(VerifySlotEquals(kCtx, c, 2, RecordSlotFromString("alice"), *proof));
  }
}
BENCHMARK(BM_RecordSlotEqualsProveVerify)->Unit(benchmark::kMillisecond);

void BM_RecordSlotInSet64ProveVerify(benchmark::State& state) {
  const RecordOpening r = Record();
  const Commitment c = r.Commit();
  std::vector<ec::Scalar> set;
  for (std::uint64_t i = 0; i < 64; ++i) set.push_back(RecordSlotFromInteger(i));
  std::size_t size = 0;
  for (auto _ : state) {
    auto proof = ProveSlotInSet(kCtx, r, 1, set);
    size = proof->Encode().size();
    benchmark::DoNotOptimize(VerifySlotInSet(kCtx, c, 1, set, *proof));
  }
  state.counters["bytes"] = static_cast<double>(size);
}
BENCHMARK(BM_RecordSlotInSet64ProveVerify)->Unit(benchmark::kMillisecond);

}  // namespace
