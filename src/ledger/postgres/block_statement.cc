// BlockStatement and the write statements (block_statement.h): their SQL text.
#include "postgres/block_statement.h"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "postgres/schema.h"

namespace veil::ledger::pg {
namespace {

// With the chain's write lock for this transaction (VEIL_PG_XACT_LOCK, schema.h) in kWriteLock
// (VEIL_PG_WRITE_LOCK), generic plans for the statements after it, until
// the transaction ends (set_config with is_local, which SET LOCAL is, without its warning outside
// an explicit block). The array form of the block statement takes arrays, whose lengths a custom
// plan knows and a generic plan guesses (10), so PostgreSQL re-planned it at every execution:
// 75-93 us of planning for the entity insert alone, which then ran in 132 us; its generic plan
// runs in 44 us (a statement log of the one-entity benchmark). A generic plan is made for the
// tables' sizes when it is built and rebuilt when autovacuum's ANALYZE invalidates it (every 10%
// or so of growth), so a plan that starts as a scan of a tiny table becomes index probes as it
// grows. The one-statement form (BlockStatement) takes scalar parameters, whose generic plan
// costs what a custom one does, so the plan cache settles on it unasked and needs no set_config
// (it takes the lock in its CTE `l`). Each statement of a block costs 10-20 us of server time
// however little it does (bind, executor set-up, a result).
#define VEIL_PG_WRITE_LOCK \
  VEIL_PG_XACT_LOCK ", set_config('plan_cache_mode', 'force_generic_plan', true)"
// The parent check of a block's statement: `pn`, the parent's row (number $1, hash $2) with its
// entity counter, from which the new rows' counters follow; the block's row goes in only where
// pn has that row and no block follows it (VEIL_PG_PARENT_IS_HEAD), else the division by zero
// aborts the transaction (plain SQL, no procedural language: see the notes on Postgres-compatible
// databases). The chain's write lock is held before pn is read: in the array form by the
// statement before (kWriteLock), whose wait ends before this statement takes its snapshot, so
// the check sees every block committed; in the one-statement form by its CTE `l`, which pn reads.
// There the snapshot predates a wait for the lock, so a writer that waited while another wrote
// its parent's successor passes the check and then hits that block's primary key (the block's
// row is the main INSERT, which runs before the parts it does not read): HeadConflict either way.
#define VEIL_PG_PARENT \
  "pn AS (SELECT number, entities_net FROM blocks WHERE number = $1 AND hash = $2"
#define VEIL_PG_PARENT_IS_HEAD                                                          \
  "1 / (SELECT count(*)::int FROM pn WHERE pn.entities_net IS NOT NULL AND NOT EXISTS " \
  "(SELECT 1 FROM blocks x WHERE x.number > pn.number)) = 1"

// A part's statement. Its rows stand at {rows}, a row source (`unnest` of one array a column, or
// a VALUES list of scalar parameters), or at {in}, a list of ids to match (`= ANY` of an array,
// or `IN` a list of scalars); `columns`: the rows' types. Parameters are numbered from $1 at the
// rows.
struct PartText {
  const char* name;
  const char* sql;
  std::vector<const char*> columns;
};

const PartText& TextOf(BlockPart p) {
  static const PartText kParts[kBlockPartCount] = {
      // The NOT EXISTS of ace keeps the identity sequence from being consumed by conflicting
      // rows.
      {"acs",
       "INSERT INTO accounts(address, tx_nonce, create_nonce) SELECT * FROM {rows} AS v ON "
       "CONFLICT (address) DO UPDATE SET tx_nonce = excluded.tx_nonce, create_nonce = "
       "excluded.create_nonce",
       {"bytea", "int8", "int8"}},
      {"ace",
       "INSERT INTO accounts(address, tx_nonce, create_nonce) SELECT v.a, 0, 0 FROM {rows} AS "
       "v(a) WHERE NOT EXISTS (SELECT 1 FROM accounts x WHERE x.address = v.a) ON CONFLICT "
       "(address) DO NOTHING",
       {"bytea"}},
      {"dn", "DELETE FROM attr_num WHERE entity_id {in} RETURNING 1", {"int8"}},
      {"ds", "DELETE FROM attr_str WHERE entity_id {in} RETURNING 1", {"int8"}},
      {"de", "DELETE FROM entities WHERE id {in}", {"int8"}},
      // ue, ie: the entity rows, with account ids from PgAccountId (an index probe a row, not a
      // join: a join's hash tables cost 30 us of executor set-up in a one-entity block; and an
      // account that is missing makes the NOT NULL column refuse the row instead of a join
      // dropping it in silence).
      {"ue",
       "UPDATE entities e SET owner_id = {owner}, content_type = u.ct, payload = u.p, "
       "updated_block = u.ub, expires_block = u.eb, last_change = u.lc, attrs = u.at FROM {rows} "
       "AS u(id, owner, ct, p, ub, eb, lc, at) WHERE e.id = u.id",
       {"int8", "bytea", "text", "bytea", "int8", "int8", "int8", "bytea"}},
      {"ie",
       "INSERT INTO entities(id, key, owner_id, creator_id, content_type, payload, "
       "created_block, updated_block, expires_block, last_change, attrs, flags) SELECT u.id, "
       "u.key, {owner}, {creator}, u.ct, u.p, u.cb, u.ub, u.eb, u.lc, u.at, u.fl FROM {rows} AS "
       "u(id, key, owner, creator, ct, p, cb, ub, eb, lc, at, fl)",
       {"int8", "bytea", "bytea", "bytea", "text", "bytea", "int8", "int8", "int8", "int8", "bytea",
        "int8"}},
      // {after}: once dn's or ds's deletions are done.
      {"an",
       "INSERT INTO attr_num(entity_id, name, value) SELECT * FROM {rows} AS v{after}",
       {"int8", "text", "int8"}},
      {"ans",
       "INSERT INTO attr_str(entity_id, name, value) SELECT * FROM {rows} AS v{after}",
       {"int8", "text", "text"}},
      // A bucket that reaches zero stays until the sweeper passes its block (kSweepClean): a
      // zero adds nothing to LiveCount.
      {"ex",
       "INSERT INTO expiry(block, n) SELECT * FROM {rows} AS v ON CONFLICT (block) DO UPDATE "
       "SET n = expiry.n + excluded.n",
       {"int8", "int8"}},
      {"ti",
       "INSERT INTO tx_index(hash, block, idx) SELECT * FROM {rows} AS v",
       {"bytea", "int8", "int8"}},
      // A group's earlier blocks, each with its counters: entities_net from the parent's (pn)
      // and the block's change in the stored rows since the group's parent (nd); tx_hash an
      // empty value where the block has no transaction (NULL in the row).
      {"bl",
       "INSERT INTO blocks(number, chain_id, parent, timestamp_ms, tx_root, changeset, tx_count, "
       "change_count, gas_used, hash, next_entity_id, next_change_seq, entities_net, tx_hash, "
       "txs, changes) SELECT v.n, v.c, v.p, v.t, v.r, v.s, v.tc, v.cc, v.g, v.h, v.ne, v.nc, "
       "(SELECT entities_net FROM pn) + v.nd, NULLIF(v.th, ''::bytea), v.tx, v.ch FROM {rows} "
       "AS v(n, c, p, t, r, s, tc, cc, g, h, ne, nc, nd, th, tx, ch)",
       {"int8", "int8", "bytea", "int8", "bytea", "bytea", "int8", "int8", "int8", "bytea", "int8",
        "int8", "int8", "bytea", "bytea", "bytea"}},
  };
  return kParts[p];
}
// The block's row from its sixteen parameters (the main INSERT's rows, BlockStatement::Sql).
constexpr const char* kBlockRowSelect =
    "SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, (SELECT entities_net FROM pn) + "
    "$13, NULLIF($14, ''::bytea), $15, $16";
constexpr const char* kMainBlockInto =
    "INSERT INTO blocks(number, chain_id, parent, timestamp_ms, tx_root, changeset, tx_count, "
    "change_count, gas_used, hash, next_entity_id, next_change_seq, entities_net, tx_hash, txs, "
    "changes) ";

// Part p's text with its rows as arrays (rows < 0) or as `rows` rows of scalar parameters.
std::string PartSql(BlockPart p, long rows) {
  const PartText& t = TextOf(p);
  std::string list;
  std::size_t k = 0;
  if (rows < 0) {
    for (const char* type : t.columns) {
      list += (k == 0 ? "$" : ", $");
      list += std::to_string(++k) + "::" + type + "[]";
    }
    return Fill(t.sql, {{"rows", "unnest(" + list + ")"}, {"in", "= ANY(" + list + ")"}});
  }
  std::string in;  // one column's rows as an IN list: (($1), ($2)) would compare rows
  for (long r = 0; r < rows; ++r) {
    list += r == 0 ? "(" : ", (";
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      ++k;
      list += (c == 0 ? "$" : ", $") + std::to_string(k) + "::" + t.columns[c];
      in += (k == 1 ? "$" : ", $") + std::to_string(k) + "::" + t.columns[c];
    }
    list += ")";
  }
  return Fill(t.sql, {{"rows", "(VALUES " + list + ")"}, {"in", "IN (" + in + ")"}});
}

// The account id of the address `column` inside a block's statement: from the account parts'
// rows when the statement has them (rows it writes are invisible to its own reads of accounts),
// else from the table.
std::string PgAccountId(std::string_view column, bool set, bool ensure) {
  const std::string c(column);
  std::string out = "COALESCE(";
  if (set) out += "(SELECT s.id FROM acs s WHERE s.address = " + c + "), ";
  if (ensure) out += "(SELECT n.id FROM ace n WHERE n.address = " + c + "), ";
  out += "(SELECT a.id FROM accounts a WHERE a.address = " + c + "))";
  return out;
}

// The elements of a one-dimensional array parameter in the binary format ArrayParam::Build
// writes, each as a scalar parameter of the element type; false if `a` is not such an array.
bool AppendElements(const PgParam& a, std::vector<std::string_view>* out, Oid* element) {
  const std::string& d = a.data;
  if (d.size() < 12) return false;
  const std::uint64_t ndim = GetBe(d.data(), 4);
  *element = static_cast<Oid>(GetBe(d.data() + 8, 4));
  if (ndim == 0) return d.size() == 12;
  if (ndim != 1 || d.size() < 20) return false;
  const std::uint64_t n = GetBe(d.data() + 12, 4);
  std::size_t at = 20;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (d.size() - at < 4) return false;
    const std::uint64_t len = GetBe(d.data() + at, 4);
    at += 4;
    if (len > d.size() - at) return false;  // also a NULL's length, 0xFFFFFFFF
    out->emplace_back(d.data() + at, len);
    at += len;
  }
  return at == d.size();
}

}  // namespace

std::span<const StmtDef> WriteStmtDefs() {
  static const StmtDef kDefs[kWriteStmtCount] = {
      // A block of many accounts writes them in statements of their own (AppendBlockSteps).
      {PartSql(kAccountsSet, -1), {kByteaArrayOid, kInt8ArrayOid, kInt8ArrayOid}},
      {PartSql(kAccountsEnsure, -1), {kByteaArrayOid}},
      // kSweep: one statement; SKIP LOCKED lets two nodes sweep at once without waiting, and the
      // sweeper's count moves by the rows this statement actually deleted.
      {"WITH v AS (SELECT id FROM entities WHERE expires_block <= $1 ORDER BY expires_block "
       "LIMIT $2 FOR UPDATE SKIP LOCKED), d AS (DELETE FROM entities e USING v WHERE e.id = v.id "
       "RETURNING e.id, e.expires_block), dn AS (DELETE FROM attr_num WHERE entity_id IN "
       "(SELECT id FROM d)), ds AS (DELETE FROM attr_str WHERE entity_id IN (SELECT id FROM d)), "
       "x AS (UPDATE expiry SET n = expiry.n - c.k FROM (SELECT expires_block, count(*) AS k "
       "FROM d GROUP BY expires_block) c WHERE expiry.block = c.expires_block), h AS (UPDATE "
       "swept SET n = n + (SELECT count(*) FROM d) WHERE id = 1 AND EXISTS (SELECT 1 FROM d)) "
       "SELECT count(*) FROM d",
       {kInt8Oid, kInt8Oid}},
      {"DELETE FROM expiry WHERE block <= $1 AND n = 0", {kInt8Oid}},
      // kWriteLock: VEIL_PG_WRITE_LOCK, the first statement of a block written in the array
      // form (the one-statement form takes the lock in its CTE `l`).
      {"SELECT " VEIL_PG_WRITE_LOCK, {}},
  };
  return kDefs;
}

Result<std::vector<PgParam>> BlockStatement::TakeParams(bool one_statement,
                                                        std::vector<PgParam> parent,
                                                        std::vector<PgParam> row) {
  std::vector<PgParam> out = std::move(parent);
  out.reserve(out.size() + static_cast<std::size_t>(one_statement ? 3 * rows() : 40) + row.size());
  for (unsigned i = 0; i < kBlockPartCount; ++i) {
    const auto p = static_cast<BlockPart>(i);
    if (!Has(p)) continue;
    if (!one_statement) {
      for (auto& c : columns_[p]) out.push_back(std::move(c));
      continue;
    }
    std::vector<std::vector<std::string_view>> cells(columns_[p].size());
    std::vector<Oid> types(columns_[p].size());
    for (std::size_t c = 0; c < columns_[p].size(); ++c) {
      if (!AppendElements(columns_[p][c], &cells[c], &types[c]) ||
          cells[c].size() != static_cast<std::size_t>(rows_[p])) {
        return Internal(std::string("postgres: the ") + TextOf(p).name +
                        " part's columns differ in length");
      }
    }
    for (long r = 0; r < rows_[p]; ++r) {
      for (std::size_t c = 0; c < cells.size(); ++c) {
        out.push_back({types[c], std::string(cells[c][static_cast<std::size_t>(r)])});
      }
    }
  }
  for (auto& h : row) out.push_back(std::move(h));
  return out;
}

std::string BlockStatement::Sql(const std::vector<std::uint32_t>& key, std::size_t* param_count) {
  const bool one_statement = (key.at(0) & 1u) != 0, genesis = (key.at(0) & 2u) != 0;
  BlockStatement shape;
  shape.parts_ = key.at(1);
  std::string out = "WITH ";
  std::size_t n = 0;
  if (one_statement) out += "l AS MATERIALIZED (SELECT " VEIL_PG_XACT_LOCK "), ";
  if (genesis) {
    out += "pn AS (SELECT 0::bigint AS entities_net)";
  } else {
    out += VEIL_PG_PARENT;
    out += one_statement ? " AND EXISTS (SELECT 1 FROM l))" : ")";
    n = 2;
  }
  std::size_t next_count = 2;
  const bool set = shape.Has(kAccountsSet), ensure = shape.Has(kAccountsEnsure);
  for (unsigned i = 0; i < kBlockPartCount; ++i) {
    const auto p = static_cast<BlockPart>(i);
    if (!shape.Has(p)) continue;
    const long rows = one_statement ? static_cast<long>(key.at(next_count++)) : -1;
    std::string sql = PartSql(p, rows);
    if (p == kAccountsSet || p == kAccountsEnsure) sql += " RETURNING id, address";
    const char* before = p == kAttrNum ? "dn" : p == kAttrStr ? "ds" : nullptr;
    sql = Fill(std::move(sql),
               {{"owner", PgAccountId("u.owner", set, ensure)},
                {"creator", PgAccountId("u.creator", set, ensure)},
                {"after", before != nullptr && shape.Has(p == kAttrNum ? kDropNum : kDropStr)
                              ? std::string(" WHERE (SELECT count(*) FROM ") + before + ") >= 0"
                              : std::string()}});
    out += ", ";
    out += TextOf(p).name;
    out += " AS (";
    Renumbered(sql, &n, &out);
    out += ")";
  }
  out += " ";
  out += kMainBlockInto;
  // $13: the block's change in the stored rows; $14: its first transaction's hash, empty for
  // a block without one.
  Renumbered(
      genesis ? kBlockRowSelect : kBlockRowSelect + std::string(" WHERE ") + VEIL_PG_PARENT_IS_HEAD,
      &n, &out);
  *param_count = n;
  return out;
}

void BlockStatement::Renumbered(std::string_view sql, std::size_t* n, std::string* out) {
  const std::size_t base = *n;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    *out += sql[i];
    if (sql[i] != '$') continue;
    std::size_t k = 0;
    while (i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9') {
      k = k * 10 + static_cast<std::size_t>(sql[++i] - '0');
    }
    *out += std::to_string(base + k);
    *n = std::max(*n, base + k);
  }
}

}  // namespace veil::ledger::pg
