// Fuzzes Borromean range-proof decoding and verification against a fixed commitment: no input may
// crash; what decodes must re-encode to the same bytes; nothing the fuzzer makes may verify at its
// own width (the commitment holds 2^40 + 1, outside every width up to 40, and a fuzzer that found
// a proof for a wider width would have had to produce the ring responses from the opening); and a
// verifier that states another width refuses it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "veil/zk/borromean_range.h"

namespace {

using namespace veil;
using namespace veil::zk;

void Check(bool ok) {
  if (!ok) std::abort();
}

// A commitment to 2^40 + 1 (outside every width up to 40) whose opening nobody uses.
const Commitment& FixedCommitment() {
  static const Commitment c = PedersenGens::Default().Commit(
      ec::Scalar::FromUint64((std::uint64_t{1} << 40) + 1), ec::Scalar::FromUint64(0xbeef));
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteView in(data, size);
  auto proof = BorromeanRangeProof::Decode(in);
  if (!proof.ok()) {
    Check(proof.status().code() == Code::kInvalidArgument);
    return 0;
  }
  const Bytes enc = proof->Encode();
  Check(enc.size() == in.size() && std::equal(enc.begin(), enc.end(), in.begin()));
  Transcript t("veil.fuzz.borromean", 1);
  const Status s = proof->Verify(t, FixedCommitment(), proof->bits());
  Check(s.code() == Code::kVerificationFailed);
  // The verifier states the width: a proof of any other width is refused.
  Transcript t2("veil.fuzz.borromean", 1);
  const unsigned other = proof->bits() % BorromeanRangeProof::kMaxBits + 1;
  Check(proof->Verify(t2, FixedCommitment(), other).code() == Code::kInvalidArgument);
  return 0;
}
