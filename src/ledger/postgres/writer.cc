// The PostgreSQL store's block writer (postgres_store.cc): a block, or a group of blocks, as one
// pipeline of the chain's write lock and one BlockStatement (block_statement.h) under the parent
// check, committed by the pipeline's Sync; the sweeper's statements; the chain's write lock held
// across a retry.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "postgres/block_statement.h"
#include "postgres/store.h"

namespace veil::ledger::pg {
namespace {

// The chain's write lock: an advisory lock keyed by the schema. Every block write takes it for its
// transaction (kWriteLock, or the one-statement form's `l`); a node retrying after a lost race
// holds it across its refresh, reads and write.
constexpr const char* kWriteLockSession =
    "SELECT pg_advisory_lock(hashtext('veil.ledger.write.' || current_schema()))";
constexpr const char* kWriteUnlockSession =
    "SELECT pg_advisory_unlock(hashtext('veil.ledger.write.' || current_schema()))";

}  // namespace

Status PostgresStore::LockWriters() {
  VEIL_ASSIGN_OR_RETURN(auto r, Exec(kWriteLockSession, {}, false));
  (void)r;
  return Status::Ok();
}

Status PostgresStore::UnlockWriters() {
  // A reconnect since LockWriters has dropped the lock already (session locks die with the
  // session); unlocking is then a no-op.
  VEIL_ASSIGN_OR_RETURN(auto r, Exec(kWriteUnlockSession, {}, false));
  (void)r;
  return Status::Ok();
}

Status PostgresStore::ApplyBlocks(std::span<const BlockWrite> writes, const CommitGate& gate) {
  if (writes.empty()) return Status::Ok();
  VEIL_RETURN_IF_ERROR(CheckConsecutive(writes));
  // One pipeline, one implicit transaction: the statements up to the pipeline's Sync run as
  // one transaction, which the Sync commits, or which the first failure rolls back with every
  // statement after it skipped (no BEGIN and COMMIT statements: 15-20 us less a block).
  std::vector<Step> steps;
  // A group: one block's statements over the group's net effect on the rows, the parent check
  // against the first block's parent, and the other blocks' rows as one more part. The
  // statement count does not grow with the group.
  const BlockHeader& first = writes.front().header;
  const BlockWrite net = writes.size() == 1 ? BlockWrite() : NetBlockWrite(writes);
  const BlockWrite& w = writes.size() == 1 ? writes[0] : net;
  VEIL_RETURN_IF_ERROR(EnsureConnected());
  VEIL_RETURN_IF_ERROR(AppendBlockSteps(w, writes.first(writes.size() - 1),
                                        first.number == 0 ? 0 : first.number - 1, first.parent,
                                        &steps));
  PipelineError err;
  std::vector<ResultPtr> results;
  VEIL_ASSIGN_OR_RETURN(const bool committed, RunPipeline(steps, &results, &err, gate));
  if (committed) return Status::Ok();
  // The transaction failed and was rolled back. Tell a lost race from any other failure: the
  // parent check's division by zero (in the block statement, the pipeline's last) or the
  // block's primary key taken.
  const bool guard_failed = err.sqlstate == "22012" && err.step + 1 == steps.size();
  const bool head_taken = err.sqlstate == "23505" && err.constraint == "blocks_pkey";
  const bool retryable = err.sqlstate == "40001" || err.sqlstate == "40P01";
  std::string blocks = "block " + std::to_string(writes.front().header.number);
  if (writes.size() > 1) blocks += ".." + std::to_string(writes.back().header.number);
  if (guard_failed || head_taken || retryable) {
    return HeadConflict(blocks + " (" + err.message + ")");
  }
  return Internal("postgres: " + blocks + ": " + err.message);
}

// One block's statements: the chain's write lock (kWriteLock) and one BlockStatement with the
// parts that have rows; or, for a small block, the two as one statement (BlockStatement's
// one-statement form). The lock is this transaction's: it waits while a node that lost a race
// holds it for its retry (LockWriters), so that node cannot be starved by faster writers, and
// in the pipeline it costs no round trip. The statement writes w.header's row where the block
// numbered `from_number` with hash `from_hash` (w.header's parent, or for a group the first
// block's parent) is the head; `earlier`: a group's blocks before it, whose rows go in too.
Status PostgresStore::AppendBlockSteps(const BlockWrite& w, std::span<const BlockWrite> earlier,
                                       std::uint64_t from_number, const Hash32& from_hash,
                                       std::vector<Step>* out) {
  const BlockHeader& h = w.header;
  const ChainState& after = w.state_after;
  // A block's change in the stored entity rows (for a group, the net write's: the sum of its
  // blocks').
  const auto stored_delta = [](const BlockWrite& bw) {
    std::int64_t d = 0;
    for (const auto& ew : bw.entities) {
      if (ew.kind == EntityWrite::Kind::kInsert) ++d;
      if (ew.kind == EntityWrite::Kind::kDelete) --d;
    }
    return d;
  };
  // The genesis block (alone or first of its group) has no parent to check.
  const bool genesis = (earlier.empty() ? h.number : earlier.front().header.number) == 0;
  std::vector<PgParam> parent;
  if (!genesis) parent = Params(Int8(I64(from_number)), Bytea(from_hash));
  // Statements of their own between the lock and the block statement (accounts apart).
  std::vector<Step> steps;
  BlockStatement b;
  // Accounts: nonces first, then owners and creators that have no row yet. As parts of the
  // block statement an entity row finds a new account's id by a scan of those parts' rows
  // (PgAccountId), which grows as entities x accounts; a block of many accounts writes them in
  // statements of their own first (in the same pipeline), and its entity rows then find every
  // id with an index probe.
  {
    std::set<Address> with_nonces;
    ArrayParam addr = ByteaArray(), txn = Int8Array(), cn = Int8Array();
    for (const auto& a : w.accounts) {
      with_nonces.insert(a.address);
      addr.AddBytes(a.address);
      txn.AddInt8(I64(a.tx_nonce));
      cn.AddInt8(I64(a.create_nonce));
    }
    std::set<Address> needed;
    for (const auto& ew : w.entities) {
      if (ew.kind == EntityWrite::Kind::kDelete) continue;
      needed.insert(ew.entity.owner);
      if (ew.kind == EntityWrite::Kind::kInsert) needed.insert(ew.entity.creator);
    }
    ArrayParam missing = ByteaArray();
    for (const auto& a : needed) {
      if (!with_nonces.count(a)) missing.AddBytes(a);
    }
    const bool apart = addr.size() + missing.size() > kAccountsInBlockStatement;
    if (addr.size() != 0) {
      std::vector<PgParam> p = Params(addr.Build(), txn.Build(), cn.Build());
      if (apart) {
        steps.push_back({kAccountsSetApart, std::move(p)});
      } else {
        b.With(kAccountsSet, std::move(p));
      }
    }
    if (missing.size() != 0) {
      std::vector<PgParam> p = Params(missing.Build());
      if (apart) {
        steps.push_back({kAccountsEnsureApart, std::move(p)});
      } else {
        b.With(kAccountsEnsure, std::move(p));
      }
    }
  }

  // Entities: attribute rows of deleted and re-attributed entities go first, then the rows.
  ArrayParam drop_attrs = Int8Array(), drop = Int8Array();
  ArrayParam u_id = Int8Array(), u_owner = ByteaArray(), u_ct = TextArray(), u_p = ByteaArray(),
             u_ub = Int8Array(), u_eb = Int8Array(), u_lc = Int8Array(), u_at = ByteaArray();
  ArrayParam i_id = Int8Array(), i_key = ByteaArray(), i_owner = ByteaArray(),
             i_creator = ByteaArray(), i_ct = TextArray(), i_p = ByteaArray(), i_cb = Int8Array(),
             i_ub = Int8Array(), i_eb = Int8Array(), i_lc = Int8Array(), i_at = ByteaArray(),
             i_fl = Int8Array();
  ArrayParam n_id = Int8Array(), n_name = TextArray(), n_value = Int8Array();
  ArrayParam s_id = Int8Array(), s_name = TextArray(), s_value = TextArray();
  std::map<std::uint64_t, std::int64_t> expiry;
  auto add_attributes = [&](const Entity& e) {
    for (const auto& a : e.attributes) {
      if (a.type() == AttrType::kNumeric) {
        n_id.AddInt8(e.id);
        n_name.Add(a.name);
        n_value.AddInt8(Biased(std::get<std::uint64_t>(a.value)));
      } else {
        s_id.AddInt8(e.id);
        s_name.Add(a.name);
        s_value.Add(std::get<std::string>(a.value));
      }
    }
  };
  for (const auto& ew : w.entities) {
    const Entity& e = ew.entity;
    switch (ew.kind) {
      case EntityWrite::Kind::kInsert:
        i_id.AddInt8(e.id);
        i_key.AddBytes(e.key);
        i_owner.AddBytes(e.owner);
        i_creator.AddBytes(e.creator);
        i_ct.Add(e.content_type);
        i_p.AddBytes(e.payload);
        i_cb.AddInt8(I64(e.created_block));
        i_ub.AddInt8(I64(e.updated_block));
        i_eb.AddInt8(I64(e.expires_block));
        i_lc.AddInt8(I64(e.last_change));
        i_at.AddBytes(EncodeStoredAttributes(e.attributes));
        i_fl.AddInt8(e.flags);
        add_attributes(e);
        ++expiry[e.expires_block];
        break;
      case EntityWrite::Kind::kUpdate:
        u_id.AddInt8(e.id);
        u_owner.AddBytes(e.owner);
        u_ct.Add(e.content_type);
        u_p.AddBytes(e.payload);
        u_ub.AddInt8(I64(e.updated_block));
        u_eb.AddInt8(I64(e.expires_block));
        u_lc.AddInt8(I64(e.last_change));
        u_at.AddBytes(EncodeStoredAttributes(e.attributes));
        if (ew.attributes_changed) {
          drop_attrs.AddInt8(e.id);
          add_attributes(e);
        }
        if (ew.old_expires_block != e.expires_block) {
          --expiry[ew.old_expires_block];
          ++expiry[e.expires_block];
        }
        break;
      case EntityWrite::Kind::kDelete:
        drop_attrs.AddInt8(e.id);
        drop.AddInt8(e.id);
        --expiry[ew.old_expires_block];
        break;
    }
  }
  if (drop_attrs.size() != 0) {
    PgParam ids = drop_attrs.Build();
    b.With(kDropNum, Params(PgParam(ids)));
    b.With(kDropStr, Params(std::move(ids)));
  }
  if (drop.size() != 0) b.With(kDeleteEntities, Params(drop.Build()));
  if (u_id.size() != 0) {
    b.With(kUpdateEntities, Params(u_id.Build(), u_owner.Build(), u_ct.Build(), u_p.Build(),
                                   u_ub.Build(), u_eb.Build(), u_lc.Build(), u_at.Build()));
  }
  if (i_id.size() != 0) {
    b.With(kInsertEntities, Params(i_id.Build(), i_key.Build(), i_owner.Build(), i_creator.Build(),
                                   i_ct.Build(), i_p.Build(), i_cb.Build(), i_ub.Build(),
                                   i_eb.Build(), i_lc.Build(), i_at.Build(), i_fl.Build()));
  }
  if (n_id.size() != 0) {
    b.With(kAttrNum, Params(n_id.Build(), n_name.Build(), n_value.Build()));
  }
  if (s_id.size() != 0) {
    b.With(kAttrStr, Params(s_id.Build(), s_name.Build(), s_value.Build()));
  }
  ArrayParam x_block = Int8Array(), x_delta = Int8Array();
  for (const auto& [block, delta] : expiry) {
    if (delta == 0) continue;
    x_block.AddInt8(I64(block));
    x_delta.AddInt8(delta);
  }
  if (x_block.size() != 0) b.With(kExpiry, Params(x_block.Build(), x_delta.Build()));
  // Every transaction after its block's first, to be found by its hash (FindTx).
  ArrayParam ti_hash = ByteaArray(), ti_block = Int8Array(), ti_idx = Int8Array();
  for (const auto& t : w.txs) {
    if (t.index == 0) continue;
    ti_hash.AddBytes(t.hash);
    ti_block.AddInt8(I64(t.block));
    ti_idx.AddInt8(t.index);
  }
  if (ti_hash.size() != 0) {
    b.With(kTxIndex, Params(ti_hash.Build(), ti_block.Build(), ti_idx.Build()));
  }
  // The transactions and changes of bw's block (bw.header; of a group's net write, those of
  // its last block), packed as the block's row keeps them; the header must count them.
  struct Packed {
    Bytes first_tx, txs, changes;
  };
  const auto pack = [](const BlockWrite& bw) -> Result<Packed> {
    const std::uint64_t number = bw.header.number;
    // A lone block's are all of bw's (no copy); a net write's are filtered out.
    std::span<const StoredTx> txs = bw.txs;
    std::span<const Change> changes = bw.changes;
    std::vector<StoredTx> own_txs;
    std::vector<Change> own_changes;
    if (!std::all_of(txs.begin(), txs.end(), [&](const auto& t) { return t.block == number; })) {
      for (const auto& t : bw.txs) {
        if (t.block == number) own_txs.push_back(t);
      }
      txs = own_txs;
    }
    if (!std::all_of(changes.begin(), changes.end(),
                     [&](const auto& c) { return c.block == number; })) {
      for (const auto& c : bw.changes) {
        if (c.block == number) own_changes.push_back(c);
      }
      changes = own_changes;
    }
    if (txs.size() != bw.header.tx_count || changes.size() != bw.header.change_count) {
      return Internal("block " + std::to_string(number) + ": rows and header disagree");
    }
    Packed packed;
    if (!txs.empty()) packed.first_tx.assign(txs[0].hash.begin(), txs[0].hash.end());
    packed.txs = EncodeBlockTxs(txs);
    packed.changes = EncodeBlockChanges(changes);
    return packed;
  };
  std::int64_t delta = 0;  // the stored rows' change since the group's parent
  if (!earlier.empty()) {
    ArrayParam number = Int8Array(), chain = Int8Array(), parent_hash = ByteaArray(),
               ts = Int8Array(), root = ByteaArray(), cs = ByteaArray(), txc = Int8Array(),
               chc = Int8Array(), gas = Int8Array(), hash = ByteaArray(), ne = Int8Array(),
               nc = Int8Array(), nd = Int8Array(), th = ByteaArray(), tx = ByteaArray(),
               ch = ByteaArray();
    for (const BlockWrite& e : earlier) {
      const BlockHeader& eh = e.header;
      VEIL_ASSIGN_OR_RETURN(const Packed packed, pack(e));
      delta += stored_delta(e);
      number.AddInt8(I64(eh.number));
      chain.AddInt8(I64(eh.chain_id));
      parent_hash.AddBytes(eh.parent);
      ts.AddInt8(I64(eh.timestamp_ms));
      root.AddBytes(eh.tx_root);
      cs.AddBytes(eh.changeset);
      txc.AddInt8(eh.tx_count);
      chc.AddInt8(eh.change_count);
      gas.AddInt8(I64(eh.gas_used));
      hash.AddBytes(eh.hash);
      ne.AddInt8(e.state_after.next_entity_id);
      nc.AddInt8(I64(e.state_after.next_change_seq));
      nd.AddInt8(delta);
      th.AddBytes(packed.first_tx);
      tx.AddBytes(packed.txs);
      ch.AddBytes(packed.changes);
    }
    b.With(kEarlierBlocks,
           Params(number.Build(), chain.Build(), parent_hash.Build(), ts.Build(), root.Build(),
                  cs.Build(), txc.Build(), chc.Build(), gas.Build(), hash.Build(), ne.Build(),
                  nc.Build(), nd.Build(), th.Build(), tx.Build(), ch.Build()));
  }
  // The group's whole change (its net write's; for one block, the block's).
  delta = stored_delta(w);
  VEIL_ASSIGN_OR_RETURN(const Packed own, pack(w));
  if (!b.ordered()) return Internal("postgres: block statement parts out of order");
  // One statement for a lone block (not genesis, whose parent check differs) whose accounts
  // are in its statement and whose rows are few, while the one-statement shapes prepared on
  // this connection are under kOneStatementShapes (past it, new shapes take the array form:
  // the common shapes come first, and a workload of many shapes does not churn the cache).
  const std::vector<std::uint32_t> one_key = b.Key(true, genesis);
  const bool one_statement =
      !genesis && earlier.empty() && steps.empty() && b.rows() <= kOneStatementRows &&
      b.EveryPartHasRows() &&
      (block_cache_.count(one_key) != 0 || one_statement_shapes_ < kOneStatementShapes);
  Step step;
  VEIL_ASSIGN_OR_RETURN(
      step.params,
      b.TakeParams(
          one_statement, std::move(parent),
          Params(Int8(I64(h.number)), Int8(I64(h.chain_id)), Bytea(h.parent),
                 Int8(I64(h.timestamp_ms)), Bytea(h.tx_root), Bytea(h.changeset), Int8(h.tx_count),
                 Int8(h.change_count), Int8(I64(h.gas_used)), Bytea(h.hash),
                 Int8(after.next_entity_id), Int8(I64(after.next_change_seq)), Int8(delta),
                 Bytea(own.first_tx), Bytea(own.txs), Bytea(own.changes))));
  VEIL_ASSIGN_OR_RETURN(
      step.name, PreparedBlock(one_statement ? one_key : b.Key(false, genesis), step.params));
  if (!one_statement) out->push_back({kWriteLock, {}});
  for (Step& s : steps) out->push_back(std::move(s));
  out->push_back(std::move(step));
  return Status::Ok();
}

// The prepared statement of a BlockStatement of shape `key` (BlockStatement::Key), built and
// prepared on first use (a round trip per shape and connection). The cache is bounded: past
// PostgresOptions::block_shapes the shapes are all deallocated (one round trip) and prepared
// again as they recur.
Result<std::string> PostgresStore::PreparedBlock(const std::vector<std::uint32_t>& key,
                                                 const std::vector<PgParam>& params) {
  auto it = block_cache_.find(key);
  if (it != block_cache_.end()) return it->second;
  std::size_t count = 0;
  const std::string sql = BlockStatement::Sql(key, &count);
  if (count != params.size()) {
    return Internal("postgres: a block statement of " + std::to_string(count) +
                    " parameters was given " + std::to_string(params.size()));
  }
  if (block_cache_.size() >= options_.block_shapes) {
    std::string script;
    for (const auto& [text, name] : block_cache_) script += "DEALLOCATE " + name + ";";
    const Status dropped = pg_.ExecScript(script);
    if (!dropped.ok()) {
      // Some may be gone and others not: the session starts afresh at the next use (Setup
      // empties the cache).
      pg_.set_broken(true);
      return dropped;
    }
    block_cache_.clear();
    one_statement_shapes_ = 0;
  }
  const std::string name = "veil_b" + std::to_string(block_cache_.size());
  VEIL_RETURN_IF_ERROR(pg_.Prepare(name, sql, params));
  block_cache_.emplace(key, name);
  if ((key.at(0) & 1u) != 0) ++one_statement_shapes_;
  return name;
}

Result<std::uint64_t> PostgresStore::Sweep(std::uint64_t up_to_block, std::size_t max_rows) {
  if (max_rows == 0) return std::uint64_t{0};
  std::vector<Step> steps;
  steps.push_back({kSweep, {Int8(I64(up_to_block)), Int8(static_cast<std::int64_t>(max_rows))}});
  steps.push_back({kSweepClean, {Int8(I64(up_to_block))}});
  std::vector<ResultPtr> results;
  PipelineError err;
  VEIL_ASSIGN_OR_RETURN(const bool committed, RunPipeline(steps, &results, &err));
  if (!committed) return Internal("postgres: sweep: " + err.message);
  Row row(results[0].get(), 0);
  const std::uint64_t n = row.U64(0);
  VEIL_RETURN_IF_ERROR(row.status());
  return n;
}

}  // namespace veil::ledger::pg
