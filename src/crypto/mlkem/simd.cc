// CPU feature selection for ML-KEM (see simd.h).
#include "simd.h"

#include <atomic>

namespace veil::crypto::mlkem {
namespace {
std::atomic<bool> g_portable_only{false};
}  // namespace

bool UseAvx2() {
#if VEIL_MLKEM_HAVE_AVX2
  static const bool kHasAvx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return kHasAvx2 && !g_portable_only.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

void SetPortableOnlyForTesting(bool portable_only) {
  g_portable_only.store(portable_only, std::memory_order_relaxed);
}

}  // namespace veil::crypto::mlkem
