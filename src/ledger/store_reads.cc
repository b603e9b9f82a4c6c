// The defaults of Store::GetForValidation (the two validation reads, one after the other),
// Store::FindTx (a scan of the stored blocks from the head down, built only from the history
// reads every backend has; a backend with an index on the transaction hash overrides it) and
// Store::LocateTxs (FindTx for each hash).
#include "veil/ledger/store.h"

namespace veil::ledger {

Result<Store::ValidationReads> Store::GetForValidation(const std::vector<EntityKey>& keys,
                                                       const std::vector<Address>& addresses) {
  ValidationReads out;
  if (!keys.empty()) {
    VEIL_ASSIGN_OR_RETURN(out.entities, GetEntities(keys));
  }
  for (const Address& a : addresses) {
    VEIL_ASSIGN_OR_RETURN(Account account, GetAccount(a));
    out.accounts.push_back(account);
  }
  return out;
}

Result<std::optional<StoredTx>> Store::FindTx(const Hash32& hash, std::uint64_t head) {
  for (std::uint64_t n = head; n >= 1; --n) {
    VEIL_ASSIGN_OR_RETURN(auto txs, GetBlockTxs(n));
    for (auto& t : txs) {
      if (t.hash == hash) return std::optional<StoredTx>(std::move(t));
    }
  }
  return std::optional<StoredTx>();
}

Result<std::vector<std::optional<Store::TxLocation>>> Store::LocateTxs(
    std::span<const Hash32> hashes, std::uint64_t head) {
  std::vector<std::optional<TxLocation>> out;
  for (const Hash32& h : hashes) {
    VEIL_ASSIGN_OR_RETURN(const std::optional<StoredTx> t, FindTx(h, head));
    out.push_back(t ? std::optional<TxLocation>(TxLocation{t->block, t->index}) : std::nullopt);
  }
  return out;
}

}  // namespace veil::ledger
