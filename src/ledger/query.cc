// The query tokenizer, parser and type checker (grammar in query.h and docs/notes/ledger.md).
#include "veil/ledger/query.h"

#include <limits>
#include <string>
#include <utility>

#include "veil/base/encoding.h"

namespace veil::ledger::query {
namespace {

enum class Tok : std::uint8_t {
  kEnd,
  kLParen,
  kRParen,
  kComma,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kTilde,
  kNotTilde,
  kBang,
  kAndAnd,
  kOrOr,
  kStar,
  kString,
  kQuoted,  // 'text' with '' for an apostrophe: only inside str(...)
  kNumber,
  kHex,
  kIdent,
  kMeta,
};

struct Token {
  Tok kind = Tok::kEnd;
  std::size_t pos = 0;
  std::string text;  // identifier, meta name (without $) or string value
  std::uint64_t number = 0;
  Bytes hex;
};

struct Failure {
  std::size_t pos;
  std::string message;
};

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsIdentChar(char c) {
  return IsIdentStart(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  // Returns false and fills *f on a lexical error.
  bool Next(Token* t, Failure* f) {
    while (i_ < s_.size() &&
           (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) {
      ++i_;
    }
    *t = Token{};
    t->pos = i_;
    if (i_ == s_.size()) return true;
    const char c = s_[i_];
    const char d = i_ + 1 < s_.size() ? s_[i_ + 1] : '\0';
    auto two = [&](Tok k) {
      t->kind = k;
      i_ += 2;
      return true;
    };
    auto one = [&](Tok k) {
      t->kind = k;
      i_ += 1;
      return true;
    };
    switch (c) {
      case '(':
        return one(Tok::kLParen);
      case ')':
        return one(Tok::kRParen);
      case ',':
        return one(Tok::kComma);
      case '*':
        return one(Tok::kStar);
      case '~':
        return one(Tok::kTilde);
      case '=':
        return one(Tok::kEq);
      case '<':
        return d == '=' ? two(Tok::kLe) : one(Tok::kLt);
      case '>':
        return d == '=' ? two(Tok::kGe) : one(Tok::kGt);
      case '!':
        if (d == '=') return two(Tok::kNe);
        if (d == '~') return two(Tok::kNotTilde);
        return one(Tok::kBang);
      case '&':
        if (d == '&') return two(Tok::kAndAnd);
        break;
      case '|':
        if (d == '|') return two(Tok::kOrOr);
        break;
      case '"':
        return String(t, f);
      case '\'':
        return Quoted(t, f);
      case '$': {
        std::size_t j = i_ + 1;
        if (j >= s_.size() || !IsIdentStart(s_[j])) break;
        while (j < s_.size() && IsIdentChar(s_[j])) ++j;
        t->kind = Tok::kMeta;
        t->text = std::string(s_.substr(i_ + 1, j - i_ - 1));
        i_ = j;
        return true;
      }
      default:
        if (c >= '0' && c <= '9') return Number(t, f);
        if (IsIdentStart(c)) {
          std::size_t j = i_;
          while (j < s_.size() && IsIdentChar(s_[j])) ++j;
          t->kind = Tok::kIdent;
          t->text = std::string(s_.substr(i_, j - i_));
          i_ = j;
          return true;
        }
    }
    *f = {i_, "unexpected character"};
    return false;
  }

 private:
  bool String(Token* t, Failure* f) {
    const std::size_t start = i_++;
    std::string out;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '"') {
        ++i_;
        t->kind = Tok::kString;
        t->text = std::move(out);
        return true;
      }
      if (c == '\\') {
        if (i_ + 1 < s_.size() && (s_[i_ + 1] == '"' || s_[i_ + 1] == '\\')) {
          out.push_back(s_[i_ + 1]);
          i_ += 2;
          continue;
        }
        *f = {i_, "unknown escape (only \\\" and \\\\)"};
        return false;
      }
      out.push_back(c);
      ++i_;
    }
    *f = {start, "unterminated string"};
    return false;
  }

  // Arkiv 0.8.1's typed string literal's text: apostrophes doubled, nothing else escaped.
  bool Quoted(Token* t, Failure* f) {
    const std::size_t start = i_++;
    std::string out;
    while (i_ < s_.size()) {
      if (s_[i_] == '\'') {
        if (i_ + 1 < s_.size() && s_[i_ + 1] == '\'') {
          out.push_back('\'');
          i_ += 2;
          continue;
        }
        ++i_;
        t->kind = Tok::kQuoted;
        t->text = std::move(out);
        return true;
      }
      out.push_back(s_[i_++]);
    }
    *f = {start, "unterminated string"};
    return false;
  }

  bool Number(Token* t, Failure* f) {
    const std::size_t start = i_;
    if (s_[i_] == '0' && i_ + 1 < s_.size() && (s_[i_ + 1] == 'x' || s_[i_ + 1] == 'X')) {
      i_ += 2;
      const std::size_t digits = i_;
      while (i_ < s_.size() && HexDigitVartime(s_[i_]) >= 0) ++i_;
      const std::size_t n = i_ - digits;
      if (n == 0 || n % 2 != 0) {
        *f = {start, "hex literal needs an even, non-zero number of digits"};
        return false;
      }
      t->kind = Tok::kHex;
      t->hex.resize(n / 2);
      // Every digit was checked above; query text is public.
      VEIL_CHECK(HexDecodeVartimeInto(s_.substr(digits, n), t->hex).ok());
    } else {
      std::uint64_t v = 0;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
        const auto digit = static_cast<std::uint64_t>(s_[i_] - '0');
        if (v > (UINT64_MAX - digit) / 10) {
          *f = {start, "number does not fit in 64 bits"};
          return false;
        }
        v = v * 10 + digit;
        ++i_;
      }
      t->kind = Tok::kNumber;
      t->number = v;
    }
    if (i_ < s_.size() && IsIdentChar(s_[i_])) {
      *f = {i_, "unexpected character after number"};
      return false;
    }
    return true;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

bool IsWord(const Token& t, std::string_view upper, std::string_view lower) {
  return t.kind == Tok::kIdent && (t.text == upper || t.text == lower);
}

class Parser {
 public:
  Parser(std::string_view text, const QueryLimits& limits) : lex_(text), limits_(limits) {}

  bool Run(Expr* out) {
    if (!Advance()) return false;
    if (tok_.kind == Tok::kStar || (tok_.kind == Tok::kMeta && tok_.text == "all")) {
      if (!Advance()) return false;
      out->kind = Expr::Kind::kAll;
    } else if (!Or(out, 0)) {
      return false;
    }
    if (tok_.kind != Tok::kEnd) return Fail(tok_.pos, "unexpected input after the query");
    return true;
  }

  Failure failure;

 private:
  bool Advance() { return lex_.Next(&tok_, &failure); }
  bool Fail(std::size_t pos, std::string m) {
    failure = {pos, std::move(m)};
    return false;
  }

  bool Or(Expr* out, std::size_t depth) {
    if (depth > limits_.max_depth) return Fail(tok_.pos, "query nested too deeply");
    Expr first;
    if (!And(&first, depth)) return false;
    if (!(tok_.kind == Tok::kOrOr || IsWord(tok_, "OR", "or"))) {
      *out = std::move(first);
      return true;
    }
    out->kind = Expr::Kind::kOr;
    out->children.push_back(std::move(first));
    while (tok_.kind == Tok::kOrOr || IsWord(tok_, "OR", "or")) {
      if (!Advance()) return false;
      Expr next;
      if (!And(&next, depth)) return false;
      out->children.push_back(std::move(next));
    }
    return true;
  }

  bool And(Expr* out, std::size_t depth) {
    Expr first;
    if (!Unary(&first, depth)) return false;
    if (!(tok_.kind == Tok::kAndAnd || IsWord(tok_, "AND", "and"))) {
      *out = std::move(first);
      return true;
    }
    out->kind = Expr::Kind::kAnd;
    out->children.push_back(std::move(first));
    while (tok_.kind == Tok::kAndAnd || IsWord(tok_, "AND", "and")) {
      if (!Advance()) return false;
      Expr next;
      if (!Unary(&next, depth)) return false;
      out->children.push_back(std::move(next));
    }
    return true;
  }

  bool Group(Expr* out, std::size_t depth) {
    if (tok_.kind != Tok::kLParen) return Fail(tok_.pos, "expected '('");
    if (!Advance()) return false;
    if (!Or(out, depth + 1)) return false;
    if (tok_.kind != Tok::kRParen) return Fail(tok_.pos, "expected ')'");
    return Advance();
  }

  bool Unary(Expr* out, std::size_t depth) {
    if (tok_.kind == Tok::kBang || IsWord(tok_, "NOT", "not")) {
      if (!Advance()) return false;
      Expr inner;
      if (!Group(&inner, depth)) return false;
      out->kind = Expr::Kind::kNot;
      out->children.push_back(std::move(inner));
      return true;
    }
    if (tok_.kind == Tok::kLParen) return Group(out, depth);
    return Pred(out);
  }

  bool Literal(query::Literal* v) {
    switch (tok_.kind) {
      case Tok::kString:
        *v = tok_.text;
        break;
      case Tok::kNumber:
        *v = tok_.number;
        break;
      case Tok::kHex:
        *v = tok_.hex;
        break;
      case Tok::kIdent:
        return Typed(v);
      default:
        return Fail(tok_.pos, "expected a literal (string, number or 0x-hex)");
    }
    return Advance();
  }

  // Arkiv 0.8.1's typed literals: str('it''s'), u64(5), addr(0x + 40 hex digits), key(0x + 64).
  // The ledger stores two attribute types, str and u64 (and addresses and keys in $owner,
  // $creator, $key); a literal of a type it never stores (i32, u256, dec, bytes32, bool, true,
  // false) is refused, since on Arkiv it could match only cells of that type.
  bool Typed(query::Literal* v) {
    const std::size_t pos = tok_.pos;
    const std::string type = tok_.text;
    const bool known = type == "str" || type == "u64" || type == "addr" || type == "key";
    if (!known) {
      const bool arkiv_type = type == "i32" || type == "u256" || type == "dec" ||
                              type == "bytes32" || type == "bytes" || type == "bool" ||
                              type == "true" || type == "false";
      if (!arkiv_type) return Fail(pos, "expected a literal (string, number or 0x-hex)");
      return Fail(pos, "values of type " + (type == "true" || type == "false" ? "bool" : type) +
                           " are never stored here: attributes are str and u64");
    }
    if (!Advance()) return false;
    if (tok_.kind != Tok::kLParen) return Fail(tok_.pos, "expected '(' after " + type);
    if (!Advance()) return false;
    const std::size_t at = tok_.pos;
    if (type == "str") {
      if (tok_.kind != Tok::kQuoted) return Fail(at, "str takes a 'quoted' string");
      *v = tok_.text;
    } else if (type == "u64") {
      if (tok_.kind != Tok::kNumber) return Fail(at, "u64 takes a decimal number");
      *v = tok_.number;
    } else {
      const std::size_t want = type == "addr" ? 20 : 32;
      if (tok_.kind != Tok::kHex || tok_.hex.size() != want) {
        return Fail(at, type + " takes 0x and " + std::to_string(2 * want) + " hex digits");
      }
      *v = tok_.hex;
    }
    if (!Advance()) return false;
    if (tok_.kind != Tok::kRParen) return Fail(tok_.pos, "expected ')'");
    return Advance();
  }

  bool Pred(Expr* out) {
    Predicate p;
    p.pos = tok_.pos;
    if (tok_.kind == Tok::kIdent) {
      p.field = Field::kAttribute;
      p.name = tok_.text;
    } else if (tok_.kind == Tok::kMeta) {
      const std::string& m = tok_.text;
      if (m == "key") {
        p.field = Field::kKey;
      } else if (m == "owner") {
        p.field = Field::kOwner;
      } else if (m == "creator") {
        p.field = Field::kCreator;
      } else if (m == "expiresAt" || m == "expiration") {
        p.field = Field::kExpiresAt;
      } else if (m == "createdAtBlock" || m == "createdAt") {
        p.field = Field::kCreatedAtBlock;
      } else if (m == "contentType") {
        p.field = Field::kContentType;
      } else {
        return Fail(tok_.pos, "unknown meta field $" + m);
      }
    } else {
      return Fail(tok_.pos, "expected an attribute name, a $field, NOT or '('");
    }
    if (++predicates_ > limits_.max_predicates) return Fail(p.pos, "too many predicates");
    if (!Advance()) return false;
    const std::size_t op_pos = tok_.pos;
    bool list = false;
    switch (tok_.kind) {
      case Tok::kEq:
        p.op = CmpOp::kEq;
        break;
      case Tok::kLt:
        p.op = CmpOp::kLt;
        break;
      case Tok::kLe:
        p.op = CmpOp::kLe;
        break;
      case Tok::kGt:
        p.op = CmpOp::kGt;
        break;
      case Tok::kGe:
        p.op = CmpOp::kGe;
        break;
      case Tok::kTilde:
        p.op = CmpOp::kGlob;
        break;
      case Tok::kNotTilde:
        p.op = CmpOp::kNotGlob;
        break;
      case Tok::kNe:
        return Fail(op_pos, "operator != is not supported (Arkiv rejects it); use NOT (a = v)");
      case Tok::kIdent:
        if (IsWord(tok_, "IN", "in")) {
          p.op = CmpOp::kIn;
          list = true;
        } else if (IsWord(tok_, "GLOB", "glob")) {
          p.op = CmpOp::kGlob;
        } else if (IsWord(tok_, "NOT", "not")) {
          if (!Advance()) return false;
          if (IsWord(tok_, "IN", "in")) {
            p.op = CmpOp::kNotIn;
            list = true;
          } else if (IsWord(tok_, "GLOB", "glob")) {
            p.op = CmpOp::kNotGlob;
          } else {
            return Fail(tok_.pos, "expected IN or GLOB after NOT");
          }
        } else {
          return Fail(op_pos, "expected an operator");
        }
        break;
      default:
        return Fail(op_pos, "expected an operator");
    }
    if (!Advance()) return false;
    if (list) {
      if (tok_.kind != Tok::kLParen) return Fail(tok_.pos, "expected '(' after IN");
      if (!Advance()) return false;
      while (true) {
        if (p.values.size() >= limits_.max_in_values) return Fail(tok_.pos, "IN list too long");
        query::Literal v;
        if (!Literal(&v)) return false;
        p.values.push_back(std::move(v));
        if (tok_.kind == Tok::kComma) {
          if (!Advance()) return false;
          continue;
        }
        if (tok_.kind != Tok::kRParen) return Fail(tok_.pos, "expected ',' or ')'");
        if (!Advance()) return false;
        break;
      }
    } else {
      query::Literal v;
      if (!Literal(&v)) return false;
      p.values.push_back(std::move(v));
    }
    if (!TypeCheck(p, op_pos)) return false;
    out->kind = Expr::Kind::kPredicate;
    out->predicate = std::move(p);
    return true;
  }

  bool TypeCheck(const Predicate& p, std::size_t op_pos) {
    const bool glob = p.op == CmpOp::kGlob || p.op == CmpOp::kNotGlob;
    const bool range =
        p.op == CmpOp::kLt || p.op == CmpOp::kLe || p.op == CmpOp::kGt || p.op == CmpOp::kGe;
    const std::size_t type = p.values[0].index();
    for (const auto& v : p.values) {
      if (v.index() != type) return Fail(op_pos, "values of mixed types");
    }
    switch (p.field) {
      case Field::kAttribute:
        if (type == 2) return Fail(op_pos, "hex literals apply to $key, $owner and $creator");
        if (glob && type != 1) return Fail(op_pos, "glob needs a string pattern");
        return true;
      case Field::kKey:
      case Field::kOwner:
      case Field::kCreator: {
        if (glob || range) return Fail(op_pos, "this field supports only =, IN and NOT IN");
        const std::size_t want = p.field == Field::kKey ? 32 : 20;
        for (const auto& v : p.values) {
          if (v.index() != 2 || std::get<Bytes>(v).size() != want) {
            return Fail(op_pos, want == 32 ? "$key needs a 0x-hex literal of 32 bytes"
                                           : "an address needs a 0x-hex literal of 20 bytes");
          }
        }
        return true;
      }
      case Field::kExpiresAt:
      case Field::kCreatedAtBlock:
        if (glob || type != 0) return Fail(op_pos, "block fields compare with numbers");
        return true;
      case Field::kContentType:
        if (type != 1) return Fail(op_pos, "$contentType compares with strings");
        if (range) return Fail(op_pos, "$contentType supports =, IN, NOT IN and glob");
        return true;
    }
    return true;
  }

  Lexer lex_;
  const QueryLimits& limits_;
  Token tok_;
  std::size_t predicates_ = 0;
};

std::string FieldName(const Predicate& p) {
  switch (p.field) {
    case Field::kAttribute:
      return p.name;
    case Field::kKey:
      return "$key";
    case Field::kOwner:
      return "$owner";
    case Field::kCreator:
      return "$creator";
    case Field::kExpiresAt:
      return "$expiresAt";
    case Field::kCreatedAtBlock:
      return "$createdAtBlock";
    case Field::kContentType:
      return "$contentType";
  }
  return "";
}

std::string LiteralText(const Literal& v) {
  if (const auto* n = std::get_if<std::uint64_t>(&v)) return std::to_string(*n);
  if (const auto* s = std::get_if<std::string>(&v)) {
    std::string out = "\"";
    for (char c : *s) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    return out + "\"";
  }
  std::string out = "0x";
  AppendHexVartime(std::get<Bytes>(v), &out);
  return out;
}

}  // namespace

Result<Expr> Parse(std::string_view text, const QueryLimits& limits, ParseError* error) {
  Failure f{0, ""};
  Expr e;
  if (text.size() > limits.max_query_bytes) {
    f = {limits.max_query_bytes,
         "query longer than " + std::to_string(limits.max_query_bytes) + " bytes"};
  } else {
    Parser p(text, limits);
    if (p.Run(&e)) return e;
    f = p.failure;
  }
  if (error != nullptr) *error = {f.pos, f.message};
  return InvalidArgument("query: at byte " + std::to_string(f.pos) + ": " + f.message);
}

std::string ToString(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kAll:
      return "*";
    case Expr::Kind::kNot:
      return "NOT (" + ToString(e.children[0]) + ")";
    case Expr::Kind::kAnd:
    case Expr::Kind::kOr: {
      std::string out = "(";
      for (std::size_t i = 0; i < e.children.size(); ++i) {
        if (i > 0) out += e.kind == Expr::Kind::kAnd ? " && " : " || ";
        out += ToString(e.children[i]);
      }
      return out + ")";
    }
    case Expr::Kind::kPredicate:
      break;
  }
  const Predicate& p = e.predicate;
  std::string out = FieldName(p);
  static constexpr std::string_view kOps[] = {
      " = ", " < ", " <= ", " > ", " >= ", " IN ", " NOT IN ", " ~ ", " !~ "};
  out += kOps[static_cast<std::size_t>(p.op)];
  if (p.op == CmpOp::kIn || p.op == CmpOp::kNotIn) {
    out += "(";
    for (std::size_t i = 0; i < p.values.size(); ++i) {
      if (i > 0) out += ", ";
      out += LiteralText(p.values[i]);
    }
    return out + ")";
  }
  return out + LiteralText(p.values[0]);
}

namespace {

// Names the parser reads as an attribute: an identifier that is not the NOT a predicate cannot
// start with.
bool IsAttributeName(std::string_view name) {
  if (name.empty() || !IsIdentStart(name[0])) return false;
  for (char c : name) {
    if (!IsIdentChar(c)) return false;
  }
  return name != "NOT" && name != "not";
}

// What makes `e` an Expr no query text has, or "" (ToCheckedString). `top`: `e` is the whole
// query, where alone `*` may stand.
std::string ShapeError(const Expr& e, bool top) {
  switch (e.kind) {
    case Expr::Kind::kAll:
      return top ? "" : "* (All) stands only for the whole query, not inside one";
    case Expr::Kind::kAnd:
    case Expr::Kind::kOr:
      if (e.children.size() < 2) return "an AND or OR needs two terms or more";
      break;
    case Expr::Kind::kNot:
      if (e.children.size() != 1) return "a NOT takes one term";
      break;
    case Expr::Kind::kPredicate: {
      const Predicate& p = e.predicate;
      if (p.field == Field::kAttribute && !IsAttributeName(p.name)) {
        return "an attribute name must be an identifier ([A-Za-z_][A-Za-z0-9_.-]*, not NOT)";
      }
      if (p.field != Field::kAttribute && !p.name.empty()) return "a meta field has no name";
      if (p.values.empty()) return "a comparison needs a value";
      if (p.values.size() > 1 && p.op != CmpOp::kIn && p.op != CmpOp::kNotIn) {
        return "only IN and NOT IN take several values";
      }
      return "";
    }
  }
  for (const auto& c : e.children) {
    std::string error = ShapeError(c, false);
    if (!error.empty()) return error;
  }
  return "";
}

}  // namespace

Result<std::string> ToCheckedString(const Expr& e) {
  if (std::string error = ShapeError(e, true); !error.empty()) {
    return InvalidArgument("query expression: " + error);
  }
  std::string text = ToString(e);
  QueryLimits unbounded;
  unbounded.max_query_bytes = std::numeric_limits<std::size_t>::max();
  unbounded.max_depth = std::numeric_limits<std::size_t>::max() - 1;
  unbounded.max_predicates = std::numeric_limits<std::size_t>::max();
  unbounded.max_in_values = std::numeric_limits<std::size_t>::max();
  // The type checks (a glob on a number, a hex literal on an attribute, ...) are the parser's.
  auto parsed = Parse(text, unbounded);
  if (!parsed.ok()) return InvalidArgument("query expression: " + parsed.status().message());
  // The guard for anything the checks above missed: the text must mean exactly `e`.
  if (!(*parsed == e)) return InvalidArgument("query expression: its text means another query");
  return text;
}

Expr Operand::Compare(CmpOp op, Literal v) const {
  Expr e;
  e.kind = Expr::Kind::kPredicate;
  e.predicate.field = field_;
  e.predicate.name = name_;
  e.predicate.op = op;
  e.predicate.values.push_back(std::move(v));
  return e;
}

Expr Operand::List(CmpOp op, std::vector<Literal> values) const {
  Expr e;
  e.kind = Expr::Kind::kPredicate;
  e.predicate.field = field_;
  e.predicate.name = name_;
  e.predicate.op = op;
  e.predicate.values = std::move(values);
  return e;
}

namespace {

// a op b, with a term that is itself an `op` contributing its terms (a && (b && c) is
// a && b && c, as the parser reads it without the parentheses).
Expr Join(Expr::Kind kind, Expr a, Expr b) {
  Expr out;
  out.kind = kind;
  for (Expr* term : {&a, &b}) {
    if (term->kind == kind) {
      for (auto& c : term->children) out.children.push_back(std::move(c));
    } else {
      out.children.push_back(std::move(*term));
    }
  }
  return out;
}

}  // namespace

Expr operator&&(Expr a, Expr b) {
  if (a.kind == Expr::Kind::kAll) return b;
  if (b.kind == Expr::Kind::kAll) return a;
  return Join(Expr::Kind::kAnd, std::move(a), std::move(b));
}

Expr operator||(Expr a, Expr b) {
  if (a.kind == Expr::Kind::kAll || b.kind == Expr::Kind::kAll) return All();
  return Join(Expr::Kind::kOr, std::move(a), std::move(b));
}

Expr operator!(Expr e) {
  Expr out;
  out.kind = Expr::Kind::kNot;
  out.children.push_back(std::move(e));
  return out;
}

std::size_t CountPredicates(const Expr& e) {
  if (e.kind == Expr::Kind::kPredicate) return 1;
  std::size_t n = 0;
  for (const auto& c : e.children) n += CountPredicates(c);
  return n;
}

}  // namespace veil::ledger::query
