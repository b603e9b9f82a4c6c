// LocalLedger (api.h).
#include "veil/ledger/api.h"

namespace veil::ledger {

Result<BlockHeader> LocalLedger::Head() {
  // Ledger::Head() is the head as of the last call; on a shared store read it fresh.
  VEIL_ASSIGN_OR_RETURN(auto stats, ledger_->Stats());
  (void)stats;
  return ledger_->Head();
}

}  // namespace veil::ledger
