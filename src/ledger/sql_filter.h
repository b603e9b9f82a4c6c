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
  // True: a meta-field predicate is written `e.id IN (SELECT id FROM entities WHERE ...)` so the
  // planner takes the field's index instead of walking ids in ORDER BY order (SQLite); false: it
  // is written on `e.` directly (PostgreSQL plans it well).
  virtual bool MetaViaIdSubquery() const = 0;
};

// Appends the WHERE-clause text for `filter` to *sql.
Status CompileFilter(const query::Expr& filter, SqlDialect& dialect, std::string* sql);

}  // namespace veil::ledger::sql
