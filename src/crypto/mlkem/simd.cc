// CPU feature selection for ML-KEM (see simd.h).
#include "simd.h"

namespace veil::crypto::mlkem {

void SetPortableOnlyForTesting(bool portable_only) {
  internal::g_portable_only.store(portable_only, std::memory_order_relaxed);
}

}  // namespace veil::crypto::mlkem
