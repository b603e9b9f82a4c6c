// Fuzzes canonical scalar decoding with arbitrary bytes: no crash; an accepted scalar re-encodes
// to the same bytes, a rejected 32-byte input is >= l, and the wide reduction accepts any 64 bytes.
#include <algorithm>
#include <cstdlib>

#include "veil/ec/scalar.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace veil::ec;
  auto s = Scalar::FromCanonical({data, size});
  if (s.ok()) {
    if (size != 32) std::abort();
    const Scalar::Bytes b = s->ToBytes();
    if (!std::equal(b.begin(), b.end(), data)) std::abort();
  } else if (size == 32) {
    // Must be >= l: compare from the top byte down.
    const Scalar::Bytes& l = kGroupOrderBytes;
    for (std::size_t i = 32; i-- > 0;) {
      if (data[i] > l[i]) break;
      if (data[i] < l[i]) std::abort();
    }
  }
  if (size >= 64) {
    const Scalar w = Scalar::FromBytesModOrderWide(std::span<const std::uint8_t, 64>(data, 64));
    if (!(Scalar::FromCanonical(w.ToBytes()).ok())) std::abort();
  }
  return 0;
}
