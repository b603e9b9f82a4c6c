// The strict JSON object reader: what it accepts, and each refusal with its message.
#include "veil/base/json_object.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "veil/base/encoding.h"

namespace veil {
namespace {

using Json = nlohmann::json;

Json Parse(std::string_view text) { return Json::parse(text); }

TEST(JsonObjectReader, ReadsEveryKindOfMember) {
  const Json j = Parse(R"({"n":18446744073709551615,"small":7,"i":-5,"b":true,"s":"x",
                           "hex":"00ff","b64":"AAEC","list":[1,2],"obj":{"k":1}})");
  JsonObjectReader o(j, "thing");
  std::uint64_t n = 0;
  std::uint32_t small = 0;
  std::int64_t i = 0;
  bool b = false;
  std::string s;
  std::array<std::uint8_t, 2> hex{};
  Bytes b64;
  std::uint64_t sum = 0;
  std::uint64_t k = 0;
  EXPECT_TRUE(o.U64("n", &n));
  EXPECT_TRUE(o.U32("small", &small));
  EXPECT_TRUE(o.I64("i", -10, 10, &i));
  EXPECT_TRUE(o.Bool("b", &b));
  EXPECT_TRUE(o.Str("s", &s));
  EXPECT_TRUE(o.LowerHex("hex", hex));
  EXPECT_TRUE(o.Base64("b64", 3, 3, &b64));
  o.Array("list", [&](const Json& v, std::size_t) {
    sum += v.get<std::uint64_t>();
    return Status::Ok();
  });
  o.Nested("obj", [&](const Json& v) {
    JsonObjectReader inner(v, "thing.obj");
    inner.U64("k", &k);
    return inner.Finish();
  });
  std::string absent = "kept";
  EXPECT_FALSE(o.Str("absent", &absent, /*required=*/false));
  ASSERT_TRUE(o.Finish().ok()) << o.Finish().ToString();
  EXPECT_EQ(n, ~std::uint64_t{0});
  EXPECT_EQ(small, 7u);
  EXPECT_EQ(i, -5);
  EXPECT_TRUE(b);
  EXPECT_EQ(s, "x");
  EXPECT_EQ(hex, (std::array<std::uint8_t, 2>{0x00, 0xff}));
  EXPECT_EQ(b64, (Bytes{0, 1, 2}));
  EXPECT_EQ(sum, 3u);
  EXPECT_EQ(k, 1u);
  EXPECT_EQ(absent, "kept");
}

// Reads one member of `text` with `read` and returns Finish's message ("" when ok).
template <class F>
std::string Refusal(std::string_view text, F read) {
  const Json j = Parse(text);
  JsonObjectReader o(j, "obj");
  read(o);
  const Status s = o.Finish();
  if (s.ok()) return "";
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  return s.message();
}

TEST(JsonObjectReader, RefusesANonObject) {
  for (const char* text : {"[]", "1", "\"s\"", "null"}) {
    EXPECT_EQ(Refusal(text, [](JsonObjectReader&) {}), "obj: expected an object") << text;
  }
}

TEST(JsonObjectReader, RefusesAnUnknownMemberNamingItCutShort) {
  std::uint64_t v = 0;
  EXPECT_EQ(Refusal(R"({"a":1,"b":2})", [&](JsonObjectReader& o) { o.U64("a", &v); }),
            "obj: unknown member \"b\"");
  // A long name with control characters: 32 bytes, each non-printable one as '?'.
  const std::string name = "\\u0001" + std::string(40, 'z');
  EXPECT_EQ(Refusal("{\"" + name + "\":1}", [](JsonObjectReader&) {}),
            "obj: unknown member \"?" + std::string(31, 'z') + "\"");
  // An optional member that is present and read is known.
  EXPECT_EQ(Refusal(R"({"a":1})", [&](JsonObjectReader& o) { o.U64("a", &v, false); }), "");
}

TEST(JsonObjectReader, RefusesAMissingRequiredMember) {
  std::string s;
  EXPECT_EQ(Refusal("{}", [&](JsonObjectReader& o) { o.Str("name", &s); }),
            "obj: missing member \"name\"");
  EXPECT_EQ(Refusal("{}", [&](JsonObjectReader& o) { o.Str("name", &s, false); }), "");
}

TEST(JsonObjectReader, RefusesTheWrongType) {
  std::uint64_t u = 0;
  std::uint32_t u32 = 0;
  std::int64_t i = 0;
  bool b = false;
  std::string s;
  std::array<std::uint8_t, 1> hex{};
  Bytes bytes;
  struct Case {
    const char* text;
    std::function<void(JsonObjectReader&)> read;
    const char* message;
  };
  const Case cases[] = {
      {R"({"m":-1})", [&](auto& o) { o.U64("m", &u); }, "obj.m: expected an unsigned integer"},
      {R"({"m":1.5})", [&](auto& o) { o.U64("m", &u); }, "obj.m: expected an unsigned integer"},
      {R"({"m":"1"})", [&](auto& o) { o.U64("m", &u); }, "obj.m: expected an unsigned integer"},
      {R"({"m":4294967296})", [&](auto& o) { o.U32("m", &u32); },
       "obj.m: expected a 32-bit integer"},
      {R"({"m":11})", [&](auto& o) { o.I64("m", 0, 10, &i); },
       "obj.m: expected an integer in [0, 10]"},
      {R"({"m":-1})", [&](auto& o) { o.I64("m", 0, 10, &i); },
       "obj.m: expected an integer in [0, 10]"},
      {R"({"m":9223372036854775808})", [&](auto& o) { o.I64("m", 0, INT64_MAX, &i); },
       "obj.m: expected an integer in [0, 9223372036854775807]"},
      {R"({"m":true})", [&](auto& o) { o.I64("m", 0, 10, &i); },
       "obj.m: expected an integer in [0, 10]"},
      {R"({"m":1})", [&](auto& o) { o.Bool("m", &b); }, "obj.m: expected a boolean"},
      {R"({"m":null})", [&](auto& o) { o.Str("m", &s); }, "obj.m: expected a string"},
      {R"({"m":"AB"})", [&](auto& o) { o.LowerHex("m", hex); },
       "obj.m: expected 2 lowercase hex digits"},
      {R"({"m":"abcd"})", [&](auto& o) { o.LowerHex("m", hex); },
       "obj.m: expected 2 lowercase hex digits"},
      {R"({"m":12})", [&](auto& o) { o.LowerHex("m", hex); },
       "obj.m: expected 2 lowercase hex digits"},
      {R"({"m":"AAF="})", [&](auto& o) { o.Base64("m", 1, 3, &bytes); },
       "obj.m: expected canonical base64"},
      {R"({"m":"AAECAw=="})", [&](auto& o) { o.Base64("m", 1, 2, &bytes); },
       "obj.m: expected base64 of at most 2 bytes"},
      {R"({"m":"AAEC"})", [&](auto& o) { o.Base64("m", 1, 2, &bytes); },
       "obj.m: expected 1 to 2 bytes"},
      {R"({"m":"AA=="})", [&](auto& o) { o.Base64("m", 2, 3, &bytes); },
       "obj.m: expected 2 to 3 bytes"},
      {R"({"m":"AA=="})", [&](auto& o) { o.Base64("m", 2, 2, &bytes); }, "obj.m: expected 2 bytes"},
      {R"({"m":{}})",
       [&](auto& o) { o.Array("m", [](const Json&, std::size_t) { return Status::Ok(); }); },
       "obj.m: expected an array"},
  };
  for (const Case& c : cases) EXPECT_EQ(Refusal(c.text, c.read), c.message) << c.text;
}

TEST(JsonObjectReader, TheFirstErrorSticks) {
  const Json j = Parse(R"({"a":"x","b":1,"c":[1,2,3]})");
  JsonObjectReader o(j, "obj");
  std::uint64_t a = 0, b = 0;
  std::size_t visited = 0;
  EXPECT_FALSE(o.U64("a", &a));
  EXPECT_FALSE(o.ok());
  EXPECT_FALSE(o.U64("b", &b));  // readable, but after an error nothing is read
  EXPECT_EQ(b, 0u);
  o.Fail("b", "something else");
  o.Set(NotFound("ignored"));
  o.Array("c", [&](const Json&, std::size_t) {
    ++visited;
    return Status::Ok();
  });
  EXPECT_EQ(visited, 0u);
  EXPECT_EQ(o.Finish().message(), "obj.a: expected an unsigned integer");
}

TEST(JsonObjectReader, AnArrayElementsErrorStopsTheWalk) {
  const Json j = Parse(R"({"c":[1,2,3]})");
  JsonObjectReader o(j, "obj");
  std::size_t visited = 0;
  o.Array("c", [&](const Json&, std::size_t i) {
    ++visited;
    return i == 1 ? InvalidArgument("obj.c[1]: bad") : Status::Ok();
  });
  EXPECT_EQ(visited, 2u);
  EXPECT_EQ(o.Finish().message(), "obj.c[1]: bad");
}

// A DOM holds one value per name: a repeated member never reaches the reader. The strict parser
// (net/json_strict.h) refuses the text; tests/guardian/protocol_test.cc checks the two together.
TEST(JsonObjectReader, CutForMessage) {
  EXPECT_EQ(CutForMessage("plain"), "plain");
  EXPECT_EQ(CutForMessage("a\nb\x7f\xc3\xa9"), "a?b???");
  EXPECT_EQ(CutForMessage(std::string(40, 'q')), std::string(32, 'q'));
}

}  // namespace
}  // namespace veil
