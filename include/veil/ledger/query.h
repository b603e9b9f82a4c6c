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
// A query can also be built in code, with the values kept as values rather than pasted into text
// (the builder at the end): Attr("name") == user_input && Attr("n") >= 5u && Owner(address).
// ToCheckedString turns such an Expr into the text that parses back to exactly it, whatever the
// values hold (quotes, backslashes, `&&`, parentheses), or refuses it; LedgerApi::Query and Count
// take an Expr that way.
//
// Thread safety: values and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/ledger/entity.h"
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

  // Equal in meaning: field, name, operator and values (`pos` says where a text had it, and is
  // not compared).
  friend bool operator==(const Predicate& a, const Predicate& b) {
    return a.field == b.field && a.name == b.name && a.op == b.op && a.values == b.values;
  }
};

struct Expr {
  enum class Kind : std::uint8_t { kAll, kAnd, kOr, kNot, kPredicate };
  Kind kind = Kind::kAll;
  std::vector<Expr> children;  // kAnd/kOr: two or more; kNot: one
  Predicate predicate;         // kPredicate
  friend bool operator==(const Expr&, const Expr&) = default;
};

struct ParseError {
  std::size_t offset = 0;
  std::string message;
};

// Parses and type-checks; on error, *error (if given) receives the offset and message, and the
// Status (kInvalidArgument) reads "query: at byte N: message".
Result<Expr> Parse(std::string_view text, const QueryLimits& limits, ParseError* error = nullptr);

// A canonical text form of the AST (fully parenthesised); Parse(ToString(e)) gives e back for
// every `e` Parse returns. Strings are quoted with `"` and `\` escaped; every other byte is
// written as it is.
std::string ToString(const Expr& e);

// ToString(e), checked to parse back to `e` itself (under no QueryLimits: the ledger applies its
// own), for an Expr built in code. kInvalidArgument, saying what is wrong, for an Expr no query
// text has: `*` inside an expression, an AND or OR of fewer than two terms, a NOT of other than
// one, an attribute name that is not an identifier ([A-Za-z_][A-Za-z0-9_.-]*, not NOT), an
// operator with the wrong number of values or values of a type the field does not take.
Result<std::string> ToCheckedString(const Expr& e);

// Counts predicates (used for query units).
std::size_t CountPredicates(const Expr& e);

// Building queries in code. Comparisons of an Operand make predicates; &&, || and ! combine
// them (flattening nested ANDs and ORs as the parser does; All() is the identity of && and
// absorbs ||). Numbers are unsigned (5u): a signed, boolean or floating-point operand does not
// compile, rather than wrapping around. Whether the result is a valid query is checked when it
// is turned into text (ToCheckedString), e.g. a glob on a number.
class Operand {
 public:
  Operand(Field field, std::string name) : field_(field), name_(std::move(name)) {}

  Expr operator==(std::string_view v) const { return Compare(CmpOp::kEq, std::string(v)); }
  Expr operator<(std::string_view v) const { return Compare(CmpOp::kLt, std::string(v)); }
  Expr operator<=(std::string_view v) const { return Compare(CmpOp::kLe, std::string(v)); }
  Expr operator>(std::string_view v) const { return Compare(CmpOp::kGt, std::string(v)); }
  Expr operator>=(std::string_view v) const { return Compare(CmpOp::kGe, std::string(v)); }
  Expr operator==(std::uint64_t v) const { return Compare(CmpOp::kEq, v); }
  Expr operator<(std::uint64_t v) const { return Compare(CmpOp::kLt, v); }
  Expr operator<=(std::uint64_t v) const { return Compare(CmpOp::kLe, v); }
  Expr operator>(std::uint64_t v) const { return Compare(CmpOp::kGt, v); }
  Expr operator>=(std::uint64_t v) const { return Compare(CmpOp::kGe, v); }
  // $key, $owner and $creator compare with bytes (a key, an address).
  Expr operator==(ByteView v) const { return Compare(CmpOp::kEq, Bytes(v.begin(), v.end())); }

  // A value that is not unsigned: refused at compile time (write 5u, not 5).
  template <class T>
  requires(std::is_arithmetic_v<T> &&
           (std::is_signed_v<T> || std::is_same_v<T, bool> || std::is_floating_point_v<T>)) Expr
  operator==(T) const = delete;
  template <class T>
  requires(std::is_arithmetic_v<T> &&
           (std::is_signed_v<T> || std::is_same_v<T, bool> || std::is_floating_point_v<T>)) Expr
  operator<(T) const = delete;
  template <class T>
  requires(std::is_arithmetic_v<T> &&
           (std::is_signed_v<T> || std::is_same_v<T, bool> || std::is_floating_point_v<T>)) Expr
  operator<=(T) const = delete;
  template <class T>
  requires(std::is_arithmetic_v<T> &&
           (std::is_signed_v<T> || std::is_same_v<T, bool> || std::is_floating_point_v<T>)) Expr
  operator>(T) const = delete;
  template <class T>
  requires(std::is_arithmetic_v<T> &&
           (std::is_signed_v<T> || std::is_same_v<T, bool> || std::is_floating_point_v<T>)) Expr
  operator>=(T) const = delete;

  Expr In(std::vector<Literal> values) const { return List(CmpOp::kIn, std::move(values)); }
  Expr NotIn(std::vector<Literal> values) const { return List(CmpOp::kNotIn, std::move(values)); }
  // Glob patterns: * any run, ? one character, [...] a class (SQLite's GLOB).
  Expr Glob(std::string_view pattern) const { return Compare(CmpOp::kGlob, std::string(pattern)); }
  Expr NotGlob(std::string_view pattern) const {
    return Compare(CmpOp::kNotGlob, std::string(pattern));
  }

 private:
  Expr Compare(CmpOp op, Literal v) const;
  Expr List(CmpOp op, std::vector<Literal> values) const;

  Field field_;
  std::string name_;
};

// An attribute, by name.
inline Operand Attr(std::string_view name) { return {Field::kAttribute, std::string(name)}; }
// A meta field: $key, $owner, $creator, $expiresAt, $createdAtBlock or $contentType.
inline Operand Meta(Field field) { return {field, std::string()}; }
inline Operand ExpiresAt() { return Meta(Field::kExpiresAt); }
inline Operand CreatedAtBlock() { return Meta(Field::kCreatedAtBlock); }
inline Operand ContentType() { return Meta(Field::kContentType); }
// $key = key, $owner = address, $creator = address.
inline Expr Key(const EntityKey& key) { return Meta(Field::kKey) == ByteView(key); }
inline Expr Owner(const Address& address) { return Meta(Field::kOwner) == ByteView(address); }
inline Expr Creator(const Address& address) { return Meta(Field::kCreator) == ByteView(address); }
// Every live entity ("*").
inline Expr All() { return Expr{}; }

Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr e);

}  // namespace veil::ledger::query
