// JSON-RPC 2.0: the pure envelope decoder and the dispatcher, without a socket.
#include "veil/net/json_rpc.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "veil/net/error_map.h"
#include "veil/net/json_strict.h"
#include "veil/net/metrics.h"

namespace veil::net {
namespace {

using nlohmann::json;

JsonRpcError OnlyError(const JsonRpcEnvelope& env) {
  EXPECT_EQ(env.items.size(), 1u);
  EXPECT_FALSE(env.batch);
  return std::get<JsonRpcError>(env.items.at(0));
}

TEST(JsonRpcDecode, ValidRequest) {
  auto env = DecodeJsonRpc(R"({"jsonrpc":"2.0","method":"add","params":[1,2],"id":7})");
  ASSERT_EQ(env.items.size(), 1u);
  const auto& r = std::get<JsonRpcRequest>(env.items[0]);
  EXPECT_EQ(r.method, "add");
  EXPECT_EQ(r.params, json::array({1, 2}));
  ASSERT_TRUE(r.id.has_value());
  EXPECT_EQ(*r.id, 7);
}

TEST(JsonRpcDecode, NotificationHasNoId) {
  auto env = DecodeJsonRpc(R"({"jsonrpc":"2.0","method":"ping"})");
  const auto& r = std::get<JsonRpcRequest>(env.items.at(0));
  EXPECT_FALSE(r.id.has_value());
  EXPECT_TRUE(r.params.is_null());
}

TEST(JsonRpcDecode, NullAndStringIdsAreIds) {
  auto a = DecodeJsonRpc(R"({"jsonrpc":"2.0","method":"m","id":null})");
  EXPECT_TRUE(std::get<JsonRpcRequest>(a.items.at(0)).id.has_value());
  auto b = DecodeJsonRpc(R"({"jsonrpc":"2.0","method":"m","id":"abc"})");
  EXPECT_EQ(*std::get<JsonRpcRequest>(b.items.at(0)).id, "abc");
}

TEST(JsonRpcDecode, ParseErrorNamesTheByteAndDoesNotEcho) {
  const JsonRpcError e =
      OnlyError(DecodeJsonRpc(R"({"jsonrpc":"2.0","method":"x","params":{"key":s3cr3t}})"));
  EXPECT_EQ(e.code, kJsonRpcParseError);
  EXPECT_NE(e.message.find("at byte 47"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find("s3cr3t"), std::string::npos) << e.message;
  EXPECT_TRUE(e.id.is_null());
}

TEST(JsonRpcDecode, ParseErrors) {
  for (const char* body : {"", "{", "[1,2", "{\"a\":1,}", "\xff", "{\"a\":\"\xc3\x28\"}"}) {
    EXPECT_EQ(OnlyError(DecodeJsonRpc(body)).code, kJsonRpcParseError) << body;
  }
}

TEST(JsonRpcDecode, DuplicateKeysAndDeepNestingAreParseErrors) {
  const JsonRpcError dup =
      OnlyError(DecodeJsonRpc(R"({"jsonrpc":"2.0","method":"a","method":"b","id":1})"));
  EXPECT_EQ(dup.code, kJsonRpcParseError);
  EXPECT_NE(dup.message.find("duplicate"), std::string::npos);
  std::string deep(kMaxJsonDepth + 1, '[');
  deep += std::string(kMaxJsonDepth + 1, ']');
  EXPECT_EQ(OnlyError(DecodeJsonRpc(deep)).code, kJsonRpcParseError);
  std::string ok_depth(kMaxJsonDepth - 1, '[');
  ok_depth += std::string(kMaxJsonDepth - 1, ']');
  std::string body = R"({"jsonrpc":"2.0","method":"m","params":)" + ok_depth + R"(,"id":1})";
  EXPECT_TRUE(std::holds_alternative<JsonRpcRequest>(DecodeJsonRpc(body).items.at(0)));
}

TEST(JsonStrict, ParseStrictJsonIsTheSharedCheck) {
  auto ok = ParseStrictJson(R"({"a":[1,{"b":2}],"c":"d"})", 3);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)["c"], "d");
  auto dup = ParseStrictJson(R"({"a":1,"b":{"x":1,"x":2}})", 8);
  EXPECT_EQ(dup.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(dup.status().message(), "parse error: duplicate key in a JSON object");
  // The same name in sibling objects is fine.
  EXPECT_TRUE(ParseStrictJson(R"([{"x":1},{"x":2}])", 8).ok());
  auto deep = ParseStrictJson("[[[[1]]]]", 3);
  EXPECT_EQ(deep.status().message(), "parse error: JSON nested deeper than 3 levels");
  auto bad = ParseStrictJson(R"({"secret-value" 1})", 8);
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(bad.status().message().find("secret-value"), std::string::npos);
  EXPECT_FALSE(ParseStrictJson("{} /* c */", 8).ok());
  EXPECT_FALSE(ParseStrictJson("\"\xff\"", 8).ok());
}

TEST(JsonStrict, LimitsOnValuesAndMembersAreCheckedWhileParsing) {
  JsonLimits limits;
  limits.max_values = 5;
  limits.max_members = 2;
  EXPECT_TRUE(ParseStrictJson("[1,2,3,4]", limits).ok());  // the array and four numbers
  auto values = ParseStrictJson("[1,2,3,4,5]", limits);
  EXPECT_EQ(values.status().message(), "parse error: JSON holds more than 5 values");
  EXPECT_TRUE(ParseStrictJson(R"({"a":1,"b":{}})", limits).ok());
  auto members = ParseStrictJson(R"({"a":1,"b":{"c":2}})", limits);
  EXPECT_EQ(members.status().message(), "parse error: JSON holds more than 2 object members");
  // The limit stops the parser at the first value past it: what follows is never read, so a
  // syntax error after that point is not what is reported.
  auto early = ParseStrictJson("[1,2,3,4,5,6,7, this is not JSON", limits);
  EXPECT_EQ(early.status().message(), "parse error: JSON holds more than 5 values");
  // The defaults bound a hostile RPC body whatever its size.
  std::string many = "[";
  for (int i = 0; i < 70000; ++i) many += "{},";
  many += "{}]";
  EXPECT_EQ(DecodeJsonRpc(many).items.size(), 1u);
  EXPECT_EQ(OnlyError(DecodeJsonRpc(many)).code, kJsonRpcParseError);
  EXPECT_NE(OnlyError(DecodeJsonRpc(many)).message.find("more than 65536 values"),
            std::string::npos);
}

// The parse is linear in the body's length whatever its shape. nlohmann's parse-with-callback,
// which this replaced, walked the whole parent array at every closing brace: 100,000 empty
// objects took 1.8 s in a release build, 400,000 would take half a minute. This bound is a
// complexity guard with a wide margin, not a performance figure (bench/ has those).
TEST(JsonStrict, ParsingIsLinearInTheNumberOfSiblings) {
  JsonLimits limits;
  limits.max_values = 1 << 22;
  std::string body = "[";
  for (int i = 0; i < 400000; ++i) body += "{},";
  body += "{}]";
  const auto t0 = std::chrono::steady_clock::now();
  auto parsed = ParseStrictJson(body, limits);
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->size(), 400001u);
  EXPECT_LT(elapsed, std::chrono::seconds(10));
}

TEST(JsonRpcDecode, InvalidRequests) {
  struct Case {
    const char* body;
    const char* needle;
  };
  const Case cases[] = {
      {R"(42)", "must be a JSON object"},
      {R"("x")", "must be a JSON object"},
      {R"({"method":"m","id":1})", "missing \"jsonrpc\""},
      {R"({"jsonrpc":"1.0","method":"m","id":1})", "\"jsonrpc\" must be the string \"2.0\""},
      {R"({"jsonrpc":2.0,"method":"m","id":1})", "\"jsonrpc\" must be the string \"2.0\""},
      {R"({"jsonrpc":"2.0","id":1})", "missing \"method\""},
      {R"({"jsonrpc":"2.0","method":5,"id":1})", "\"method\" must be a string"},
      {R"({"jsonrpc":"2.0","method":"","id":1})", "must not be empty"},
      {R"({"jsonrpc":"2.0","method":"m","id":1.5})", "\"id\" must be"},
      {R"({"jsonrpc":"2.0","method":"m","id":[1]})", "\"id\" must be"},
      {R"({"jsonrpc":"2.0","method":"m","id":true})", "\"id\" must be"},
      {R"({"jsonrpc":"2.0","method":"m","params":3,"id":1})", "\"params\" must be"},
      {R"({"jsonrpc":"2.0","method":"m","id":1,"extra":0})", "unexpected member \"extra\""},
      {R"([])", "empty batch"},
  };
  for (const auto& c : cases) {
    const JsonRpcError e = OnlyError(DecodeJsonRpc(c.body));
    EXPECT_EQ(e.code, kJsonRpcInvalidRequest) << c.body;
    EXPECT_NE(e.message.find(c.needle), std::string::npos) << c.body << " -> " << e.message;
  }
  // The id is kept when it could be read.
  EXPECT_EQ(OnlyError(DecodeJsonRpc(R"({"jsonrpc":"1.0","method":"m","id":9})")).id, 9);
}

TEST(JsonRpcDecode, BatchCapAndMixedElements) {
  std::string five = R"([{"jsonrpc":"2.0","method":"m","id":1},1,2,3,4])";
  const JsonRpcError e = OnlyError(DecodeJsonRpc(five, 4));
  EXPECT_EQ(e.code, kJsonRpcInvalidRequest);
  EXPECT_NE(e.message.find("batch of 5 requests exceeds the limit of 4"), std::string::npos);
  auto env = DecodeJsonRpc(five, 5);
  EXPECT_TRUE(env.batch);
  ASSERT_EQ(env.items.size(), 5u);
  EXPECT_TRUE(std::holds_alternative<JsonRpcRequest>(env.items[0]));
  EXPECT_TRUE(std::holds_alternative<JsonRpcError>(env.items[1]));
}

class DispatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(d_.Register("add", [](const json& p) -> Result<json> {
                    if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() ||
                        !p[1].is_number_integer()) {
                      return InvalidArgument("add takes two integers");
                    }
                    return json(p[0].get<int>() + p[1].get<int>());
                  }).ok());
    ASSERT_TRUE(d_.Register("missing", [](const json&) -> Result<json> {
                    return NotFound("no such entity");
                  }).ok());
    ASSERT_TRUE(d_.Register("throws", [](const json&) -> Result<json> {
                    throw std::runtime_error("secret detail");
                  }).ok());
    ASSERT_TRUE(d_.Register("typed", [](const json& p) -> Result<json> {
                    return json(p.at("name").get<std::string>());
                  }).ok());
  }
  std::shared_ptr<MetricsRegistry> metrics_ = std::make_shared<MetricsRegistry>();
  JsonRpcDispatcher d_{{}, metrics_};
};

TEST_F(DispatcherTest, RegisterRules) {
  EXPECT_EQ(d_.Register("add", [](const json&) -> Result<json> { return json(); }).code(),
            Code::kFailedPrecondition);
  EXPECT_EQ(d_.Register("rpc.x", [](const json&) -> Result<json> { return json(); }).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(d_.Register("", [](const json&) -> Result<json> { return json(); }).code(),
            Code::kInvalidArgument);
}

TEST_F(DispatcherTest, ResultsAndErrors) {
  EXPECT_EQ(json::parse(d_.Handle(R"({"jsonrpc":"2.0","method":"add","params":[2,3],"id":1})")),
            json::parse(R"({"jsonrpc":"2.0","result":5,"id":1})"));
  auto err = json::parse(d_.Handle(R"({"jsonrpc":"2.0","method":"add","params":[2],"id":"a"})"));
  EXPECT_EQ(err["error"]["code"], kJsonRpcInvalidParams);
  EXPECT_EQ(err["error"]["message"], "add takes two integers");
  EXPECT_EQ(err["id"], "a");
  auto nf = json::parse(d_.Handle(R"({"jsonrpc":"2.0","method":"nope","id":2})"));
  EXPECT_EQ(nf["error"]["code"], kJsonRpcMethodNotFound);
  EXPECT_EQ(nf["error"]["message"], "method not found: \"nope\"");
  auto missing = json::parse(d_.Handle(R"({"jsonrpc":"2.0","method":"missing","id":3})"));
  EXPECT_EQ(missing["error"]["code"], kJsonRpcNotFound);
  auto thrown = json::parse(d_.Handle(R"({"jsonrpc":"2.0","method":"throws","id":4})"));
  EXPECT_EQ(thrown["error"]["code"], kJsonRpcInternalError);
  EXPECT_EQ(thrown["error"]["message"], "internal error");
  auto typed = json::parse(d_.Handle(R"({"jsonrpc":"2.0","method":"typed","params":{},"id":5})"));
  EXPECT_EQ(typed["error"]["code"], kJsonRpcInvalidParams);
}

TEST_F(DispatcherTest, NotificationsAndBatches) {
  EXPECT_EQ(d_.Handle(R"({"jsonrpc":"2.0","method":"add","params":[1,1]})"), "");
  // Per the spec, even a failing notification is silent.
  EXPECT_EQ(d_.Handle(R"({"jsonrpc":"2.0","method":"nope"})"), "");
  EXPECT_EQ(d_.Handle(R"([{"jsonrpc":"2.0","method":"add","params":[1,1]}])"), "");
  auto batch = json::parse(d_.Handle(
      R"([{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},
          {"jsonrpc":"2.0","method":"add","params":[5,5]},
          {"foo":"boo"},
          {"jsonrpc":"2.0","method":"nope","id":"x"}])"));
  ASSERT_TRUE(batch.is_array());
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(batch[0]["result"], 3);
  EXPECT_EQ(batch[1]["error"]["code"], kJsonRpcInvalidRequest);
  EXPECT_TRUE(batch[1]["id"].is_null());
  EXPECT_EQ(batch[2]["error"]["code"], kJsonRpcMethodNotFound);
}

// A raw handler's text is spliced in as the result; the response is the one a DOM result would
// give, byte for byte, alone and in a batch; its errors are errors like any other.
TEST_F(DispatcherTest, RawResults) {
  ASSERT_TRUE(d_.RegisterRaw("raw", [](const json& p, std::string* out) -> Status {
                  *out += R"({"a":[1,)";  // written before the error below is found
                  if (!p.is_array()) return InvalidArgument("raw takes an array");
                  *out += R"("x"],"b":null})";
                  return Status::Ok();
                }).ok());
  ASSERT_TRUE(d_.Register("dom", [](const json&) -> Result<json> {
                  return json::parse(R"({"a":[1,"x"],"b":null})");
                }).ok());
  const auto one = [](const json&, std::string* out) -> Status {
    *out += "1";
    return Status::Ok();
  };
  EXPECT_EQ(d_.RegisterRaw("raw", one).code(), Code::kFailedPrecondition);
  EXPECT_EQ(d_.RegisterRaw("add", one).code(), Code::kFailedPrecondition);
  const std::string raw = d_.Handle(R"({"jsonrpc":"2.0","method":"raw","params":[],"id":"q\"1"})");
  EXPECT_EQ(raw, R"({"id":"q\"1","jsonrpc":"2.0","result":{"a":[1,"x"],"b":null}})");
  EXPECT_EQ(raw, d_.Handle(R"({"jsonrpc":"2.0","method":"dom","params":[],"id":"q\"1"})"));
  EXPECT_EQ(d_.Handle(R"([{"jsonrpc":"2.0","method":"raw","params":[],"id":1},)"
                      R"({"jsonrpc":"2.0","method":"add","params":[1,2],"id":2}])"),
            R"([{"id":1,"jsonrpc":"2.0","result":{"a":[1,"x"],"b":null}},)"
            R"({"id":2,"jsonrpc":"2.0","result":3}])");
  // The partial text is discarded: the response is the error alone.
  auto err = json::parse(d_.Handle(R"({"jsonrpc":"2.0","method":"raw","params":{},"id":7})"));
  EXPECT_FALSE(err.contains("result"));
  EXPECT_EQ(err["error"]["code"], kJsonRpcInvalidParams);
  EXPECT_EQ(err["error"]["message"], "raw takes an array");
  EXPECT_EQ(d_.Handle(R"({"jsonrpc":"2.0","method":"raw","params":[]})"), "");
}

TEST_F(DispatcherTest, MetricsPerMethod) {
  for (int i = 0; i < 3; ++i) {
    d_.Handle(R"({"jsonrpc":"2.0","method":"add","params":[1,2],"id":1})");
  }
  d_.Handle(R"({"jsonrpc":"2.0","method":"zzz","id":1})");
  EXPECT_EQ(metrics_->GetCounter("veil_rpc_requests_total", "", {{"method", "add"}}).Value(), 3);
  EXPECT_EQ(metrics_->GetCounter("veil_rpc_requests_total", "", {{"method", "unknown"}}).Value(),
            1);
  EXPECT_EQ(
      metrics_->GetCounter("veil_rpc_errors_total", "", {{"method", "unknown"}, {"code", "-32601"}})
          .Value(),
      1);
}

TEST(ErrorMap, RoundTripsEveryStatusCode) {
  for (Code c : {Code::kInvalidArgument, Code::kNotFound, Code::kFailedPrecondition,
                 Code::kUnauthenticated, Code::kPermissionDenied, Code::kResourceExhausted,
                 Code::kDataLoss, Code::kUnavailable, Code::kVerificationFailed, Code::kInternal}) {
    EXPECT_EQ(StatusCodeForJsonRpc(JsonRpcCodeForStatus(c)), c) << CodeName(c);
    EXPECT_NE(HttpStatusForCode(c), 200);
  }
  EXPECT_EQ(StatusCodeForJsonRpc(-32700), Code::kInvalidArgument);
  EXPECT_EQ(StatusCodeForJsonRpc(-32601), Code::kNotFound);
  EXPECT_EQ(StatusCodeForJsonRpc(12345), Code::kInternal);
}

}  // namespace
}  // namespace veil::net
