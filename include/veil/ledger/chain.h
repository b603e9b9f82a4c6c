// The hashes that chain blocks, and the changes they commit to (byte layouts in
// docs/notes/ledger.md, "Hashing"; BlockHeader itself is a value of types.h).
//
// A block commits to its parent, its transactions (tx_root) and to the rolling change-set hash
// after its changes (Arkiv's changeSetHash): for each change in order,
//   cs = SHA-256("veil.ledger.changeset.v1" || cs || kind u8 || entity key || entity hash),
// starting from the parent block's value. Anyone holding the blocks, transactions and changes can
// recompute every hash (Ledger::VerifyChain does, from the stored rows).
//
// Thread safety: values and pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/ledger/entity.h"
#include "veil/ledger/types.h"

namespace veil::ledger {

enum class ChangeKind : std::uint8_t {
  kCreate = 1,
  kUpdate = 2,
  kExtend = 3,
  kTransfer = 4,
  kDelete = 5,
};

struct Change {
  std::uint64_t seq = 0;    // global sequence number, 1, 2, ...
  std::uint64_t block = 0;  // block it belongs to
  ChangeKind kind = ChangeKind::kCreate;
  EntityKey key{};
  Hash32 entity_hash{};  // EntityHash of the state after the change; zeros for a delete
  friend bool operator==(const Change&, const Change&) = default;
};

// SHA-256 over "veil.ledger.block.v1" and the header fields (everything except `hash`).
Hash32 BlockHash(const BlockHeader& h);
// SHA-256("veil.ledger.txs.v1" || count u32 || tx hashes in block order)
Hash32 TxRoot(const std::vector<Hash32>& tx_hashes);
Hash32 ChangeSetStep(const Hash32& prev, const Change& c);
// Block 0: no transactions, no changes, timestamp 0.
BlockHeader GenesisHeader(std::uint64_t chain_id);

}  // namespace veil::ledger
