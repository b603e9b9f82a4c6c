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

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "veil/base/result.h"
#include "veil/ledger/query.h"
#include "veil/ledger/store.h"

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
  // Text that ends a correlated EXISTS probe's subquery so that it stays a probe, run once per
  // outer row, instead of a join the planner may turn into a scan of the probed table
  // (PostgreSQL: ` OFFSET 0`, which keeps it from pulling the EXISTS up into a semi-join).
  virtual const char* ProbeEnd() const { return ""; }
  // True: a driver's rows of an IN list of owners or creators take the accounts' ids as an
  // array, `owner_id = ANY(ARRAY(SELECT id FROM accounts WHERE ...))`, which the planner
  // computes once and scans the field's index with in key order in any plan (PostgreSQL, where
  // a generic plan of `owner_id IN (SELECT ...)` was a sequential scan under a count's LIMIT);
  // false: `owner_id IN (SELECT id ...)`.
  virtual bool AccountIdArrays() const { return false; }
};

// The entity id the predicates test, and how: `ID IN (SELECT entity_id ...)` subqueries (the
// planner may materialise a subquery's matches, which suits a scan driven by one of them), or,
// with `probe`, correlated `EXISTS (SELECT 1 ... WHERE entity_id = ID ...)` probes (one index
// probe per row of a scan that something else drives), every compared column written as
// SqlDialect::Unindexed's expression, so that a probe of one entity's rows by its id never turns
// into a walk of a value index.
struct IdRef {
  std::string id = "e.id";
  bool probe = false;
};
inline IdRef ProbeRef(std::string id) { return IdRef{std::move(id), true}; }

// Appends the WHERE-clause text for `filter` to *sql.
Status CompileFilter(const query::Expr& filter, SqlDialect& dialect, std::string* sql,
                     const IdRef& ref = {});

// A conjunct that can drive a page (docs/notes/ledger.md, "Query plans"): an attribute equality,
// or one attribute's range (comparisons on one attribute and type, merged), or a glob or an IN
// list on an attribute, each of whose index entries is a candidate match; or a meta field's
// predicate (`=`, `<`, `<=`, `>`, `>=` merged on one field, or an IN list) on $key, $owner,
// $creator, $expiresAt or $createdAtBlock, served by that field's index on the entities; with
// the rest of the filter's top-level AND, which the plans test on each candidate by probes
// (ProbeRef).
struct Driver {
  query::Expr index;  // a predicate, or an AND of one attribute's or meta field's comparisons
  query::Expr rest;   // Kind::kAll when the driver is the whole filter
  // An attribute equality: its index entries come in entity-id order, so a page can walk them
  // down from the cursor (a meta field's equality is not one: it is counted and collected or
  // walked like a range).
  bool equality = false;
  bool meta = false;  // a meta field's index on the entities (else an attribute's)
  // The index conjunct's predicates (pointing into `index`).
  std::vector<const query::Predicate*> Predicates() const;
  // The most index entries the driver can have when that is known without reading them and
  // below kRangeProbeLimit ($key, a unique index: 1 for `=`, the list's length for IN), else 0.
  std::uint64_t KnownBound() const;
};
// The entity row's column a meta field reads (`key`, `owner_id`, ...); nullptr for an attribute.
const char* MetaColumn(query::Field field);
// The drivers of `filter`, in the order of their first conjunct (none: a filter that is not an
// AND of such conjuncts and others, e.g. an OR or a NOT at the top, or `$contentType` alone).
std::vector<Driver> Drivers(const query::Expr& filter);
// The driver a walk is led by (the stores' range plans): the first attribute range, glob or IN
// list, else the first meta field's driver (drivers.end(): every driver is an attribute
// equality, whose index is walked instead). An attribute's comes first because its statements
// keep a generic plan on PostgreSQL, where a meta field's are planned at every call.
std::vector<Driver>::iterator WalkDriver(std::vector<Driver>& drivers);
// The first driver whose KnownBound() is not 0: it needs no count to drive (none: nullopt).
std::optional<std::size_t> BoundedDriver(const std::vector<Driver>& drivers);
// The driver a count reads (drivers not empty): a bounded one ($key's unique index needs no
// count), else of several the one `fewest_below(limit)` names (the store's count of each
// driver's entries up to `limit`, the count's cap + 1: the one with the fewest when one has
// fewer, so the count never probes more of its driver's entries than that), else the first.
Result<std::size_t> CountDriver(
    const std::vector<Driver>& drivers, std::uint64_t limit,
    const std::function<Result<std::optional<std::size_t>>(std::uint64_t)>& fewest_below);
// The drivers of each branch of an OR at the top of `filter` (none: not such an OR, or one with
// a branch that has no driver, which is walked as any filter without drivers is, then collected
// by the planner). The OR's matches below a cursor are at most the sum over its branches of the
// fewest index entries of a branch's drivers, so the stores count them as they count one
// conjunction's drivers: under
// kRangeProbeLimit in all, the planner collects the branches' index matches (a page costs time
// in proportion to them); otherwise a page walks the entities down from the cursor with the
// whole filter probed on each, as a broad range's does (RangeWalkWindow), and the planner
// collects when the window holds no page.
std::vector<std::vector<Driver>> BranchDrivers(const query::Expr& filter);

// A driver's index rows on alias `a`: `FROM <table> a WHERE <conditions>`, the entity id of a row
// being `id` ("a.entity_id" in attr_num or attr_str, "a.id" in entities). The conditions are one
// index range (kIndexed), or with the value compared as SqlDialect::Unindexed's expression
// (kExpression: for a probe of one entity's rows by its id, which no value index must serve).
enum class RangeColumn { kIndexed, kExpression };
struct DriverRows {
  std::string table, conditions, id;
};
Status CompileDriverRows(const Driver& driver, SqlDialect& dialect, DriverRows* rows,
                         RangeColumn column = RangeColumn::kIndexed);
// A page has these plans (docs/notes/ledger.md, "Query plans"): collect a driver's index entries
// and sort their entities by id, each probed for the rest (time in proportion to the entries M;
// an equality's entries come in id order, so its walk down the index stops after a page), or
// walk the entities down from the cursor and probe each one for the whole filter, which finds a
// page of `rows` rows after about rows * N / F entities (F the filter's matches: few walked when
// the filter is broad). The stores count each driver's index entries below the cursor up to
// kRangeProbeLimit: the one with the fewest drives when it has fewer; otherwise, when a driver
// is a range, they walk RangeWalkWindow(top, rows) below `top` (the cursor or the highest id + 1,
// whichever is lower), and collect after all when the window holds fewer than `rows` live
// matches and does not reach id 0. The window balances the two: a filter too narrow for the walk
// to fill a page in it has at most rows * N / window matches, so the wasted walk and the
// collection that follows cost about the same, and the worst case is about 2 * sqrt(rows * N)
// rows (N the ids below `top`) instead of N, for a lone range (whose matches are its entries).
inline constexpr std::uint64_t kRangeProbeLimit = 1000;
// A store that knows the backlog of expired, unswept entities (PostgreSQL: as of its last count)
// compiles driven counts with read_rows from this backlog on: below it the walk of the backlog
// costs less than the longer statement.
inline constexpr std::uint64_t kCountRowsBacklog = 128;
inline constexpr std::uint64_t kRangeWalkMinFactor = 8;  // the window is at least 8 pages of ids
// The ids [low, top) a walk covers: top - low = max(kRangeWalkMinFactor * rows,
// ceil(sqrt(rows * top))), low at least 0 (SQLite walks those ids; PostgreSQL the top - low rows
// below top, which cover them). A walk that found fewer than `rows` matches is the whole answer
// when low is 0.
struct WalkWindow {
  std::int64_t low = 0, top = 0;
};
WalkWindow RangeWalkWindow(std::int64_t top, std::uint64_t rows);
// The driver with the fewest index entries when several have at least `from`: `fewest_below`
// (the store's count of each driver up to a limit: the one with the fewest when one has fewer,
// else nullopt) with a limit that starts at `from` and doubles until one driver falls short of
// it, which reads about 2 * drivers * M index entries (M the fewest's).
Result<std::optional<std::size_t>> FewestByDoubling(
    std::uint64_t from,
    const std::function<Result<std::optional<std::size_t>>(std::uint64_t)>& fewest_below);

// True when the compiled filter reads columns of `e` itself (a dialect that writes meta fields on
// `e.` directly), so it cannot be evaluated from an id alone.
bool ReadsEntityColumns(const query::Expr& filter, const SqlDialect& dialect);

// The count of a filter's live matches at `at`, capped, without reading an entity row per
// match: one statement returning two columns, A = the driver's index entries whose entities pass
// the rest (probed; live or not), at most `limit` + D, and D = the matches among the entities
// that are not live at `at` (expired but not yet swept, or created later: few, found
// through the expiry and creation indexes). The live count is A - D; it exceeds `limit` - 1
// exactly when A - D does. D is computed once (a materialised CTE). With `read_rows`, the live
// matches among the driver's first `backlog` entries (the expired, unswept entities, from the
// expiry buckets) are counted up to `limit`, newest first for an attribute equality (whose index
// gives them in id order; old entities expire first), each entry probed for the rest and its
// liveness tested on its entity row: at most `backlog` entries and rows, against the walk's
// `backlog` probes of the whole filter. For an attribute equality beside a backlog of at least
// `limit`, reaching `limit` proves the count capped; when the driver has no more entries than the
// backlog (counted up to backlog + 1, its conditions alone) that count is exact; otherwise A - D.
// The sweeper keeps expired entities for cursor_lifetime_blocks (an hour at 2 s), so a backlog of
// an hour's expirations is the steady state of a ledger with churn. That costs the statement three
// CTEs more (on PostgreSQL, which plans every count, 0.15-0.2 ms a count), worth it only beside a
// backlog (kCountRowsBacklog).
Status CompileDrivenCount(const query::Expr& filter, const Driver& driver, SqlDialect& dialect,
                          ReadPoint at, std::uint64_t limit, bool read_rows, std::string* sql);

}  // namespace veil::ledger::sql
