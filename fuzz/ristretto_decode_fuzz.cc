// Fuzzes ristretto255 decoding with arbitrary bytes: no crash; a decoded point re-encodes to the
// same bytes (canonical), and anything that is not exactly 32 bytes is rejected.
#include <algorithm>
#include <cstdlib>

#include "veil/ec/ristretto.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace veil::ec;
  auto p = RistrettoPoint::Decode({data, size});
  if (!p.ok()) {
    if (p.status().code() != veil::Code::kInvalidArgument) std::abort();
    return 0;
  }
  if (size != 32) std::abort();
  const CompressedRistretto::Bytes again = p->Encode().bytes();
  if (!std::equal(again.begin(), again.end(), data)) std::abort();
  // The group law holds on whatever decoded.
  if (!((*p + *p) == p->Double())) std::abort();
  return 0;
}
