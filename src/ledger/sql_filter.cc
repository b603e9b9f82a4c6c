#include "sql_filter.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace veil::ledger::sql {
namespace {

using query::CmpOp;
using query::Expr;
using query::Field;
using query::Predicate;

// True when every predicate is an equality to one value (on $owner or $creator: at most one
// account, whose id a driver's rows compare as a scalar subquery, `owner_id = (SELECT id ...)`).
bool SingleValueEqualities(std::span<const Predicate* const> predicates) {
  return std::all_of(predicates.begin(), predicates.end(), [](const Predicate* p) {
    return p->op == CmpOp::kEq && p->values.size() == 1;
  });
}

bool Numeric(const Predicate& p) { return p.values[0].index() == 0; }

// A comparison of a block number (stored as a signed 64-bit integer, so below 2^63) whose
// literals are at most 2^63 - 1: a larger one becomes 2^63 - 1, `<` turning into `<=` and `>=`
// into `>`, which keeps its meaning for every stored block (bound as it was, 2^63 and above
// wrapped to negative numbers: `$expiresAt < 2^64 - 1` matched nothing).
Predicate BlockBound(const Predicate& p) {
  constexpr auto kMax = static_cast<std::uint64_t>(INT64_MAX);
  Predicate out = p;
  for (auto& v : out.values) {
    auto* n = std::get_if<std::uint64_t>(&v);
    if (n == nullptr || *n <= kMax) continue;
    *n = kMax;
    if (out.op == CmpOp::kLt) out.op = CmpOp::kLe;
    if (out.op == CmpOp::kGe) out.op = CmpOp::kGt;
  }
  return out;
}

// Operators whose predicates on one column merge into one index range under an AND.
bool Mergeable(const Expr& e) {
  if (e.kind != Expr::Kind::kPredicate) return false;
  switch (e.predicate.op) {
    case CmpOp::kEq:
    case CmpOp::kLt:
    case CmpOp::kLe:
    case CmpOp::kGt:
    case CmpOp::kGe:
      return true;
    default:
      return false;
  }
}

// Predicates that read the same column of the same rows.
bool SameColumn(const Predicate& a, const Predicate& b) {
  if (a.field != b.field) return false;
  if (a.field != Field::kAttribute) return true;
  return a.name == b.name && Numeric(a) == Numeric(b);
}

const char* OpSql(CmpOp op) {
  switch (op) {
    case CmpOp::kEq:
      return " = ";
    case CmpOp::kLt:
      return " < ";
    case CmpOp::kLe:
      return " <= ";
    case CmpOp::kGt:
      return " > ";
    case CmpOp::kGe:
      return " >= ";
    default:
      return "";
  }
}

class Compiler {
 public:
  // `meta_on`: an alias whose own columns the meta fields are compared on directly (a meta
  // driver's rows), whatever the dialect's MetaViaIdSubquery says; empty: the dialect decides,
  // and the direct form reads `e`.
  Compiler(SqlDialect& d, const IdRef& ref, std::string meta_on = "")
      : d_(d), ref_(ref), meta_on_(std::move(meta_on)) {}

  Status Expression(const Expr& e, std::string* sql) {
    switch (e.kind) {
      case Expr::Kind::kAll:
        *sql += d_.True();
        return Status::Ok();
      case Expr::Kind::kNot:
        *sql += "NOT (";
        VEIL_RETURN_IF_ERROR(Expression(e.children[0], sql));
        *sql += ")";
        return Status::Ok();
      case Expr::Kind::kOr:
        *sql += "(";
        for (std::size_t i = 0; i < e.children.size(); ++i) {
          if (i > 0) *sql += " OR ";
          VEIL_RETURN_IF_ERROR(Expression(e.children[i], sql));
        }
        *sql += ")";
        return Status::Ok();
      case Expr::Kind::kAnd:
        return Conjunction(e.children, sql);
      case Expr::Kind::kPredicate: {
        const Predicate* one = &e.predicate;
        return Predicates(&one, 1, sql);
      }
    }
    return Internal("query: unknown expression kind");
  }

  // `column` compared by `p` (its values already type-checked by the parser).
  Status Comparison(const std::string& column, const Predicate& p, bool biased, std::string* sql) {
    if (p.op == CmpOp::kIn || p.op == CmpOp::kNotIn) {
      VEIL_ASSIGN_OR_RETURN(std::string in, d_.InList(column, p.values, biased));
      *sql += in;
      return Status::Ok();
    }
    if (p.op == CmpOp::kGlob || p.op == CmpOp::kNotGlob) {
      const std::string& pattern = std::get<std::string>(p.values[0]);
      VEIL_ASSIGN_OR_RETURN(std::string match, d_.GlobMatch(column, pattern));
      *sql += match;
      // A literal prefix bounds the index range (a GLOB or regex on a bound parameter cannot).
      std::string prefix;
      for (char ch : pattern) {
        if (ch == '*' || ch == '?' || ch == '[') break;
        prefix.push_back(ch);
      }
      if (!prefix.empty()) {
        VEIL_ASSIGN_OR_RETURN(std::string lo, d_.Bind(query::Literal(prefix), false));
        *sql += " AND " + column + " >= " + lo;
        const std::string upper = d_.PrefixUpperBound(prefix);
        if (!upper.empty()) {
          VEIL_ASSIGN_OR_RETURN(std::string hi, d_.Bind(query::Literal(upper), false));
          *sql += " AND " + column + " < " + hi;
        }
      }
      return Status::Ok();
    }
    VEIL_ASSIGN_OR_RETURN(std::string v, d_.Bind(p.values[0], biased));
    *sql += column + OpSql(p.op) + v;
    return Status::Ok();
  }

  // One column's predicates, as one lookup (Predicates below).
  Status Predicates(const std::vector<const Predicate*>& ps, std::string* sql) {
    return Predicates(ps.data(), ps.size(), sql);
  }

 private:
  // An AND: range predicates on one column become one group, written where its first member
  // stood; everything else keeps its place.
  Status Conjunction(const std::vector<Expr>& children, std::string* sql) {
    std::vector<bool> taken(children.size(), false);
    *sql += "(";
    bool first = true;
    for (std::size_t i = 0; i < children.size(); ++i) {
      if (taken[i]) continue;
      if (!first) *sql += " AND ";
      first = false;
      if (!Mergeable(children[i])) {
        VEIL_RETURN_IF_ERROR(Expression(children[i], sql));
        continue;
      }
      std::vector<const Predicate*> group = {&children[i].predicate};
      for (std::size_t j = i + 1; j < children.size(); ++j) {
        if (!taken[j] && Mergeable(children[j]) &&
            SameColumn(children[i].predicate, children[j].predicate)) {
          group.push_back(&children[j].predicate);
          taken[j] = true;
        }
      }
      VEIL_RETURN_IF_ERROR(Predicates(group.data(), group.size(), sql));
    }
    *sql += ")";
    return Status::Ok();
  }

  // The opening of a subquery over `table` that tests the entity id (column `id_column` there).
  std::string OpenSubquery(const std::string& table, const char* id_column) const {
    if (ref_.probe) {
      return "EXISTS (SELECT 1 FROM " + table + " WHERE " + id_column + " = " + ref_.id + " AND ";
    }
    return ref_.id + " IN (SELECT " + id_column + " FROM " + table + " WHERE ";
  }

  // One or more predicates on the same column (several only for mergeable operators), as one
  // lookup: the column's subquery or parentheses around the conditions.
  Status Predicates(const Predicate* const* ps, std::size_t n, std::string* sql) {
    const Predicate& p = *ps[0];
    const bool negated = p.op == CmpOp::kNotIn || p.op == CmpOp::kNotGlob;
    const bool sub = meta_on_.empty() && d_.MetaViaIdSubquery();
    const std::string e = (meta_on_.empty() ? std::string("e") : meta_on_) + ".";
    if (negated) *sql += "NOT (";
    std::string column, close;
    bool biased = false;
    switch (p.field) {
      case Field::kAttribute: {
        biased = Numeric(p);
        *sql += OpenSubquery(biased ? "attr_num" : "attr_str", "entity_id");
        VEIL_ASSIGN_OR_RETURN(std::string name, d_.Bind(query::Literal(p.name), false));
        *sql += "name = " + name + " AND ";
        column = ref_.probe ? d_.Unindexed("value", biased) : "value";
        close = ref_.probe ? std::string(d_.ProbeEnd()) + ")" : ")";
        break;
      }
      case Field::kKey:
        *sql += sub ? OpenSubquery("entities", "id") : "(";
        column = sub ? "key" : e + MetaColumn(p.field);
        close = ")";
        break;
      case Field::kOwner:
      case Field::kCreator: {
        const char* id = MetaColumn(p.field);
        // A driver's rows (meta_on_: never negated) of equalities, which name at most one
        // account (addresses are unique): its id as a scalar subquery, which the planner runs
        // once and takes as the owner index's key in any plan (a generic one too). Elsewhere,
        // and for an IN list, the ids through `IN`: a scalar subquery that finds no account is
        // NULL, not false, and `NOT (owner_id = NULL)` would drop every row.
        const bool one = !meta_on_.empty() && SingleValueEqualities(std::span(ps, n));
        // A driver's rows of an IN list, where the dialect has arrays: the ids as an array the
        // planner computes once (an InitPlan) and takes as the owner index's keys, in key order,
        // in any plan (SqlDialect::AccountIdArrays). `= ANY` of an empty array is false, never
        // NULL.
        const bool array = !meta_on_.empty() && !one && d_.AccountIdArrays();
        const char* op = one ? " = " : array ? " = ANY(ARRAY" : " IN ";
        *sql += sub ? OpenSubquery("entities", "id") + id + op : e + id + op;
        *sql += "(SELECT id FROM accounts WHERE ";
        column = "address";
        close = sub ? "))" : ")";
        if (array) close += ")";
        break;
      }
      case Field::kExpiresAt:
      case Field::kCreatedAtBlock: {
        const char* col = MetaColumn(p.field);
        *sql += sub ? OpenSubquery("entities", "id") : "(";
        column = sub ? std::string(col) : e + col;
        if (ref_.probe) column = d_.Unindexed(column, true);
        close = ")";
        break;
      }
      case Field::kContentType:
        // No index: a correlated probe of the row by id (its rowid), never `id IN (SELECT ...)`,
        // which would collect the matches of the whole table first.
        *sql += sub ? "EXISTS (SELECT 1 FROM entities WHERE id = " + ref_.id + " AND " : "(";
        column = d_.Bytewise(sub ? "content_type" : e + MetaColumn(p.field));
        close = ")";
        break;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (i > 0) *sql += " AND ";
      const bool block = p.field == Field::kExpiresAt || p.field == Field::kCreatedAtBlock;
      VEIL_RETURN_IF_ERROR(Comparison(column, block ? BlockBound(*ps[i]) : *ps[i], biased, sql));
    }
    *sql += close;
    if (negated) *sql += ")";
    return Status::Ok();
  }

  SqlDialect& d_;
  const IdRef& ref_;
  const std::string meta_on_;
};

bool IsDriver(const Expr& e) {
  return e.kind == Expr::Kind::kPredicate && e.predicate.field == Field::kAttribute &&
         e.predicate.op == CmpOp::kEq;
}

// A meta field with an index of its own on the entities.
bool IndexedMeta(Field f) {
  return f == Field::kKey || f == Field::kOwner || f == Field::kCreator || f == Field::kExpiresAt ||
         f == Field::kCreatedAtBlock;
}

// A comparison that merges into a range (on an attribute, not an equality, which drives alone;
// on an indexed meta field, an equality too).
bool IsRangePart(const Expr& e) {
  if (!Mergeable(e)) return false;
  const Field f = e.predicate.field;
  return f == Field::kAttribute ? e.predicate.op != CmpOp::kEq : IndexedMeta(f);
}

// A predicate whose index entries are its candidate matches, alone: a glob or an IN on an
// attribute, an IN on an indexed meta field.
bool IsLoneIndexed(const Expr& e) {
  if (e.kind != Expr::Kind::kPredicate) return false;
  const Field f = e.predicate.field;
  if (f == Field::kAttribute) return e.predicate.op == CmpOp::kGlob || e.predicate.op == CmpOp::kIn;
  return IndexedMeta(f) && e.predicate.op == CmpOp::kIn;
}

}  // namespace

const char* MetaColumn(query::Field field) {
  switch (field) {
    case Field::kAttribute:
      return nullptr;
    case Field::kKey:
      return "key";
    case Field::kOwner:
      return "owner_id";
    case Field::kCreator:
      return "creator_id";
    case Field::kExpiresAt:
      return "expires_block";
    case Field::kCreatedAtBlock:
      return "created_block";
    case Field::kContentType:
      return "content_type";
  }
  return nullptr;
}

Status CompileFilter(const query::Expr& filter, SqlDialect& dialect, std::string* sql,
                     const IdRef& ref) {
  return Compiler(dialect, ref).Expression(filter, sql);
}

std::vector<const Predicate*> Driver::Predicates() const {
  std::vector<const Predicate*> out;
  if (index.kind == Expr::Kind::kPredicate) {
    out.push_back(&index.predicate);
  } else {
    for (const auto& c : index.children) out.push_back(&c.predicate);
  }
  return out;
}

std::uint64_t Driver::KnownBound() const {
  std::uint64_t bound = 0;
  for (const Predicate* p : Predicates()) {
    if (p->field != Field::kKey) return 0;
    const std::uint64_t n = p->op == CmpOp::kIn ? p->values.size() : 1;
    bound = bound == 0 ? n : std::min(bound, n);
  }
  return bound < kRangeProbeLimit ? bound : 0;
}

std::vector<Driver>::iterator WalkDriver(std::vector<Driver>& drivers) {
  const auto attribute = std::find_if(drivers.begin(), drivers.end(),
                                      [](const Driver& d) { return !d.equality && !d.meta; });
  if (attribute != drivers.end()) return attribute;
  return std::find_if(drivers.begin(), drivers.end(), [](const Driver& d) { return d.meta; });
}

std::optional<std::size_t> BoundedDriver(const std::vector<Driver>& drivers) {
  for (std::size_t i = 0; i < drivers.size(); ++i) {
    if (drivers[i].KnownBound() != 0) return i;
  }
  return std::nullopt;
}

Result<std::size_t> CountDriver(
    const std::vector<Driver>& drivers, std::uint64_t limit,
    const std::function<Result<std::optional<std::size_t>>(std::uint64_t)>& fewest_below) {
  if (const std::optional<std::size_t> bounded = BoundedDriver(drivers)) return *bounded;
  if (drivers.size() < 2) return std::size_t{0};
  VEIL_ASSIGN_OR_RETURN(const std::optional<std::size_t> best, fewest_below(limit));
  return best.value_or(0);
}

std::vector<std::vector<Driver>> BranchDrivers(const Expr& filter) {
  std::vector<std::vector<Driver>> out;
  if (filter.kind != Expr::Kind::kOr) return out;
  for (const Expr& branch : filter.children) {
    out.push_back(Drivers(branch));
    if (out.back().empty()) return {};
  }
  return out;
}

std::vector<Driver> Drivers(const Expr& filter) {
  std::vector<Driver> out;
  if (filter.kind == Expr::Kind::kPredicate) {
    if (IsDriver(filter) || IsRangePart(filter) || IsLoneIndexed(filter)) {
      Driver d;
      d.index = filter;
      d.equality = IsDriver(filter);
      d.meta = filter.predicate.field != Field::kAttribute;
      out.push_back(std::move(d));
    }
    return out;
  }
  if (filter.kind != Expr::Kind::kAnd) return out;
  const auto& children = filter.children;
  std::vector<std::vector<std::size_t>> groups;  // each driver's conjuncts
  std::vector<bool> taken(children.size(), false);
  for (std::size_t i = 0; i < children.size(); ++i) {
    if (taken[i]) continue;
    if (IsDriver(children[i]) || IsLoneIndexed(children[i])) {
      groups.push_back({i});
    } else if (IsRangePart(children[i])) {
      groups.push_back({i});
      for (std::size_t j = i + 1; j < children.size(); ++j) {
        if (!taken[j] && IsRangePart(children[j]) &&
            SameColumn(children[i].predicate, children[j].predicate)) {
          groups.back().push_back(j);
          taken[j] = true;
        }
      }
    }
  }
  for (const auto& group : groups) {
    Driver d;
    d.equality = IsDriver(children[group[0]]);
    d.meta = children[group[0]].predicate.field != Field::kAttribute;
    std::vector<bool> in_group(children.size(), false);
    for (std::size_t i : group) in_group[i] = true;
    std::vector<Expr> others;
    if (group.size() == 1) {
      d.index = children[group[0]];
    } else {
      d.index.kind = Expr::Kind::kAnd;
      for (std::size_t i : group) d.index.children.push_back(children[i]);
    }
    for (std::size_t j = 0; j < children.size(); ++j) {
      if (!in_group[j]) others.push_back(children[j]);
    }
    if (others.size() == 1) {
      d.rest = std::move(others[0]);
    } else if (others.size() > 1) {
      d.rest.kind = Expr::Kind::kAnd;
      d.rest.children = std::move(others);
    }
    out.push_back(std::move(d));
  }
  return out;
}

namespace {
// The entity id of a driver's index row `a` (CompileDriverRows' DriverRows::id).
std::string DriverIdColumn(const Driver& driver) { return driver.meta ? "a.id" : "a.entity_id"; }
}  // namespace

Status CompileDrivenCount(const query::Expr& filter, const Driver& driver, SqlDialect& dialect,
                          ReadPoint at, std::uint64_t limit, bool read_rows, std::string* sql) {
  // Placeholders bind in text order, so each part is compiled where its text goes (with
  // read_rows, the driver's entries in n and k, its matches again in A).
  const auto expiry = [&]() { return dialect.Bind(query::Literal(at.expiry), false); };
  const auto block = [&]() { return dialect.Bind(query::Literal(at.block), false); };
  // "FROM <the driver's index rows> a WHERE <its conditions and the rest of the filter>".
  const bool row = ReadsEntityColumns(driver.rest, dialect);
  const auto matches = [&](std::string* out) -> Status {
    DriverRows rows;
    VEIL_RETURN_IF_ERROR(CompileDriverRows(driver, dialect, &rows));
    *out += " FROM " + rows.table + " a";
    // A rest that reads the entity's own columns (PostgreSQL's meta fields) reads its row.
    if (row) *out += " JOIN entities e ON e.id = " + rows.id;
    *out += " WHERE " + rows.conditions;
    if (driver.rest.kind != Expr::Kind::kAll) {
      *out += " AND (";
      VEIL_RETURN_IF_ERROR(
          CompileFilter(driver.rest, dialect, out, ProbeRef(row ? "e.id" : rows.id)));
      *out += ")";
    }
    return Status::Ok();
  };
  // The walk of the backlog: the entities not live at `at` (through the expiry and creation
  // indexes) that the whole filter accepts.
  const auto walk = [&](std::string* out) -> Status {
    VEIL_ASSIGN_OR_RETURN(const std::string at1, expiry());
    VEIL_ASSIGN_OR_RETURN(const std::string at2, block());
    *out += "(SELECT count(*) FROM entities e WHERE (e.expires_block <= " + at1 +
            " OR e.created_block > " + at2 + ") AND ";
    VEIL_RETURN_IF_ERROR(CompileFilter(filter, dialect, out, ProbeRef("e.id")));
    *out += ")";
    return Status::Ok();
  };
  // A: the driver's matches, live or not, at most `limit` + D.
  const auto capped_matches = [&](std::string* out) -> Status {
    *out += "(SELECT count(*) FROM (SELECT 1";
    VEIL_RETURN_IF_ERROR(matches(out));
    VEIL_ASSIGN_OR_RETURN(const std::string lim, dialect.Bind(query::Literal(limit), false));
    *out += " LIMIT " + lim + " + (SELECT n FROM d)) t)";
    return Status::Ok();
  };
  if (!read_rows) {
    *sql += "WITH d(n) AS MATERIALIZED (SELECT ";
    VEIL_RETURN_IF_ERROR(walk(sql));
    *sql += ") SELECT ";
    VEIL_RETURN_IF_ERROR(capped_matches(sql));
    *sql += ", (SELECT n FROM d)";
    return Status::Ok();
  }
  // b: the expired entities not yet swept, from the expiry buckets.
  VEIL_ASSIGN_OR_RETURN(const std::string at_b, expiry());
  *sql +=
      "WITH b(n) AS MATERIALIZED (SELECT CAST(coalesce(sum(n), 0) AS bigint) FROM expiry "
      "WHERE block <= " +
      at_b + "), ";
  // n: the live matches among the driver's first b entries (the LIMIT counts entries: the rest
  // is tested in the select list, so an entry it rejects still counts toward b), newest first
  // where its index gives them in id order (an attribute equality's: old entities expire first,
  // so the live ones come first), up to `limit`: at most b entries, each probed for the rest, and
  // b rows (by id: the block columns are unindexed here), against the walk's b probes of the
  // whole filter. Each entry's liveness is a scalar subquery, not a join: SQLite materialises a
  // subquery that is joined (all b ids before the first is tested) and streams one that is read
  // alone. Placeholders in text order: the rest, the liveness test, the driver's conditions.
  const bool newest_first = driver.equality && !driver.meta;
  const std::string nid = DriverIdColumn(driver);
  std::string rest_test;
  if (driver.rest.kind != Expr::Kind::kAll) {
    VEIL_RETURN_IF_ERROR(
        CompileFilter(driver.rest, dialect, &rest_test, ProbeRef(row ? "e.id" : nid)));
  }
  VEIL_ASSIGN_OR_RETURN(const std::string at1, expiry());
  VEIL_ASSIGN_OR_RETURN(const std::string at2, block());
  std::string live = "(SELECT " + dialect.Unindexed("x.expires_block", true) + " > " + at1 +
                     " AND " + dialect.Unindexed("x.created_block", true) + " <= " + at2 +
                     " FROM entities x WHERE x.id = " + nid + ")";
  if (!rest_test.empty()) live = "CASE WHEN (" + rest_test + ") THEN " + live + " END";
  {
    DriverRows entries;
    VEIL_RETURN_IF_ERROR(CompileDriverRows(driver, dialect, &entries));
    *sql += "n(c) AS MATERIALIZED (SELECT count(*) FROM (SELECT 1 FROM (SELECT " + live +
            " AS live FROM " + entries.table + " a";
    // A rest that reads the entity's own columns (PostgreSQL's meta fields) reads its row.
    if (row) *sql += " JOIN entities e ON e.id = " + nid;
    *sql += " WHERE " + entries.conditions;
  }
  if (newest_first) *sql += " ORDER BY " + nid + " DESC";
  VEIL_ASSIGN_OR_RETURN(const std::string lim_n, dialect.Bind(query::Literal(limit), false));
  *sql += " LIMIT (SELECT n FROM b)) m WHERE m.live LIMIT " + lim_n + ") t), ";
  // k: the driver's index entries, counted up to b + 1 (its conditions alone: no rest probed, no
  // row read, nothing held).
  *sql += "k(n) AS MATERIALIZED (SELECT count(*) FROM (SELECT 1";
  {
    DriverRows entries;
    VEIL_RETURN_IF_ERROR(CompileDriverRows(driver, dialect, &entries));
    *sql += " FROM " + entries.table + " a WHERE " + entries.conditions;
  }
  *sql += " LIMIT (SELECT n FROM b) + 1) t), ";
  // The arms, each read only when the ones before it fail (CASE): `capped`, n proves the count
  // capped (only for a driver read newest first, and beside a backlog of at least `limit`, where
  // it can: a driver read in value order meets the expired entries as often as the live);
  // `exact`, k is every entry, so n saw them all and is the live count (up to `limit`); else the
  // walk (A - D).
  const auto capped = [&](std::string* out) -> Status {
    VEIL_ASSIGN_OR_RETURN(const std::string l1, dialect.Bind(query::Literal(limit), false));
    VEIL_ASSIGN_OR_RETURN(const std::string l2, dialect.Bind(query::Literal(limit), false));
    *out += "WHEN (CASE WHEN (SELECT n FROM b) >= " + l1 +
            " THEN (SELECT c FROM n) ELSE 0 END) >= " + l2 + " ";
    return Status::Ok();
  };
  static const std::string exact = "WHEN (SELECT n FROM k) <= (SELECT n FROM b) ";
  // D: 0 when n is the answer, otherwise the walk.
  *sql += "d(n) AS MATERIALIZED (SELECT CASE ";
  if (newest_first) {
    VEIL_RETURN_IF_ERROR(capped(sql));
    *sql += "THEN 0 ";
  }
  *sql += exact + "THEN 0 ELSE ";
  VEIL_RETURN_IF_ERROR(walk(sql));
  // A: `limit` (capped), n (exact), otherwise as above.
  *sql += " END) SELECT CASE ";
  if (newest_first) {
    VEIL_RETURN_IF_ERROR(capped(sql));
    VEIL_ASSIGN_OR_RETURN(const std::string lim_a, dialect.Bind(query::Literal(limit), false));
    *sql += "THEN " + lim_a + " ";
  }
  *sql += exact + "THEN (SELECT c FROM n) ELSE ";
  VEIL_RETURN_IF_ERROR(capped_matches(sql));
  *sql += " END, (SELECT n FROM d)";
  return Status::Ok();
}

Status CompileDriverRows(const Driver& driver, SqlDialect& dialect, DriverRows* rows,
                         RangeColumn column) {
  const std::vector<const Predicate*> range = driver.Predicates();
  if (range.empty()) return Internal("query: an empty driver");
  const IdRef unused;
  if (driver.meta) {
    // The field's own column on the entity row (with kExpression, the block numbers compared
    // as expressions, as a probe's are).
    rows->table = "entities";
    rows->id = DriverIdColumn(driver);
    rows->conditions.clear();
    IdRef ref;
    ref.probe = column == RangeColumn::kExpression;
    return Compiler(dialect, ref, "a").Predicates(range, &rows->conditions);
  }
  const bool numeric = Numeric(*range[0]);
  rows->table = numeric ? "attr_num" : "attr_str";
  rows->id = DriverIdColumn(driver);
  VEIL_ASSIGN_OR_RETURN(std::string name, dialect.Bind(query::Literal(range[0]->name), false));
  rows->conditions = "a.name = " + name;
  const std::string value =
      column == RangeColumn::kIndexed ? "a.value" : dialect.Unindexed("a.value", numeric);
  Compiler compiler(dialect, unused);
  for (const Predicate* p : range) {
    rows->conditions += " AND ";
    VEIL_RETURN_IF_ERROR(compiler.Comparison(value, *p, numeric, &rows->conditions));
  }
  return Status::Ok();
}

WalkWindow RangeWalkWindow(std::int64_t top, std::uint64_t rows) {
  // In doubles: a cursor may name any id up to 2^63 - 1, whose product with rows overflows.
  top = std::max<std::int64_t>(top, 0);
  const double t = static_cast<double>(top);
  const double r = static_cast<double>(rows);
  const double size =
      std::max(static_cast<double>(kRangeWalkMinFactor) * r, std::ceil(std::sqrt(r * t)));
  if (size >= t) return WalkWindow{0, top};
  return WalkWindow{top - static_cast<std::int64_t>(size), top};
}

Result<std::optional<std::size_t>> FewestByDoubling(
    std::uint64_t from,
    const std::function<Result<std::optional<std::size_t>>(std::uint64_t)>& fewest_below) {
  for (std::uint64_t limit = std::max<std::uint64_t>(from, 1);; limit *= 2) {
    VEIL_ASSIGN_OR_RETURN(const std::optional<std::size_t> best, fewest_below(limit));
    if (best || limit > (std::uint64_t{1} << 62)) return best;
  }
}

bool ReadsEntityColumns(const query::Expr& filter, const SqlDialect& dialect) {
  if (dialect.MetaViaIdSubquery()) return false;
  if (filter.kind == Expr::Kind::kPredicate) return filter.predicate.field != Field::kAttribute;
  for (const auto& c : filter.children) {
    if (ReadsEntityColumns(c, dialect)) return true;
  }
  return false;
}

}  // namespace veil::ledger::sql
