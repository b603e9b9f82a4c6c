// The strict request-head parser (src/net/http_wire.h): one reading of the bytes only.
#include "../../src/net/http_wire.h"

#include <gtest/gtest.h>

#include <string>

namespace veil::net::wire {
namespace {

struct Parsed {
  HeadStatus status;
  RequestHead head;
  std::size_t size = 0;
  Refusal refusal;
};

Parsed Parse(const std::string& bytes, HeadLimits limits = {}) {
  Parsed p;
  p.status = ParseRequestHead(bytes, limits, &p.head, &p.size, &p.refusal);
  return p;
}

int StatusOf(const std::string& bytes, HeadLimits limits = {}) {
  Parsed p = Parse(bytes, limits);
  if (p.status == HeadStatus::kComplete) return 0;
  if (p.status == HeadStatus::kIncomplete) return -1;
  return p.refusal.status;
}

TEST(HttpWire, AWellFormedHead) {
  const std::string head =
      "\r\nPOST /a%20b?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 12\r\n"
      "X-Thing:  spaced value \t\r\n\r\n";
  Parsed p = Parse(head + "body follows");
  ASSERT_EQ(p.status, HeadStatus::kComplete) << p.refusal.message;
  EXPECT_EQ(p.size, head.size());
  EXPECT_EQ(p.head.method, "POST");
  EXPECT_EQ(p.head.target, "/a%20b?x=1");
  EXPECT_EQ(p.head.path, "/a b");
  EXPECT_EQ(p.head.content_length, 12u);
  EXPECT_TRUE(p.head.keep_alive);
  ASSERT_EQ(p.head.fields.size(), 3u);
  EXPECT_EQ(p.head.fields[2].second, "spaced value");
}

TEST(HttpWire, IncompleteUntilTheEmptyLine) {
  EXPECT_EQ(StatusOf("GET / HTTP/1.1\r\nHost: h\r\n"), -1);
  EXPECT_EQ(StatusOf("GET / HTTP/1.1\r\nHost: h\r\n\r"), -1);
  EXPECT_EQ(StatusOf("GET / HTTP/1.1\r\nHost: h\r\n\r\n"), 0);
}

TEST(HttpWire, KeepAliveByVersionAndConnection) {
  EXPECT_FALSE(Parse("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n").head.keep_alive);
  EXPECT_FALSE(Parse("GET / HTTP/1.0\r\n\r\n").head.keep_alive);
  EXPECT_TRUE(Parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").head.keep_alive);
  EXPECT_FALSE(
      Parse("GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, close\r\n\r\n").head.keep_alive);
}

// Every framing that two parsers could read differently is refused.
TEST(HttpWire, AmbiguousFramingIsRefused) {
  // A GET or HEAD with a body: the body would be read as the next request.
  EXPECT_EQ(StatusOf("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("HEAD / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"), 0);
  // Two lengths, or a length and a transfer coding.
  EXPECT_EQ(
      StatusOf("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n"),
      400);
  EXPECT_EQ(StatusOf("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 1\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n"),
            400);
  EXPECT_EQ(StatusOf("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"), 411);
  EXPECT_EQ(StatusOf("POST / HTTP/1.1\r\nHost: h\r\n\r\n"), 411);
  EXPECT_EQ(StatusOf("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +5\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x5\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 9999999999999999999\r\n\r\n"),
            400);
  // Line ends other than CRLF, folding, white space before the colon, control characters.
  EXPECT_EQ(StatusOf("GET / HTTP/1.1\nHost: h\n\n"), 400);
  EXPECT_EQ(StatusOf("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("POST / HTTP/1.1\r\nHost: h\r\nContent-Length : 5\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET / HTTP/1.1\r\nHost: h\r\nX: a\x01z\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf(std::string("GET / HTTP/1.1\r\nHost: h\r\nX: a\0z\r\n\r\n", 35)), 400);
  // Host: exactly one in HTTP/1.1.
  EXPECT_EQ(StatusOf("GET / HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET / HTTP/1.0\r\n\r\n"), 0);
  // The request line.
  EXPECT_EQ(StatusOf("GET  / HTTP/1.1\r\nHost: h\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET / HTTP/1.1 \r\nHost: h\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET http://x/ HTTP/1.1\r\nHost: h\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET /%zz HTTP/1.1\r\nHost: h\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET /%00 HTTP/1.1\r\nHost: h\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET /% HTTP/1.1\r\nHost: h\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET / HTTP/2.0\r\nHost: h\r\n\r\n"), 505);
  EXPECT_EQ(StatusOf("GET / HTTP/1.1x\r\nHost: h\r\n\r\n"), 400);
}

TEST(HttpWire, MethodsEncodingsAndExpectations) {
  Parsed put = Parse("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");
  ASSERT_EQ(put.status, HeadStatus::kRefused);
  EXPECT_EQ(put.refusal.status, 405);
  ASSERT_EQ(put.refusal.fields.size(), 1u);
  EXPECT_EQ(put.refusal.fields[0].first, "Allow");
  EXPECT_EQ(
      StatusOf("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Encoding: gzip\r\n\r\n"),
      415);
  EXPECT_EQ(StatusOf("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n"
                     "Content-Encoding: identity\r\n\r\n"),
            0);
  EXPECT_EQ(StatusOf("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nExpect: x\r\n\r\n"), 417);
  Parsed cont =
      Parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nExpect: 100-Continue\r\n\r\n");
  ASSERT_EQ(cont.status, HeadStatus::kComplete);
  EXPECT_TRUE(cont.head.expect_continue);
}

TEST(HttpWire, HeadLimits) {
  HeadLimits limits;
  limits.max_head_bytes = 1024;
  limits.max_target_bytes = 256;
  limits.max_fields = 4;
  std::string fields;
  for (int i = 0; i < 5; ++i) fields += "X-" + std::to_string(i) + ": v\r\n";
  EXPECT_EQ(StatusOf("GET / HTTP/1.1\r\nHost: h\r\n" + fields + "\r\n", limits), 431);
  // A head that reaches the byte limit without ending is refused without waiting for more.
  limits.max_fields = 64;
  std::string flood = "GET / HTTP/1.1\r\nHost: h\r\n";
  while (flood.size() < 2000) flood += "X: " + std::string(50, 'a') + "\r\n";
  EXPECT_EQ(StatusOf(flood.substr(0, 1024), limits), 431);
  EXPECT_EQ(StatusOf(flood.substr(0, 1023), limits), -1);
  // A request line longer than the target limit is 414, before the line ends.
  EXPECT_EQ(StatusOf("GET /" + std::string(300, 'a'), limits), 414);
  EXPECT_EQ(StatusOf("GET /" + std::string(300, 'a') + " HTTP/1.1\r\n", limits), 414);
}

TEST(HttpWire, ResponsesCannotBeSplitByAHandler) {
  std::string r = SerializeResponse(
      200, "application/json",
      {{"X-Ok", "1"}, {"X-Bad", "a\r\nInjected: 1"}, {"Bad Name", "v"}, {"Content-Length", "9"}},
      "{}", false, false);
  EXPECT_EQ(r,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
            "X-Ok: 1\r\nConnection: keep-alive\r\n\r\n{}");
  EXPECT_EQ(SerializeResponse(204, "application/json", {}, "", false, true),
            "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(SerializeResponse(404, "application/json", {}, "{}", true, false),
            "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
            "Connection: keep-alive\r\n\r\n");
}

}  // namespace
}  // namespace veil::net::wire
