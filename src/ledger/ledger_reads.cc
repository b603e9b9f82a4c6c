// Ledger reads for the node: a block with its transaction hashes, and the receipt of a landed
// transaction rebuilt from the stored rows (see ledger.h).
//
// A receipt is not stored: every operation of a landed transaction produced exactly one change, in
// order, and the block's changes are stored in transaction order, so transaction i of a block owns
// the changes after those of transactions 0..i-1. Its created keys are the keys of its kCreate
// changes, and its cost is a pure function of its encoding.
#include <mutex>

#include "veil/ledger/ledger.h"

namespace veil::ledger {

Result<std::optional<BlockInfo>> Ledger::GetBlock(std::uint64_t number) {
  std::lock_guard<std::mutex> lock(mu_);
  VEIL_RETURN_IF_ERROR(RefreshLocked());
  if (number > state_.head.number) return std::optional<BlockInfo>();
  VEIL_ASSIGN_OR_RETURN(auto h, store_->GetBlock(number));
  if (!h) return DataLoss("block " + std::to_string(number) + " is missing from the store");
  BlockInfo out;
  out.header = *h;
  VEIL_ASSIGN_OR_RETURN(auto txs, store_->GetBlockTxs(number));
  for (const auto& t : txs) out.tx_hashes.push_back(t.hash);
  return std::optional<BlockInfo>(std::move(out));
}

Result<std::optional<TxReceipt>> Ledger::GetReceipt(const Hash32& tx_hash) {
  std::lock_guard<std::mutex> lock(mu_);
  VEIL_RETURN_IF_ERROR(RefreshLocked());
  VEIL_ASSIGN_OR_RETURN(auto found, store_->FindTx(tx_hash, state_.head.number));
  if (!found) return std::optional<TxReceipt>();
  const std::uint64_t block = found->block;
  VEIL_ASSIGN_OR_RETURN(auto txs, store_->GetBlockTxs(block));
  VEIL_ASSIGN_OR_RETURN(auto changes, store_->GetBlockChanges(block));
  std::size_t first_change = 0;
  for (const auto& t : txs) {
    auto stx = Decode(t.encoded, options_.limits);
    if (!stx.ok()) {
      return DataLoss("block " + std::to_string(block) + ": stored transaction " +
                      std::to_string(t.index) + " does not decode");
    }
    const std::size_t n_ops = stx->tx.ops.size();
    if (first_change + n_ops > changes.size()) {
      return DataLoss("block " + std::to_string(block) + ": fewer changes than operations");
    }
    if (t.hash == tx_hash) {
      TxReceipt r;
      r.tx_hash = t.hash;
      r.sender = stx->Sender();
      r.nonce = stx->tx.nonce;
      r.block = block;
      r.index = t.index;
      for (std::size_t i = 0; i < n_ops; ++i) {
        const Change& c = changes[first_change + i];
        if (c.kind == ChangeKind::kCreate) r.created.push_back(c.key);
      }
      r.cost.operations = static_cast<std::uint32_t>(n_ops);
      r.cost.calldata_bytes = t.encoded.size();
      r.cost.bytes_written = StoredBytes(stx->tx);
      r.cost.gas = t.gas;
      return std::optional<TxReceipt>(std::move(r));
    }
    first_change += n_ops;
  }
  return DataLoss("block " + std::to_string(block) + " lost transaction " + ToHex(tx_hash));
}

}  // namespace veil::ledger
