// LocalLedger (api.h).
#include "veil/ledger/api.h"

namespace veil::ledger {

Result<BlockHeader> LocalLedger::Head() {
  // Ledger::Head() is the head as of the last call; on a shared store read it fresh (on a reader
  // connection: it does not wait for a write in progress).
  return ledger_->FreshHead();
}

}  // namespace veil::ledger
