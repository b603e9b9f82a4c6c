// Tests for the query tokenizer and parser, and for queries built in code (no SQL involved).
#include "veil/ledger/query.h"

#include <gtest/gtest.h>

#include <string>

namespace veil::ledger::query {
namespace {

const QueryLimits kLimits{};

Expr P(std::string_view text) {
  auto r = Parse(text, kLimits);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? std::move(r).value() : Expr{};
}

std::size_t ErrorAt(std::string_view text) {
  ParseError e;
  auto r = Parse(text, kLimits, &e);
  EXPECT_FALSE(r.ok()) << text;
  if (!r.ok()) {
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    EXPECT_NE(r.status().message().find("at byte " + std::to_string(e.offset)), std::string::npos);
  }
  return e.offset;
}

TEST(QueryParse, AllForms) {
  EXPECT_EQ(P("*").kind, Expr::Kind::kAll);
  EXPECT_EQ(P("$all").kind, Expr::Kind::kAll);
  const Expr e = P(R"(type = "note" && n >= 3)");
  ASSERT_EQ(e.kind, Expr::Kind::kAnd);
  ASSERT_EQ(e.children.size(), 2u);
  EXPECT_EQ(e.children[0].predicate.name, "type");
  EXPECT_EQ(std::get<std::string>(e.children[0].predicate.values[0]), "note");
  EXPECT_EQ(e.children[1].predicate.op, CmpOp::kGe);
  EXPECT_EQ(std::get<std::uint64_t>(e.children[1].predicate.values[0]), 3u);
}

TEST(QueryParse, OperatorsAndKeywords) {
  EXPECT_EQ(P("a < 1").predicate.op, CmpOp::kLt);
  EXPECT_EQ(P("a <= 1").predicate.op, CmpOp::kLe);
  EXPECT_EQ(P("a > 1").predicate.op, CmpOp::kGt);
  EXPECT_EQ(P("a >= 1").predicate.op, CmpOp::kGe);
  EXPECT_EQ(P("a IN (1, 2, 3)").predicate.values.size(), 3u);
  EXPECT_EQ(P("a in (\"x\")").predicate.op, CmpOp::kIn);
  EXPECT_EQ(P("a NOT IN (1)").predicate.op, CmpOp::kNotIn);
  EXPECT_EQ(P("a ~ \"ab*\"").predicate.op, CmpOp::kGlob);
  EXPECT_EQ(P("a GLOB \"ab*\"").predicate.op, CmpOp::kGlob);
  EXPECT_EQ(P("a !~ \"ab*\"").predicate.op, CmpOp::kNotGlob);
  EXPECT_EQ(P("a NOT GLOB \"ab*\"").predicate.op, CmpOp::kNotGlob);
  EXPECT_EQ(P("a = 1 || b = 2").kind, Expr::Kind::kOr);
  EXPECT_EQ(P("a = 1 OR b = 2").kind, Expr::Kind::kOr);
  EXPECT_EQ(P("a = 1 and b = 2").kind, Expr::Kind::kAnd);
  EXPECT_EQ(P("NOT (a = 1)").kind, Expr::Kind::kNot);
  EXPECT_EQ(P("!(a = 1)").kind, Expr::Kind::kNot);
  // && binds tighter than ||.
  const Expr e = P("a = 1 || b = 2 && c = 3");
  ASSERT_EQ(e.kind, Expr::Kind::kOr);
  EXPECT_EQ(e.children[1].kind, Expr::Kind::kAnd);
  EXPECT_EQ(P("x.y-z_1 = 1").predicate.name, "x.y-z_1");
  EXPECT_EQ(std::get<std::string>(P(R"(a = "q\"b\\")").predicate.values[0]), "q\"b\\");
}

TEST(QueryParse, MetaFields) {
  const std::string key = "0x" + std::string(64, 'a');
  const std::string addr = "0x" + std::string(40, 'b');
  EXPECT_EQ(P("$key = " + key).predicate.field, Field::kKey);
  EXPECT_EQ(P("$owner = " + addr).predicate.field, Field::kOwner);
  EXPECT_EQ(P("$creator IN (" + addr + ")").predicate.field, Field::kCreator);
  EXPECT_EQ(P("$expiresAt < 10").predicate.field, Field::kExpiresAt);
  EXPECT_EQ(P("$expiration < 10").predicate.field, Field::kExpiresAt);
  EXPECT_EQ(P("$createdAtBlock >= 2").predicate.field, Field::kCreatedAtBlock);
  EXPECT_EQ(std::get<Bytes>(P("$key = " + key).predicate.values[0]).size(), 32u);
}

TEST(QueryParse, ErrorsCarryOffsets) {
  EXPECT_EQ(ErrorAt(""), 0u);
  EXPECT_EQ(ErrorAt("a = "), 4u);
  EXPECT_EQ(ErrorAt("a == 1"), 3u);
  EXPECT_EQ(ErrorAt("a = 1 &&"), 8u);
  EXPECT_EQ(ErrorAt("a = \"open"), 4u);
  EXPECT_EQ(ErrorAt("a = 1)"), 5u);
  EXPECT_EQ(ErrorAt("(a = 1"), 6u);
  EXPECT_EQ(ErrorAt("a != 1"), 2u);
  EXPECT_EQ(ErrorAt("$nope = 1"), 0u);
  EXPECT_EQ(ErrorAt("a = 1 # b"), 6u);
  EXPECT_EQ(ErrorAt("a = 99999999999999999999"), 4u);
  EXPECT_EQ(ErrorAt("$key = 0xabcd"), 5u);        // wrong length
  EXPECT_EQ(ErrorAt("$expiresAt = \"x\""), 11u);  // wrong type
  EXPECT_EQ(ErrorAt("a ~ 5"), 2u);
  EXPECT_EQ(ErrorAt("a IN (1, \"x\")"), 2u);
  EXPECT_EQ(ErrorAt("a = 0x12"), 2u);
  EXPECT_EQ(ErrorAt("NOT a = 1"), 4u);
  EXPECT_EQ(ErrorAt("a = \"\\n\""), 5u);
}

// Arkiv 0.8.1's typed literals parse to the same values as the plain forms; a type the ledger
// never stores is refused where it stands.
TEST(QueryParse, TypedLiterals) {
  const std::string key = std::string(64, 'a');
  const std::string addr = std::string(40, 'b');
  EXPECT_EQ(std::get<std::string>(P("name = str('it''s')").predicate.values[0]), "it's");
  EXPECT_EQ(std::get<std::string>(P("name = str('')").predicate.values[0]), "");
  EXPECT_EQ(std::get<std::string>(P("name = str('a\\\"b')").predicate.values[0]), "a\\\"b");
  EXPECT_EQ(std::get<std::uint64_t>(P("n >= u64(18446744073709551615)").predicate.values[0]),
            UINT64_MAX);
  EXPECT_EQ(P("name ~ str('ab*')").predicate.op, CmpOp::kGlob);
  EXPECT_EQ(std::get<Bytes>(P("$owner = addr(0x" + addr + ")").predicate.values[0]).size(), 20u);
  EXPECT_EQ(P("$key IN (key(0x" + key + "), 0x" + key + ")").predicate.values.size(), 2u);
  EXPECT_EQ(ToString(P("a = str('x') && b IN (u64(1), u64(2))")),
            ToString(P("a = \"x\" && b IN (1, 2)")));
  // An attribute may be named like a type; the typed form is a literal only where one stands.
  EXPECT_EQ(P("str = str('x')").predicate.name, "str");
  EXPECT_EQ(ErrorAt("a = i32(5)"), 4u);
  EXPECT_EQ(ErrorAt("a = dec(3.5)"), 4u);
  EXPECT_EQ(ErrorAt("a = true"), 4u);
  EXPECT_EQ(ErrorAt("a = bytes32(0x" + key + ")"), 4u);
  EXPECT_EQ(ErrorAt("a = maybe(1)"), 4u);
  EXPECT_EQ(ErrorAt("a = 'x'"), 4u);         // a quoted string only inside str(...)
  EXPECT_EQ(ErrorAt("a = str(\"x\")"), 8u);  // str takes the quoted form
  EXPECT_EQ(ErrorAt("a = str('x"), 8u);      // unterminated
  EXPECT_EQ(ErrorAt("a = str 'x'"), 8u);     // no parenthesis
  EXPECT_EQ(ErrorAt("a = str('x'"), 11u);    // no closing parenthesis
  EXPECT_EQ(ErrorAt("a = u64('5')"), 8u);
  EXPECT_EQ(ErrorAt("a = u64(0x05)"), 8u);
  EXPECT_EQ(ErrorAt("$owner = addr(0x" + key + ")"), 14u);  // a key's length
  EXPECT_EQ(ErrorAt("$owner = key(0x" + key + ")"), 7u);    // a key where an address belongs
  EXPECT_EQ(ErrorAt("a = addr(0x" + addr + ")"), 2u);       // bytes on an attribute
  ParseError e;
  auto r = Parse("a = dec(3.5)", kLimits, &e);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("dec"), std::string::npos) << r.status().ToString();
}

TEST(QueryParse, Limits) {
  QueryLimits l;
  l.max_depth = 3;
  l.max_predicates = 3;
  l.max_in_values = 2;
  l.max_query_bytes = 64;
  EXPECT_TRUE(Parse("((a = 1))", l).ok());
  EXPECT_FALSE(Parse("((((a = 1))))", l).ok());
  EXPECT_FALSE(Parse("a = 1 && b = 1 && c = 1 && d = 1", l).ok());
  EXPECT_FALSE(Parse("a IN (1, 2, 3)", l).ok());
  EXPECT_FALSE(Parse(std::string(65, ' ') + "*", l).ok());
  // Deep nesting is refused, not a stack overflow.
  std::string deep(5000, '(');
  EXPECT_FALSE(Parse(deep, kLimits).ok());
}

TEST(QueryParse, ToStringRoundTrips) {
  for (const char* q :
       {"*", "a = 1", "(a = 1 && (b = \"x\" || NOT (c IN (1, 2))))",
        "$createdAtBlock > 3 && name ~ \"ab*\" && z !~ \"q?\"", "a NOT IN (\"x\", \"y\\\"\")"}) {
    const Expr e = P(q);
    const std::string s = ToString(e);
    EXPECT_EQ(ToString(P(s)), s) << q;
  }
}

// Parse(ToString(e)) == e for every parsed query, compared as ASTs (the offsets aside).
TEST(QueryParse, ToStringRoundTripsTheAst) {
  for (const char* q :
       {"*", "a = 1", "(a = 1 && (b = \"x\" || NOT (c IN (1, 2))))", "a = 1 && b = 2 && c = 3",
        "(a = 1 && b = 2) && c = 3", "$expiration >= 3 || $createdAt < 2", "x ~ str('it''s')",
        "$owner IN (addr(0x0000000000000000000000000000000000000001))", "AND = 1 || or = 2"}) {
    const Expr e = P(q);
    auto again = Parse(ToString(e), kLimits);
    ASSERT_TRUE(again.ok()) << q;
    EXPECT_EQ(*again, e) << q;
    auto checked = ToCheckedString(e);
    ASSERT_TRUE(checked.ok()) << q << ": " << checked.status().ToString();
    EXPECT_EQ(*checked, ToString(e));
  }
  EXPECT_NE(P("a = 1"), P("a = 2"));
  EXPECT_NE(P("a = 1"), P("b = 1"));
  EXPECT_NE(P("a = 1"), P("a >= 1"));
  EXPECT_NE(P("a = 1"), P("a = \"1\""));
  EXPECT_EQ(P("a = 1"), P("  a   =   1"));  // the offsets differ; the queries do not
}

// Values that would break a query pasted together as text go through ToString as values: the
// text parses back to the very same expression, a single predicate whose value is the string.
TEST(QueryBuild, HostileValuesRoundTrip) {
  const std::vector<std::string> hostile = {
      "x\"y",
      "a\\b",
      "\\",
      "\"",
      "\\\"",
      "\") || *",
      "v\" || name = \"w",
      "\" && $owner = 0x00 && a = \"",
      "&& (",
      ") OR (n >= 0",
      "NOT (a = 1)",
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
      "\xff\xfe not UTF-8",
      std::string("nul\0inside", 11),
      "tab\tnewline\n",
      "it's",
      "str('x')",
      "*",
      "",
  };
  for (const auto& v : hostile) {
    for (const Expr& e : {Attr("name") == v, Attr("name") >= v, Attr("name").Glob(v),
                          Attr("name").NotIn({v, "plain"}), ContentType() == v}) {
      auto text = ToCheckedString(e);
      ASSERT_TRUE(text.ok()) << text.status().ToString();
      auto back = Parse(*text, kLimits);
      ASSERT_TRUE(back.ok()) << *text << ": " << back.status().ToString();
      EXPECT_EQ(*back, e) << *text;
      ASSERT_EQ(back->kind, Expr::Kind::kPredicate) << *text;
      EXPECT_EQ(std::get<std::string>(back->predicate.values[0]), v);
    }
    // Among other terms, still one value of one predicate.
    const Expr both = Attr("name") == v && (Attr("n") >= 5u || !(Attr("kind") == v));
    auto text = ToCheckedString(both);
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    auto back = Parse(*text, kLimits);
    ASSERT_TRUE(back.ok()) << *text;
    EXPECT_EQ(*back, both);
    ASSERT_EQ(back->kind, Expr::Kind::kAnd);
    ASSERT_EQ(back->children.size(), 2u);
    EXPECT_EQ(back->children[1].kind, Expr::Kind::kOr);
    EXPECT_EQ(CountPredicates(*back), 3u);
  }
}

TEST(QueryBuild, Operators) {
  Address owner{};
  owner[19] = 7;
  EntityKey key{};
  key[0] = 0xab;
  const Expr e = Attr("name") == "x\"y" && Attr("n") >= 5u && Owner(owner);
  ASSERT_EQ(e.kind, Expr::Kind::kAnd);
  ASSERT_EQ(e.children.size(), 3u);  // flattened, as the parser reads a && b && c
  EXPECT_EQ(e,
            P(R"(name = "x\"y" && n >= 5 && $owner = 0x0000000000000000000000000000000000000007)"));
  EXPECT_EQ(Attr("a") == 1u || (Attr("b") == 2u || Attr("c") == 3u), P("a = 1 || b = 2 || c = 3"));
  EXPECT_EQ(!(Attr("a") < 1u), P("NOT (a < 1)"));
  EXPECT_EQ(Attr("a") <= "m", P("a <= \"m\""));
  EXPECT_EQ(Attr("a") > std::uint64_t{18446744073709551615u}, P("a > 18446744073709551615"));
  EXPECT_EQ(Attr("a").In({1u, 2u}), P("a IN (1, 2)"));
  EXPECT_EQ(Attr("a").NotIn({"x"}), P("a NOT IN (\"x\")"));
  EXPECT_EQ(Attr("a").NotGlob("x*"), P("a !~ \"x*\""));
  EXPECT_EQ(ExpiresAt() > 10u && CreatedAtBlock() <= 4u,
            P("$expiresAt > 10 && $createdAtBlock <= 4"));
  EXPECT_EQ(Creator(owner), P("$creator = 0x0000000000000000000000000000000000000007"));
  EXPECT_EQ(Key(key), P("$key = 0xab" + std::string(62, '0')));
  EXPECT_EQ(Meta(Field::kOwner).In({Bytes(owner.begin(), owner.end())}),
            P("$owner IN (0x0000000000000000000000000000000000000007)"));
  // All() is the identity of && and absorbs ||.
  EXPECT_EQ(All() && Attr("a") == 1u, P("a = 1"));
  EXPECT_EQ(Attr("a") == 1u && All(), P("a = 1"));
  EXPECT_EQ(Attr("a") == 1u || All(), P("*"));
  EXPECT_EQ(ToCheckedString(All()).value(), "*");
}

// What no query text means is refused, with the reason, and nothing else.
TEST(QueryBuild, InvalidExpressionsAreRefused) {
  const auto refused = [](const Expr& e, std::string_view why) {
    auto r = ToCheckedString(e);
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << ToString(e);
    EXPECT_NE(r.status().message().find(why), std::string::npos) << r.status().ToString();
  };
  for (const char* name : {"", "NOT", "not", "a b", "a=1", "a)", "1a", "caf\xc3\xa9", "x\"", "$key",
                           "a || b = 1 || c"}) {
    refused(Attr(name) == 1u, "identifier");
  }
  refused(!All(), "whole query");
  refused(Attr("a") == 1u && !All(), "whole query");
  refused(ExpiresAt().Glob("1*"), "block fields compare with numbers");
  refused(Meta(Field::kKey) == 1u, "$key needs");
  refused(Meta(Field::kOwner) == Bytes{1, 2}, "20 bytes");
  refused(Attr("a") == Bytes{1}, "hex literals apply");
  refused(ContentType() < "x", "$contentType supports");
  refused(Attr("a").In({}), "needs a value");
  refused(Attr("a").In({1u, "x"}), "mixed types");
  Expr lone;
  lone.kind = Expr::Kind::kAnd;
  lone.children.push_back(Attr("a") == 1u);
  refused(lone, "two terms");
  Expr two_values = Attr("a") == 1u;
  two_values.predicate.values.push_back(two_values.predicate.values[0]);
  refused(two_values, "only IN and NOT IN");
  Expr named_meta = ExpiresAt() > 1u;
  named_meta.predicate.name = "x";
  refused(named_meta, "meta field has no name");
  Expr stray = All();
  stray.predicate.name = "leftover";  // a field the text cannot carry
  refused(stray, "another query");
}

}  // namespace
}  // namespace veil::ledger::query
