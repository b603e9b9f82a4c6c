// Fuzzes edwards25519 decoding (RFC 8032 sec. 5.1.3) with arbitrary bytes: no crash; anything that
// is not exactly 32 bytes is rejected with kInvalidArgument; a decoded point re-encodes to the same
// bytes (one accepted encoding per point), obeys the group law, and its cofactor multiple lies in
// the prime-order subgroup; the small-order and torsion-free verdicts agree with each other.
#include <algorithm>
#include <cstdlib>

#include "veil/ec/edwards25519.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace veil::ec;
  auto p = EdwardsPoint::Decode({data, size});
  if (!p.ok()) {
    if (p.status().code() != veil::Code::kInvalidArgument) std::abort();
    return 0;
  }
  if (size != 32) std::abort();
  const CompressedEdwardsY::Bytes again = p->Encode().bytes();
  if (!std::equal(again.begin(), again.end(), data)) std::abort();
  if (!((*p + *p) == p->Double())) std::abort();
  if (!(*p - *p).IsIdentity()) std::abort();
  const EdwardsPoint p8 = p->MultiplyByCofactor();
  if (!p8.IsTorsionFreeVartime()) std::abort();
  if (p->IsSmallOrder() != p8.IsIdentity()) std::abort();
  // A small-order point is torsion-free only when it is the identity.
  if (p->IsSmallOrder() && p->IsTorsionFreeVartime() && !p->IsIdentity()) std::abort();
  return 0;
}
