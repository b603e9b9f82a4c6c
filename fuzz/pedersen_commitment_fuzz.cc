// Fuzzes the Pedersen commitment decoder and the commitment arithmetic: the first 32 bytes are a
// commitment, the rest 32-byte scalars. No input may crash; a commitment that decodes re-encodes
// to the same bytes and survives adding and subtracting a commitment; the constant-time and
// variable-time vector commitments agree on every vector of canonical scalars.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "veil/zk/pedersen.h"

namespace {

using namespace veil;
using namespace veil::zk;

void Check(bool ok) {
  if (!ok) std::abort();
}

const VectorPedersenGens& Gens() {
  static const VectorPedersenGens gens(8);
  return gens;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteView in(data, size);
  const std::size_t c_len = std::min<std::size_t>(size, Commitment::kSize);
  auto c = Commitment::Decode(in.first(c_len));
  const PedersenGens& gens = PedersenGens::Default();
  const ec::Scalar v = ec::Scalar::FromUint64(99), r = ec::Scalar::FromUint64(17);
  if (c.ok()) {
    const auto enc = c->Encode().bytes();
    Check(std::equal(enc.begin(), enc.end(), in.begin()));
    const Commitment d = gens.Commit(v, r);
    Check((*c + d) - d == *c);
    Check(gens.VerifyOpening(*c, v, r).ok() == (*c == d));
  } else {
    Check(c.status().code() == Code::kInvalidArgument);
  }

  std::vector<ec::Scalar> scalars;
  for (std::size_t off = c_len; off + 32 <= size && scalars.size() <= Gens().size(); off += 32) {
    auto s = ec::Scalar::FromCanonical(in.subspan(off, 32));
    if (!s.ok()) {
      Check(s.status().code() == Code::kInvalidArgument);
      continue;
    }
    scalars.push_back(*s);
  }
  if (scalars.empty()) return 0;
  const ec::Scalar blinding = scalars.back();
  scalars.pop_back();
  auto ct = Gens().Commit(scalars, blinding);
  auto vt = Gens().CommitVartime(scalars, blinding);
  Check(ct.ok() == vt.ok());
  if (ct.ok()) {
    Check(*ct == *vt);
    Check(Gens().VerifyOpening(*ct, scalars, blinding).ok());
  }
  return 0;
}
