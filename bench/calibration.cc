// Calibration benchmark shared by every bench binary (see calibration.h).
#include "calibration.h"

#include <benchmark/benchmark.h>
#include <sodium.h>

namespace {

void BM_Calibration_Ristretto255ScalarMult(benchmark::State& state) {
  if (sodium_init() < 0) state.SkipWithError("sodium_init failed");
  unsigned char scalar[crypto_core_ristretto255_SCALARBYTES];
  unsigned char point[crypto_core_ristretto255_BYTES];
  unsigned char out[crypto_core_ristretto255_BYTES];
  crypto_core_ristretto255_scalar_random(scalar);
  crypto_scalarmult_ristretto255_base(point, scalar);
  crypto_core_ristretto255_scalar_random(scalar);
  for (auto _ : state) {
    benchmark::DoNotOptimize(crypto_scalarmult_ristretto255(out, scalar, point));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Calibration_Ristretto255ScalarMult);

}  // namespace
