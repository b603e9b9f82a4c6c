// Block, transaction-root and change-set hashes (layouts in docs/notes/ledger.md, "Hashing").
#include "veil/ledger/chain.h"

#include <algorithm>

#include "veil/base/codec.h"
#include "veil/crypto/hash.h"

namespace veil::ledger {
namespace {

Hash32 Digest(const Bytes& b) {
  const auto d = crypto::Sha256(b);
  Hash32 out;
  std::copy(d.begin(), d.end(), out.begin());
  return out;
}

}  // namespace

Hash32 BlockHash(const BlockHeader& h) {
  Writer w;
  w.Fixed(AsBytes("veil.ledger.block.v1"))
      .U64(h.chain_id)
      .U64(h.number)
      .Fixed(h.parent)
      .U64(h.timestamp_ms)
      .Fixed(h.tx_root)
      .Fixed(h.changeset)
      .U32(h.tx_count)
      .U32(h.change_count)
      .U64(h.gas_used);
  return Digest(w.bytes());
}

Hash32 TxRoot(const std::vector<Hash32>& tx_hashes) {
  Writer w;
  w.Fixed(AsBytes("veil.ledger.txs.v1")).U32(static_cast<std::uint32_t>(tx_hashes.size()));
  for (const auto& h : tx_hashes) w.Fixed(h);
  return Digest(w.bytes());
}

Hash32 ChangeSetStep(const Hash32& prev, const Change& c) {
  Writer w;
  w.Fixed(AsBytes("veil.ledger.changeset.v1"))
      .Fixed(prev)
      .U8(static_cast<std::uint8_t>(c.kind))
      .Fixed(c.key)
      .Fixed(c.entity_hash);
  return Digest(w.bytes());
}

BlockHeader GenesisHeader(std::uint64_t chain_id) {
  BlockHeader h;
  h.chain_id = chain_id;
  h.tx_root = TxRoot({});
  h.hash = BlockHash(h);
  return h;
}

}  // namespace veil::ledger
