// Constant-time check for record statements (zk/record.h): the slots and the salt are marked
// secret, and each kind of proof is produced; only the proofs and the provers' verdicts (does the
// opening satisfy the statement) may become public.
#include <vector>

#include "ctime.h"
#include "veil/zk/record.h"

namespace veil::zk {
namespace {

using ctime::Classify;
using ctime::Declassify;

VEIL_CTIME_CHECK(RecordStatements) {
  std::vector<ec::Scalar> slots = {RecordSlotFromInteger(42), RecordSlotFromInteger(7),
                                   RecordSlotFromString("alice")};
  ec::Scalar salt = ec::Scalar::Random();
  Classify(slots.data(), slots.size() * sizeof(ec::Scalar));
  Classify(&salt, sizeof salt);
  const RecordOpening opening(slots, salt);
  const Bytes key = {1};
  const RecordContext ctx{key, "ctime", key};
  const std::vector<ec::Scalar> set = {RecordSlotFromString("bob"), RecordSlotFromString("alice")};
  bool ok = ProveSlotEquals(ctx, opening, 0, RecordSlotFromInteger(42)).ok();
  ok &= ProveSlotInRange(ctx, opening, 0, 18, 150).ok();
  ok &= ProveSlotInSet(ctx, opening, 2, set).ok();
  ok &= ProveSlotLessEqual(ctx, opening, 1, 0).ok();
  ok &= ProveSlotsEqual(ctx, opening, 0, opening, 0).ok();
  Declassify(&ok, sizeof ok);
}

}  // namespace
}  // namespace veil::zk
