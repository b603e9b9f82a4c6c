// Fuzzes record-statement proofs: the input is decoded as a RecordProof and verified as every
// kind of statement against a fixed record commitment. No input may crash; whatever is rejected
// is rejected as malformed or as failed; nothing the fuzzer makes may verify (each statement is
// false for the fixed record, or needs its opening).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "veil/zk/record.h"

namespace {

using namespace veil;
using namespace veil::zk;

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckRejected(const Status& s) {
  Check(s.code() == Code::kInvalidArgument || s.code() == Code::kVerificationFailed);
}

// A record whose slots nobody here knows the salt of.
const Commitment& FixedRecord() {
  static const Commitment c = [] {
    const std::vector<ec::Scalar> slots = {RecordSlotFromInteger(42), RecordSlotFromInteger(7)};
    return RecordOpening(slots).Commit();
  }();
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto proof = RecordProof::Decode(ByteView(data, size));
  if (!proof.ok()) {
    Check(proof.status().code() == Code::kInvalidArgument);
    return 0;
  }
  const Bytes key = {1};
  const RecordContext ctx{key, "fuzz", key};
  const Commitment& c = FixedRecord();
  const std::vector<ec::Scalar> set = {RecordSlotFromInteger(1), RecordSlotFromInteger(42)};
  CheckRejected(VerifySlotEquals(ctx, c, 0, RecordSlotFromInteger(42), *proof));
  CheckRejected(VerifySlotInRange(ctx, c, 0, 18, 150, *proof));
  CheckRejected(VerifySlotInSet(ctx, c, 0, set, *proof));
  CheckRejected(VerifySlotLessEqual(ctx, c, 1, 0, *proof));
  CheckRejected(VerifySlotsEqual(ctx, c, 0, c, 0, *proof));
  return 0;
}
