// The statement that writes a block's rows on PostgreSQL (BlockStatement), and the fixed
// statements of the write path (WriteStmt), prepared once per connection. Only text and
// parameters: the store's block writer (writer.cc) gathers a block's rows into one and sends it.
//
// Internal to the ledger's PostgreSQL store. Thread safety: values, no shared state.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "postgres/connection.h"
#include "postgres/wire.h"

namespace veil::ledger::pg {

// The parts of a block's statement (BlockStatement; the names are the CTEs'), in the order of
// its text and of its parameters.
enum BlockPart : unsigned {
  kAccountsSet,     // acs: the senders' nonces
  kAccountsEnsure,  // ace: owners and creators that have no row yet
  kDropNum,         // dn, ds: the attribute rows of deleted and re-attributed entities
  kDropStr,         // ds
  kDeleteEntities,  // de: deleted entities
  kUpdateEntities,  // ue
  kInsertEntities,  // ie
  kAttrNum,         // an, ans: attribute rows
  kAttrStr,         // ans
  kExpiry,          // ex: expiry buckets
  kTxIndex,         // ti: transactions after their block's first
  kEarlierBlocks,   // bl: a group's blocks but its last, whose row is the main INSERT
  kBlockPartCount,
};

// Fixed statements of the write path, prepared once per connection.
enum WriteStmt : int {
  kAccountsSetApart,
  kAccountsEnsureApart,
  kSweep,
  kSweepClean,
  kWriteLock,
  kWriteStmtCount,
};

// The write statements' texts and types, in WriteStmt order (PgConnection::PrepareWriteStatements
// prepares them as WriteStmtName(i)).
std::span<const StmtDef> WriteStmtDefs();

// The element count in the header of an array parameter of ArrayParam::Build's format (0 for an
// empty array, which has no dimension; TakeParams checks the elements against it).
inline long ArrayLength(const PgParam& a) {
  if (a.data.size() < 20 || GetBe(a.data.data(), 4) != 1) return 0;
  return static_cast<long>(GetBe(a.data.data() + 12, 4));
}

// The statement that writes a block's rows: each part the block has is a data-modifying CTE of
// the INSERT of the block's row, so whatever a block changes it is one statement. Every
// statement costs server time of its own however little it does (bind, executor set-up and
// tear-down, a result: 10-20 us in a one-entity block), and the accounts, the entity rows and
// the rest were three statements.
//
// Two forms (artifacts/bench-ledger-40-values-form/):
// - Arrays: each part's rows as one array parameter a column through unnest, after the
//   statement that takes the chain's write lock (kWriteLock), whose set_config gives it a
//   generic plan. One statement text a set of parts, however many rows.
// - One statement (OneStatement): each part's rows as a VALUES list of scalar parameters and the
//   lock as its first CTE: the block is one statement in all. Its generic plan costs what a
//   custom one does, so the plan cache settles on it without set_config. A text a set of parts
//   AND row counts, so it is kept to small blocks (AppendBlockSteps): 32-91 us less a one-entity
//   block than the arrays after a statement of their own (probe-forms.txt).
// In both the block's row is the main INSERT, and it reads `pn`, the parent's row
// (VEIL_PG_PARENT): the counters follow from its, and the row goes in only where the parent is
// the head (VEIL_PG_PARENT_IS_HEAD).
//
// PostgreSQL runs a statement's data-modifying CTEs in an order it does not promise, and none
// sees another's changes. Where order matters, a part reads the RETURNING rows of the part that
// must go first, which runs that one to completion first: the entity rows take the ids of
// accounts written in the same statement from the account parts' rows (PgAccountId), and the
// attribute rows of a re-attributed entity go in after its old rows are deleted (a unique check
// does not see a row its own transaction deleted). The main statement runs before the CTEs that
// it does not read, so a stale writer's statement fails at the parent check or the block's
// primary key with nothing else done; were that order ever different, the statement still fails
// whole (a unique key of the winner's rows, or the check). The text depends only on the shape
// (Key), so it is built and prepared once per shape and connection
// (PostgresStore::PreparedBlock; a one-entity create is always the same one), and a block only
// gathers its parameters.
class BlockStatement {
 public:
  // Part p with its rows, one array a column (TextOf(p).columns); parts come in BlockPart order,
  // each once.
  void With(BlockPart p, std::vector<PgParam> columns) {
    if (static_cast<int>(p) <= last_) ordered_ = false;
    last_ = static_cast<int>(p);
    parts_ |= 1u << p;
    rows_[p] = columns.empty() ? 0 : ArrayLength(columns[0]);
    columns_[p] = std::move(columns);
  }
  bool Has(BlockPart p) const { return (parts_ >> p & 1u) != 0; }
  bool ordered() const { return ordered_; }
  // The rows of every part together.
  long rows() const {
    long n = 0;
    for (unsigned p = 0; p < kBlockPartCount; ++p)
      n += Has(static_cast<BlockPart>(p)) ? rows_[p] : 0;
    return n;
  }

  // Whether every part has at least one row (a VALUES list cannot be empty).
  bool EveryPartHasRows() const {
    for (unsigned p = 0; p < kBlockPartCount; ++p) {
      if (Has(static_cast<BlockPart>(p)) && rows_[p] == 0) return false;
    }
    return true;
  }

  // The shape: the form, whether it is the genesis block's (no parent), the parts and, in the
  // one-statement form, their row counts.
  std::vector<std::uint32_t> Key(bool one_statement, bool genesis) const {
    std::vector<std::uint32_t> key{(one_statement ? 1u : 0u) | (genesis ? 2u : 0u), parts_};
    if (!one_statement) return key;
    for (unsigned p = 0; p < kBlockPartCount; ++p) {
      if (Has(static_cast<BlockPart>(p))) {
        key.push_back(static_cast<std::uint32_t>(rows_[p]));
      }
    }
    return key;
  }

  // The parameters, in the order of Sql(Key(one_statement, ...)): the parent's first (its number
  // and hash; none for the genesis block), then the parts' (arrays, or each part's rows as
  // scalars row by row), then the block row's (sixteen). Moves the parts' parameters out.
  Result<std::vector<PgParam>> TakeParams(bool one_statement, std::vector<PgParam> parent,
                                          std::vector<PgParam> row);

  // The text of a statement of shape `key` (Key); *param_count: the parameters it takes.
  static std::string Sql(const std::vector<std::uint32_t>& key, std::size_t* param_count);

 private:
  // Appends sql with its parameters $1..$k numbered after the *n before it; *n grows by k.
  static void Renumbered(std::string_view sql, std::size_t* n, std::string* out);
  std::uint32_t parts_ = 0;
  int last_ = -1;
  bool ordered_ = true;
  std::array<long, kBlockPartCount> rows_{};  // indexed by BlockPart
  std::array<std::vector<PgParam>, kBlockPartCount> columns_;
};

}  // namespace veil::ledger::pg
