// The PostgreSQL store's filtered reads (postgres_store.cc): Query, Count and their Explain, the
// filter compiled to SQL with bound parameters only (sql_filter.h, through this backend's Dialect),
// and the choice of plan for a page (docs/notes/ledger.md, "Query plans").
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "postgres/store.h"
#include "sql_filter.h"

namespace veil::ledger::pg {
namespace {

// The smallest valid UTF-8 string above every string that starts with `prefix` (bytewise, which
// is code-point order): the last code point incremented (U+10FFFF dropped and its predecessor
// incremented instead). Empty: there is no such bound.
std::string Utf8PrefixUpperBound(std::string prefix) {
  while (!prefix.empty()) {
    std::size_t start = prefix.size() - 1;
    while (start > 0 && (static_cast<unsigned char>(prefix[start]) & 0xC0) == 0x80) --start;
    const std::string cp_bytes = prefix.substr(start);
    prefix.resize(start);
    std::uint32_t cp = 0;
    const auto b0 = static_cast<unsigned char>(cp_bytes[0]);
    const std::size_t len = cp_bytes.size();
    if (len == 1) {
      cp = b0;
    } else if (len == 2) {
      cp = (b0 & 0x1Fu) << 6 | (static_cast<unsigned char>(cp_bytes[1]) & 0x3Fu);
    } else if (len == 3) {
      cp = (b0 & 0x0Fu) << 12 | (static_cast<unsigned char>(cp_bytes[1]) & 0x3Fu) << 6 |
           (static_cast<unsigned char>(cp_bytes[2]) & 0x3Fu);
    } else {
      cp = (b0 & 0x07u) << 18 | (static_cast<unsigned char>(cp_bytes[1]) & 0x3Fu) << 12 |
           (static_cast<unsigned char>(cp_bytes[2]) & 0x3Fu) << 6 |
           (static_cast<unsigned char>(cp_bytes[3]) & 0x3Fu);
    }
    if (cp >= 0x10FFFF) continue;
    ++cp;
    if (cp == 0xD800) cp = 0xE000;  // skip the surrogates
    if (cp < 0x80) {
      prefix.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      prefix.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      prefix.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      prefix.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      prefix.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      prefix.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      prefix.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      prefix.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      prefix.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      prefix.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
    return prefix;
  }
  return {};
}

// SQLite GLOB (`*`, `?`, `[set]`, `[^set]`, ranges; no escape character) as an anchored
// PostgreSQL regular expression. nullopt: the pattern can match nothing (an unterminated set).
std::optional<std::string> GlobToRegex(const std::string& glob) {
  std::string re = "^(?:";
  for (std::size_t i = 0; i < glob.size(); ++i) {
    const char c = glob[i];
    if (c == '*') {
      re += ".*";
    } else if (c == '?') {
      re += ".";
    } else if (c == '[') {
      std::size_t j = i + 1;
      std::string set = "[";
      if (j < glob.size() && glob[j] == '^') {
        set += '^';
        ++j;
      }
      bool first = true;
      bool closed = false;
      for (; j < glob.size(); ++j, first = false) {
        const char s = glob[j];
        if (s == ']' && !first) {
          closed = true;
          break;
        }
        // Inside a bracket expression an ARE treats `\` as an escape and `[` may open a
        // class name; escape both (and `]`, which SQLite takes literally in first position).
        if (s == '\\' || s == '[' || s == ']') set += '\\';
        set += s;
      }
      if (!closed) return std::nullopt;
      re += set + "]";
      i = j;
    } else {
      if (std::strchr(".^$|()[]{}*+?\\", c) != nullptr) re += '\\';
      re += c;
    }
  }
  re += ")$";
  return re;
}

// A string literal PostgreSQL text can hold: valid UTF-8 without NUL.
bool ValidPgText(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0) return false;
    std::size_t len = 0;
    std::uint32_t min = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2;
      min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      min = 0x10000;
    } else {
      return false;
    }
    if (s.size() - i < len) return false;
    std::uint32_t cp = c & (0x7Fu >> len);
    for (std::size_t k = 1; k < len; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = cp << 6 | (d & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000)) return false;
    i += len;
  }
  return true;
}

std::string Describe(const PgParam& p) {
  if (p.type == kInt8Oid) return std::to_string(static_cast<std::int64_t>(GetBe(p.data.data(), 8)));
  if (p.type == kTextOid) return "'" + p.data + "'";
  if (p.type == kByteaOid) {
    return "'\\x" +
           ToHex(ByteView(reinterpret_cast<const std::uint8_t*>(p.data.data()), p.data.size())) +
           "'";
  }
  return "<array of " + std::to_string(p.data.size()) + " bytes>";
}

// ---- Query compilation: AST -> SQL with bound parameters only. ----

// A page: driven by an attribute equality when the filter has one (docs/notes/ledger.md,
// "Query plans"): a join from the driver's index in id order, which the planner can walk
// backwards and stop after a page; PostgreSQL's statistics choose among the other orders.
// True when every predicate of `e` is an equality or an IN list, under AND and OR only.
bool OnlyEqualities(const query::Expr& e) {
  switch (e.kind) {
    case query::Expr::Kind::kAll:
      return true;
    case query::Expr::Kind::kNot:
      return false;
    case query::Expr::Kind::kPredicate:
      return e.predicate.op == query::CmpOp::kEq || e.predicate.op == query::CmpOp::kIn;
    case query::Expr::Kind::kAnd:
    case query::Expr::Kind::kOr:
      return std::all_of(e.children.begin(), e.children.end(),
                         [](const query::Expr& c) { return OnlyEqualities(c); });
  }
  return false;
}

// ` ORDER BY` a meta field's column on alias `a` (empty for other drivers): a block number's,
// $key's, or an account's, whose ids a driver's rows give as a scalar subquery or an array.
std::string IndexOrder(const sql::Driver& driver) {
  if (!driver.meta) return "";
  const char* column = sql::MetaColumn(driver.Predicates()[0]->field);
  return column == nullptr ? "" : std::string(" ORDER BY a.") + column;
}

// True when a statement of `plan` over the driver's index rows (kProbe: its count too) is
// planned for its values rather than kept generic. A generic plan guesses a third of the
// table for each bound of a block number and, for an owner, the rows of an average account;
// under the count's LIMIT a sequential scan then looked cheaper than the field's index, and it
// reads the whole table when the matches are the newest rows (a test caught it on 1,500
// entities). So: a meta field's collection (no LIMIT); a block number's, $key's or an
// account's count keeps its generic plan, its rows taken in the order of the field's index
// (IndexOrder), which a sequential scan could give only by sorting every match (one
// account's id is a scalar subquery and an IN list's ids an array, AccountIdArrays, both the
// index's keys in any plan; an IN list's count keeps its generic plan too); a
// walk probes each entity's row by its primary key, which any plan takes.
bool PlannedForValues(const sql::Driver& driver, RangePlan plan) {
  if (!driver.meta || plan == RangePlan::kWalk) return false;
  return plan == RangePlan::kCollect || IndexOrder(driver).empty();
}

bool PlannedForValues(const std::vector<sql::Driver>& drivers) {
  return std::any_of(drivers.begin(), drivers.end(),
                     [](const sql::Driver& d) { return PlannedForValues(d, RangePlan::kProbe); });
}

// The left side of a driver's `id < cursor`: an attribute's entity id, which an equality's
// (name, value, entity_id) index bounds; a meta field's entity id as an expression, which no
// index serves (the field's own index holds no id order PostgreSQL can bound, and a plan that
// walked the primary key down from the cursor would test the field on every entity below it
// when the field's matches are old).
std::string IdBelow(const sql::Driver& driver, const sql::DriverRows& rows) {
  return (driver.meta ? "(" + rows.id + " + 0)" : rows.id) + " < ";
}

// The expired entities not yet swept at $1 (bounded: the sweeper removes buckets more than
// cursor_lifetime_blocks old).
constexpr const char* kBacklogSql =
    "SELECT coalesce(sum(n), 0)::bigint FROM expiry WHERE block <= $1";

// PostgreSQL's side of the shared filter compiler: `$n` placeholders with typed binary
// parameters, IN lists as one array parameter (the statement text does not depend on the
// list's length), globs as anchored regular expressions, meta fields on `e.` directly.
class Dialect final : public sql::SqlDialect {
 public:
  explicit Dialect(Compiled* c) : c_(c) {}
  Result<std::string> Bind(const query::Literal& v, bool biased) override {
    VEIL_ASSIGN_OR_RETURN(PgParam p, ToParam(v, biased));
    return c_->Add(std::move(p));
  }
  Result<std::string> InList(const std::string& column, const std::vector<query::Literal>& values,
                             bool biased) override {
    const auto& first = values[0];
    ArrayParam a = first.index() == 0   ? Int8Array()
                   : first.index() == 1 ? TextArray()
                                        : ByteaArray();
    for (const auto& v : values) {
      VEIL_ASSIGN_OR_RETURN(PgParam one, ToParam(v, biased));
      a.Add(one.data);
    }
    return column + " = ANY(" + c_->Add(a.Build()) + ")";
  }
  Result<std::string> GlobMatch(const std::string& column, const std::string& pattern) override {
    if (!ValidPgText(pattern)) return InvalidArgument("query: a string is not UTF-8 without NUL");
    const auto re = GlobToRegex(pattern);
    if (!re) return std::string("false");  // an unterminated set matches nothing (as in SQLite)
    return column + " ~ " + c_->Add(Text(*re));
  }
  std::string PrefixUpperBound(std::string prefix) const override {
    return Utf8PrefixUpperBound(std::move(prefix));
  }
  const char* True() const override { return "true"; }
  // entities.content_type has the database's collation (attribute columns are "C").
  std::string Bytewise(const std::string& column) const override {
    return column + " COLLATE \"C\"";
  }
  bool MetaViaIdSubquery() const override { return false; }
  const char* ProbeEnd() const override { return " OFFSET 0"; }
  bool AccountIdArrays() const override { return true; }
  std::string Unindexed(const std::string& column, bool numeric) const override {
    return "(" + column + (numeric ? " + 0)" : " || '')");
  }

 private:
  static Result<PgParam> ToParam(const query::Literal& v, bool numeric_biased) {
    if (const auto* n = std::get_if<std::uint64_t>(&v)) {
      return Int8(numeric_biased ? Biased(*n) : I64(*n));
    }
    if (const auto* s = std::get_if<std::string>(&v)) {
      if (!ValidPgText(*s)) return InvalidArgument("query: a string is not UTF-8 without NUL");
      return Text(*s);
    }
    return Bytea(std::get<Bytes>(v));
  }
  Compiled* c_;
};

}  // namespace

Result<StorePage> PostgresStore::Query(const QueryRequest& r) {
  BudgetScope budget(*this);
  return budget.Map(QueryRead(r));
}

Result<StorePage> PostgresStore::QueryRead(const QueryRequest& r) {
  StorePage page;
  bool lacks_copy = false;
  VEIL_ASSIGN_OR_RETURN(page.entities, QueryRows(r, AttrSource::kRowCopy, &lacks_copy));
  if (lacks_copy) {
    // A row from before the attribute copy: the page again, with the attr_* rows' aggregation
    // for such rows (one statement more; the first one carried the head's state, if asked).
    VEIL_ASSIGN_OR_RETURN(page.entities, QueryRows(r, AttrSource::kRowOrIndex, nullptr));
  }
  if (page.entities.size() > r.limit) {
    page.entities.resize(r.limit);
    page.more = true;
  }
  // PostgreSQL keeps no cheap per-statement row counter; rows returned is the lower bound.
  page.stats.rows_scanned = page.entities.size();
  for (const auto& e : page.entities) page.stats.bytes_returned += ReturnedBytes(e);
  return page;
}

Result<StoreCount> PostgresStore::Count(const query::Expr& filter, ReadPoint at,
                                        std::uint64_t cap) {
  BudgetScope budget(*this);
  return budget.Map(CountRead(filter, at, cap));
}

Result<StoreCount> PostgresStore::CountRead(const query::Expr& filter, ReadPoint at,
                                            std::uint64_t cap) {
  VEIL_ASSIGN_OR_RETURN(const Compiled c, CompileCount(filter, at, cap));
  // Planned per call, a range's count too: D's test of liveness (an OR of two inequalities on
  // the expiry and creation columns) is a scan of every entity in a generic plan, which
  // guesses a third of the table for each side (717 ms at 10^6 in a probe), and a bitmap OR
  // of two index ranges for its values. The backlog that chose the statement's form is read
  // again in the same round trip when the head has moved since.
  // (An undriven count has one form: it needs no backlog.)
  ResultPtr backlog;
  const bool stale = c.driven && (!backlog_ || backlog_->first != at.expiry);
  VEIL_ASSIGN_OR_RETURN(auto r, ExecPlannedPerCall(c.sql, c.params, stale ? kBacklogSql : nullptr,
                                                   {Int8(I64(at.expiry))}, &backlog));
  if (stale) {
    Row b(backlog.get(), 0);
    const std::int64_t n = b.Int(0);
    VEIL_RETURN_IF_ERROR(b.status());
    if (n < 0) return DataLoss("negative expiry bucket sum");
    backlog_.emplace(at.expiry, static_cast<std::uint64_t>(n));
  }
  Row row(r.get(), 0);
  StoreCount out;
  out.count = row.U64(0);
  const std::uint64_t nonlive = row.U64(1);
  VEIL_RETURN_IF_ERROR(row.status());
  if (nonlive > out.count) return DataLoss("count: more non-live matches than matches");
  out.count -= nonlive;
  out.stats.rows_scanned = out.count + nonlive;
  if (out.count > cap) {
    out.count = cap;
    out.capped = true;
  }
  return out;
}

Result<std::string> PostgresStore::Explain(const QueryRequest& r) {
  BudgetScope budget(*this);
  return budget.Map(ExplainRead(r));
}

Result<std::string> PostgresStore::ExplainRead(const QueryRequest& r) {
  std::vector<sql::Driver> drivers;
  if (r.filter != nullptr) drivers = sql::Drivers(*r.filter);
  const auto range = sql::WalkDriver(drivers);
  if (range == drivers.end()) {
    VEIL_ASSIGN_OR_RETURN(Compiled c, CompileSelect(r));
    VEIL_ASSIGN_OR_RETURN(std::string planned, ExplainCompiled(c));
    if (r.filter == nullptr || r.filter->kind == query::Expr::Kind::kAll || !drivers.empty()) {
      return planned;
    }
    // A filter without a driver of its own: the walk (UndrivenRows; here as if from the top of
    // the id space), else the planned collection (an OR's when its branches' drivers are
    // narrow).
    const sql::WalkWindow window = sql::RangeWalkWindow(
        r.before_id > 0 ? r.before_id : INT64_MAX / 2, static_cast<std::uint64_t>(r.limit) + 1);
    VEIL_ASSIGN_OR_RETURN(Compiled walk, WalkSelect(r, AttrSource::kRowCopy, window));
    VEIL_ASSIGN_OR_RETURN(std::string walked, ExplainCompiled(walk, /*generic=*/true));
    return "walk:\n" + walked + "collection:\n" + planned;
  }
  // RangeRows' statements for the first range: the probe (the page when the driver is narrow),
  // the walk of the window below the cursor (here as if from the top of the id space), the
  // collection (by this driver, or the one with the fewest entries). A driver of known bound
  // ($key) drives, and its probe is the page.
  const auto bounded = sql::BoundedDriver(drivers);
  const sql::Driver& driver = bounded ? drivers[*bounded] : *range;
  const sql::WalkWindow window = sql::RangeWalkWindow(r.before_id > 0 ? r.before_id : INT64_MAX / 2,
                                                      static_cast<std::uint64_t>(r.limit) + 1);
  std::string out;
  for (const auto& [plan, label] :
       {std::pair{RangePlan::kProbe, "probe"}, std::pair{RangePlan::kWalk, "walk"},
        std::pair{RangePlan::kCollect, "collection"}}) {
    if (bounded && plan != RangePlan::kProbe) break;
    VEIL_ASSIGN_OR_RETURN(Compiled c, RangeSelect(r, driver, AttrSource::kRowCopy, plan, window));
    VEIL_ASSIGN_OR_RETURN(std::string one,
                          ExplainCompiled(c, /*generic=*/!PlannedForValues(driver, plan)));
    out += (out.empty() ? "" : std::string(label) + ":\n") + one;
  }
  return out;
}

Result<std::string> PostgresStore::ExplainCount(const query::Expr& filter, ReadPoint at,
                                                std::uint64_t cap) {
  // The driver's choice runs the drivers' capped counts, as Count does.
  BudgetScope budget(*this);
  return budget.Map([&]() -> Result<std::string> {
    VEIL_ASSIGN_OR_RETURN(const Compiled c, CompileCount(filter, at, cap));
    return ExplainCompiled(c);  // planned for its values, as Count runs it
  }());
}

// `generic`: the plan a statement prepared and run with its generic plan has (ExecCached's
// force_generic), not the one planned for these values.
Result<std::string> PostgresStore::ExplainCompiled(const Compiled& c, bool generic) {
  std::string out = "sql: " + c.sql + "\nparams:";
  for (const auto& p : c.params) out += " " + Describe(p);
  out += generic ? "\ngeneric plan:\n" : "\nplan:\n";
  std::string explain = "EXPLAIN " + c.sql;
  if (generic) {
    VEIL_RETURN_IF_ERROR(EnsureConnected());
    VEIL_RETURN_IF_ERROR(MakeRoom({c.sql}));
    VEIL_ASSIGN_OR_RETURN(const std::string name, pg_.Prepared(c.sql, c.params));
    // EXPLAIN takes no bound parameters: the values as literals.
    explain = "EXPLAIN EXECUTE " + name + "(";
    for (std::size_t i = 0; i < c.params.size(); ++i) {
      VEIL_ASSIGN_OR_RETURN(const std::string literal, Literal(c.params[i]));
      explain += (i > 0 ? ", " : "") + literal;
    }
    explain += ")";
    VEIL_RETURN_IF_ERROR(
        Exec("SELECT set_config('plan_cache_mode', 'force_generic_plan', false)", {}).status());
  }
  auto res = Exec(explain, c.params, /*binary=*/false);
  if (generic) VEIL_RETURN_IF_ERROR(Exec("RESET plan_cache_mode", {}).status());
  VEIL_RETURN_IF_ERROR(res.status());
  for (int i = 0; i < PQntuples(res->get()); ++i) {
    out += "  " + std::string(PQgetvalue(res->get(), i, 0)) + "\n";
  }
  return out;
}

// Count's statement: by the driver with the fewest index entries, else a scan of the live
// entities. Its second column counts the driver's matches that are not live (0 for a scan).
// A driven count reads few matches' rows rather than walk the backlog of expired entities
// (sql_filter.h) when the backlog at this connection's last count, or an unknown one, calls
// for it.
Result<Compiled> PostgresStore::CompileCount(const query::Expr& filter, ReadPoint at,
                                             std::uint64_t cap) {
  const bool read_rows = !backlog_ || backlog_->second >= sql::kCountRowsBacklog;
  std::vector<sql::Driver> drivers = sql::Drivers(filter);
  Compiled c;
  Dialect d(&c);
  if (!drivers.empty()) {
    // Of several drivers, each counted up to cap + 1 in one statement.
    VEIL_ASSIGN_OR_RETURN(const std::size_t which,
                          sql::CountDriver(drivers, cap + 1, [&](std::uint64_t limit) {
                            return FewestBelow(drivers, 0, limit);
                          }));
    // From the driver's index, the rest probed (sql_filter.h, CompileDrivenCount).
    VEIL_RETURN_IF_ERROR(
        sql::CompileDrivenCount(filter, drivers[which], d, at, cap + 1, read_rows, &c.sql));
    c.driven = true;
  } else {
    c.sql =
        "SELECT count(*), 0::bigint FROM (SELECT 1 FROM entities e WHERE e.expires_block + 0 > " +
        c.Add(Int8(I64(at.expiry))) + " AND e.created_block + 0 <= " + c.Add(Int8(I64(at.block))) +
        " AND (";
    VEIL_RETURN_IF_ERROR(sql::CompileFilter(filter, d, &c.sql));
    c.sql += ") LIMIT " + c.Add(Int8(I64(cap + 1))) + ") t";
  }
  return c;
}

// ---- Connection, statements and pipelines. ----

// A parameter as an SQL literal of its type (text quoted by libpq); arrays have none here.
Result<std::string> PostgresStore::Literal(const PgParam& p) {
  // Quoted: `-9223372036854775808::int8` would cast the positive number before negating it.
  if (p.type == kInt8Oid) return "'" + Describe(p) + "'::int8";
  if (p.type == kByteaOid) return Describe(p) + "::bytea";
  if (p.type == kInt8ArrayOid || p.type == kTextArrayOid || p.type == kByteaArrayOid) {
    return ArrayLiteral(p);
  }
  if (p.type != kTextOid) return Internal("postgres: no literal for this parameter type");
  char* quoted = PQescapeLiteral(pg_.get(), p.data.data(), p.data.size());
  if (quoted == nullptr) return pg_.Error("escape");
  std::string out = std::string(quoted) + "::text";
  PQfreemem(quoted);
  return out;
}

// An array parameter (ArrayParam's one-dimensional binary form) as `ARRAY[...]::type[]`.
Result<std::string> PostgresStore::ArrayLiteral(const PgParam& p) {
  const std::string& d = p.data;
  const auto be32 = [&](std::size_t at) {
    return static_cast<std::uint32_t>(GetBe(d.data() + at, 4));
  };
  const char* type = p.type == kInt8ArrayOid ? "int8" : p.type == kTextArrayOid ? "text" : "bytea";
  if (d.size() < 12) return Internal("postgres: a short array parameter");
  const Oid element = be32(8);
  std::string out = "ARRAY[";
  if (be32(0) == 1) {
    if (d.size() < 20) return Internal("postgres: a short array parameter");
    const std::uint32_t n = be32(12);
    std::size_t at = 20;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (d.size() < at + 4) return Internal("postgres: a short array parameter");
      const std::uint32_t len = be32(at);
      at += 4;
      if (d.size() - at < len) return Internal("postgres: a short array parameter");
      VEIL_ASSIGN_OR_RETURN(const std::string one, Literal(PgParam{element, d.substr(at, len)}));
      out += (i > 0 ? ", " : "") + one;
      at += len;
    }
  }
  return out + "]::" + type + "[]";
}

Result<std::vector<Entity>> PostgresStore::QueryRows(const QueryRequest& r, AttrSource src,
                                                     bool* lacks_copy) {
  std::vector<sql::Driver> drivers;
  if (r.filter != nullptr) drivers = sql::Drivers(*r.filter);
  const auto range = sql::WalkDriver(drivers);
  // A filter whose drivers are all attribute equalities is the planner's (its statistics
  // choose among them); one with another driver (a range, glob or IN list on an attribute, a
  // meta field) takes RangeRows' plans, driven by the driver with the fewest index entries
  // when one has fewer than the probe's limit (one statement more), else by sql::WalkDriver.
  std::optional<sql::Driver> equality;
  if (range != drivers.end()) {
    auto which = static_cast<std::size_t>(range - drivers.begin());
    // $key's unique index needs no count (BoundedDriver); the probe statement is the page.
    if (const auto bounded = sql::BoundedDriver(drivers)) {
      which = *bounded;
    } else if (drivers.size() > 1) {
      VEIL_ASSIGN_OR_RETURN(const std::optional<std::size_t> best,
                            FewestBelow(drivers, r.before_id, sql::kRangeProbeLimit));
      if (best) which = *best;
    }
    if (!drivers[which].equality) return RangeRows(r, drivers, which, src, lacks_copy);
    equality = std::move(drivers[which]);
  }
  if (drivers.empty() && r.filter != nullptr) {
    VEIL_ASSIGN_OR_RETURN(auto walked, UndrivenRows(r, src, lacks_copy));
    if (walked) return std::move(*walked);
  }
  VEIL_ASSIGN_OR_RETURN(Compiled c, CompileSelect(r, src, equality ? &*equality : nullptr));
  // A filter of equalities plans the same whatever its values (index probes), so its plan is
  // kept (a prepared statement). Anything else with a range, a glob or a negation is planned
  // with its values every time (ExecPlannedPerCall says why).
  VEIL_ASSIGN_OR_RETURN(auto res, r.filter != nullptr && OnlyEqualities(*r.filter)
                                      ? ExecCached(c.sql, c.params)
                                      : ExecPlannedPerCall(c.sql, c.params));
  return ReadEntities(res.get(), r.projection, src, lacks_copy, /*account_ids=*/true);
}

// The driver with the fewest index entries below the cursor when one has fewer than `limit`
// (counted up to `limit` each, in one statement), else nullopt.
Result<std::optional<std::size_t>> PostgresStore::FewestBelow(
    const std::vector<sql::Driver>& drivers, std::int64_t before_id, std::uint64_t limit) {
  VEIL_ASSIGN_OR_RETURN(const std::vector<std::uint64_t> counts,
                        CountsBelow(drivers, before_id, limit));
  std::optional<std::size_t> best;
  std::uint64_t fewest = limit;
  for (std::size_t i = 0; i < drivers.size(); ++i) {
    if (counts[i] < fewest) {
      fewest = counts[i];
      best = i;
    }
  }
  return best;
}

// Each driver's index entries below the cursor, counted up to `limit`, in one statement;
// with `top`, one more value last: the highest id + 1 (with no driver, that value alone).
Result<std::vector<std::uint64_t>> PostgresStore::CountsBelow(
    const std::vector<sql::Driver>& drivers, std::int64_t before_id, std::uint64_t limit,
    bool top) {
  Compiled c;
  Dialect d(&c);
  const std::string lim =
      drivers.empty()
          ? ""
          : c.Add(Int8(static_cast<std::int64_t>(std::min<std::uint64_t>(limit, INT64_MAX))));
  const std::string before = before_id > 0 && !drivers.empty() ? c.Add(Int8(before_id)) : "";
  c.sql = "SELECT ";
  for (std::size_t i = 0; i < drivers.size(); ++i) {
    sql::DriverRows rows;
    VEIL_RETURN_IF_ERROR(sql::CompileDriverRows(drivers[i], d, &rows));
    if (!before.empty()) rows.conditions += " AND " + IdBelow(drivers[i], rows) + before;
    c.sql += (i ? ", " : "") + std::string("(SELECT count(*) FROM (SELECT 1 FROM ") + rows.table +
             " a WHERE " + rows.conditions + IndexOrder(drivers[i]) + " LIMIT " + lim + ") t)";
  }
  if (top) {
    c.sql += std::string(drivers.empty() ? "" : ", ") +
             "(SELECT COALESCE(max(id), 0) + 1 FROM entities)";
  }
  VEIL_ASSIGN_OR_RETURN(auto res, PlannedForValues(drivers)
                                      ? Exec(c.sql, c.params)
                                      : ExecCached(c.sql, c.params, /*may_carry=*/false,
                                                   /*force_generic=*/true));
  const std::size_t fields = drivers.size() + (top ? 1 : 0);
  if (PQntuples(res.get()) != 1 || PQnfields(res.get()) != static_cast<int>(fields)) {
    return DataLoss("postgres: a drivers' count returned no row");
  }
  Row row(res.get(), 0);
  std::vector<std::uint64_t> out(fields);
  for (std::size_t i = 0; i < fields; ++i) out[i] = row.U64(static_cast<int>(i));
  VEIL_RETURN_IF_ERROR(row.status());
  return out;
}

// The walk of `window` down, the whole filter probed on each live entity (UndrivenRows); a plan
// its text fixes.
Result<Compiled> PostgresStore::WalkSelect(const QueryRequest& r, AttrSource src,
                                           sql::WalkWindow window) {
  Compiled walk;
  Dialect d(&walk);
  const std::string expiry = walk.Add(Int8(I64(r.at.expiry)));
  const std::string block = walk.Add(Int8(I64(r.at.block)));
  std::string inner = "SELECT e.* FROM (SELECT * FROM entities x WHERE x.id < " +
                      walk.Add(Int8(window.top)) + " ORDER BY x.id DESC LIMIT " +
                      walk.Add(Int8(window.top - window.low)) + ") e WHERE e.expires_block > " +
                      expiry + " AND e.created_block <= " + block + " AND (";
  VEIL_RETURN_IF_ERROR(sql::CompileFilter(*r.filter, d, &inner, sql::ProbeRef("e.id")));
  inner += ") ORDER BY e.id DESC LIMIT " + walk.Add(Int8(static_cast<std::int64_t>(r.limit + 1)));
  walk.sql = EntitySelect(inner, "e.id DESC", r.projection, src, /*account_ids=*/true);
  return walk;
}

// A page of a filter with no driver of its own (sql::Drivers is empty). An OR whose branches
// each have a driver (sql::BranchDrivers): nullopt when its branches' fewest drivers have
// fewer than kRangeProbeLimit entries in all (the caller's planned collection serves it).
// Otherwise, and for a filter without any driver (a NOT at the top, an OR with a branch that
// has none, `$contentType` alone: no index to count, and a collection reads every match), a
// walk of the entities below the cursor with the whole filter probed on each (one statement
// after the count's), and the planner's collection when the walk's window holds no page and
// does not reach id 0.
Result<std::optional<std::vector<Entity>>> PostgresStore::UndrivenRows(const QueryRequest& r,
                                                                       AttrSource src,
                                                                       bool* lacks_copy) {
  if (r.filter->kind == query::Expr::Kind::kAll) return std::optional<std::vector<Entity>>();
  const auto branches = sql::BranchDrivers(*r.filter);
  std::vector<sql::Driver> all;
  for (const auto& branch : branches) all.insert(all.end(), branch.begin(), branch.end());
  VEIL_ASSIGN_OR_RETURN(const std::vector<std::uint64_t> counts,
                        CountsBelow(all, r.before_id, sql::kRangeProbeLimit, /*top=*/true));
  if (!branches.empty()) {
    std::uint64_t total = 0;
    std::size_t next = 0;
    for (const auto& branch : branches) {
      total +=
          *std::min_element(counts.begin() + static_cast<std::ptrdiff_t>(next),
                            counts.begin() + static_cast<std::ptrdiff_t>(next + branch.size()));
      next += branch.size();
    }
    if (total < sql::kRangeProbeLimit) return std::optional<std::vector<Entity>>();
  }
  std::int64_t top = static_cast<std::int64_t>(counts.back());
  if (r.before_id > 0) top = std::min(top, r.before_id);
  const sql::WalkWindow window = sql::RangeWalkWindow(top, static_cast<std::uint64_t>(r.limit) + 1);
  const bool carrying = carry_state_;
  VEIL_ASSIGN_OR_RETURN(const Compiled walk, WalkSelect(r, src, window));
  if (carrying) CarryStateWithNextRead();
  VEIL_ASSIGN_OR_RETURN(auto res, ExecCached(walk.sql, walk.params, /*may_carry=*/true,
                                             /*force_generic=*/true));
  if (static_cast<std::size_t>(PQntuples(res.get())) <= r.limit && window.low > 0) {
    VEIL_ASSIGN_OR_RETURN(const Compiled planned, CompileSelect(r, src));
    if (carrying) CarryStateWithNextRead();
    VEIL_ASSIGN_OR_RETURN(res, ExecPlannedPerCall(planned.sql, planned.params));
  }
  VEIL_ASSIGN_OR_RETURN(std::vector<Entity> rows, ReadEntities(res.get(), r.projection, src,
                                                               lacks_copy, /*account_ids=*/true));
  return std::optional<std::vector<Entity>>(std::move(rows));
}

// A page driven by drivers[which], a range, glob or IN list on an attribute or a meta field's
// driver (sql::Drivers; sql_filter.h, kRangeProbeLimit and RangeWalkWindow;
// docs/notes/ledger.md, "Query plans"), the rest of the filter probed on each entity, in up
// to three statements (four when the filter has several drivers), each of whose plans its
// text fixes, so each is prepared and its generic plan kept (planning a range for its own
// values cost 0.3-0.5 ms a call in a statement log, more than the rest of a range of 50),
// except some of a meta field's, planned at every call (PlannedForValues). The first counts the
// driver's index entries below the cursor up to the probe's limit and, when there are fewer, is
// the page (RangeSelect's kProbe); otherwise the walk of a window of ids is (kWalk), and when its
// window holds no page, the collection (kCollect) by the driver with the fewest entries. A
// statement with all three behind one-time filters took 80-90 us more server time a narrow
// range than the probe alone: PostgreSQL sets up every branch's plan however few run.
Result<std::vector<Entity>> PostgresStore::RangeRows(const QueryRequest& r,
                                                     std::vector<sql::Driver>& drivers,
                                                     std::size_t which, AttrSource src,
                                                     bool* lacks_copy) {
  // When the head's state is to travel with this read, it travels with each statement, so
  // that the state the caller checks is the one beside the statement that made the page.
  const bool carrying = carry_state_;
  const sql::Driver& driver = drivers[which];
  // Some of a meta field's statements are planned for their values (PlannedForValues).
  const auto run = [&](const Compiled& c, RangePlan plan) {
    if (carrying) CarryStateWithNextRead();
    return PlannedForValues(driver, plan)
               ? ExecPlannedPerCall(c.sql, c.params)
               : ExecCached(c.sql, c.params, /*may_carry=*/true, /*force_generic=*/true);
  };
  VEIL_ASSIGN_OR_RETURN(const Compiled probe, RangeSelect(r, driver, src, RangePlan::kProbe));
  VEIL_ASSIGN_OR_RETURN(auto res, run(probe, RangePlan::kProbe));
  // Its last two columns: the entries counted, and the top of the walk's window.
  const int fields = PQnfields(res.get());
  if (PQntuples(res.get()) < 1 || fields < 2) {
    return DataLoss("postgres: a range's probe returned no count");
  }
  Row first(res.get(), 0);
  const std::int64_t counted = first.Int(fields - 2);
  VEIL_RETURN_IF_ERROR(first.status());
  if (counted < static_cast<std::int64_t>(sql::kRangeProbeLimit)) {
    // A LEFT JOIN's one row of NULLs when the page is empty.
    if (PQgetisnull(res.get(), 0, 0) != 0) return std::vector<Entity>();
    return ReadEntities(res.get(), r.projection, src, lacks_copy, /*account_ids=*/true);
  }
  const std::int64_t top = first.Int(fields - 1);
  VEIL_RETURN_IF_ERROR(first.status());
  const sql::WalkWindow window = sql::RangeWalkWindow(top, static_cast<std::uint64_t>(r.limit) + 1);
  VEIL_ASSIGN_OR_RETURN(const Compiled walk, RangeSelect(r, driver, src, RangePlan::kWalk, window));
  VEIL_ASSIGN_OR_RETURN(res, run(walk, RangePlan::kWalk));
  if (static_cast<std::size_t>(PQntuples(res.get())) > r.limit || window.low == 0) {
    return ReadEntities(res.get(), r.projection, src, lacks_copy, /*account_ids=*/true);
  }
  // Every driver has at least the probe's limit of entries (or it would have driven): the
  // collection's driver is the one with the fewest, whose collection probes M entities
  // (against the 2 * drivers * M index entries its choice counts).
  if (drivers.size() > 1) {
    VEIL_ASSIGN_OR_RETURN(
        const std::optional<std::size_t> best,
        sql::FewestByDoubling(2 * sql::kRangeProbeLimit, [&](std::uint64_t limit) {
          return FewestBelow(drivers, r.before_id, limit);
        }));
    if (best) which = *best;
  }
  VEIL_ASSIGN_OR_RETURN(const Compiled collect,
                        RangeSelect(r, drivers[which], src, RangePlan::kCollect));
  if (carrying) CarryStateWithNextRead();
  VEIL_ASSIGN_OR_RETURN(res, PlannedForValues(drivers[which], RangePlan::kCollect)
                                 ? ExecPlannedPerCall(collect.sql, collect.params)
                                 : ExecCached(collect.sql, collect.params, /*may_carry=*/true,
                                              /*force_generic=*/true));
  return ReadEntities(res.get(), r.projection, src, lacks_copy, /*account_ids=*/true);
}

// The statements of RangeRows, each of whose plans its text fixes:
// - kProbe: n, the range's index entries below the cursor up to the probe's limit (their entity
//   ids); one row of (count, the walk's top: the cursor, or the highest id + 1), LEFT JOINed
//   with the page from n's ids while the count is under the limit (each match's row by its id,
//   LATERAL: a nested loop), so an empty page is that row with NULL entity columns.
// - kWalk: the window's top - low entities below its top walked down (the primary key
//   backwards, under a LIMIT: a two-sided range of ids, whose rows a generic plan guesses at
//   0.5% of the table, got a bitmap scan of the whole window and a sort), each one's attribute
//   row probed by (entity_id, name) in a LATERAL subquery (the value compared as an expression,
//   so that the (name, value) index, which would walk the whole range for every probe, is
//   never the one chosen; a meta field's driver probes the entity's row by its primary key);
//   the outer LIMIT stops the walk after a page.
// - kCollect: the range's index rows in a subquery that cannot be flattened (OFFSET 0), each
//   match's row by its id (LATERAL), the live ones sorted by id.
// Each tests the rest of the filter on each entity by probes of its rows (sql::ProbeRef).
Result<Compiled> PostgresStore::RangeSelect(const QueryRequest& r, const sql::Driver& driver,
                                            AttrSource src, RangePlan plan,
                                            sql::WalkWindow window) {
  Compiled c;
  Dialect d(&c);
  sql::DriverRows idx;
  VEIL_RETURN_IF_ERROR(sql::CompileDriverRows(
      driver, d, &idx,
      plan == RangePlan::kWalk ? sql::RangeColumn::kExpression : sql::RangeColumn::kIndexed));
  const std::string& table = idx.table;
  std::string& conditions = idx.conditions;
  // The walk starts below its window's top instead (the cursor or the highest id + 1).
  const std::string before =
      r.before_id > 0 && plan != RangePlan::kWalk ? c.Add(Int8(r.before_id)) : "";
  if (!before.empty()) conditions += " AND " + IdBelow(driver, idx) + before;
  const std::string entity_id = idx.id + " AS entity_id";
  const std::string rows = c.Add(Int8(static_cast<std::int64_t>(r.limit + 1)));
  const std::string expiry = c.Add(Int8(I64(r.at.expiry)));
  const std::string block = c.Add(Int8(I64(r.at.block)));
  std::string live = "e.expires_block > " + expiry + " AND e.created_block <= " + block;
  if (driver.rest.kind != query::Expr::Kind::kAll) {
    live += " AND (";
    VEIL_RETURN_IF_ERROR(sql::CompileFilter(driver.rest, d, &live, sql::ProbeRef("e.id")));
    live += ")";
  }
  const std::string by_id =
      " CROSS JOIN LATERAL (SELECT * FROM entities x WHERE x.id = m.entity_id OFFSET 0) e WHERE ";
  switch (plan) {
    case RangePlan::kProbe: {
      const std::string limit = std::to_string(sql::kRangeProbeLimit);
      // The top is never above the highest id + 1, whatever the cursor says (a cursor is a
      // digest, not a secret: one naming 2^63 - 1 would otherwise make the walk, whose window
      // is a count of rows, read every entity).
      const std::string highest = "(SELECT COALESCE(max(id), 0) + 1 FROM entities)";
      const std::string top =
          before.empty() ? highest : "least(" + before + "::int8, " + highest + ")";
      const std::string page = EntitySelect("SELECT e.* FROM n m" + by_id + live + " AND k.k < " +
                                                limit + " ORDER BY e.id DESC LIMIT " + rows,
                                            "e.id DESC", r.projection, src, /*account_ids=*/true);
      c.sql = "WITH n AS MATERIALIZED (SELECT " + entity_id + " FROM " + table + " a WHERE " +
              conditions + IndexOrder(driver) + " LIMIT " + limit +
              ") SELECT q.*, k.k, k.top FROM (SELECT count(*) "
              "AS k, CASE WHEN count(*) >= " +
              limit + " THEN " + top + " END AS top FROM n) k LEFT JOIN LATERAL (" + page +
              ") q ON true ORDER BY q.id DESC";
      return c;
    }
    case RangePlan::kWalk:
      c.sql = EntitySelect("SELECT e.* FROM (SELECT * FROM entities x WHERE x.id < " +
                               c.Add(Int8(window.top)) + " ORDER BY x.id DESC LIMIT " +
                               c.Add(Int8(window.top - window.low)) +
                               ") e CROSS JOIN LATERAL (SELECT 1 FROM " + table + " a WHERE " +
                               idx.id + " = e.id AND " + conditions + " OFFSET 0) m WHERE " + live +
                               " ORDER BY e.id DESC LIMIT " + rows,
                           "e.id DESC", r.projection, src, /*account_ids=*/true);
      return c;
    case RangePlan::kCollect:
      c.sql = EntitySelect("SELECT e.* FROM (SELECT " + entity_id + " FROM " + table + " a WHERE " +
                               conditions + " OFFSET 0) m" + by_id + live +
                               " ORDER BY e.id DESC LIMIT " + rows,
                           "e.id DESC", r.projection, src, /*account_ids=*/true);
      return c;
  }
  return Internal("postgres: unknown range plan");
}

// `equality`: the driver (one of the filter's equalities); null: the filter's first equality,
// if any.
Result<Compiled> PostgresStore::CompileSelect(const QueryRequest& r, AttrSource src,
                                              const sql::Driver* equality) {
  Compiled c;
  Dialect d(&c);
  std::optional<sql::Driver> driven;
  if (equality != nullptr) {
    driven = *equality;
  } else if (r.filter != nullptr) {
    for (auto& one : sql::Drivers(*r.filter)) {
      if (one.equality) {
        driven = std::move(one);
        break;
      }
    }
  }
  std::string inner;
  sql::DriverRows rows;
  if (driven) {
    VEIL_RETURN_IF_ERROR(sql::CompileDriverRows(*driven, d, &rows));
    inner = "SELECT e.* FROM " + rows.table + " a JOIN entities e ON e.id = " + rows.id +
            " WHERE " + rows.conditions + " AND ";
  } else {
    inner = "SELECT * FROM entities e WHERE ";
  }
  // The liveness terms match nearly every row; written as expressions (`+ 0`) they never
  // pick an index, so the filter's own predicates choose it (SQLite's unary `+` trick).
  inner += "e.expires_block + 0 > " + c.Add(Int8(I64(r.at.expiry))) +
           " AND e.created_block + 0 <= " + c.Add(Int8(I64(r.at.block)));
  const std::string id = driven ? rows.id : "e.id";
  if (r.before_id > 0) inner += " AND " + id + " < " + c.Add(Int8(r.before_id));
  const query::Expr* rest = driven ? &driven->rest : r.filter;
  if (rest != nullptr && rest->kind != query::Expr::Kind::kAll) {
    std::string f;
    VEIL_RETURN_IF_ERROR(sql::CompileFilter(*rest, d, &f));
    inner += " AND (" + f + ")";
  }
  // Undriven, the matches are collected and sorted (`+ 0` keeps the planner from walking the
  // primary key backwards in the hope of meeting a page of matches early: with a misjudged
  // selectivity, which a generic plan or a range over a shared value column gives, that walk
  // reads every entity).
  inner += " ORDER BY " + id + (driven ? "" : " + 0") + " DESC LIMIT " +
           c.Add(Int8(static_cast<std::int64_t>(r.limit + 1)));
  c.sql = EntitySelect(inner, "e.id DESC", r.projection, src, /*account_ids=*/true);
  return c;
}

}  // namespace veil::ledger::pg
