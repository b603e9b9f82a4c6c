// The ledger engine: checking, executing and sealing transactions, reads, sweeping and
// chain verification (see ledger.h; the model is in docs/notes/ledger.md).
#include "veil/ledger/ledger.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>

#include "veil/base/codec.h"
#include "veil/base/encoding.h"
#include "veil/crypto/hash.h"

namespace veil::ledger {
namespace {

constexpr std::uint16_t kCursorTag = 0x4C43;  // "LC"
constexpr std::uint8_t kCursorVersion = 1;
// Expiry blocks stay far below 2^63 so every backend stores them as signed 64-bit integers.
constexpr std::uint64_t kMaxBlock = std::uint64_t{1} << 62;

Status OpFailure(Code code, const std::string& m) { return Status(code, m); }

void Project(Entity* e, const Projection& p) {
  if (!p.owner) e->owner = {};
  if (!p.creator) e->creator = {};
  if (!p.blocks) e->created_block = e->updated_block = e->expires_block = 0;
  if (!p.content_type) e->content_type.clear();
  if (!p.payload) e->payload.clear();
  if (!p.attributes) e->attributes.clear();
  if (!p.flags) e->flags = 0;
}

Hash32 CursorDigest(const query::Expr& e, const Projection& p) {
  Writer w;
  w.Fixed(AsBytes("veil.ledger.cursor.v1")).String(query::ToString(e));
  w.Bool(p.key).Bool(p.owner).Bool(p.creator).Bool(p.blocks).Bool(p.content_type);
  w.Bool(p.payload).Bool(p.attributes);
  // The flags column came later: a projection without it hashes as every projection did before,
  // so cursors issued then (or by an older node) stay valid.
  if (p.flags) w.Bool(true);
  const auto d = crypto::Sha256(w.bytes());
  Hash32 out;
  std::copy(d.begin(), d.end(), out.begin());
  return out;
}

// A short random pause before executing again after losing a race for the head, growing with
// the attempt, so two nodes that collided do not collide again in lockstep.
void Backoff(int attempt) {
  thread_local std::minstd_rand rng(static_cast<std::uint32_t>(
      std::hash<std::thread::id>{}(std::this_thread::get_id()) ^
      static_cast<std::size_t>(std::chrono::steady_clock::now().time_since_epoch().count())));
  const int cap_us = 50 << std::min(attempt, 5);  // 50 us .. 1.6 ms
  std::uniform_int_distribution<int> d(0, cap_us);
  std::this_thread::sleep_for(std::chrono::microseconds(d(rng)));
}

// The existing entity an operation names: every kind's key but a create's (which makes one).
std::optional<EntityKey> NamedKey(const Operation& op) {
  std::optional<EntityKey> k;
  std::visit(
      [&](const auto& o) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(o)>, CreateOp>) k = o.key;
      },
      op);
  return k;
}

}  // namespace

// The node's write-through cache: the accounts and entities that this node's own blocks wrote,
// or that it read from the store before executing a group (PrefetchLocked), exactly as stored,
// while no other node has written since (state_.head is the head they describe; a prefetch may
// read rows of a later head another node wrote, and then the block built on them cannot land:
// its parent check refuses it, and the refresh that follows clears the cache). A transaction whose
// sender and entities are all here needs no read before its block write, so on PostgreSQL it costs
// one round trip, the write. It stays exact because: RefreshLocked clears it whenever the stored
// head is not the one this node last wrote or read (another node wrote); a block executed over a
// stale view cannot land, since the block write's parent check refuses it, and the engine then
// refreshes (clearing the cache) and executes again; the sweeper clears the entities it may have
// removed. Bounded: past kMaxAccounts accounts or kMaxEntityBytes of entities it is cleared, and
// the next transactions read from the store.
struct Ledger::WriteCache {
  static constexpr std::size_t kMaxAccounts = 1 << 16;
  static constexpr std::size_t kMaxEntityBytes = std::size_t{64} << 20;

  std::map<Address, Account> accounts;
  // nullopt: absent from the store (deleted by this node, or read and not found)
  std::map<EntityKey, std::optional<Entity>> entities;
  std::size_t entity_bytes = 0;

  void Clear() {
    accounts.clear();
    entities.clear();
    entity_bytes = 0;
  }
  void ClearEntities() {
    entities.clear();
    entity_bytes = 0;
  }

  static std::size_t Footprint(const Entity& e) {
    std::size_t n = sizeof(Entity) + e.payload.size() + e.content_type.size();
    for (const auto& a : e.attributes) {
      n += sizeof(Attribute) + a.name.size();
      if (const auto* str = std::get_if<std::string>(&a.value)) n += str->size();
    }
    return n;
  }

  // Rows read from the store at the head the cache describes: the entities found among `keys`
  // (the others are known absent) and the accounts.
  void AddStored(const std::vector<EntityKey>& keys, std::vector<Entity> found,
                 const std::vector<Account>& read) {
    for (const Account& a : read) accounts[a.address] = a;
    for (const EntityKey& k : keys) entities.emplace(k, std::nullopt);
    for (Entity& e : found) {
      auto& slot = entities[e.key];
      if (slot) entity_bytes -= Footprint(*slot);
      entity_bytes += Footprint(e);
      slot = std::move(e);
    }
    Bound();
  }
  void Bound() {
    if (accounts.size() > kMaxAccounts) accounts.clear();
    if (entity_bytes > kMaxEntityBytes) ClearEntities();
  }

  // After a block this node wrote. Unbounded: for the blocks of one group commit, which must
  // all stay until the group is written.
  void Absorb(const BlockWrite& w, bool bounded = true) {
    for (const Account& a : w.accounts) accounts[a.address] = a;
    for (const EntityWrite& ew : w.entities) {
      auto& slot = entities[ew.entity.key];
      if (slot) entity_bytes -= Footprint(*slot);
      if (ew.kind == EntityWrite::Kind::kDelete) {
        slot.reset();
      } else {
        slot = ew.entity;
        entity_bytes += Footprint(*slot);
      }
    }
    if (bounded) Bound();
  }
};

// Executes transactions of one block over an in-memory overlay of the store; Finish() turns the
// overlay into one BlockWrite. A failed transaction leaves the overlay untouched. `group`, when
// given, holds the blocks sealed before this one in the same group commit (not yet in the store
// or the cache): the validation reads look there first, then in the cache, then in the store.
class Ledger::BlockBuilder {
 public:
  // The block after `st.head`, stamped `now_ms` (or its parent's timestamp, if the clock went
  // back: timestamps, and so expiry heights, never fall along the chain).
  BlockBuilder(Store* store, const LedgerOptions& o, std::uint64_t expiry_clock_ms,
               const ChainState& st, const WriteCache& cache, std::uint64_t now_ms,
               const WriteCache* group = nullptr)
      : store_(store),
        o_(o),
        state_(st),
        cache_(cache),
        group_(group),
        number_(st.head.number + 1),
        timestamp_ms_(std::max(now_ms, st.head.timestamp_ms)) {
    BlockHeader h;
    h.number = number_;
    h.timestamp_ms = timestamp_ms_;
    height_ = ExpiryHeight(h, expiry_clock_ms);
  }

  std::uint64_t gas_used() const { return gas_used_; }
  std::uint64_t number() const { return number_; }

  TxReceipt Execute(const Pending& p) {
    TxReceipt r;
    r.tx_hash = p.hash;
    r.sender = p.stx.Sender();
    r.nonce = p.stx.tx.nonce;
    r.cost = p.cost;
    Status s = Run(p, &r);
    if (!s.ok()) {
      r.status = std::move(s);
      r.created.clear();
    } else {
      r.block = number_;
    }
    return r;
  }

  BlockWrite Finish() {
    BlockWrite w;
    std::uint64_t inserts = 0, deletes = 0;
    for (auto& [key, slot] : entities_) {
      if (!slot.original && slot.current) {
        w.entities.push_back({EntityWrite::Kind::kInsert, *slot.current, 0, true});
        ++inserts;
      } else if (slot.original && slot.current && !(*slot.original == *slot.current)) {
        w.entities.push_back({EntityWrite::Kind::kUpdate, *slot.current,
                              slot.original->expires_block,
                              slot.original->attributes != slot.current->attributes});
      } else if (slot.original && !slot.current) {
        w.entities.push_back(
            {EntityWrite::Kind::kDelete, *slot.original, slot.original->expires_block, false});
        ++deletes;
      }
    }
    for (const auto& a : dirty_accounts_) w.accounts.push_back(accounts_.at(a));
    w.changes = changes_;
    w.txs = txs_;
    BlockHeader& h = w.header;
    h.chain_id = o_.chain_id;
    h.number = number_;
    h.parent = state_.head.hash;
    h.timestamp_ms = timestamp_ms_;
    std::vector<Hash32> hashes;
    for (const auto& t : txs_) hashes.push_back(t.hash);
    h.tx_root = TxRoot(hashes);
    h.changeset = state_.head.changeset;
    for (const auto& c : changes_) h.changeset = ChangeSetStep(h.changeset, c);
    h.tx_count = static_cast<std::uint32_t>(txs_.size());
    h.change_count = static_cast<std::uint32_t>(changes_.size());
    h.gas_used = gas_used_;
    h.hash = BlockHash(h);
    w.state_after = state_;
    w.state_after.head = h;
    w.state_after.stored_entities = state_.stored_entities + inserts - deletes;
    return w;
  }

 private:
  struct Slot {
    std::optional<Entity> original;  // as stored before this block
    std::optional<Entity> current;   // after the transactions applied so far
  };

  // One transaction's view: its own changes over the block's.
  struct TxView {
    std::map<EntityKey, std::optional<Entity>> entities;
    Account account;
    std::vector<Change> changes;
    std::int64_t next_entity_id = 0;
    std::uint64_t next_change_seq = 0;
  };

  Status Load(const SignedTransaction& stx, const Address& sender) {
    // The validation reads: the entities the operations name, then the sender's account; each
    // from the node's cache when it has it, else from the store (one statement for all keys).
    std::vector<EntityKey> keys;
    for (const auto& op : stx.tx.ops) {
      const std::optional<EntityKey> named = NamedKey(op);
      if (!named || entities_.count(*named) ||
          std::find(keys.begin(), keys.end(), *named) != keys.end()) {
        continue;
      }
      const EntityKey& k = *named;
      if (const auto* cached = FindCached(&WriteCache::entities, k)) {
        Slot& slot = entities_[k];  // absent if this node deleted it
        slot.original = *cached;
        slot.current = *cached;
        continue;
      }
      keys.push_back(k);
    }
    if (!keys.empty()) {
      VEIL_ASSIGN_OR_RETURN(auto found, store_->GetEntities(keys));
      for (const auto& k : keys) entities_[k];  // known absent unless found below
      for (auto& e : found) {
        Slot& slot = entities_[e.key];
        slot.original = e;
        slot.current = std::move(e);
      }
    }
    if (!accounts_.count(sender)) {
      if (const Account* cached = FindCached(&WriteCache::accounts, sender)) {
        accounts_[sender] = *cached;
      } else {
        VEIL_ASSIGN_OR_RETURN(auto a, store_->GetAccount(sender));
        accounts_[sender] = a;
      }
    }
    return Status::Ok();
  }

  // The value of `key` in the group's blocks, else in the cache; null when neither has it.
  template <class Map, class Key>
  const typename Map::mapped_type* FindCached(Map WriteCache::*map, const Key& key) const {
    for (const WriteCache* c : {group_, &cache_}) {
      if (c == nullptr) continue;
      const Map& m = c->*map;
      if (auto it = m.find(key); it != m.end()) return &it->second;
    }
    return nullptr;
  }

  std::optional<Entity> Lookup(TxView& v, const EntityKey& k) {
    auto it = v.entities.find(k);
    if (it != v.entities.end()) return it->second;
    auto jt = entities_.find(k);
    if (jt != entities_.end()) return jt->second.current;
    return std::nullopt;
  }

  // The entity an update, extend, transfer or delete may touch: live, and the sender's unless
  // `anyone` (an extension of an entity created with kFlagPermissionlessExtension).
  Result<Entity> Mutable(TxView& v, const EntityKey& k, const Address& sender,
                         OpKind kind = OpKind::kDelete) {
    auto e = Lookup(v, k);
    if (!e) return NotFound("entity " + ToHex(k) + " not found");
    if (e->expires_block <= height_) return FailedPrecondition("entity expired");
    const bool anyone = kind == OpKind::kExtend && (e->flags & kFlagPermissionlessExtension) != 0;
    if (e->owner != sender && !anyone) {
      return PermissionDenied("only the owner may mutate the entity");
    }
    if (kind == OpKind::kUpdate && (e->flags & kFlagReadonly) != 0) {
      return FailedPrecondition("entity is read-only");
    }
    return *std::move(e);
  }

  // Against the block's expiry height: its number, or its slot on a slot clock.
  Status CheckExpiry(std::uint64_t expires) const {
    if (expires <= height_) {
      return InvalidArgument("expiry block " + std::to_string(expires) +
                             " is not after the current expiry height " + std::to_string(height_));
    }
    if (expires >= kMaxBlock) return InvalidArgument("expiry block out of range");
    const std::uint64_t max = o_.limits.max_lifetime_blocks;
    if (max != 0 && expires - height_ > max) {
      return ResourceExhausted("lifetime longer than " + std::to_string(max) + " blocks");
    }
    return Status::Ok();
  }

  void Record(TxView& v, ChangeKind kind, const EntityKey& key, std::optional<Entity> state) {
    Change c;
    c.seq = v.next_change_seq++;
    c.block = number_;
    c.kind = kind;
    c.key = key;
    if (state) {
      state->last_change = c.seq;
      c.entity_hash = EntityHash(*state);
    }
    v.changes.push_back(c);
    v.entities[key] = std::move(state);
  }

  Status Apply(TxView& v, const Operation& op, const Address& sender, TxReceipt* r) {
    const Limits& lim = o_.limits;
    if (const auto* c = std::get_if<CreateOp>(&op)) {
      VEIL_RETURN_IF_ERROR(CheckExpiry(c->expires_block));
      Entity e;
      e.key = DeriveEntityKey(o_.chain_id, sender, v.account.create_nonce++);
      if (Lookup(v, e.key)) return Internal("entity key collision");
      e.id = v.next_entity_id++;
      e.owner = e.creator = sender;
      e.flags = c->flags;
      e.content_type = c->content_type;
      e.payload = c->payload;
      e.attributes = c->attributes;
      e.created_block = e.updated_block = number_;
      e.expires_block = c->expires_block;
      r->created.push_back(e.key);
      Record(v, ChangeKind::kCreate, e.key, std::move(e));
      return Status::Ok();
    }
    if (const auto* u = std::get_if<UpdateOp>(&op)) {
      VEIL_ASSIGN_OR_RETURN(Entity e, Mutable(v, u->key, sender, OpKind::kUpdate));
      auto& attrs = e.attributes;
      for (const auto& name : u->unset) {
        attrs.erase(std::remove_if(attrs.begin(), attrs.end(),
                                   [&](const Attribute& a) { return a.name == name; }),
                    attrs.end());
      }
      for (const auto& a : u->set) {
        auto it =
            std::lower_bound(attrs.begin(), attrs.end(), a.name,
                             [](const Attribute& x, const std::string& n) { return x.name < n; });
        if (it != attrs.end() && it->name == a.name) {
          *it = a;
        } else {
          attrs.insert(it, a);
        }
      }
      if (attrs.size() > lim.max_entity_attributes) {
        return ResourceExhausted("entity would hold more than " +
                                 std::to_string(lim.max_entity_attributes) + " attributes");
      }
      if (u->replace_payload) {
        e.content_type = u->content_type;
        e.payload = u->payload;
      }
      e.updated_block = number_;
      Record(v, ChangeKind::kUpdate, u->key, std::move(e));
      return Status::Ok();
    }
    if (const auto* x = std::get_if<ExtendOp>(&op)) {
      VEIL_ASSIGN_OR_RETURN(Entity e, Mutable(v, x->key, sender, OpKind::kExtend));
      if (x->expires_block <= e.expires_block) {
        return FailedPrecondition("expiry not extended: " + std::to_string(x->expires_block) +
                                  " <= " + std::to_string(e.expires_block));
      }
      VEIL_RETURN_IF_ERROR(CheckExpiry(x->expires_block));
      e.expires_block = x->expires_block;
      e.updated_block = number_;
      Record(v, ChangeKind::kExtend, x->key, std::move(e));
      return Status::Ok();
    }
    if (const auto* t = std::get_if<TransferOp>(&op)) {
      VEIL_ASSIGN_OR_RETURN(Entity e, Mutable(v, t->key, sender));
      e.owner = t->new_owner;
      e.updated_block = number_;
      Record(v, ChangeKind::kTransfer, t->key, std::move(e));
      return Status::Ok();
    }
    const auto& d = std::get<DeleteOp>(op);
    VEIL_ASSIGN_OR_RETURN(Entity e, Mutable(v, d.key, sender));
    (void)e;
    Record(v, ChangeKind::kDelete, d.key, std::nullopt);
    return Status::Ok();
  }

  Status Run(const Pending& p, TxReceipt* r) {
    const Address sender = r->sender;
    VEIL_RETURN_IF_ERROR(Load(p.stx, sender));
    TxView v;
    v.account = accounts_.at(sender);
    v.next_entity_id = state_.next_entity_id;
    v.next_change_seq = state_.next_change_seq;
    if (p.stx.tx.nonce != v.account.tx_nonce) {
      if (p.stx.tx.nonce < v.account.tx_nonce) return NonceReplayed();
      return FailedPrecondition("nonce too high: expected " + std::to_string(v.account.tx_nonce));
    }
    for (std::size_t i = 0; i < p.stx.tx.ops.size(); ++i) {
      Status s = Apply(v, p.stx.tx.ops[i], sender, r);
      if (!s.ok()) {
        r->failed_op = i;
        return OpFailure(s.code(), "operation " + std::to_string(i) + ": " + s.message());
      }
    }
    // Success: merge the transaction's view into the block.
    ++v.account.tx_nonce;
    accounts_[sender] = v.account;
    dirty_accounts_.insert(sender);
    for (auto& [k, e] : v.entities) entities_[k].current = std::move(e);
    changes_.insert(changes_.end(), v.changes.begin(), v.changes.end());
    state_.next_entity_id = v.next_entity_id;
    state_.next_change_seq = v.next_change_seq;
    StoredTx t;
    t.block = number_;
    t.index = static_cast<std::uint32_t>(txs_.size());
    t.hash = p.hash;
    t.encoded = p.encoded;
    t.gas = p.cost.gas;
    txs_.push_back(std::move(t));
    gas_used_ += p.cost.gas;
    return Status::Ok();
  }

  Store* store_;
  const LedgerOptions& o_;
  ChainState state_;
  const WriteCache& cache_;
  const WriteCache* group_;
  std::uint64_t number_;
  std::uint64_t timestamp_ms_;
  std::uint64_t height_ = 0;  // ExpiryHeight of this block
  std::uint64_t gas_used_ = 0;
  std::map<EntityKey, Slot> entities_;
  std::map<Address, Account> accounts_;
  std::set<Address> dirty_accounts_;
  std::vector<Change> changes_;
  std::vector<StoredTx> txs_;
};

Ledger::Ledger(std::unique_ptr<Store> store, LedgerOptions options)
    : store_(std::move(store)),
      options_(std::move(options)),
      cache_(std::make_unique<WriteCache>()) {}

Ledger::~Ledger() = default;

Result<std::unique_ptr<Ledger>> Ledger::Open(std::unique_ptr<Store> store, LedgerOptions options) {
  if (store == nullptr) return InvalidArgument("no store");
  if (options.limits.query.max_page == 0) return InvalidArgument("max_page must be positive");
  if (options.nominal_block_time_ms == 0) {
    return InvalidArgument("nominal_block_time_ms must be positive");
  }
  std::unique_ptr<Ledger> l(new Ledger(std::move(store), std::move(options)));
  l->store_->SetReadBudget(l->ReadBudgetOf());
  VEIL_ASSIGN_OR_RETURN(auto st, l->store_->LoadState());
  if (st) {
    if (st->head.chain_id != l->options_.chain_id) {
      return FailedPrecondition("store holds chain " + std::to_string(st->head.chain_id));
    }
    // A chain made before the expiry clock existed has none recorded: block numbers.
    VEIL_ASSIGN_OR_RETURN(auto clock, l->store_->LoadExpiryClock());
    l->expiry_clock_ms_ = clock.value_or(0);
    l->SetStateLocked(*st);
    return l;
  }
  // A new chain: its expiry clock first (a node that creates the chain at the same moment may
  // have recorded its own: the first one stands), then the genesis block.
  const LedgerOptions& o = l->options_;
  const bool slots = o.expiry_clock == ExpiryClock::kSlots ||
                     (o.expiry_clock == ExpiryClock::kAuto && o.mode == BlockMode::kInstant);
  VEIL_RETURN_IF_ERROR(l->store_->RecordExpiryClock(slots ? o.nominal_block_time_ms : 0));
  VEIL_ASSIGN_OR_RETURN(auto clock, l->store_->LoadExpiryClock());
  if (!clock) return DataLoss("the store did not keep the chain's expiry clock");
  l->expiry_clock_ms_ = *clock;
  BlockWrite w;
  w.header = GenesisHeader(l->options_.chain_id);
  w.state_after.head = w.header;
  Status s = l->store_->Apply(w);
  if (IsHeadConflict(s)) {
    // Another node wrote the genesis block first: take its chain.
    VEIL_RETURN_IF_ERROR(l->RefreshLocked());
    return l;
  }
  VEIL_RETURN_IF_ERROR(s);
  l->SetStateLocked(w.state_after);
  return l;
}

Status Ledger::RefreshLocked(bool* moved) {
  if (moved != nullptr) *moved = false;
  if (!store_->MayHaveOtherWriters()) return Status::Ok();
  VEIL_ASSIGN_OR_RETURN(const ChainState st, LoadSharedState(*store_));
  if (moved != nullptr) *moved = st.head != state_.head;
  AdoptStateLocked(st);
  return Status::Ok();
}

Result<ChainState> Ledger::LoadSharedState(Store& store) const {
  return CheckSharedState(store.LoadState());
}

Result<ChainState> Ledger::CheckSharedState(Result<std::optional<ChainState>> loaded) const {
  VEIL_ASSIGN_OR_RETURN(auto st, std::move(loaded));
  if (!st) return DataLoss("the chain vanished from the store");
  if (st->head.chain_id != options_.chain_id) {
    return FailedPrecondition("store holds chain " + std::to_string(st->head.chain_id));
  }
  return *st;
}

void Ledger::AdoptStateLocked(const ChainState& st) {
  if (st.head != state_.head) cache_->Clear();  // another node wrote: the cache may be stale
  SetStateLocked(st);
}

void Ledger::SetStateLocked(const ChainState& st) {
  state_ = st;
  std::lock_guard<std::mutex> lock(head_mu_);
  published_head_ = st.head;
}

std::uint64_t Ledger::NowMs() const {
  if (options_.clock_ms) return options_.clock_ms();
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

Result<Ledger::Pending> Ledger::Check(ByteView encoded, bool check_signature) const {
  VEIL_ASSIGN_OR_RETURN(auto stx, Decode(encoded, options_.limits));
  if (stx.tx.chain_id != options_.chain_id) {
    return InvalidArgument("transaction is for chain " + std::to_string(stx.tx.chain_id));
  }
  if (check_signature) VEIL_RETURN_IF_ERROR(verifier_.Verify(stx));
  Pending p;
  p.encoded.assign(encoded.begin(), encoded.end());
  p.hash = TxHash(encoded);
  p.cost.operations = static_cast<std::uint32_t>(stx.tx.ops.size());
  p.cost.calldata_bytes = encoded.size();
  p.cost.bytes_written = StoredBytes(stx.tx);
  p.cost.gas = TxGas(stx.tx, encoded, options_.limits.gas);
  if (p.cost.gas > options_.limits.gas.block_gas_limit) {
    return ResourceExhausted("transaction gas " + std::to_string(p.cost.gas) +
                             " exceeds the block gas limit " +
                             std::to_string(options_.limits.gas.block_gas_limit));
  }
  p.stx = std::move(stx);
  return p;
}

bool Ledger::DefersSignatureCheck() const {
  if (options_.mode != BlockMode::kInstant) return false;
  switch (options_.signature_check) {
    case SignatureCheck::kFirst:
      return false;
    case SignatureCheck::kDeferAlways:
      return true;
    case SignatureCheck::kDeferWhenIdle:
      break;
  }
  if (!store_->CommitGateOverlaps()) return false;
  std::lock_guard<std::mutex> lock(instant_mu_);
  return !instant_leader_ && instant_.empty();
}

const Status& Ledger::SlotSignature(InstantSlot* slot) const {
  if (!slot->signature) slot->signature = verifier_.Verify(slot->pending.stx);
  return *slot->signature;
}

Result<TxReceipt> Ledger::Submit(ByteView encoded) {
  const bool defer = DefersSignatureCheck();
  VEIL_ASSIGN_OR_RETURN(Pending p, Check(encoded, /*check_signature=*/!defer));
  if (options_.mode == BlockMode::kTimed) {
    p.sender = p.stx.Sender();
    p.memory = QueuedTxBytes(p.stx, p.encoded);
    const QueueLimits& ql = options_.limits.queue;
    const std::unique_lock<std::mutex> lock = LockForWrite();
    if (queue_.size() >= options_.max_queued_txs) return Unavailable("transaction queue full");
    // Checked whole before anything is counted: a refused transaction leaves no trace.
    if (queued_bytes_ + p.memory > ql.max_bytes) {
      return Unavailable("transaction queue full: its transactions hold " +
                         std::to_string(queued_bytes_) + " bytes of " +
                         std::to_string(ql.max_bytes) + " and this one " +
                         std::to_string(p.memory) + "; retry after the next block");
    }
    std::size_t& sender_bytes = queued_sender_bytes_[p.sender];
    if (sender_bytes + p.memory > ql.max_sender_bytes) {
      const std::size_t held = sender_bytes;
      if (held == 0) queued_sender_bytes_.erase(p.sender);
      return Unavailable("transaction queue full for this sender: its transactions hold " +
                         std::to_string(held) + " bytes of " + std::to_string(ql.max_sender_bytes) +
                         " and this one " + std::to_string(p.memory) +
                         "; retry after the next block");
    }
    TxReceipt r;
    r.tx_hash = p.hash;
    r.sender = p.sender;
    r.nonce = p.stx.tx.nonce;
    r.pending = true;
    r.cost = p.cost;
    queue_.push_back(std::move(p));
    sender_bytes += queue_.back().memory;
    queued_bytes_ += queue_.back().memory;
    return r;
  }
  // Instant mode: wait in line. One waiting Submit at a time leads: it seals every transaction
  // waiting (group commit) while the others sleep until their slot is done or the leader is gone,
  // so while one group is on its way to the disk the next transactions gather for the next.
  InstantSlot slot;
  slot.pending = std::move(p);
  if (!defer) slot.signature = Status::Ok();
  std::unique_lock<std::mutex> wait(instant_mu_);
  instant_.push_back(&slot);
  while (!slot.done) {
    if (instant_leader_) {
      instant_done_.wait(wait);
      continue;
    }
    instant_leader_ = true;
    wait.unlock();
    try {
      const std::unique_lock<std::mutex> lock = LockForWrite();
      SealInstantGroupLocked();
    } catch (...) {
      // (bad_alloc): hand the lead on and leave no pointer to this slot behind.
      wait.lock();
      instant_leader_ = false;
      instant_.erase(std::remove(instant_.begin(), instant_.end(), &slot), instant_.end());
      instant_done_.notify_all();
      throw;
    }
    wait.lock();
    instant_leader_ = false;
    instant_done_.notify_all();
  }
  return std::move(slot.result);
}

Result<SealResult> Ledger::SealBlock() {
  const std::unique_lock<std::mutex> lock = LockForWrite();
  return SealLocked(queue_);
}

Result<bool> Ledger::SealIfExpiryDue() {
  if (options_.mode != BlockMode::kInstant || expiry_clock_ms_ == 0) return false;
  const std::unique_lock<std::mutex> lock = LockForWrite();
  VEIL_RETURN_IF_ERROR(RefreshLocked());
  const std::uint64_t head = ExpiryHeightOf(state_.head);
  const std::uint64_t now = NowMs() / expiry_clock_ms_;
  if (now <= head) return false;
  // Live at the head and not at `now`: the counters' difference (two sums over the buckets).
  VEIL_ASSIGN_OR_RETURN(const std::uint64_t live_at_head, store_->LiveCount(head));
  VEIL_ASSIGN_OR_RETURN(const std::uint64_t live_now, store_->LiveCount(now));
  if (live_now >= live_at_head) return false;
  VEIL_RETURN_IF_ERROR(SealLocked(queue_).status());
  return true;
}

// The chain's write lock (Store::LockWriters) from the first lost race to the end of a seal: the
// retry runs under it so that it cannot lose again (optimistic retries alone starve a node whose
// re-execution, cache cleared and reads again, is slower than a competitor's next write).
class Ledger::RetryLock {
 public:
  explicit RetryLock(Store* store) : store_(store) {}
  ~RetryLock() {
    if (held_) (void)store_->UnlockWriters();
  }
  RetryLock(const RetryLock&) = delete;
  RetryLock& operator=(const RetryLock&) = delete;
  // After losing a race: take the lock the first time, back off on later attempts.
  Status Lost(int attempt) {
    if (held_) {
      Backoff(attempt);
      return Status::Ok();
    }
    VEIL_RETURN_IF_ERROR(store_->LockWriters());
    held_ = true;
    return Status::Ok();
  }

 private:
  Store* store_;
  bool held_ = false;
};

void Ledger::SealInstantGroupLocked() {
  std::vector<InstantSlot*> slots;
  {
    std::lock_guard<std::mutex> lock(instant_mu_);
    while (!instant_.empty() && slots.size() < kMaxGroupBlocks) {
      slots.push_back(instant_.front());
      instant_.pop_front();
    }
  }
  // Whatever happens below, the slots taken are done when this returns (their Submits look under
  // instant_mu_, after the leader's notify), with an error if nothing better was written.
  struct MarkDone {
    Ledger* ledger;
    std::vector<InstantSlot*>& slots;
    ~MarkDone() {
      std::lock_guard<std::mutex> lock(ledger->instant_mu_);
      for (InstantSlot* slot : slots) slot->done = true;
    }
  } mark_done{this, slots};
  // Only a transaction sealed alone has its signature checked at the commit gate (a forged one
  // then costs one rolled-back write of its own): in a group, one whose check was deferred (it
  // found the ledger idle, and others joined it) is checked before anything executes.
  std::vector<InstantSlot*> sealing;
  for (InstantSlot* slot : slots) {
    if (slots.size() == 1 || SlotSignature(slot).ok()) {
      sealing.push_back(slot);
    } else {
      slot->result = *slot->signature;
    }
  }
  if (sealing.empty()) return;
  Status s = SealSlotsLocked(sealing);
  // A transaction whose signature failed its check keeps that error whatever the write did.
  auto forged = [](InstantSlot* slot) { return slot->signature && !slot->signature->ok(); };
  if (!s.ok() && sealing.size() > 1 && s.code() == Code::kInternal) {
    // A statement failed (not a lost race, not a lost connection, after which the outcome is
    // unknown): that may be one block's fault, so seal each alone and only the transaction whose
    // block fails reports it.
    for (InstantSlot* slot : sealing) {
      if (forged(slot)) continue;
      std::array<InstantSlot*, 1> one{slot};
      if (Status alone = SealSlotsLocked(one); !alone.ok()) slot->result = std::move(alone);
    }
  } else if (!s.ok()) {
    for (InstantSlot* slot : sealing) {
      if (!forged(slot)) slot->result = s;
    }
  }
}

void Ledger::PrefetchLocked(std::span<const Pending* const> txs) {
  std::vector<EntityKey> keys;
  std::vector<Address> senders;
  std::set<EntityKey> seen_keys;
  std::set<Address> seen_senders;
  for (const Pending* p : txs) {
    const Address sender = p->stx.Sender();
    if (cache_->accounts.count(sender) == 0 && seen_senders.insert(sender).second) {
      senders.push_back(sender);
    }
    for (const Operation& op : p->stx.tx.ops) {
      const std::optional<EntityKey> k = NamedKey(op);
      if (k && cache_->entities.count(*k) == 0 && seen_keys.insert(*k).second) {
        keys.push_back(*k);
      }
    }
  }
  if (keys.empty() && senders.empty()) return;
  auto read = store_->GetForValidation(keys, senders);
  if (read.ok()) cache_->AddStored(keys, std::move(read->entities), read->accounts);
}

Status Ledger::SealSlotsLocked(std::span<InstantSlot* const> slots) {
  std::vector<InstantSlot*> forged;
  Status s = SealSlotsOnceLocked(slots, &forged);
  if (forged.empty()) return s;
  // Refused at the gate: nothing was written. The forged transactions report their check's
  // error; the others (none when, as SealInstantGroupLocked arranges, only a transaction sealed
  // alone defers its check) are checked now, and those that pass are sealed again, with no gate.
  std::vector<InstantSlot*> rest;
  for (InstantSlot* slot : slots) {
    if (SlotSignature(slot).ok()) {
      rest.push_back(slot);
    } else {
      slot->result = *slot->signature;
    }
  }
  forged.clear();
  return rest.empty() ? Status::Ok() : SealSlotsOnceLocked(rest, &forged);
}

Status Ledger::SealSlotsOnceLocked(std::span<InstantSlot* const> slots,
                                   std::vector<InstantSlot*>* forged) {
  RetryLock retry_lock(store_.get());
  for (int attempt = 0;; ++attempt) {
    {
      std::vector<const Pending*> txs;
      for (const InstantSlot* slot : slots) txs.push_back(&slot->pending);
      PrefetchLocked(txs);
    }
    // Each transaction in a block of its own, executed over the blocks before it in the group.
    WriteCache group;
    ChainState st = state_;
    std::vector<BlockWrite> writes;
    std::vector<TxReceipt> receipts(slots.size());
    std::vector<InstantSlot*> unchecked;  // with a block and a signature not yet checked
    bool failed = false;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      BlockBuilder b(store_.get(), options_, expiry_clock_ms_, st, *cache_, NowMs(), &group);
      receipts[i] = b.Execute(slots[i]->pending);
      if (!receipts[i].status.ok()) {
        failed = true;  // no block: a failed transaction changes nothing
        continue;
      }
      if (!slots[i]->signature) unchecked.push_back(slots[i]);
      writes.push_back(b.Finish());
      group.Absorb(writes.back(), /*bounded=*/false);
      st = writes.back().state_after;
    }
    if (failed && attempt < kMaxHeadConflictRetries) {
      // Against a head that another node has since moved, a failure may be an artefact of the
      // stale view (a lifetime measured from an old block): judge the group again at the current
      // head, under the chain's write lock so that no other node moves it again meanwhile.
      bool moved = false;
      VEIL_RETURN_IF_ERROR(RefreshLocked(&moved));
      if (moved) {
        VEIL_RETURN_IF_ERROR(retry_lock.Lost(attempt));
        VEIL_RETURN_IF_ERROR(RefreshLocked());
        continue;
      }
    }
    // The blocks commit only once the signatures not yet checked have passed: checked at the
    // commit gate, while the database runs the statements (SignatureCheck).
    Store::CommitGate gate;
    if (!unchecked.empty()) {
      gate = [&]() -> Status {
        for (InstantSlot* slot : unchecked) {
          if (!SlotSignature(slot).ok()) forged->push_back(slot);
        }
        return forged->empty() ? Status::Ok()
                               : PermissionDenied("a transaction's signature failed its check");
      };
    }
    Status s = writes.empty() ? Status::Ok() : store_->ApplyBlocks(writes, gate);
    if (!writes.empty()) block_writes_.fetch_add(1, std::memory_order_relaxed);
    if (!forged->empty()) {
      VEIL_CHECK_MSG(!s.ok(), "a store committed a write its commit gate refused");
      return s;  // refused at the gate: nothing was written
    }
    if (s.ok()) {
      for (const BlockWrite& w : writes) cache_->Absorb(w);
      if (!writes.empty()) SetStateLocked(writes.back().state_after);
      for (std::size_t i = 0; i < slots.size(); ++i) {
        // A transaction that took no block may not have been checked yet: a forged one reports
        // the signature, not what its execution found.
        const Status& signature = SlotSignature(slots[i]);
        if (signature.ok()) {
          slots[i]->result = std::move(receipts[i]);
        } else {
          slots[i]->result = signature;
        }
      }
      return Status::Ok();
    }
    if (!IsHeadConflict(s) || attempt >= kMaxHeadConflictRetries) return s;
    // Another node sealed first: nothing was written. Execute again on its head.
    VEIL_RETURN_IF_ERROR(retry_lock.Lost(attempt));
    VEIL_RETURN_IF_ERROR(RefreshLocked());
  }
}

Result<SealResult> Ledger::SealLocked(std::deque<Pending>& queue) {
  RetryLock retry_lock(store_.get());
  for (int attempt = 0;; ++attempt) {
    {
      // The transactions the block is likely to take (those within its gas limit).
      std::vector<const Pending*> txs;
      std::uint64_t gas = 0;
      for (const Pending& p : queue) {
        if (gas + p.cost.gas > options_.limits.gas.block_gas_limit) break;
        gas += p.cost.gas;
        txs.push_back(&p);
      }
      PrefetchLocked(txs);
    }
    BlockBuilder b(store_.get(), options_, expiry_clock_ms_, state_, *cache_, NowMs());
    SealResult out;
    std::vector<Pending> taken;
    auto give_back = [&] {
      for (auto it = taken.rbegin(); it != taken.rend(); ++it) queue.push_front(std::move(*it));
    };
    while (!queue.empty()) {
      if (b.gas_used() + queue.front().cost.gas > options_.limits.gas.block_gas_limit) break;
      taken.push_back(std::move(queue.front()));
      queue.pop_front();
      out.receipts.push_back(b.Execute(taken.back()));
    }
    BlockWrite w = b.Finish();
    Status s = store_->Apply(w);
    block_writes_.fetch_add(1, std::memory_order_relaxed);
    if (s.ok()) {
      cache_->Absorb(w);
      SetStateLocked(w.state_after);
      for (const Pending& p : taken) UnqueuedLocked(p);
      out.header = w.header;
      out.still_queued = queue.size();
      return out;
    }
    give_back();
    if (!IsHeadConflict(s) || attempt >= kMaxHeadConflictRetries) return s;
    // Another node sealed first: nothing was written. Execute again on its head.
    VEIL_RETURN_IF_ERROR(retry_lock.Lost(attempt));
    VEIL_RETURN_IF_ERROR(RefreshLocked());
  }
}

namespace {
// A heap block of `capacity` bytes as the allocator holds it: glibc's malloc adds an 8-byte
// header and rounds to 16, so 16 more bounds it.
std::size_t HeapBlock(std::size_t capacity) { return capacity == 0 ? 0 : capacity + 16; }
// libstdc++ keeps up to 15 characters in the string itself.
std::size_t StringHeap(const std::string& s) {
  return s.capacity() > 15 ? HeapBlock(s.capacity() + 1) : 0;
}
std::size_t AttributesHeap(const std::vector<Attribute>& attrs) {
  std::size_t n = HeapBlock(attrs.capacity() * sizeof(Attribute));
  for (const Attribute& a : attrs) {
    n += StringHeap(a.name);
    if (const auto* v = std::get_if<std::string>(&a.value)) n += StringHeap(*v);
  }
  return n;
}
// The queue entry's fixed part (Ledger::Pending, the deque's slot) and the sender map's node.
constexpr std::size_t kQueueEntryBytes = 512;
}  // namespace

std::size_t QueuedTxBytes(const SignedTransaction& stx, const Bytes& encoded) {
  std::size_t n = kQueueEntryBytes + HeapBlock(encoded.capacity()) +
                  HeapBlock(stx.public_key.capacity()) + HeapBlock(stx.signature.capacity()) +
                  HeapBlock(stx.tx.ops.capacity() * sizeof(Operation));
  for (const Operation& op : stx.tx.ops) {
    if (const auto* c = std::get_if<CreateOp>(&op)) {
      n += StringHeap(c->content_type) + HeapBlock(c->payload.capacity()) +
           AttributesHeap(c->attributes);
    } else if (const auto* u = std::get_if<UpdateOp>(&op)) {
      n += StringHeap(u->content_type) + HeapBlock(u->payload.capacity()) + AttributesHeap(u->set) +
           HeapBlock(u->unset.capacity() * sizeof(std::string));
      for (const std::string& name : u->unset) n += StringHeap(name);
    }
  }
  return n;
}

void Ledger::UnqueuedLocked(const Pending& p) {
  // The entry's fixed part, with the deque's and the sender map's share, within what it counts.
  static_assert(sizeof(Pending) + 128 <= kQueueEntryBytes);
  queued_bytes_ -= std::min(queued_bytes_, p.memory);
  auto it = queued_sender_bytes_.find(p.sender);
  if (it == queued_sender_bytes_.end()) return;
  it->second -= std::min(it->second, p.memory);
  if (it->second == 0) queued_sender_bytes_.erase(it);
}

std::size_t Ledger::WaitingTxs() const {
  std::lock_guard<std::mutex> lock(instant_mu_);
  return instant_.size();
}

BlockHeader Ledger::Head() const {
  std::lock_guard<std::mutex> lock(head_mu_);
  return published_head_;
}

Result<Account> Ledger::GetAccount(const Address& address) {
  Account out;
  VEIL_RETURN_IF_ERROR(RunRead([&](Store& store, const BlockHeader&) -> Status {
    VEIL_ASSIGN_OR_RETURN(out, store.GetAccount(address));
    return Status::Ok();
  }));
  return out;
}

EntityKey Ledger::PredictKey(const Address& creator, std::uint64_t create_nonce) const {
  return DeriveEntityKey(options_.chain_id, creator, create_nonce);
}

Result<std::optional<Entity>> Ledger::Get(const EntityKey& key, const Projection& projection) {
  std::optional<Entity> out;
  VEIL_RETURN_IF_ERROR(RunRead([&](Store& store, const BlockHeader& head) -> Status {
    out.reset();
    VEIL_ASSIGN_OR_RETURN(auto found, store.GetEntities({key}));
    if (!found.empty() && found[0].expires_block > ExpiryHeightOf(head)) {
      out = std::move(found[0]);
    }
    return Status::Ok();
  }));
  if (out) Project(&*out, projection);
  return out;
}

Result<QueryPage> Ledger::Query(std::string_view text, const QueryOptions& options) {
  const QueryLimits& ql = options_.limits.query;
  VEIL_ASSIGN_OR_RETURN(auto expr, query::Parse(text, ql));
  if (options.limit == 0 || options.limit > ql.max_page) {
    return InvalidArgument("limit " + std::to_string(options.limit) +
                           " exceeds the node maximum of " + std::to_string(ql.max_page));
  }
  const Hash32 digest = CursorDigest(expr, options.projection);
  QueryPage out;
  VEIL_RETURN_IF_ERROR(RunRead([&](Store& store, const BlockHeader& h) -> Status {
    VEIL_ASSIGN_OR_RETURN(out, QueryAt(store, h, expr, digest, options));
    return Status::Ok();
  }));
  return out;
}

Result<QueryPage> Ledger::QueryAt(Store& store, const BlockHeader& head_block,
                                  const query::Expr& expr, const Hash32& digest,
                                  const QueryOptions& options) const {
  const QueryLimits& ql = options_.limits.query;
  const std::uint64_t head = head_block.number;
  QueryRequest req;
  req.filter = &expr;
  req.projection = options.projection;
  req.limit = options.limit;
  req.at.block = options.at_block.value_or(head);
  if (!options.cursor.empty()) {
    const std::string& c = options.cursor;
    Bytes raw(c.size() / 2);
    if (c.size() % 2 != 0 || !HexDecodeVartimeInto(c, raw, HexCase::kLower).ok()) {
      return InvalidArgument("malformed cursor");
    }
    Reader r(raw);
    r.Header(kCursorTag, kCursorVersion);
    const std::uint64_t block = r.U64();
    const std::uint64_t before = r.U64();
    Hash32 got{};
    r.Fixed(got);
    VEIL_RETURN_IF_ERROR(r.Finish());
    if (got != digest) return InvalidArgument("cursor belongs to another query or projection");
    if (before == 0 || before > static_cast<std::uint64_t>(INT64_MAX)) {
      return InvalidArgument("malformed cursor");
    }
    req.at.block = block;
    req.before_id = static_cast<std::int64_t>(before);
  }
  if (req.at.block > head) return InvalidArgument("block is in the future");
  // The expiry height of the block read at: on a slot clock from that block's own header (never
  // from the cursor, which a client could forge to see entities long expired).
  const std::uint64_t head_height = ExpiryHeightOf(head_block);
  req.at.expiry = head_height;
  if (req.at.block != head) {
    if (expiry_clock_ms_ == 0) {
      req.at.expiry = req.at.block;
    } else {
      VEIL_ASSIGN_OR_RETURN(auto pinned, store.GetBlock(req.at.block));
      if (!pinned) return DataLoss("block " + std::to_string(req.at.block) + " is missing");
      req.at.expiry = ExpiryHeightOf(*pinned);
    }
  }
  // The sweeper keeps expired rows for cursor_lifetime_blocks units of the expiry clock: a read
  // pinned further back, in blocks or in expiry height, could miss some.
  if (head - req.at.block > ql.cursor_lifetime_blocks ||
      head_height - req.at.expiry > ql.cursor_lifetime_blocks) {
    return FailedPrecondition("cursor expired: block " + std::to_string(req.at.block) +
                              " is more than " + std::to_string(ql.cursor_lifetime_blocks) +
                              " blocks old");
  }
  VEIL_ASSIGN_OR_RETURN(auto page, store.Query(req));
  QueryPage out;
  out.block = req.at.block;
  out.cost.rows_scanned = page.stats.rows_scanned;
  out.cost.rows_returned = page.entities.size();
  out.cost.bytes_returned = page.stats.bytes_returned;
  out.cost.query_units =
      1 + query::CountPredicates(expr) + out.cost.rows_returned + out.cost.bytes_returned / 1024;
  if (page.more && !page.entities.empty()) {
    Writer w(kCursorTag, kCursorVersion);
    w.U64(req.at.block).U64(static_cast<std::uint64_t>(page.entities.back().id)).Fixed(digest);
    out.cursor = ToHex(w.bytes());
  }
  out.entities = std::move(page.entities);
  for (auto& e : out.entities) Project(&e, options.projection);
  return out;
}

Result<CountResult> Ledger::Count(std::string_view text) {
  const QueryLimits& ql = options_.limits.query;
  VEIL_ASSIGN_OR_RETURN(auto expr, query::Parse(text, ql));
  CountResult out;
  VEIL_RETURN_IF_ERROR(RunRead([&](Store& store, const BlockHeader& head) -> Status {
    out = CountResult{};
    out.cost.query_units = 1 + query::CountPredicates(expr);
    out.block = head.number;
    const ReadPoint at{head.number, ExpiryHeightOf(head)};
    if (expr.kind == query::Expr::Kind::kAll) {
      VEIL_ASSIGN_OR_RETURN(out.count, store.LiveCount(at.expiry));
      return Status::Ok();
    }
    VEIL_ASSIGN_OR_RETURN(auto c, store.Count(expr, at, ql.count_cap));
    out.count = c.count;
    out.capped = c.capped;
    out.cost.rows_scanned = c.stats.rows_scanned;
    out.cost.query_units += c.stats.rows_scanned / 100;
    return Status::Ok();
  }));
  return out;
}

Result<std::string> Ledger::Explain(std::string_view text, const QueryOptions& options) {
  VEIL_ASSIGN_OR_RETURN(auto expr, query::Parse(text, options_.limits.query));
  std::string plan;
  VEIL_RETURN_IF_ERROR(RunRead([&](Store& store, const BlockHeader& head) -> Status {
    QueryRequest req;
    req.filter = &expr;
    req.projection = options.projection;
    req.limit = std::min(options.limit, options_.limits.query.max_page);
    req.at = {head.number, ExpiryHeightOf(head)};
    VEIL_ASSIGN_OR_RETURN(plan, store.Explain(req));
    return Status::Ok();
  }));
  return "compiled: " + query::ToString(expr) + "\n" + plan;
}

Result<std::string> Ledger::ExplainCount(std::string_view text) {
  const QueryLimits& ql = options_.limits.query;
  VEIL_ASSIGN_OR_RETURN(auto expr, query::Parse(text, ql));
  std::string plan;
  VEIL_RETURN_IF_ERROR(RunRead([&](Store& store, const BlockHeader& head) -> Status {
    if (expr.kind == query::Expr::Kind::kAll) {
      plan = "counters: the stored entities less the expired ones not yet swept (no scan)\n";
      return Status::Ok();
    }
    VEIL_ASSIGN_OR_RETURN(
        plan, store.ExplainCount(expr, {head.number, ExpiryHeightOf(head)}, ql.count_cap));
    return Status::Ok();
  }));
  return "compiled: " + query::ToString(expr) + "\ncount cap: " + std::to_string(ql.count_cap) +
         "\n" + plan;
}

Result<std::uint64_t> Ledger::Sweep(std::size_t max_rows) {
  const std::unique_lock<std::mutex> lock = LockForWrite();
  VEIL_RETURN_IF_ERROR(RefreshLocked());
  // In units of the expiry clock (QueryAt's cursor check).
  const std::uint64_t lag = options_.limits.query.cursor_lifetime_blocks;
  const std::uint64_t head = ExpiryHeightOf(state_.head);
  if (head < lag) return std::uint64_t{0};
  VEIL_ASSIGN_OR_RETURN(auto n, store_->Sweep(head - lag, max_rows));
  if (n > 0) cache_->ClearEntities();  // some of them may have been swept
  state_.stored_entities -= n;
  return n;
}

Result<LedgerStats> Ledger::Stats() {
  std::lock_guard<std::mutex> lock(mu_);
  VEIL_RETURN_IF_ERROR(RefreshLocked());
  LedgerStats s;
  s.head = state_.head.number;
  s.stored_entities = state_.stored_entities;
  s.queued_txs = queue_.size();
  s.queued_bytes = queued_bytes_;
  VEIL_ASSIGN_OR_RETURN(s.live_entities, store_->LiveCount(ExpiryHeightOf(state_.head)));
  return s;
}

Result<std::uint64_t> Ledger::Prewarm() {
  std::lock_guard<std::mutex> one_at_a_time(prewarm_mu_);
  std::uint64_t bytes = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    VEIL_ASSIGN_OR_RETURN(bytes, store_->Prewarm());
  }
  // Every reader connection it can open, opened now, with its cache loaded.
  std::vector<std::unique_ptr<Store>> readers;
  Status status;
  while (readers.size() < options_.read_connections) {
    std::unique_ptr<Store> r = TakeReader();
    if (r == nullptr) break;
    readers.push_back(std::move(r));
    auto b = readers.back()->Prewarm();
    if (!b.ok()) {
      status = b.status();
      break;
    }
    bytes += *b;
  }
  for (auto& r : readers) ReturnReader(std::move(r));
  VEIL_RETURN_IF_ERROR(status);
  return bytes;
}

namespace {
Status BadBlock(std::uint64_t n, const std::string& what) {
  return DataLoss("block " + std::to_string(n) + ": " + what);
}
}  // namespace

// Block n of the chain (VerifyChain), read from `store`: its header against its parent
// (*prev_hash), its transactions (hashes, signatures, root, gas, the lookup receipts use, within
// blocks 1..head) and its changes, which extend the rolling change-set hash *changeset;
// *prev_hash becomes its hash.
Status Ledger::VerifyBlock(Store& store, std::uint64_t n, std::uint64_t head, Hash32* prev_hash,
                           Hash32* changeset) const {
  VEIL_ASSIGN_OR_RETURN(auto h, store.GetBlock(n));
  if (!h) return BadBlock(n, "missing");
  if (h->number != n || h->chain_id != options_.chain_id)
    return BadBlock(n, "wrong number or chain");
  if (BlockHash(*h) != h->hash) return BadBlock(n, "header hash mismatch");
  if (h->parent != *prev_hash) return BadBlock(n, "parent hash mismatch");
  VEIL_ASSIGN_OR_RETURN(auto txs, store.GetBlockTxs(n));
  std::vector<Hash32> hashes;
  std::uint64_t gas = 0;
  for (const auto& t : txs) {
    if (TxHash(t.encoded) != t.hash)
      return BadBlock(n, "transaction " + std::to_string(t.index) + " does not match its hash");
    auto stx = Decode(t.encoded, options_.limits);
    if (!stx.ok() || !verifier_.Verify(*stx).ok()) {
      return BadBlock(n, "transaction " + std::to_string(t.index) + " is not validly signed");
    }
    hashes.push_back(t.hash);
    gas += t.gas;
  }
  // The lookup receipts use must lead to each transaction (SQLite: the block row's tx_hash
  // for its first and tx_index for the rest; PostgreSQL: txs.hash's index): one call a block.
  VEIL_ASSIGN_OR_RETURN(const auto found, store.LocateTxs(hashes, head));
  for (std::size_t i = 0; i < txs.size(); ++i) {
    if (i >= found.size() || !found[i] || found[i]->block != n || found[i]->index != txs[i].index) {
      return BadBlock(n,
                      "transaction " + std::to_string(txs[i].index) + " is not found by its hash");
    }
  }
  if (TxRoot(hashes) != h->tx_root || txs.size() != h->tx_count || gas != h->gas_used) {
    return BadBlock(n, "transaction root mismatch");
  }
  VEIL_ASSIGN_OR_RETURN(auto changes, store.GetBlockChanges(n));
  for (const auto& c : changes) *changeset = ChangeSetStep(*changeset, c);
  if (*changeset != h->changeset || changes.size() != h->change_count) {
    return BadBlock(n, "change-set hash mismatch");
  }
  *prev_hash = h->hash;
  return Status::Ok();
}

std::unique_lock<std::mutex> Ledger::LockForWrite() {
  writers_waiting_.fetch_add(1, std::memory_order_relaxed);
  std::unique_lock<std::mutex> lock(mu_);
  writers_waiting_.fetch_sub(1, std::memory_order_relaxed);
  return lock;
}

Status Ledger::VerifyStep(const std::function<Status(Store&)>& step) {
  std::unique_ptr<Store> reader = TakeReader();
  if (reader == nullptr) {
    // Writers first: std::mutex is not fair, and a verify that takes the mutex again the moment
    // it let go would starve the writer waiting for it. Up to 20 ms, so that a steady stream of
    // writes cannot starve the verify either.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
    while (writers_waiting_.load(std::memory_order_relaxed) > 0 &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    std::lock_guard<std::mutex> lock(mu_);
    return step(*store_);
  }
  struct Lease {
    Ledger* ledger;
    std::unique_ptr<Store>* reader;
    ~Lease() { ledger->ReturnReader(std::move(*reader)); }
  } lease{this, &reader};
  return step(*reader);
}

// A scan of the whole chain, in steps (VerifyStep): one block, or one batch of 256 entities, at
// a time, each on a reader connection or under the writer's mutex for that step alone, so writes
// go on between the steps. Blocks never change once written; entities may, while this runs, so
// entities updated in blocks past the head verified so far send the scan back to verify the
// blocks written since (as when another node shares the store).
namespace {
// How often VerifyChain re-reads entities written while it runs before it gives up.
constexpr int kMaxVerifyRounds = 64;
}  // namespace

Status Ledger::VerifyChain() {
  Hash32 prev_hash{};
  Hash32 changeset{};
  BlockHeader head;
  // The database's head now, read from it: another process may write the chain while this runs
  // (a node beside `veil-ledger verify-chain --store`, on SQLite as on PostgreSQL).
  const auto load_head = [&](Store& store) -> Status {
    VEIL_ASSIGN_OR_RETURN(const auto st, store.LoadState());
    if (!st) return DataLoss("the store holds no chain");
    head = st->head;
    return Status::Ok();
  };
  // Blocks next .. head, each against its parent and the change set so far, then the head's hash.
  std::uint64_t next = 0;
  const auto verify_blocks = [&]() -> Status {
    VEIL_RETURN_IF_ERROR(VerifyStep(load_head));
    for (; next <= head.number; ++next) {
      VEIL_RETURN_IF_ERROR(VerifyStep([&](Store& store) {
        return VerifyBlock(store, next, head.number, &prev_hash, &changeset);
      }));
    }
    if (prev_hash != head.hash) return BadBlock(head.number, "head hash mismatch");
    return Status::Ok();
  };
  VEIL_RETURN_IF_ERROR(verify_blocks());
  // Every stored entity must be the state its last change committed to. That change is in the
  // block of the entity's updated_block (every change sets it, and the entity hash covers it):
  // each block's changes are read once while they stay in a cache of 64 blocks (a batch's
  // entities share blocks).
  std::map<std::uint64_t, std::vector<Change>> block_changes;
  // One entity against the change that last wrote it (its block at most the head verified).
  const auto verify_entity = [&](Store& store, const Entity& e) -> Status {
    auto it = block_changes.find(e.updated_block);
    if (it == block_changes.end()) {
      if (block_changes.size() >= 64) block_changes.erase(block_changes.begin());
      VEIL_ASSIGN_OR_RETURN(auto changes, store.GetBlockChanges(e.updated_block));
      it = block_changes.emplace(e.updated_block, std::move(changes)).first;
    }
    const Change* c = nullptr;
    for (const Change& x : it->second) {
      if (x.seq == e.last_change) c = &x;
    }
    if (c == nullptr || c->key != e.key) {
      return DataLoss("entity " + ToHex(e.key) + ": no matching change");
    }
    if (EntityHash(e) != c->entity_hash) {
      return BadBlock(
          c->block, "entity " + ToHex(e.key) + " does not match change " + std::to_string(c->seq));
    }
    return Status::Ok();
  };
  std::int64_t after = 0;
  bool done = false;
  while (!done) {
    // Entities written past the head verified so far (by this node or another sharing the
    // store), set aside so that the scan goes on: with their blocks, as read.
    std::vector<std::pair<EntityKey, std::uint64_t>> beyond;
    VEIL_RETURN_IF_ERROR(VerifyStep([&](Store& store) -> Status {
      VEIL_ASSIGN_OR_RETURN(auto batch, store.ScanEntities(after, 256));
      done = batch.empty();
      for (const auto& e : batch) {
        if (e.updated_block > head.number) {
          beyond.emplace_back(e.key, e.updated_block);
        } else {
          if (Status s = verify_entity(store, e); !s.ok()) return s;
        }
        after = e.id;
      }
      return Status::Ok();
    }));
    // Then the blocks added since, once for the whole batch, and those entities read again (by
    // key: the row's attribute copy, where the scan also compares the attribute rows). A
    // block that is not there is a row beyond the chain; an entity written again meanwhile waits
    // for the next round. A chain written faster than it can be verified ends the verify with
    // kUnavailable rather than running on.
    for (int round = 0; !beyond.empty(); ++round) {
      if (round == kMaxVerifyRounds) {
        return Unavailable(
            "verify chain: entities keep changing faster than they can be "
            "verified; run it again when writes slow down");
      }
      VEIL_RETURN_IF_ERROR(verify_blocks());
      std::vector<EntityKey> keys;
      for (const auto& [key, block] : beyond) {
        if (block > head.number) {
          return DataLoss("entity " + ToHex(key) + ": updated in block " + std::to_string(block) +
                          ", beyond the head");
        }
        keys.push_back(key);
      }
      std::vector<std::pair<EntityKey, std::uint64_t>> again;
      VEIL_RETURN_IF_ERROR(VerifyStep([&](Store& store) -> Status {
        VEIL_ASSIGN_OR_RETURN(auto entities, store.GetEntities(keys));
        for (const auto& e : entities) {
          if (e.updated_block > head.number) {
            again.emplace_back(e.key, e.updated_block);
          } else {
            if (Status s = verify_entity(store, e); !s.ok()) return s;
          }
        }
        return Status::Ok();  // one not there was deleted in a block verified above
      }));
      beyond = std::move(again);
    }
  }
  // The counter that counts and LiveCount start from must count the rows there are (both read
  // in one snapshot: a writer may commit while this runs).
  Store::StoredRows stored;
  VEIL_RETURN_IF_ERROR(VerifyStep([&](Store& store) -> Status {
    VEIL_ASSIGN_OR_RETURN(stored, store.CountStoredRows());
    return Status::Ok();
  }));
  if (stored.counted != stored.rows) {
    return DataLoss("the chain's counters hold " + std::to_string(stored.counted) +
                    " stored entities, the entity table " + std::to_string(stored.rows));
  }
  return Status::Ok();
}

}  // namespace veil::ledger
