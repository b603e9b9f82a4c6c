// The guardian wire protocol: strict request decoding, signature encodings, responses.
#include "veil/guardian/protocol.h"

#include <gtest/gtest.h>

#include <string>

#include "veil/base/encoding.h"

namespace veil::guardian {
namespace {

Request SampleGet(const OwnerSigner& owner) {
  Request r;
  r.route = Route::kGet;
  r.owner = owner.public_key();
  r.guardian.fill(7);
  r.timestamp = 1700000000;
  r.nonce.fill(9);
  r.reply_key.assign(crypto::kXWingPublicKeySize, 1);
  ShareId a{};
  a.fill(1);
  ShareId b{};
  b.fill(2);
  r.ids = {a, b};
  return r;
}

TEST(GuardianProtocol, RequestRoundTrip) {
  const OwnerSigner owner = OwnerSigner::GenerateEd25519();
  const Request r = SampleGet(owner);
  const std::string body = EncodeRequest(r);
  auto back = DecodeRequest(Route::kGet, body, GuardianLimits{});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->owner, r.owner);
  EXPECT_EQ(back->ids, r.ids);
  EXPECT_EQ(back->nonce, r.nonce);
  EXPECT_EQ(back->timestamp, r.timestamp);
  EXPECT_EQ(EncodeRequest(*back), body);
}

// The shared strict reader's refusals as the guardian's requests meet them, and the strict
// parser's refusal of a repeated member (which a DOM could not show the reader).
TEST(GuardianProtocol, StrictDecodingMessages) {
  const OwnerSigner owner = OwnerSigner::GenerateEd25519();
  const std::string body = EncodeRequest(SampleGet(owner));
  auto message = [&](const std::string& b) {
    const Status s = DecodeRequest(Route::kGet, b, GuardianLimits{}).status();
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << b;
    return s.message();
  };
  EXPECT_EQ(message(body.substr(0, body.size() - 1) + R"(,"extra":1})"),
            "request: unknown member \"extra\"");
  EXPECT_EQ(message(R"({"timestamp":1,)" + body.substr(1)),
            "parse error: duplicate key in a JSON object");
  std::string no_nonce = body;
  no_nonce.replace(no_nonce.find("\"nonce\""), 7, "\"nonse\"");
  EXPECT_EQ(message(no_nonce), "request: missing member \"nonce\"");
  std::string text_time = body;
  text_time.replace(text_time.find("1700000000"), 10, "\"1700000000\"");
  EXPECT_EQ(message(text_time),
            "request.timestamp: expected an integer in [0, " + std::to_string(kMaxTimestamp) + "]");
  std::string bad_alg = body;
  bad_alg.replace(bad_alg.find("\"alg\":\"") + 7, 1, "X");
  EXPECT_NE(message(bad_alg), "");
}

TEST(GuardianProtocol, StrictDecoding) {
  const OwnerSigner owner = OwnerSigner::GenerateEd25519();
  const std::string body = EncodeRequest(SampleGet(owner));
  GuardianLimits limits;
  auto bad = [&](std::string b) { return DecodeRequest(Route::kGet, b, limits).status().code(); };
  // A member the route does not take.
  EXPECT_EQ(bad(body.substr(0, body.size() - 1) + R"(,"extra":1})"), Code::kInvalidArgument);
  // Duplicate member.
  EXPECT_EQ(bad(R"({"timestamp":1,)" + body.substr(1)), Code::kInvalidArgument);
  // Upper-case hex.
  std::string upper = body;
  const auto pos = upper.find("\"nonce\":\"") + 9;
  upper[pos] = 'A';
  upper[pos + 1] = 'B';
  EXPECT_EQ(bad(upper), Code::kInvalidArgument);
  // Not JSON, wrong route shape.
  EXPECT_EQ(bad("{"), Code::kInvalidArgument);
  EXPECT_EQ(DecodeRequest(Route::kDestroy, body, limits).status().code(), Code::kInvalidArgument);
  // Duplicate ids.
  Request dup = SampleGet(owner);
  dup.ids[1] = dup.ids[0];
  EXPECT_EQ(bad(EncodeRequest(dup)), Code::kInvalidArgument);
  // Too many items, too large a body.
  limits.max_items = 1;
  EXPECT_EQ(bad(body), Code::kResourceExhausted);
  limits = GuardianLimits{};
  limits.max_body_bytes = body.size() - 1;
  EXPECT_EQ(bad(body), Code::kResourceExhausted);
  // Negative and fractional numbers.
  Request ext;
  ext.route = Route::kExtend;
  ext.owner = owner.public_key();
  ext.extends.push_back(ExtendItem{ShareId{}, 5});
  std::string e = EncodeRequest(ext);
  ASSERT_TRUE(DecodeRequest(Route::kExtend, e, GuardianLimits{}).ok());
  std::string neg = e;
  neg.replace(neg.find("\"expires_at\":5"), 14, "\"expires_at\":-5");
  EXPECT_FALSE(DecodeRequest(Route::kExtend, neg, GuardianLimits{}).ok());
  std::string frac = e;
  frac.replace(frac.find("\"expires_at\":5"), 14, "\"expires_at\":5.0");
  EXPECT_FALSE(DecodeRequest(Route::kExtend, frac, GuardianLimits{}).ok());
}

TEST(GuardianProtocol, SignatureEncodings) {
  const Bytes sig(64, 0xab);
  auto h = DecodeSignatureHeader(Base64Encode(sig));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(*h, sig);
  EXPECT_FALSE(DecodeSignatureHeader(Base64Encode(Bytes(63, 1))).ok());
  EXPECT_FALSE(DecodeSignatureHeader("").ok());
  const std::string q = "/v1/get" + SignatureQuery(sig);
  auto fromq = DecodeSignatureQuery(q);
  ASSERT_TRUE(fromq.ok());
  EXPECT_EQ(*fromq, sig);
  EXPECT_TRUE(DecodeSignatureQuery("/v1/get")->empty());
  EXPECT_FALSE(DecodeSignatureQuery("/v1/get?x=1").ok());
  EXPECT_FALSE(DecodeSignatureQuery(q + "&x=1").ok());
  const Bytes m = SignedMessage(Route::kPut, "{}");
  const std::string expect =
      std::string("veil-guardian-request-v1") + '\0' + "/v1/put" + '\0' + "{}";
  EXPECT_EQ(std::string(m.begin(), m.end()), expect);
}

TEST(GuardianProtocol, ResponseRoundTrip) {
  Response r;
  ItemResult ok;
  ok.id.fill(1);
  ok.changed = true;
  ok.expires_at = 42;
  ItemResult err;
  err.id.fill(2);
  err.status = NotFound("no share");
  r.items = {ok, err};
  const std::string body = EncodeResponse(Route::kExtend, r);
  auto back = DecodeResponse(Route::kExtend, body, 2);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->items[0].status.ok());
  EXPECT_TRUE(back->items[0].changed);
  EXPECT_EQ(back->items[0].expires_at, 42);
  EXPECT_EQ(back->items[1].status.code(), Code::kNotFound);
  EXPECT_FALSE(DecodeResponse(Route::kExtend, body, 3).ok());
  const Status s = DecodeErrorBody(429, EncodeErrorBody(ResourceExhausted("slow down")));
  EXPECT_EQ(s.code(), Code::kResourceExhausted);
  EXPECT_EQ(s.message(), "slow down");
}

}  // namespace
}  // namespace veil::guardian
