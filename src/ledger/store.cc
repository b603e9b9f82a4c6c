// The backend-independent parts of store.h, and the status helpers of ledger.h.
#include "veil/ledger/store.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "veil/base/codec.h"
#include "veil/ledger/ledger.h"

namespace veil::ledger {
namespace {
constexpr std::string_view kHeadConflictPrefix = "chain head moved";
constexpr std::string_view kNonceReplayed = "nonce already used (replay)";
constexpr std::string_view kWorkBudgetPrefix = "query exceeded its work budget";
// Bounds for decoding a stored attribute copy: structure only, wide enough for any Limits
// profile.
constexpr std::size_t kMaxStoredAttributes = 1024;
constexpr std::size_t kMaxStoredAttributeName = 1024;
constexpr std::size_t kMaxStoredAttributeValue = std::size_t{1} << 20;
}  // namespace

Status NonceReplayed() { return FailedPrecondition(std::string(kNonceReplayed)); }

bool IsNonceReplayed(const Status& s) {
  return s.code() == Code::kFailedPrecondition && s.message() == kNonceReplayed;
}

Status HeadConflict(const std::string& detail) {
  return Unavailable(std::string(kHeadConflictPrefix) + ": " + detail);
}

Status WorkBudgetExceeded(const std::string& detail) {
  return ResourceExhausted(std::string(kWorkBudgetPrefix) + " (" + detail +
                           "); narrow the filter with a predicate an index serves");
}

bool IsWorkBudgetExceeded(const Status& s) {
  return s.code() == Code::kResourceExhausted && s.message().rfind(kWorkBudgetPrefix, 0) == 0;
}

std::uint64_t ReturnedBytes(const Entity& e) {
  std::uint64_t n = e.payload.size() + e.content_type.size() + 100;
  for (const auto& a : e.attributes) {
    n += a.name.size() + (a.value.index() == 0 ? 8 : std::get<std::string>(a.value).size());
  }
  return n;
}

Bytes EncodeStoredAttributes(const std::vector<Attribute>& attrs) {
  Writer w;
  PutAttributes(w, attrs);
  return std::move(w).Take();
}

Result<std::vector<Attribute>> DecodeStoredAttributes(ByteView encoded, const EntityKey& key) {
  Reader r(encoded);
  auto attrs =
      GetAttributes(r, kMaxStoredAttributes, kMaxStoredAttributeName, kMaxStoredAttributeValue);
  if (const Status st = r.Finish(); !st.ok()) {
    return DataLoss("entity " + ToHex(key) + ": stored attributes: " + st.message());
  }
  return attrs;
}

namespace {
// Bounds for decoding a block row: structure only, wide enough for any Limits profile.
constexpr std::size_t kMaxStoredTxBytes = std::size_t{64} << 20;
constexpr std::uint32_t kMaxBlockRowItems = std::uint32_t{1} << 24;

// A block row's leading count, which must be the header's (0 after an error, so that nothing
// more is read).
std::uint32_t ReadBlockRowCount(Reader& r, std::uint32_t expected, const char* what) {
  const std::uint32_t n = r.U32();
  if (r.ok() && (n != expected || n > kMaxBlockRowItems)) {
    r.Fail(std::to_string(n) + " " + what + " where the header says " + std::to_string(expected));
  }
  return r.ok() ? n : 0;
}

Status BlockRowError(std::uint64_t block, const char* what, const Status& st) {
  return DataLoss("block " + std::to_string(block) + ": stored " + what + ": " + st.message());
}

// A block row's list (EncodeBlockTxs, EncodeBlockChanges): the count, which must be the
// header's, then read_one(r, i) for each item, and nothing after the last.
template <class T, class ReadOne>
Result<std::vector<T>> DecodeBlockRow(ByteView encoded, std::uint64_t block, std::uint32_t count,
                                      const char* what, const ReadOne& read_one) {
  Reader r(encoded);
  const std::uint32_t n = ReadBlockRowCount(r, count, what);
  std::vector<T> out;
  for (std::uint32_t i = 0; i < n && r.ok(); ++i) out.push_back(read_one(r, i));
  if (const Status st = r.Finish(); !st.ok()) return BlockRowError(block, what, st);
  return out;
}
}  // namespace

Bytes EncodeBlockTxs(std::span<const StoredTx> txs) {
  Writer w;
  w.U32(static_cast<std::uint32_t>(txs.size()));
  for (const StoredTx& t : txs) w.Fixed(t.hash).U64(t.gas).VarBytes(t.encoded);
  return std::move(w).Take();
}

Result<std::vector<StoredTx>> DecodeBlockTxs(ByteView encoded, std::uint64_t block,
                                             std::uint32_t tx_count) {
  return DecodeBlockRow<StoredTx>(encoded, block, tx_count, "transactions",
                                  [&](Reader& r, std::uint32_t i) {
                                    StoredTx t;
                                    t.block = block;
                                    t.index = i;
                                    r.Fixed(t.hash);
                                    t.gas = r.U64();
                                    const ByteView body = r.VarBytes(kMaxStoredTxBytes);
                                    t.encoded.assign(body.begin(), body.end());
                                    return t;
                                  });
}

Bytes EncodeBlockChanges(std::span<const Change> changes) {
  Writer w;
  w.U32(static_cast<std::uint32_t>(changes.size()));
  for (const Change& c : changes) {
    w.U8(static_cast<std::uint8_t>(c.kind)).Fixed(c.key).Fixed(c.entity_hash);
  }
  return std::move(w).Take();
}

Result<std::vector<Change>> DecodeBlockChanges(ByteView encoded, std::uint64_t block,
                                               std::uint64_t first_seq,
                                               std::uint32_t change_count) {
  return DecodeBlockRow<Change>(
      encoded, block, change_count, "changes", [&](Reader& r, std::uint32_t i) {
        Change c;
        c.seq = first_seq + i;
        c.block = block;
        const std::uint8_t kind = r.U8();
        if (r.ok() && (kind < static_cast<std::uint8_t>(ChangeKind::kCreate) ||
                       kind > static_cast<std::uint8_t>(ChangeKind::kDelete))) {
          r.Fail("unknown change kind " + std::to_string(kind));
        }
        c.kind = static_cast<ChangeKind>(kind);
        r.Fixed(c.key);
        r.Fixed(c.entity_hash);
        return c;
      });
}

Status SetAccounts(std::span<const std::pair<std::int64_t, std::int64_t>> ids, const Projection& p,
                   const AccountLookup& address, std::vector<Entity>* out) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    Entity& e = (*out)[i];
    if (p.owner) {
      VEIL_ASSIGN_OR_RETURN(e.owner, address(ids[i].first, e));
    }
    if (p.creator) {
      VEIL_ASSIGN_OR_RETURN(e.creator, address(ids[i].second, e));
    }
  }
  return Status::Ok();
}

Status UnknownAccount(const Entity& e, std::int64_t id) {
  return DataLoss("entity " + ToHex(e.key) + " names account id " + std::to_string(id) +
                  ", which does not exist");
}

Status CheckAttributeCopies(const Entity& e, const std::vector<Attribute>& index_copy) {
  if (index_copy == e.attributes) return Status::Ok();
  return DataLoss("entity " + ToHex(e.key) +
                  ": its attributes differ from its attribute index rows");
}

Status CheckConsecutive(std::span<const BlockWrite> writes) {
  for (std::size_t i = 1; i < writes.size(); ++i) {
    const BlockHeader& prev = writes[i - 1].header;
    const BlockHeader& h = writes[i].header;
    if (h.number != prev.number + 1 || h.parent != prev.hash) {
      return InvalidArgument("block " + std::to_string(h.number) + " does not follow block " +
                             std::to_string(prev.number) + " in one write");
    }
  }
  return Status::Ok();
}

BlockWrite NetBlockWrite(std::span<const BlockWrite> writes) {
  BlockWrite out;
  struct Net {
    bool existed = false;  // stored before the first block
    std::uint64_t old_expires_block = 0;
    bool attributes_changed = false;
    std::optional<Entity> final_state;
    Entity last_seen;  // for a net delete: the id (and key) of the stored row
  };
  std::vector<std::int64_t> order;  // ids in the order of their first write
  std::map<std::int64_t, Net> net;
  std::vector<Address> account_order;
  std::map<Address, Account> accounts;
  for (const BlockWrite& w : writes) {
    for (const EntityWrite& ew : w.entities) {
      auto [it, fresh] = net.try_emplace(ew.entity.id);
      Net& n = it->second;
      if (fresh) {
        order.push_back(ew.entity.id);
        n.existed = ew.kind != EntityWrite::Kind::kInsert;
        n.old_expires_block = ew.old_expires_block;
      }
      n.last_seen = ew.entity;
      switch (ew.kind) {
        case EntityWrite::Kind::kInsert:
          n.final_state = ew.entity;
          break;
        case EntityWrite::Kind::kUpdate:
          n.final_state = ew.entity;
          n.attributes_changed = n.attributes_changed || ew.attributes_changed;
          break;
        case EntityWrite::Kind::kDelete:
          n.final_state.reset();
          break;
      }
    }
    for (const Account& a : w.accounts) {
      if (accounts.insert_or_assign(a.address, a).second) account_order.push_back(a.address);
    }
    out.changes.insert(out.changes.end(), w.changes.begin(), w.changes.end());
    out.txs.insert(out.txs.end(), w.txs.begin(), w.txs.end());
  }
  for (std::int64_t id : order) {
    Net& n = net.at(id);
    if (n.existed && n.final_state) {
      out.entities.push_back({EntityWrite::Kind::kUpdate, std::move(*n.final_state),
                              n.old_expires_block, n.attributes_changed});
    } else if (n.existed) {
      out.entities.push_back(
          {EntityWrite::Kind::kDelete, std::move(n.last_seen), n.old_expires_block, false});
    } else if (n.final_state) {
      out.entities.push_back({EntityWrite::Kind::kInsert, std::move(*n.final_state), 0, true});
    }
  }
  for (const Address& a : account_order) out.accounts.push_back(accounts.at(a));
  out.header = writes.back().header;
  out.state_after = writes.back().state_after;
  return out;
}

Result<std::uint64_t> Store::Prewarm() { return std::uint64_t{0}; }

Result<std::unique_ptr<Store>> Store::OpenReader() {
  return FailedPrecondition("this store has no reader connections");
}

bool IsHeadConflict(const Status& s) {
  return s.code() == Code::kUnavailable && s.message().rfind(kHeadConflictPrefix, 0) == 0;
}

}  // namespace veil::ledger
