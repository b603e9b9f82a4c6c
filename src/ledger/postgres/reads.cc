// The PostgreSQL store's reads (postgres_store.cc) other than filtered queries: the head's
// state, entities and accounts by key, blocks, their transactions and changes, the counters,
// VerifyChain's scan; and the entity rows' statement (EntitySelect) and reader (ReadEntities)
// that the queries share.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "postgres/schema.h"
#include "postgres/store.h"

namespace veil::ledger::pg {
namespace {

BlockHeader ReadHeader(Row& row, int c) {
  BlockHeader h;
  h.chain_id = row.U64(c);
  h.number = row.U64(c + 1);
  h.parent = row.Array<32>(c + 2);
  h.timestamp_ms = row.U64(c + 3);
  h.tx_root = row.Array<32>(c + 4);
  h.changeset = row.Array<32>(c + 5);
  h.tx_count = static_cast<std::uint32_t>(row.Int(c + 6));
  h.change_count = static_cast<std::uint32_t>(row.Int(c + 7));
  h.gas_used = row.U64(c + 8);
  h.hash = row.Array<32>(c + 9);
  return h;
}

Result<std::optional<ChainState>> ParseState(const PGresult* r) {
  if (PQntuples(r) == 0) return std::optional<ChainState>();
  Row row(r, 0);
  if (row.IsNull(1) || row.IsNull(2) || row.IsNull(3)) {
    return DataLoss("postgres: the head block has no counters, or the sweeper's count is missing");
  }
  ChainState st;
  st.next_entity_id = row.Int(1);
  st.next_change_seq = row.U64(2);
  const std::int64_t stored = row.Int(3);
  st.stored_entities = static_cast<std::uint64_t>(stored);
  st.head = ReadHeader(row, 4);
  VEIL_RETURN_IF_ERROR(row.status());
  if (stored < 0) return DataLoss("negative entity count");
  return std::optional<ChainState>(st);
}

// The transactions of block `number` from its row's tx_count and txs, columns c and c + 1 of
// row i.
Result<std::vector<StoredTx>> BlockTxsFrom(const PGresult* r, int i, int c, std::uint64_t number) {
  Row row(r, i);
  const std::int64_t count = row.Int(c);
  VEIL_RETURN_IF_ERROR(row.status());
  if (row.IsNull(c + 1) || count < 0) {
    return DataLoss("block " + std::to_string(number) + ": no stored transactions");
  }
  const auto* p = reinterpret_cast<const std::uint8_t*>(PQgetvalue(r, i, c + 1));
  return DecodeBlockTxs(ByteView(p, static_cast<std::size_t>(PQgetlength(r, i, c + 1))), number,
                        static_cast<std::uint32_t>(count));
}

// A transaction's block and index by its hash: a block's first through the block row's
// tx_hash, the others through tx_index (one index probe each); for several hashes, one
// statement (LocateTxs).
constexpr const char* kLocateTxSql =
    "SELECT number AS block, 0 AS idx FROM blocks WHERE tx_hash = {h} AND number <= $2 UNION ALL "
    "SELECT block, idx FROM tx_index WHERE hash = {h} AND block <= $2 ORDER BY block LIMIT 1";

// The entities with `keys`, every column. One key as a scalar: its generic plan costs what a
// custom one does, so PostgreSQL keeps the plan; with an array it re-planned every call (184 us
// of 210 in a statement log).
Compiled EntitiesByKey(const std::vector<EntityKey>& keys, AttrSource src = AttrSource::kRowCopy) {
  Compiled c;
  if (keys.size() == 1) {
    c.params.push_back(Bytea(keys[0]));
    c.sql = EntitySelect("SELECT * FROM entities WHERE key = $1", "e.id", Projection::All(), src);
  } else {
    ArrayParam a = ByteaArray();
    for (const auto& k : keys) a.AddBytes(k);
    c.params.push_back(a.Build());
    c.sql =
        EntitySelect("SELECT * FROM entities WHERE key = ANY($1)", "e.id", Projection::All(), src);
  }
  return c;
}

// The accounts of `addresses` that have a row: address, tx_nonce, create_nonce (one address as
// a scalar, as above).
Compiled AccountsByAddress(const std::vector<Address>& addresses) {
  Compiled c;
  if (addresses.size() == 1) {
    c.params.push_back(Bytea(addresses[0]));
    c.sql = "SELECT address, tx_nonce, create_nonce FROM accounts WHERE address = $1";
  } else {
    ArrayParam a = ByteaArray();
    for (const auto& address : addresses) a.AddBytes(address);
    c.params.push_back(a.Build());
    c.sql = "SELECT address, tx_nonce, create_nonce FROM accounts WHERE address = ANY($1)";
  }
  return c;
}

// The attributes from the attr_* rows' aggregation (columns 12-15), sorted by name.
Result<std::vector<Attribute>> IndexCopy(Row& row) {
  std::vector<Attribute> out;
  const auto num_names = row.Elements(12), num_vals = row.Elements(13);
  const auto str_names = row.Elements(14), str_vals = row.Elements(15);
  if (num_names.size() != num_vals.size() || str_names.size() != str_vals.size()) {
    return DataLoss("postgres: attribute arrays differ in length");
  }
  for (std::size_t k = 0; k < num_names.size(); ++k) {
    if (num_vals[k].size() != 8) return DataLoss("postgres: malformed numeric attribute");
    out.push_back(Attribute::Num(
        num_names[k], Unbiased(static_cast<std::int64_t>(GetBe(num_vals[k].data(), 8)))));
  }
  for (std::size_t k = 0; k < str_names.size(); ++k) {
    out.push_back(Attribute::Str(str_names[k], str_vals[k]));
  }
  std::sort(out.begin(), out.end(),
            [](const Attribute& a, const Attribute& b) { return a.name < b.name; });
  return out;
}

}  // namespace

Result<std::optional<ChainState>> PostgresStore::LoadState() {
  VEIL_ASSIGN_OR_RETURN(auto r, ExecCached(kLoadStateSql, {}, /*may_carry=*/false));
  return ParseState(r.get());
}

// The next read statement (ExecCached, ExecPlannedPerCall) goes in one pipeline behind the
// state's statement: one round trip for both.
void PostgresStore::CarryStateWithNextRead() {
  carry_state_ = true;
  carried_.reset();
}

void PostgresStore::ForgetCarriedState() {
  carry_state_ = false;
  carried_.reset();
}

Result<std::optional<ChainState>> PostgresStore::TakeCarriedState() {
  carry_state_ = false;
  if (carried_ == nullptr) return LoadState();
  const ResultPtr r = std::move(carried_);
  return ParseState(r.get());
}

Result<std::vector<Entity>> PostgresStore::GetEntities(const std::vector<EntityKey>& keys) {
  if (keys.empty()) return std::vector<Entity>();
  const Compiled c = EntitiesByKey(keys);
  VEIL_ASSIGN_OR_RETURN(auto r, ExecCached(c.sql, c.params));
  return EntitiesByKeyFrom(r.get(), keys);
}

// The entities of EntitiesByKey(keys)'s result r. A row without its attribute copy makes it
// read them again with the attr_* rows' aggregation for such rows: one statement more, only
// while rows from before the copy remain.
Result<std::vector<Entity>> PostgresStore::EntitiesByKeyFrom(const PGresult* r,
                                                             const std::vector<EntityKey>& keys) {
  bool lacks_copy = false;
  VEIL_ASSIGN_OR_RETURN(auto out,
                        ReadEntities(r, Projection::All(), AttrSource::kRowCopy, &lacks_copy));
  if (!lacks_copy) return out;
  const Compiled c = EntitiesByKey(keys, AttrSource::kRowOrIndex);
  VEIL_ASSIGN_OR_RETURN(auto again, ExecCached(c.sql, c.params));
  return ReadEntities(again.get(), Projection::All(), AttrSource::kRowOrIndex);
}

// Both reads in one pipeline (one round trip), each a statement for all its keys.
Result<Store::ValidationReads> PostgresStore::GetForValidation(
    const std::vector<EntityKey>& keys, const std::vector<Address>& addresses) {
  ValidationReads out;
  std::vector<Compiled> reads;
  if (!keys.empty()) reads.push_back(EntitiesByKey(keys));
  if (!addresses.empty()) reads.push_back(AccountsByAddress(addresses));
  if (reads.empty()) return out;
  VEIL_ASSIGN_OR_RETURN(const std::vector<ResultPtr> results, ExecCachedAll(reads));
  std::size_t next = 0;
  if (!keys.empty()) {
    VEIL_ASSIGN_OR_RETURN(out.entities, EntitiesByKeyFrom(results[next++].get(), keys));
  }
  if (!addresses.empty()) {
    const PGresult* r = results[next].get();
    std::map<Address, Account> found;
    for (int i = 0; i < PQntuples(r); ++i) {
      Row row(r, i);
      Account a;
      a.address = row.Array<20>(0);
      a.tx_nonce = row.U64(1);
      a.create_nonce = row.U64(2);
      VEIL_RETURN_IF_ERROR(row.status());
      found[a.address] = a;
    }
    for (const Address& address : addresses) {
      auto it = found.find(address);
      Account a;
      a.address = address;
      out.accounts.push_back(it != found.end() ? it->second : a);
    }
  }
  return out;
}

Result<Account> PostgresStore::GetAccount(const Address& address) {
  Account a;
  a.address = address;
  VEIL_ASSIGN_OR_RETURN(auto r,
                        ExecCached("SELECT tx_nonce, create_nonce FROM accounts WHERE address = $1",
                                   {Bytea(address)}));
  if (PQntuples(r.get()) > 0) {
    Row row(r.get(), 0);
    a.tx_nonce = row.U64(0);
    a.create_nonce = row.U64(1);
    VEIL_RETURN_IF_ERROR(row.status());
  }
  return a;
}

Result<std::uint64_t> PostgresStore::LiveCount(std::uint64_t expiry) {
  // Bounded: the sweeper removes buckets more than cursor_lifetime_blocks old.
  VEIL_ASSIGN_OR_RETURN(auto r,
                        ExecCached(std::string("SELECT ") + kStoredEntitiesSql +
                                       ", coalesce((SELECT sum(n) FROM expiry WHERE block <= $1), "
                                       "0)::bigint",
                                   {Int8(I64(expiry))}));
  if (PQntuples(r.get()) != 1 || PQgetisnull(r.get(), 0, 0)) {
    return DataLoss("postgres: the head block or the sweeper's count is missing");
  }
  Row row(r.get(), 0);
  const std::int64_t stored = row.Int(0), expired = row.Int(1);
  VEIL_RETURN_IF_ERROR(row.status());
  if (expired > stored || expired < 0) {
    return DataLoss("expiry counters exceed the entity count");
  }
  return static_cast<std::uint64_t>(stored - expired);
}

// pg_prewarm (a contrib module in Debian's server package) over every table and index of the
// chain's schema, into shared_buffers.
Result<std::uint64_t> PostgresStore::Prewarm() {
  // shared_buffers serve every connection: the writer's call loads them.
  if (reader_) return std::uint64_t{0};
  VEIL_RETURN_IF_ERROR(EnsureConnected());
  // Created in public unless it exists already; called through whichever schema holds it.
  VEIL_RETURN_IF_ERROR(
      Exec("CREATE EXTENSION IF NOT EXISTS pg_prewarm SCHEMA public", {}, false).status());
  VEIL_ASSIGN_OR_RETURN(
      auto ns, Exec("SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON "
                    "n.oid = e.extnamespace WHERE e.extname = 'pg_prewarm'",
                    {}, false));
  if (PQntuples(ns.get()) != 1) return FailedPrecondition("postgres: pg_prewarm is missing");
  const std::string fn = std::string(PQgetvalue(ns.get(), 0, 0)) + ".pg_prewarm";
  VEIL_ASSIGN_OR_RETURN(
      auto r, Exec("SELECT coalesce(sum(" + fn +
                       "(c.oid)), 0)::bigint * current_setting('block_size')::bigint FROM "
                       "pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND "
                       "c.relkind IN ('r', 'i')",
                   {}));
  Row row(r.get(), 0);
  const std::uint64_t bytes = row.U64(0);
  VEIL_RETURN_IF_ERROR(row.status());
  return bytes;
}

Result<std::optional<BlockHeader>> PostgresStore::GetBlock(std::uint64_t number) {
  VEIL_ASSIGN_OR_RETURN(
      auto r, ExecCached("SELECT chain_id, number, parent, timestamp_ms, tx_root, changeset, "
                         "tx_count, change_count, gas_used, hash FROM blocks WHERE number = $1",
                         {Int8(I64(number))}));
  std::optional<BlockHeader> out;
  if (PQntuples(r.get()) > 0) {
    Row row(r.get(), 0);
    out = ReadHeader(row, 0);
    VEIL_RETURN_IF_ERROR(row.status());
  }
  return out;
}

Result<std::vector<StoredTx>> PostgresStore::GetBlockTxs(std::uint64_t number) {
  VEIL_ASSIGN_OR_RETURN(auto r, ExecCached("SELECT tx_count, txs FROM blocks WHERE number = $1",
                                           {Int8(I64(number))}));
  if (PQntuples(r.get()) == 0) return std::vector<StoredTx>();
  return BlockTxsFrom(r.get(), 0, 0, number);
}

// One statement: the transaction's place, and its block's transactions.
Result<std::optional<StoredTx>> PostgresStore::FindTx(const Hash32& hash, std::uint64_t head) {
  static const std::string kSql = "SELECT t.block, t.idx, b.tx_count, b.txs FROM (" +
                                  Fill(kLocateTxSql, {{"h", "$1"}}) +
                                  ") t LEFT JOIN blocks b ON b.number = t.block";
  VEIL_ASSIGN_OR_RETURN(auto r, ExecCached(kSql, {Bytea(hash), Int8(I64(head))}));
  if (PQntuples(r.get()) == 0) return std::optional<StoredTx>();
  Row row(r.get(), 0);
  const std::uint64_t block = row.U64(0);
  const std::int64_t index = row.Int(1);
  VEIL_RETURN_IF_ERROR(row.status());
  if (PQgetisnull(r.get(), 0, 2)) {
    return DataLoss("block " + std::to_string(block) +
                    ": a transaction's index names it, but the chain does not have it");
  }
  VEIL_ASSIGN_OR_RETURN(auto txs, BlockTxsFrom(r.get(), 0, 2, block));
  if (index < 0 || static_cast<std::uint64_t>(index) >= txs.size() ||
      txs[static_cast<std::size_t>(index)].hash != hash) {
    return DataLoss("block " + std::to_string(block) + ": transaction index disagrees");
  }
  return std::optional<StoredTx>(std::move(txs[static_cast<std::size_t>(index)]));
}

// One statement for all of `hashes`, each looked up as FindTx does.
Result<std::vector<std::optional<Store::TxLocation>>> PostgresStore::LocateTxs(
    std::span<const Hash32> hashes, std::uint64_t head) {
  ArrayParam a = ByteaArray();
  for (const Hash32& h : hashes) a.AddBytes(h);
  static const std::string kSql =
      "SELECT t.block, t.idx FROM unnest($1::bytea[]) WITH ORDINALITY AS h(hash, ord) LEFT "
      "JOIN LATERAL (" +
      Fill(kLocateTxSql, {{"h", "h.hash"}}) + ") t ON true ORDER BY h.ord";
  VEIL_ASSIGN_OR_RETURN(auto r, ExecCached(kSql, {a.Build(), Int8(I64(head))}));
  if (PQntuples(r.get()) != static_cast<int>(hashes.size())) {
    return DataLoss("postgres: a transaction lookup returned the wrong number of rows");
  }
  std::vector<std::optional<TxLocation>> out;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    if (PQgetisnull(r.get(), i, 0)) {
      out.emplace_back();
      continue;
    }
    Row row(r.get(), i);
    const TxLocation at{row.U64(0), static_cast<std::uint32_t>(row.Int(1))};
    VEIL_RETURN_IF_ERROR(row.status());
    out.emplace_back(at);
  }
  return out;
}

// One statement: one snapshot of the counter and the rows.
Result<Store::StoredRows> PostgresStore::CountStoredRows() {
  VEIL_ASSIGN_OR_RETURN(auto r, ExecCached(std::string("SELECT ") + kStoredEntitiesSql +
                                               ", (SELECT count(*) FROM entities)",
                                           {}));
  if (PQntuples(r.get()) != 1 || PQgetisnull(r.get(), 0, 0)) {
    return DataLoss("postgres: the head block or the sweeper's count is missing");
  }
  Row row(r.get(), 0);
  if (row.Int(0) < 0) return DataLoss("postgres: more entities swept than created");
  StoredRows out;
  out.counted = row.U64(0);
  out.rows = row.U64(1);
  VEIL_RETURN_IF_ERROR(row.status());
  return out;
}

Result<std::vector<Change>> PostgresStore::GetBlockChanges(std::uint64_t number) {
  VEIL_ASSIGN_OR_RETURN(auto r, ExecCached("SELECT change_count, next_change_seq, changes FROM "
                                           "blocks WHERE number = $1",
                                           {Int8(I64(number))}));
  if (PQntuples(r.get()) == 0) return std::vector<Change>();
  Row row(r.get(), 0);
  const std::int64_t count = row.Int(0);
  const bool missing = row.IsNull(1) || row.IsNull(2);
  const std::int64_t next = missing ? 0 : row.Int(1);
  VEIL_RETURN_IF_ERROR(row.status());
  if (missing || count < 0 || next < count + 1) {
    return DataLoss("block " + std::to_string(number) + ": no stored changes");
  }
  const auto* p = reinterpret_cast<const std::uint8_t*>(PQgetvalue(r.get(), 0, 2));
  return DecodeBlockChanges(ByteView(p, static_cast<std::size_t>(PQgetlength(r.get(), 0, 2))),
                            number, static_cast<std::uint64_t>(next - count),
                            static_cast<std::uint32_t>(count));
}

Result<std::vector<Entity>> PostgresStore::ScanEntities(std::int64_t after_id,
                                                        std::size_t max_rows) {
  // Both copies of the attributes, compared (VerifyChain's scan): the row's, which reads
  // return and the entity hash covers, and the attr_* rows, which queries match against.
  const std::string sql = EntitySelect("SELECT * FROM entities WHERE id > $1 ORDER BY id LIMIT $2",
                                       "e.id", Projection::All(), AttrSource::kBoth);
  VEIL_ASSIGN_OR_RETURN(
      auto r, ExecCached(sql, {Int8(after_id), Int8(static_cast<std::int64_t>(max_rows))}));
  return ReadEntities(r.get(), Projection::All(), AttrSource::kBoth);
}

// The entity columns over `inner` (a SELECT of entity rows), in `order`, with owner, creator
// and the attributes (under kRowOrIndex and kBoth, also as arrays from one index range per
// table and entity) as projected. The joins and attribute lookups run only for the rows
// `inner` returns.
std::string EntitySelect(const std::string& inner, const std::string& order, const Projection& p,
                         AttrSource src, bool account_ids) {
  const bool aggregate = p.attributes && src != AttrSource::kRowCopy;
  // With `account_ids` (a query's page) the accounts' ids come back, which ReadEntities
  // resolves through account_cache_: the two index probes a row cost 2-3 us each, about 1 ms
  // of a page of 200's server time. Reads by key (a few rows, the write path's validation
  // reads, which a cold cache would give a round trip more) and VerifyChain's scan (which must
  // see a tampered address) join the accounts.
  const bool join_accounts = !account_ids;
  std::string sql = "SELECT e.id, e.key, ";
  sql += !p.owner ? "NULL::bytea, " : join_accounts ? "o.address, " : "e.owner_id, ";
  sql += !p.creator ? "NULL::bytea, " : join_accounts ? "c.address, " : "e.creator_id, ";
  sql += p.blocks ? "e.created_block, e.updated_block, e.expires_block, "
                  : "0::bigint, 0::bigint, 0::bigint, ";
  sql += p.content_type ? "e.content_type, " : "NULL::text, ";
  sql += p.payload ? "e.payload, " : "NULL::bytea, ";
  sql += p.flags ? "e.last_change, e.flags" : "e.last_change, 0::smallint";
  if (p.attributes) sql += ", e.attrs";
  if (aggregate) sql += ", na.names, na.vals, sa.names, sa.vals";
  sql += " FROM (" + inner + ") e";
  // Outer joins: a row whose account is missing must reach ReadEntities, which refuses it,
  // not vanish from every read and from VerifyChain's scan.
  if (p.owner && join_accounts) sql += " LEFT JOIN accounts o ON o.id = e.owner_id";
  if (p.creator && join_accounts) sql += " LEFT JOIN accounts c ON c.id = e.creator_id";
  if (aggregate) {
    // Under kRowOrIndex a row with its copy reads nothing more: the aggregation is gated on
    // the copy's absence (a one-time filter per row). Names and values come out in the same
    // order; the reader sorts by name.
    const std::string gate = src == AttrSource::kBoth ? "" : " AND e.attrs IS NULL";
    sql +=
        " LEFT JOIN LATERAL (SELECT array_agg(name) AS names, array_agg(value) AS vals FROM "
        "attr_num WHERE entity_id = e.id" +
        gate +
        ") na ON true LEFT JOIN LATERAL (SELECT array_agg(name) AS names, array_agg(value) "
        "AS vals FROM attr_str WHERE entity_id = e.id" +
        gate + ") sa ON true";
  }
  sql += " ORDER BY " + order;
  return sql;
}

// The rows of a statement built by EntitySelect with `src`. Under kBoth the row's attributes must
// equal the attr_* rows'. Under kRowCopy a row without its copy cannot be read from this
// result: *lacks_copy is set and the caller reads again under kRowOrIndex
// (EntitiesByKeyFrom, Query).
Result<std::vector<Entity>> PostgresStore::ReadEntities(const PGresult* r, const Projection& p,
                                                        AttrSource src, bool* lacks_copy,
                                                        bool account_ids) {
  std::vector<Entity> out;
  const int n = PQntuples(r);
  out.reserve(static_cast<std::size_t>(n));
  const bool ids = account_ids && (p.owner || p.creator);
  std::vector<std::pair<std::int64_t, std::int64_t>> owners;  // as projected, 0 if not
  if (ids) owners.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    Row row(r, i);
    Entity e;
    e.id = row.Int(0);
    e.key = row.Array<32>(1);
    if (ids) {
      owners.emplace_back(p.owner ? row.Int(2) : 0, p.creator ? row.Int(3) : 0);
    } else {
      if ((p.owner && row.IsNull(2)) || (p.creator && row.IsNull(3))) {
        return DataLoss("entity " + ToHex(e.key) + " names an account id that does not exist");
      }
      if (p.owner) e.owner = row.Array<20>(2);
      if (p.creator) e.creator = row.Array<20>(3);
    }
    if (p.blocks) {
      e.created_block = row.U64(4);
      e.updated_block = row.U64(5);
      e.expires_block = row.U64(6);
    }
    if (p.content_type) e.content_type = row.Str(7);
    if (p.payload) e.payload = row.Blob(8);
    e.last_change = row.U64(9);
    if (p.flags) e.flags = static_cast<std::uint8_t>(row.Int(10));
    if (p.attributes) {
      const bool has_row_copy = !row.IsNull(11);
      if (!has_row_copy && src == AttrSource::kRowCopy) {
        if (lacks_copy == nullptr) return Internal("postgres: a row without its attribute copy");
        *lacks_copy = true;
        return std::vector<Entity>();
      }
      if (has_row_copy) {
        VEIL_ASSIGN_OR_RETURN(e.attributes, DecodeStoredAttributes(row.Blob(11), e.key));
      }
      if (!has_row_copy || src == AttrSource::kBoth) {
        VEIL_ASSIGN_OR_RETURN(auto index_copy, IndexCopy(row));
        if (has_row_copy) VEIL_RETURN_IF_ERROR(CheckAttributeCopies(e, index_copy));
        e.attributes = std::move(index_copy);
      }
    }
    VEIL_RETURN_IF_ERROR(row.status());
    out.push_back(std::move(e));
  }
  if (ids) VEIL_RETURN_IF_ERROR(ResolveAccounts(owners, p, &out));
  return out;
}

// Sets (*out)[i]'s owner and creator from the account ids in ids[i] (as projected), from
// account_cache_, and the ids it lacks from the table in one statement (a round trip more, only
// for accounts this session has not seen). A read sees committed rows only (each runs in a
// transaction of its own), an account row is never deleted or changed in its address, and its
// id comes from an identity sequence, which never hands out a value twice, even when the
// transaction that drew it rolls back: so a cached id never goes stale. Setup clears it.
Status PostgresStore::ResolveAccounts(const std::vector<std::pair<std::int64_t, std::int64_t>>& ids,
                                      const Projection& p, std::vector<Entity>* out) {
  std::vector<std::int64_t> missing;
  for (const auto& [owner, creator] : ids) {
    if (p.owner && account_cache_.count(owner) == 0) missing.push_back(owner);
    if (p.creator && account_cache_.count(creator) == 0) missing.push_back(creator);
  }
  if (!missing.empty()) {
    std::sort(missing.begin(), missing.end());
    missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
    if (account_cache_.size() + missing.size() > kAccountCacheSize) account_cache_.clear();
    ArrayParam a = Int8Array();
    for (std::int64_t id : missing) a.AddInt8(id);
    VEIL_ASSIGN_OR_RETURN(
        auto r, ExecCached("SELECT id, address FROM accounts WHERE id = ANY($1)", {a.Build()}));
    for (int i = 0; i < PQntuples(r.get()); ++i) {
      Row row(r.get(), i);
      const std::int64_t id = row.Int(0);
      const Address address = row.Array<20>(1);
      VEIL_RETURN_IF_ERROR(row.status());
      account_cache_[id] = address;
    }
  }
  return SetAccounts(
      ids, p,
      [&](std::int64_t id, const Entity& e) -> Result<Address> {
        auto it = account_cache_.find(id);
        if (it == account_cache_.end()) return UnknownAccount(e, id);
        return it->second;
      },
      out);
}

// The expiry clock in chain_params. A schema that a build before the clock set up has no such
// table: its chains count expiry in blocks, and the table is made when a chain is created in it.
Result<std::optional<std::uint64_t>> PostgresStore::LoadExpiryClock() {
  VEIL_ASSIGN_OR_RETURN(auto t, Exec("SELECT to_regclass('chain_params') IS NOT NULL", {}, false));
  if (PQntuples(t.get()) != 1 || std::string(PQgetvalue(t.get(), 0, 0)) != "t") {
    return std::optional<std::uint64_t>();
  }
  VEIL_ASSIGN_OR_RETURN(
      auto r, Exec("SELECT value FROM chain_params WHERE name = 'expiry_clock_ms'", {}, false));
  if (PQntuples(r.get()) == 0) return std::optional<std::uint64_t>();
  const long long v = std::atoll(PQgetvalue(r.get(), 0, 0));
  if (v < 0) return DataLoss("postgres: negative expiry clock");
  return std::optional<std::uint64_t>(static_cast<std::uint64_t>(v));
}

Status PostgresStore::RecordExpiryClock(std::uint64_t ms) {
  VEIL_RETURN_IF_ERROR(Exec("CREATE TABLE IF NOT EXISTS chain_params(name text PRIMARY KEY, "
                            "value bigint NOT NULL)",
                            {}, false)
                           .status());
  return Exec(
             "INSERT INTO chain_params(name, value) VALUES ('expiry_clock_ms', $1) ON CONFLICT "
             "(name) DO NOTHING",
             {Int8(I64(ms))}, false)
      .status();
}

}  // namespace veil::ledger::pg
