// LocalLedger (local.h).
#include "veil/ledger/local.h"

namespace veil::ledger {

Result<BlockHeader> LocalLedger::Head() {
  // Ledger::Head() is the head as of the last call; on a shared store read it fresh (on a reader
  // connection: it does not wait for a write in progress).
  return ledger_->FreshHead();
}

Result<ChainInfo> LocalLedger::ChainInfo() {
  VEIL_ASSIGN_OR_RETURN(BlockHeader head, ledger_->FreshHead());
  ledger::ChainInfo info;
  info.chain_id = ledger_->chain_id();
  info.limits = ledger_->limits();
  info.nominal_block_time_ms = ledger_->nominal_block_time_ms();
  info.block_time_ms = ledger_->mode() == BlockMode::kTimed ? info.nominal_block_time_ms : 0;
  info.head_number = head.number;
  info.head_timestamp_ms = head.timestamp_ms;
  info.expiry_clock_ms = ledger_->expiry_clock_ms();
  info.head_expiry_height = ExpiryHeight(head, info.expiry_clock_ms);
  return info;
}

}  // namespace veil::ledger
