// The query filter compiler that both SQL stores share: a query AST becomes a WHERE clause whose
// every value is a bound parameter. What differs between SQLite and PostgreSQL (placeholders,
// value types, IN lists, glob matching, how meta fields reach their index) is a SqlDialect.
//
// Index use (docs/notes/ledger.md, "Query plans"): each attribute predicate is one id subquery on
// the attribute index (name, value, entity_id). Range predicates on the same attribute under one
// AND (`price >= 10 && price < 20`) are merged into one subquery, so the index is walked over
// [10, 20) once instead of once per bound (two unbounded half-ranges, then an intersection).
// Range predicates on the same meta field are merged the same way.
//
// Internal to the ledger's stores. Thread safety: a SqlDialect is used by one compilation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "veil/base/result.h"
#include "veil/ledger/query.h"

namespace veil::ledger::sql {

class SqlDialect {
 public:
  virtual ~SqlDialect() = default;
  // Binds a literal (a u64 stored biased when `biased`) and returns its placeholder.
  virtual Result<std::string> Bind(const query::Literal& value, bool biased) = 0;
  // `column IN (...)` (or its dialect's equivalent) over the list.
  virtual Result<std::string> InList(const std::string& column,
                                     const std::vector<query::Literal>& values, bool biased) = 0;
  // The glob match alone; the compiler adds the literal prefix's index bounds.
  virtual Result<std::string> GlobMatch(const std::string& column, const std::string& pattern) = 0;
  // The smallest string above every string that starts with `prefix` in the dialect's string
  // order (empty: none exists).
  virtual std::string PrefixUpperBound(std::string prefix) const = 0;
  // The literal true.
  virtual const char* True() const = 0;
  // `column` (a text column) compared in bytewise order, as attribute strings are.
  virtual std::string Bytewise(const std::string& column) const = 0;
  // True: a meta-field predicate is written `e.id IN (SELECT id FROM entities WHERE ...)` so the
  // planner takes the field's index instead of walking ids in ORDER BY order (SQLite); false: it
  // is written on `e.` directly (PostgreSQL plans it well).
  virtual bool MetaViaIdSubquery() const = 0;
  // `column` as an expression of the same value that no index serves (a probe by another index
  // must not be turned into a walk of this one).
  virtual std::string Unindexed(const std::string& column, bool numeric) const = 0;
};

// The entity id the predicates test, and how: `ID IN (SELECT entity_id ...)` subqueries (the
// planner may materialise a subquery's matches, which suits a scan driven by one of them), or
// correlated `EXISTS (SELECT 1 ... WHERE entity_id = ID ...)` probes (one index probe per row of
// a scan that something else drives).
struct IdRef {
  std::string id = "e.id";
  bool exists = false;
};

// Appends the WHERE-clause text for `filter` to *sql.
Status CompileFilter(const query::Expr& filter, SqlDialect& dialect, std::string* sql,
                     const IdRef& ref = {});

// A filter split into a driving attribute equality and the rest of a top-level AND. The driver's
// index (name, value, entity_id) yields its matches in entity-id order, so a page walks it
// backwards and stops after a page of live matches, and a count reads the index alone, instead
// of collecting every match first (which costs time in proportion to the matches).
struct DrivenFilter {
  const query::Predicate* driver = nullptr;  // points into the filter it was split from
  query::Expr rest;                          // Kind::kAll when the driver is the whole filter
};
// The attribute equalities that could drive the filter: the filter itself, or the children of its
// top-level AND (indexes into filter.children).
std::vector<std::size_t> DriverCandidates(const query::Expr& filter);
// The filter driven by candidate `which` (an entry of DriverCandidates, or 0 for a filter that is
// itself an equality); nullopt when there is none.
std::optional<DrivenFilter> SplitDriver(const query::Expr& filter, std::size_t which = 0);
// The driver's table ("attr_num" or "attr_str") and its conditions on alias `a`.
Status CompileDriver(const query::Predicate& driver, SqlDialect& dialect, std::string* table,
                     std::string* conditions);
// A filter that is one attribute's range and nothing else: one comparison (<, <=, >, >=) on an
// attribute, or a top-level AND of such comparisons on the same attribute and type, or one glob
// on an attribute (its literal prefix bounds the index range; without one, the range is the
// attribute's whole index, tested by the pattern). Its predicates (pointing into the filter), or
// empty when the filter is anything else.
std::vector<const query::Predicate*> AttributeRange(const query::Expr& filter);
// The range's table ("attr_num" or "attr_str") and its conditions on alias `a`: one index range
// (kIndexed), or with the value compared as SqlDialect::Unindexed's expression (kExpression: for
// a probe of one entity's row by (entity_id, name)).
enum class RangeColumn { kIndexed, kExpression };
Status CompileRangeDriver(const std::vector<const query::Predicate*>& range, SqlDialect& dialect,
                          std::string* table, std::string* conditions,
                          RangeColumn column = RangeColumn::kIndexed);
// A page of one attribute's range has two plans (docs/notes/ledger.md, "Query plans"): collect
// the range's matches from its index and sort them by id (time in proportion to the matches M),
// or walk the entities down from the cursor and probe each one's attribute row, which finds a
// page of `rows` rows after about rows * N / M entities (few when the range is broad). The stores
// count the range's index entries below the cursor up to kRangeProbeLimit: fewer, and they
// collect; otherwise they walk RangeWalkWindow(top, rows) below `top` (the cursor or the highest
// id + 1, whichever is lower), and collect after all when the window holds fewer than `rows` live
// matches and does not reach id 0. The window balances the two: a range too narrow for the walk
// to fill a page in it has at most rows * N / window matches, so the wasted walk and the
// collection that follows cost about the same, and the worst case is about 2 * sqrt(rows * N)
// rows (N the ids below `top`) instead of N.
inline constexpr std::uint64_t kRangeProbeLimit = 1000;
inline constexpr std::uint64_t kRangeWalkMinFactor = 8;  // the window is at least 8 pages of ids
// The ids [low, top) a walk covers: top - low = max(kRangeWalkMinFactor * rows,
// ceil(sqrt(rows * top))), low at least 0 (SQLite walks those ids; PostgreSQL the top - low rows
// below top, which cover them). A walk that found fewer than `rows` matches is the whole answer
// when low is 0.
struct WalkWindow {
  std::int64_t low = 0, top = 0;
};
WalkWindow RangeWalkWindow(std::int64_t top, std::uint64_t rows);

// True when the compiled filter reads columns of `e` itself (a dialect that writes meta fields on
// `e.` directly), so it cannot be evaluated from an id alone.
bool ReadsEntityColumns(const query::Expr& filter, const SqlDialect& dialect);

// The count of a filter's live matches at `at_block`, capped, without reading an entity row per
// match: one statement returning two columns, A = the driver's index matches that pass the rest
// (live or not), at most `limit` + D, and D = the matches among the entities that are not live at
// `at_block` (expired but not yet swept, or created later: few, found through the expiry and
// creation indexes). The live count is A - D; it exceeds `limit` - 1 exactly when A - D does.
// Only for a DrivenFilter whose rest does not read entity columns (ReadsEntityColumns).
Status CompileDrivenCount(const query::Expr& filter, const DrivenFilter& driven,
                          SqlDialect& dialect, std::uint64_t at_block, std::uint64_t limit,
                          std::string* sql);
// The same for a filter that is one attribute's range (AttributeRange): A from the range's index
// entries alone, D's entities probed by (entity_id, name).
Status CompileRangeCount(const std::vector<const query::Predicate*>& range, SqlDialect& dialect,
                         std::uint64_t at_block, std::uint64_t limit, std::string* sql);

}  // namespace veil::ledger::sql
