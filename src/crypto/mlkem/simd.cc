// CPU feature selection for ML-KEM (see simd.h).
#include "simd.h"

#include <atomic>

namespace veil::crypto::mlkem {
namespace {
std::atomic<bool> g_portable_only{false};
}  // namespace

bool UseAvx2() {
  return CpuHasAvx2() && !g_portable_only.load(std::memory_order_relaxed);
}

void SetPortableOnlyForTesting(bool portable_only) {
  g_portable_only.store(portable_only, std::memory_order_relaxed);
}

}  // namespace veil::crypto::mlkem
