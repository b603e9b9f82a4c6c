// The ledger's query language (Arkiv's, docs/notes/ledger.md has the EBNF): a tokenizer and a
// recursive-descent parser that turn text into an AST, independent of any SQL, so it can be fuzzed
// alone. Backends compile the AST with bound parameters only.
//
//   query     := "*" | "$all" | expr
//   predicate := field ("=" | "<" | "<=" | ">" | ">=") literal
//              | field ["NOT"] "IN" "(" literal {"," literal} ")"
//              | field ("~" | "!~" | "GLOB" | "NOT" "GLOB") string
//   expr      := and-terms joined by "||" / "OR" / "or"; terms joined by "&&" / "AND" / "and";
//                "NOT" "(" expr ")" / "!" "(" expr ")" / "(" expr ")" / predicate
// Fields are attribute names or the meta fields $key, $owner, $creator, $expiresAt (alias
// $expiration), $createdAtBlock (alias $createdAt) and $contentType (=, IN, NOT IN and glob on
// strings; not indexed: it filters the rows something else finds, or scans). Literals:
// "double-quoted" strings (escapes \" and \\), unsigned 64-bit decimals, 0x-hex (64 digits for
// keys, 40 for addresses), and Arkiv 0.8.1's typed forms of the same: str('text', an apostrophe
// doubled), u64(decimal), addr(0x + 40 hex digits), key(0x + 64); a type the ledger never stores
// (i32, u256, dec, bytes32, bytes, bool, true, false) is an error. A predicate matches only
// attributes of the literal's type. Errors carry the byte offset.
//
// Thread safety: values and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/ledger/limits.h"

namespace veil::ledger::query {

enum class Field : std::uint8_t {
  kAttribute,
  kKey,
  kOwner,
  kCreator,
  kExpiresAt,
  kCreatedAtBlock,
  kContentType,
};

enum class CmpOp : std::uint8_t { kEq, kLt, kLe, kGt, kGe, kIn, kNotIn, kGlob, kNotGlob };

// A literal: a number, a string, or bytes (0x-hex, for $key/$owner/$creator).
using Literal = std::variant<std::uint64_t, std::string, Bytes>;

struct Predicate {
  Field field = Field::kAttribute;
  std::string name;  // for kAttribute
  CmpOp op = CmpOp::kEq;
  std::vector<Literal> values;  // one, or the IN list
  std::size_t pos = 0;          // byte offset of the field in the text
};

struct Expr {
  enum class Kind : std::uint8_t { kAll, kAnd, kOr, kNot, kPredicate };
  Kind kind = Kind::kAll;
  std::vector<Expr> children;  // kAnd/kOr: two or more; kNot: one
  Predicate predicate;         // kPredicate
};

struct ParseError {
  std::size_t offset = 0;
  std::string message;
};

// Parses and type-checks; on error, *error (if given) receives the offset and message, and the
// Status (kInvalidArgument) reads "query: at byte N: message".
Result<Expr> Parse(std::string_view text, const QueryLimits& limits, ParseError* error = nullptr);

// A canonical text form of the AST (fully parenthesised); Parse(ToString(e)) gives e back.
std::string ToString(const Expr& e);

// Counts predicates (used for query units).
std::size_t CountPredicates(const Expr& e);

}  // namespace veil::ledger::query
