// Ledger reads for the node: a block with its transaction hashes, and the receipt of a landed
// transaction rebuilt from the stored rows (see ledger.h); and the reader connections every read
// runs on when there are any.
//
// A receipt is not stored: every operation of a landed transaction produced exactly one change, in
// order, and the block's changes are stored in transaction order, so transaction i of a block owns
// the changes after those of transactions 0..i-1. Its created keys are the keys of its kCreate
// changes, and its cost is a pure function of its encoding.
#include <chrono>
#include <mutex>
#include <utility>

#include "veil/ledger/ledger.h"

namespace veil::ledger {

std::unique_ptr<Store> Ledger::TakeReader() {
  if (options_.read_connections == 0) return nullptr;
  std::unique_lock<std::mutex> lock(readers_.mu);
  while (true) {
    if (readers_.none) return nullptr;
    if (readers_.idle.empty() && std::chrono::steady_clock::now() < readers_.retry_after) {
      return nullptr;
    }
    if (!readers_.idle.empty()) {
      std::unique_ptr<Store> r = std::move(readers_.idle.back());
      readers_.idle.pop_back();
      return r;
    }
    if (readers_.open < options_.read_connections) break;
    readers_.returned.wait(lock);
  }
  ++readers_.open;
  lock.unlock();
  // OpenReader reads only the store's options, so it may run beside a write on store_.
  auto opened = store_->OpenReader();
  lock.lock();
  if (opened.ok()) {
    (*opened)->SetReadBudget(ReadBudgetOf());
    return std::move(opened).value();
  }
  --readers_.open;
  // A store that has none says so once; any other failure (the database refusing a connection)
  // leaves this read, and those of the next second, to the writer's connection.
  if (opened.status().code() == Code::kFailedPrecondition) readers_.none = true;
  readers_.retry_after = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  readers_.returned.notify_all();
  return nullptr;
}

void Ledger::ReturnReader(std::unique_ptr<Store> reader) {
  std::lock_guard<std::mutex> lock(readers_.mu);
  readers_.idle.push_back(std::move(reader));
  readers_.returned.notify_one();
}

Status Ledger::RunRead(const ReadFn& read) {
  std::unique_ptr<Store> reader = TakeReader();
  if (reader == nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!store_->MayHaveOtherWriters()) return read(*store_, state_.head);
    // As RefreshLocked: the database's state becomes the node's.
    return ReadCarryingState(*store_, state_.head, read,
                             [this](const ChainState& st) { AdoptStateLocked(st); });
  }
  struct Lease {
    Ledger* ledger;
    std::unique_ptr<Store>* reader;
    ~Lease() { ledger->ReturnReader(std::move(*reader)); }
  } lease{this, &reader};
  if (!reader->MayHaveOtherWriters()) return read(*reader, Head());
  // The node's own state follows the database's when its writer is idle (a busy writer reloads
  // the head itself if another node moved it).
  return ReadCarryingState(*reader, Head(), read, [this](const ChainState& st) {
    std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
    if (lock.owns_lock() && st.head.number > state_.head.number) AdoptStateLocked(st);
  });
}

Status Ledger::ReadCarryingState(Store& store, const BlockHeader& known, const ReadFn& read,
                                 const std::function<void(const ChainState&)>& adopt) {
  // One round trip when the head has not moved (the usual case: this node wrote the last block,
  // or no block came since its last read); the read it replaced took two, the head's and its own.
  store.CarryStateWithNextRead();
  struct Forget {  // a read that throws must not leave the carry armed for a later statement
    Store& store;
    bool armed = true;
    ~Forget() {
      if (armed) store.ForgetCarriedState();
    }
  } forget{store};
  const Status first = read(store, known);
  forget.armed = false;
  VEIL_ASSIGN_OR_RETURN(const ChainState st, CheckSharedState(store.TakeCarriedState()));
  if (st.head == known) return first;
  adopt(st);
  return read(store, st.head);
}

Result<BlockHeader> Ledger::FreshHead() {
  BlockHeader out;
  VEIL_RETURN_IF_ERROR(RunRead([&](Store&, const BlockHeader& head) -> Status {
    out = head;
    return Status::Ok();
  }));
  return out;
}

Result<std::optional<BlockInfo>> Ledger::GetBlock(std::uint64_t number) {
  std::optional<BlockInfo> out;
  VEIL_RETURN_IF_ERROR(RunRead([&](Store& store, const BlockHeader& head) -> Status {
    out.reset();
    if (number > head.number) return Status::Ok();
    VEIL_ASSIGN_OR_RETURN(auto h, store.GetBlock(number));
    if (!h) return DataLoss("block " + std::to_string(number) + " is missing from the store");
    BlockInfo b;
    b.header = *h;
    VEIL_ASSIGN_OR_RETURN(auto txs, store.GetBlockTxs(number));
    for (const auto& t : txs) b.tx_hashes.push_back(t.hash);
    out = std::move(b);
    return Status::Ok();
  }));
  return out;
}

Result<std::optional<TxReceipt>> Ledger::GetReceipt(const Hash32& tx_hash) {
  std::optional<StoredTx> found;
  std::vector<StoredTx> txs;
  std::vector<Change> changes;
  VEIL_RETURN_IF_ERROR(RunRead([&](Store& store, const BlockHeader& head) -> Status {
    txs.clear();
    changes.clear();
    VEIL_ASSIGN_OR_RETURN(found, store.FindTx(tx_hash, head.number));
    if (!found) return Status::Ok();
    VEIL_ASSIGN_OR_RETURN(txs, store.GetBlockTxs(found->block));
    VEIL_ASSIGN_OR_RETURN(changes, store.GetBlockChanges(found->block));
    return Status::Ok();
  }));
  if (!found) return std::optional<TxReceipt>();
  const std::uint64_t block = found->block;
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
