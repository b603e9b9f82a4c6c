// HttpServer + JsonRpcDispatcher + clients over real loopback sockets (127.0.0.1 only).
#include "veil/net/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "net/net_test_util.h"
#include "net/raw_connection.h"
#include "veil/net/error_map.h"
#include "veil/net/http_client.h"
#include "veil/net/json_rpc.h"

namespace veil::net {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

std::string Url(const HttpServer& s) {
  return (s.tls() ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(s.port());
}

// A port that was free a moment ago.
std::uint16_t FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

std::size_t CountOf(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

double MetricValue(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
        line[series.size()] == ' ') {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return 0;
}

void RegisterMethods(JsonRpcDispatcher& d, std::atomic<int>* slow_started = nullptr) {
  ASSERT_TRUE(d.Register("echo", [](const json& p) -> Result<json> { return p; }).ok());
  ASSERT_TRUE(d.Register("add", [](const json& p) -> Result<json> {
                 if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() ||
                     !p[1].is_number_integer()) {
                   return InvalidArgument("add takes two integers");
                 }
                 return json(p[0].get<std::int64_t>() + p[1].get<std::int64_t>());
               }).ok());
  ASSERT_TRUE(d.Register("slow", [slow_started](const json& p) -> Result<json> {
                 if (slow_started) slow_started->fetch_add(1);
                 std::this_thread::sleep_for(milliseconds(p.value("ms", 300)));
                 return json("done");
               }).ok());
}

class RpcServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterMethods(dispatcher_, &slow_started_);
    HttpServerOptions o;
    o.max_body_bytes = 64 * 1024;
    server_ = std::make_unique<HttpServer>(std::move(o), metrics_);
    dispatcher_.Mount(*server_);
    ASSERT_TRUE(server_->Start().ok());
    ASSERT_NE(server_->port(), 0);
  }
  void TearDown() override { EXPECT_TRUE(server_->Stop().ok()); }

  HttpClient Raw() {
    auto c = HttpClient::Create(Opts(Url(*server_)));
    VEIL_CHECK(c.ok());
    return std::move(c).value();
  }
  json PostRpc(const std::string& body) {
    HttpClient c = Raw();
    auto r = c.Post("/rpc", body, "application/json", Idempotency::kNotIdempotent);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->status, 200) << r->body;
    return json::parse(r->body);
  }

  std::shared_ptr<MetricsRegistry> metrics_ = std::make_shared<MetricsRegistry>();
  JsonRpcDispatcher dispatcher_{{.max_batch = 4}, metrics_};
  std::atomic<int> slow_started_{0};
  std::unique_ptr<HttpServer> server_;
};

TEST_F(RpcServerTest, RoundTrip) {
  auto client = JsonRpcClient::Create(Opts(Url(*server_)));
  ASSERT_TRUE(client.ok());
  auto r = client->Call("add", json::array({40, 2}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, 42);
  auto echo = client->Call("echo", json{{"k", "v"}, {"n", json::array({1, 2})}});
  ASSERT_TRUE(echo.ok());
  EXPECT_EQ((*echo)["k"], "v");
  EXPECT_TRUE(client->Notify("add", json::array({1, 2})).ok());
}

// A reader for CallWithReader that takes one complete JSON value and keeps its text.
struct KeptText {
  std::string text;
  int accepted = 0;
  JsonRpcClient::TextReader Reader() {
    return [this](std::string_view t) -> Status {
      if (!json::accept(std::string(t))) return InvalidArgument("not one JSON value");
      text = std::string(t);
      ++accepted;
      return Status::Ok();
    };
  }
};

// CallWithReader: the result as text from a dispatcher's compact reply, with Call's errors.
TEST_F(RpcServerTest, CallWithReader) {
  auto client = JsonRpcClient::Create(Opts(Url(*server_)));
  ASSERT_TRUE(client.ok());
  KeptText kept;
  ASSERT_TRUE(
      client
          ->CallWithReader("add", json::array({40, 2}), Idempotency::kNotIdempotent, kept.Reader())
          .ok());
  EXPECT_EQ(kept.text, "42");
  const json params = {{"k", "v\"q"}, {"n", json::array({1, 2})}};
  ASSERT_TRUE(
      client->CallWithReader("echo", params, Idempotency::kNotIdempotent, kept.Reader()).ok());
  EXPECT_EQ(kept.text, DumpJson(*client->Call("echo", params)));
  const Status bad =
      client->CallWithReader("add", json::array({1}), Idempotency::kNotIdempotent, kept.Reader());
  EXPECT_EQ(bad.code(), Code::kInvalidArgument);
  EXPECT_EQ(bad.message(), "json-rpc error -32602: add takes two integers");
  EXPECT_EQ(
      client->CallWithReader("frobnicate", nullptr, Idempotency::kNotIdempotent, kept.Reader())
          .code(),
      Code::kNotFound);
  EXPECT_EQ(kept.accepted, 2);
}

// Replies a dispatcher would not write: the compact form is cut verbatim; another form goes
// through Call's checks and reaches the reader as compact text; an error after the result, a
// byte-order mark before it, another id or an HTTP error are errors, never a result.
TEST(JsonRpcClientText, OtherReplyForms) {
  HttpServer server(HttpServerOptions{});
  auto route = [&server](const std::string& path, int status, std::string before,
                         std::string after) {
    server.Handle("POST", path, [status, before, after](const HttpRequest& req, HttpResponse& res) {
      res.status = status;
      res.body = before + json::parse(req.body)["id"].dump() + after;
    });
  };
  route("/verbatim", 200, R"({"id":)", R"(,"jsonrpc":"2.0","result":[1, 2]})");
  route("/spaced", 200, R"({ "result" : { "b" : [1, 2] }, "jsonrpc" : "2.0", "id" : )", "}");
  route("/error-after", 200, R"({"id":)",
        R"(,"jsonrpc":"2.0","result":1,"error":{"code":-32602,"message":"m"}})");
  route("/bom", 200, R"({"id":)",
        ",\"jsonrpc\":\"2.0\",\"result\":\xEF\xBB\xBF"
        "1}");
  route("/http-error", 500, R"({"id":)", R"(,"jsonrpc":"2.0","result":1})");
  server.Handle("POST", "/wrong-id", [](const HttpRequest&, HttpResponse& res) {
    res.body = R"({"id":999,"jsonrpc":"2.0","result":1})";
  });
  ASSERT_TRUE(server.Start().ok());
  auto call = [&server](const std::string& path, KeptText* kept) {
    auto client = JsonRpcClient::Create(Opts(Url(server)), path);
    VEIL_CHECK(client.ok());
    return client->CallWithReader("m", nullptr, Idempotency::kNotIdempotent, kept->Reader());
  };
  KeptText kept;
  ASSERT_TRUE(call("/verbatim", &kept).ok());
  EXPECT_EQ(kept.text, "[1, 2]");  // as sent: cut, not re-encoded
  ASSERT_TRUE(call("/spaced", &kept).ok());
  EXPECT_EQ(kept.text, R"({"b":[1,2]})");
  EXPECT_EQ(kept.accepted, 2);
  EXPECT_EQ(call("/error-after", &kept).code(), Code::kInvalidArgument);
  EXPECT_EQ(call("/bom", &kept).code(), Code::kInternal);
  EXPECT_FALSE(call("/http-error", &kept).ok());
  EXPECT_EQ(call("/wrong-id", &kept).code(), Code::kInternal);
  EXPECT_EQ(kept.accepted, 2);
  EXPECT_TRUE(server.Stop().ok());
}

TEST_F(RpcServerTest, ErrorsSurfaceAsStatus) {
  auto client = JsonRpcClient::Create(Opts(Url(*server_)));
  ASSERT_TRUE(client.ok());
  auto bad = client->Call("add", json::array({1}));
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "json-rpc error -32602: add takes two integers");
  auto unknown = client->Call("frobnicate");
  EXPECT_EQ(unknown.status().code(), Code::kNotFound);
  EXPECT_EQ(unknown.status().message(), "json-rpc error -32601: method not found: \"frobnicate\"");
}

TEST_F(RpcServerTest, EnvelopeErrorsOverHttp) {
  auto parse = PostRpc(R"({"jsonrpc":"2.0","method":)");
  EXPECT_EQ(parse["error"]["code"], kJsonRpcParseError);
  EXPECT_NE(parse["error"]["message"].get<std::string>().find("at byte 27"), std::string::npos)
      << parse.dump();
  EXPECT_TRUE(parse["id"].is_null());
  EXPECT_EQ(PostRpc(R"({"jsonrpc":"2.0","method":7,"id":1})")["error"]["code"],
            kJsonRpcInvalidRequest);
  EXPECT_EQ(PostRpc(R"({"jsonrpc":"2.0","method":"add","id":{}})")["error"]["code"],
            kJsonRpcInvalidRequest);
  EXPECT_EQ(PostRpc(R"({"jsonrpc":"1.0","method":"add","id":1})")["error"]["code"],
            kJsonRpcInvalidRequest);
  EXPECT_EQ(PostRpc(R"([1,2])").size(), 2u);
  auto invalid_params = PostRpc(R"({"jsonrpc":"2.0","method":"add","params":["a","b"],"id":3})");
  EXPECT_EQ(invalid_params["error"]["code"], kJsonRpcInvalidParams);
  EXPECT_EQ(invalid_params["id"], 3);
  auto unknown = PostRpc(R"({"jsonrpc":"2.0","method":"nope","id":4})");
  EXPECT_EQ(unknown["error"]["code"], kJsonRpcMethodNotFound);
  auto batch = PostRpc(R"([{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},
                          {"jsonrpc":"2.0","method":"echo","params":[],"id":2}])");
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0]["result"], 3);
  std::string five = "[";
  for (int i = 0; i < 5; ++i) {
    five += std::string(i ? "," : "") + R"({"jsonrpc":"2.0","method":"add","params":[1,2],"id":)" +
            std::to_string(i) + "}";
  }
  five += "]";
  auto over = PostRpc(five);
  EXPECT_EQ(over["error"]["code"], kJsonRpcInvalidRequest);
  EXPECT_NE(over["error"]["message"].get<std::string>().find("exceeds the limit of 4"),
            std::string::npos);
}

TEST_F(RpcServerTest, NotificationOnlyGets204) {
  HttpClient c = Raw();
  auto r = c.Post("/rpc", R"({"jsonrpc":"2.0","method":"add","params":[1,2]})", "application/json",
                  Idempotency::kNotIdempotent);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 204);
  EXPECT_EQ(r->body, "");
}

TEST_F(RpcServerTest, OversizedBodyGets413) {
  HttpClient c = Raw();
  std::string big = R"({"jsonrpc":"2.0","method":"echo","params":[")" +
                    std::string(200 * 1024, 'a') + R"("],"id":1})";
  auto r = c.Post("/rpc", big, "application/json", Idempotency::kNotIdempotent);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 413);
  auto body = json::parse(r->body);
  EXPECT_EQ(body["error"]["code"], 413);
  EXPECT_EQ(body["error"]["message"], "request body exceeds the limit of 65536 bytes");
  // The connection stays usable: the body was read and discarded.
  auto ok = c.Post("/rpc", R"({"jsonrpc":"2.0","method":"add","params":[1,2],"id":1})",
                   "application/json", Idempotency::kNotIdempotent);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->status, 200);
  auto client = JsonRpcClient::Create(Opts(Url(*server_)));
  auto via_rpc = client->Call("echo", json::array({std::string(100 * 1024, 'b')}));
  EXPECT_EQ(via_rpc.status().code(), Code::kResourceExhausted);
  EXPECT_NE(via_rpc.status().message().find("HTTP 413"), std::string::npos);
}

TEST_F(RpcServerTest, HttpLevelErrorsAreJson) {
  HttpClient c = Raw();
  auto missing = c.Get("/nope");
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(json::parse(missing->body)["error"]["code"], 404);
  auto get_rpc = c.Get("/rpc");
  ASSERT_TRUE(get_rpc.ok());
  EXPECT_EQ(get_rpc->status, 404);
  // Raw bytes through the same parser: methods, chunked bodies, missing lengths.
  auto status_of = [&](const std::string& raw) {
    std::string out = server_->ServeRawForTesting(raw);
    return out.substr(0, out.find("\r\n"));
  };
  EXPECT_EQ(status_of("PUT /rpc HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"),
            "HTTP/1.1 405 Method Not Allowed");
  EXPECT_EQ(
      status_of("POST /rpc HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
      "HTTP/1.1 411 Length Required");
  EXPECT_EQ(status_of("POST /rpc HTTP/1.1\r\nHost: t\r\n\r\n"), "HTTP/1.1 411 Length Required");
  EXPECT_EQ(
      status_of(
          "POST /rpc HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nContent-Encoding: gzip\r\n\r\n{}"),
      "HTTP/1.1 415 Unsupported Media Type");
  EXPECT_EQ(status_of("GARBAGE\r\n\r\n"), "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(status_of("POST /rpc HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999\r\nExpect: "
                      "100-continue\r\n\r\n"),
            "HTTP/1.1 413 Payload Too Large");
  // Two pipelined requests on one "connection".
  const std::string call = R"({"jsonrpc":"2.0","method":"add","params":[1,2],"id":1})";
  std::string two = server_->ServeRawForTesting(
      "GET /health HTTP/1.1\r\nHost: t\r\n\r\nPOST /rpc HTTP/1.1\r\nHost: t\r\nContent-Length: " +
      std::to_string(call.size()) + "\r\n\r\n" + call);
  EXPECT_NE(two.find("{\"status\":\"ok\"}"), std::string::npos) << two;
  EXPECT_NE(two.find(R"("result":3)"), std::string::npos) << two;
}

TEST_F(RpcServerTest, HealthAndMetrics) {
  HttpClient c = Raw();
  auto health = c.Get("/health");
  ASSERT_TRUE(health.ok());
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(json::parse(health->body)["status"], "ok");
  auto client = JsonRpcClient::Create(Opts(Url(*server_)));
  ASSERT_TRUE(client->Call("add", json::array({1, 2})).ok());

  auto before = c.Get("/metrics");
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->status, 200);
  EXPECT_EQ(before->content_type, "text/plain; version=0.0.4; charset=utf-8");
  std::istringstream lines(before->body);
  std::string line;
  int samples = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) continue;
    EXPECT_TRUE(IsPrometheusSample(line)) << line;
    ++samples;
  }
  EXPECT_GT(samples, 10);
  // A request is counted once its response is written, so a scrape may trail the last reply by
  // a moment; poll briefly.
  auto scrape_until = [&](const std::string& series, double want) {
    double v = 0;
    for (int i = 0; i < 200; ++i) {
      v = MetricValue(c.Get("/metrics")->body, series);
      if (v >= want) break;
      std::this_thread::sleep_for(milliseconds(5));
    }
    return v;
  };
  const std::string rpc_ok = R"(veil_http_requests_total{code="200",method="POST",route="/rpc"})";
  const std::string add_calls = R"(veil_rpc_requests_total{method="add"})";
  EXPECT_EQ(scrape_until(rpc_ok, 1), 1);
  EXPECT_EQ(MetricValue(before->body, add_calls), 1);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(client->Call("add", json::array({1, 2})).ok());
  ASSERT_FALSE(client->Call("nope").ok());
  EXPECT_EQ(scrape_until(rpc_ok, 5), 5);
  auto after = c.Get("/metrics");
  EXPECT_EQ(MetricValue(after->body, add_calls), 4);
  EXPECT_EQ(MetricValue(after->body, R"(veil_rpc_errors_total{code="-32601",method="unknown"})"),
            1);
  EXPECT_EQ(MetricValue(after->body,
                        R"(veil_http_request_duration_seconds_count{method="POST",route="/rpc"})"),
            5);
  EXPECT_GE(MetricValue(after->body,
                        R"(veil_http_requests_total{code="200",method="GET",route="/metrics"})"),
            2);
  EXPECT_EQ(MetricValue(after->body, "veil_http_in_flight_requests"), 1);  // this scrape
}

TEST_F(RpcServerTest, ClientReusesOneConnection) {
  std::set<int> ports;
  std::mutex mu;
  HttpServer s({});
  s.Handle("GET", "/who", [&](const HttpRequest& req, HttpResponse& res) {
    std::lock_guard lock(mu);
    ports.insert(req.remote_port);
    res.body = "{}";
  });
  ASSERT_TRUE(s.Start().ok());
  auto c = HttpClient::Create(Opts(Url(s)));
  for (int i = 0; i < 10; ++i) ASSERT_EQ(c->Get("/who")->status, 200);
  EXPECT_EQ(ports.size(), 1u);
  // An idle keep-alive connection does not hold up Stop.
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(s.Stop().ok());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(1000));
}

TEST_F(RpcServerTest, GracefulStopLetsInFlightRequestFinish) {
  auto slow = std::async(std::launch::async, [&] {
    auto client = JsonRpcClient::Create(Opts(Url(*server_)));
    return client->Call("slow", json{{"ms", 400}});
  });
  while (slow_started_.load() == 0) std::this_thread::sleep_for(milliseconds(2));
  const std::string url = Url(*server_);
  auto stopping = std::async(std::launch::async, [&] { return server_->Stop(milliseconds(5000)); });
  std::this_thread::sleep_for(milliseconds(50));
  // The listening socket is closed: a new connection is refused at once.
  auto late =
      JsonRpcClient::Create(Opts(url, [](HttpClientOptions& o) { o.retry.max_attempts = 1; }));
  auto refused = late->Call("add", json::array({1, 2}));
  EXPECT_EQ(refused.status().code(), Code::kUnavailable) << refused.status().ToString();
  auto r = slow.get();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "done");
  EXPECT_TRUE(stopping.get().ok());
}

// A request that arrives on an open keep-alive connection once the stop has begun is refused
// before its handler runs, and the refusal still reaches the client: it cannot take effect
// unacknowledged (the in-flight request it waits for keeps the connections open meanwhile).
TEST_F(RpcServerTest, RequestArrivingDuringTheStopIsRefusedBeforeItsHandler) {
  RawConnection idle(server_->port());
  ASSERT_TRUE(idle.connected());
  const std::string body = R"({"jsonrpc":"2.0","method":"slow","params":{"ms":0},"id":7})";
  const std::string request =
      "POST /rpc HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  ASSERT_TRUE(idle.Send(request));
  EXPECT_EQ(idle.ReadResponse().substr(0, 15), "HTTP/1.1 200 OK");
  ASSERT_EQ(slow_started_.load(), 1);

  auto slow = std::async(std::launch::async, [&] {
    auto client = JsonRpcClient::Create(Opts(Url(*server_)));
    return client->Call("slow", json{{"ms", 600}});
  });
  while (slow_started_.load() < 2) std::this_thread::sleep_for(milliseconds(2));
  auto stopping = std::async(std::launch::async, [&] { return server_->Stop(milliseconds(5000)); });
  std::this_thread::sleep_for(milliseconds(100));

  ASSERT_TRUE(idle.Send(request));
  const std::string refused = idle.ReadResponse();
  EXPECT_EQ(refused.substr(0, 12), "HTTP/1.1 503") << refused;
  EXPECT_NE(refused.find("the server is stopping"), std::string::npos) << refused;
  EXPECT_EQ(slow_started_.load(), 2) << "the refused request's handler ran";
  auto r = slow.get();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(stopping.get().ok());
}

// Refusals made before routing reach a client on a real socket (cpp-httplib refuses to write to
// a socket whose read side is shut down, so the connection is closed only after the response),
// and what the client sent after the refused request is not read as another request.
TEST_F(RpcServerTest, RefusalsReachTheClientAndThenTheConnectionCloses) {
  {
    RawConnection c(server_->port());
    ASSERT_TRUE(c.connected());
    ASSERT_TRUE(c.Send("PUT /rpc HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"));
    const std::string reply = c.ReadToEnd();
    EXPECT_EQ(reply.substr(0, 12), "HTTP/1.1 405") << reply;
    EXPECT_NE(reply.find("method not allowed"), std::string::npos) << reply;
    EXPECT_EQ(CountOf(reply, "HTTP/1.1 "), 1u) << reply;
  }
  {
    RawConnection c(server_->port());
    ASSERT_TRUE(c.connected());
    // The chunk below would parse as a request line if the server went on reading.
    ASSERT_TRUE(
        c.Send("POST /rpc HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
               "2a\r\nGET /health HTTP/1.1\r\nHost: t\r\n\r\n\r\n0\r\n\r\n"));
    const std::string reply = c.ReadToEnd();
    EXPECT_EQ(reply.substr(0, 12), "HTTP/1.1 411") << reply;
    EXPECT_EQ(CountOf(reply, "HTTP/1.1 "), 1u) << reply;
  }
}

TEST(HttpServerStop, GraceBoundsAHungRequest) {
  JsonRpcDispatcher d;
  RegisterMethods(d);
  HttpServer s({});
  d.Mount(s);
  ASSERT_TRUE(s.Start().ok());
  auto slow = std::async(std::launch::async, [&] {
    auto client =
        JsonRpcClient::Create(Opts(Url(s), [](HttpClientOptions& o) { o.retry.max_attempts = 1; }));
    return client->Call("slow", json{{"ms", 1500}});
  });
  std::this_thread::sleep_for(milliseconds(100));
  Status st = s.Stop(milliseconds(200));
  EXPECT_EQ(st.code(), Code::kUnavailable);
  // The handler ran to completion, but its connection had been cut.
  EXPECT_EQ(slow.get().status().code(), Code::kUnavailable);
}

TEST(HttpClientRetry, IdempotentCallWaitsForAServerThatIsNotUpYet) {
  const std::uint16_t port = FreePort();
  JsonRpcDispatcher d;
  RegisterMethods(d);
  HttpServerOptions o;
  o.port = port;
  HttpServer s(std::move(o));
  d.Mount(s);
  auto starter = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(milliseconds(150));
    return s.Start();
  });
  auto client = JsonRpcClient::Create(
      Opts("http://127.0.0.1:" + std::to_string(port), [](HttpClientOptions& c) {
        c.retry.max_attempts = 8;
        c.retry.initial_backoff = milliseconds(40);
        c.retry.max_backoff = milliseconds(200);
      }));
  auto r = client->Call("add", json::array({2, 2}), Idempotency::kIdempotent);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, 4);
  EXPECT_GT(HttpClient::LastAttempts(), 1);
  ASSERT_TRUE(starter.get().ok());
}

TEST(HttpClientRetry, RefusedConnectionsEndAfterMaxAttempts) {
  const std::uint16_t port = FreePort();
  auto client = JsonRpcClient::Create(
      Opts("http://127.0.0.1:" + std::to_string(port), [](HttpClientOptions& o) {
        o.retry.max_attempts = 3;
        o.retry.initial_backoff = milliseconds(5);
      }));
  auto r = client->Call("add", json::array({2, 2}), Idempotency::kIdempotent);
  EXPECT_EQ(r.status().code(), Code::kUnavailable);
  EXPECT_EQ(HttpClient::LastAttempts(), 3);
}

TEST(HttpClientRetry, On503OnlyIdempotentCallsAreRetried) {
  std::atomic<int> calls{0};
  HttpServer s({});
  s.Handle("POST", "/flaky", [&](const HttpRequest&, HttpResponse& res) {
    int n = ++calls;
    res.status = n % 3 == 0 ? 200 : 503;
    res.body = "{\"n\":" + std::to_string(n) + "}";
  });
  ASSERT_TRUE(s.Start().ok());
  auto c = HttpClient::Create(Opts(Url(s), [](HttpClientOptions& o) {
    o.retry.max_attempts = 4;
    o.retry.initial_backoff = milliseconds(5);
  }));
  auto idem = c->Post("/flaky", "{}", "application/json", Idempotency::kIdempotent);
  ASSERT_TRUE(idem.ok());
  EXPECT_EQ(idem->status, 200);
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(HttpClient::LastAttempts(), 3);
  calls = 0;
  auto once = c->Post("/flaky", "{}", "application/json", Idempotency::kNotIdempotent);
  ASSERT_TRUE(once.ok());
  EXPECT_EQ(once->status, 503);
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(HttpClient::LastAttempts(), 1);
}

TEST(HttpClientRetry, NonIdempotentCallIsNotRepeatedAfterTheServerSawIt) {
  // The server is slower than the client's read timeout: the request arrived, the reply did not.
  std::atomic<int> calls{0};
  HttpServer s({});
  s.Handle("POST", "/hang", [&](const HttpRequest&, HttpResponse& res) {
    ++calls;
    std::this_thread::sleep_for(milliseconds(300));
    res.body = "{}";
  });
  ASSERT_TRUE(s.Start().ok());
  auto c = HttpClient::Create(Opts(Url(s), [](HttpClientOptions& o) {
    o.read_timeout = milliseconds(100);
    o.retry.max_attempts = 4;
    o.retry.initial_backoff = milliseconds(5);
  }));
  auto r = c->Post("/hang", "{}", "application/json", Idempotency::kNotIdempotent);
  EXPECT_EQ(r.status().code(), Code::kUnavailable) << r.status().ToString();
  EXPECT_EQ(HttpClient::LastAttempts(), 1);
  EXPECT_EQ(calls.load(), 1);
}

TEST(HttpServerHandlers, ExceptionBecomesOpaque500) {
  HttpServer s({});
  s.Handle("POST", "/throws",
           [](const HttpRequest&, HttpResponse&) { throw std::runtime_error("secret detail"); });
  ASSERT_TRUE(s.Start().ok());
  auto c = HttpClient::Create(Opts(Url(s)));
  auto r = c->Post("/throws", "{}", "application/json", Idempotency::kIdempotent);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(r->body, R"({"error":{"code":500,"message":"internal error"}})");
}

TEST(HttpClientHeaders, ExtraHeadersReachTheHandler) {
  HttpServer s({});
  auto echo = [](const HttpRequest& req, HttpResponse& res) {
    res.content_type = "text/plain";
    res.body = req.Header("Veil-Signature") + "|" + req.Header("X-Second");
  };
  s.Handle("POST", "/echo", echo);
  s.Handle("GET", "/echo", echo);
  ASSERT_TRUE(s.Start().ok());
  auto c = HttpClient::Create(Opts(Url(s)));
  ASSERT_TRUE(c.ok());
  const HttpHeaders headers = {{"Veil-Signature", "c2ln+/=="}, {"X-Second", "two words"}};
  auto r = c->Post("/echo", "{}", "application/json", Idempotency::kIdempotent, headers);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body, "c2ln+/==|two words");
  r = c->Get("/echo", Idempotency::kIdempotent, headers);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body, "c2ln+/==|two words");
  // Without headers nothing extra is sent.
  r = c->Post("/echo", "{}", "application/json", Idempotency::kIdempotent);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->body, "|");
}

TEST(HttpClientHeaders, InjectionAndClientOwnedNamesAreRefusedBeforeSending) {
  std::atomic<int> calls{0};
  HttpServer s({});
  s.Handle("POST", "/count", [&](const HttpRequest&, HttpResponse&) { ++calls; });
  ASSERT_TRUE(s.Start().ok());
  auto c = HttpClient::Create(Opts(Url(s)));
  ASSERT_TRUE(c.ok());
  const std::vector<HttpHeaders> bad = {{{"X-A", "v\r\nX-Injected: 1"}},
                                        {{"X-A", "v\nw"}},
                                        {{"X-A", std::string("v\0w", 3)}},
                                        {{"Bad Name", "v"}},
                                        {{"", "v"}},
                                        {{"X:A", "v"}},
                                        {{"content-length", "1"}},
                                        {{"Host", "evil.example"}},
                                        {{"Content-Type", "a/b"}},
                                        {{"Transfer-Encoding", "chunked"}},
                                        {{"connection", "close"}}};
  for (const auto& h : bad) {
    auto r = c->Post("/count", "{}", "application/json", Idempotency::kIdempotent, h);
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << h[0].first;
  }
  EXPECT_EQ(calls.load(), 0);
}

TEST(HttpServerConcurrency, EightClientsTwoHundredCallsEach) {
  JsonRpcDispatcher d;
  RegisterMethods(d);
  HttpServer s({});
  d.Mount(s);
  ASSERT_TRUE(s.Start().ok());
  std::atomic<int> errors{0};
  std::mutex first_error_mu;
  std::string first_error;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      auto client = JsonRpcClient::Create(Opts(Url(s)));
      for (int i = 0; i < 200; ++i) {
        auto r = client->Call("add", json::array({t, i}));
        if (!r.ok() || *r != t + i) {
          ++errors;
          std::lock_guard lock(first_error_mu);
          if (first_error.empty()) first_error = r.ok() ? r->dump() : r.status().ToString();
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0) << first_error;
  // A request is counted once its response is written (cpp-httplib's logger runs after the
  // write), so the count may trail the last reply by a moment: poll briefly.
  const std::string series = R"(veil_http_requests_total{code="200",method="POST",route="/rpc"})";
  double counted = 0;
  for (int i = 0; i < 400; ++i) {
    counted = MetricValue(s.metrics().RenderPrometheus(), series);
    if (counted >= 1600) break;
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_EQ(counted, 1600);
}

TEST(HttpServerStart, BusyPortIsUnavailable) {
  HttpServer a({});
  ASSERT_TRUE(a.Start().ok());
  HttpServerOptions o;
  o.port = a.port();
  HttpServer b(std::move(o));
  EXPECT_EQ(b.Start().code(), Code::kUnavailable);
  EXPECT_EQ(a.Start().code(), Code::kFailedPrecondition);
}

TEST(HttpServerHealth, FailingCheckIs503) {
  HttpServer s({});
  s.SetHealthCheck([] { return Unavailable("database unreachable"); });
  ASSERT_TRUE(s.Start().ok());
  auto c = HttpClient::Create(Opts(Url(s)));
  auto r = c->Get("/health");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(json::parse(r->body)["message"], "unavailable: database unreachable");
}

TEST(ClientAddressKey, Ipv4Ipv6PrefixesAndJunk) {
  EXPECT_EQ(ClientAddressKey("192.0.2.7", 64), ClientAddressKey("::ffff:192.0.2.7", 64));
  EXPECT_NE(ClientAddressKey("192.0.2.7", 64), ClientAddressKey("192.0.2.8", 64));
  // One /64: any interface id maps to the same key; the next /64 does not.
  EXPECT_EQ(ClientAddressKey("2001:db8:1:2::1", 64),
            ClientAddressKey("2001:db8:1:2:abcd:ef01:2345:6789", 64));
  EXPECT_EQ(ClientAddressKey("2001:db8:1:2::1%eth0", 64), ClientAddressKey("2001:db8:1:2::9", 64));
  EXPECT_NE(ClientAddressKey("2001:db8:1:2::1", 64), ClientAddressKey("2001:db8:1:3::1", 64));
  EXPECT_NE(ClientAddressKey("2001:db8:1:2::1", 128), ClientAddressKey("2001:db8:1:2::2", 128));
  EXPECT_EQ(ClientAddressKey("2001:db8:1:2ff::1", 56), ClientAddressKey("2001:db8:1:200::1", 56));
  EXPECT_NE(ClientAddressKey("2001:db8:1:2ff::1", 60), ClientAddressKey("2001:db8:1:200::1", 60));
  // An address that does not parse is its own key, bounded in length.
  EXPECT_EQ(ClientAddressKey("", 64), "?");
  EXPECT_NE(ClientAddressKey("not an address", 64), ClientAddressKey("", 64));
  EXPECT_LE(ClientAddressKey(std::string(1000, 'x'), 64).size(), 65u);
  EXPECT_EQ(ClientAddressKey("192.0.2.7"), "192.0.2.7");
  EXPECT_EQ(ClientAddressKey("::ffff:192.0.2.7"), "192.0.2.7");
  EXPECT_EQ(ClientAddressKey("2001:db8:1:2:abcd::1"), "2001:db8:1:2::/64");
}

// ---- Hostile clients: header floods, slow clients, smuggling, connection and body caps ----

using Clock = std::chrono::steady_clock;

// GET /health on a fresh connection from `source`: whether a 200 came within `deadline`.
bool HealthWithin(std::uint16_t port, milliseconds deadline, const char* source = nullptr) {
  const auto t0 = Clock::now();
  RawConnection c(port, source);
  if (!c.connected() || !c.Send("GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")) {
    return false;
  }
  const std::string reply = c.ReadToEnd();
  return reply.rfind("HTTP/1.1 200", 0) == 0 && Clock::now() - t0 < deadline;
}

std::size_t ResidentBytes() {
  long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  std::fclose(f);
  return static_cast<std::size_t>(resident) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

TEST(HttpServerHostile, HeaderFloodsAreRefusedAtTheHeadLimit) {
  HttpServer s({});
  ASSERT_TRUE(s.Start().ok());
  {
    RawConnection c(s.port());
    std::string head = "GET /health HTTP/1.1\r\nHost: t\r\n";
    for (int i = 0; i < 200; ++i) head += "X-" + std::to_string(i) + ": v\r\n";
    ASSERT_TRUE(c.Send(head + "\r\n"));
    const std::string reply = c.ReadToEnd();
    EXPECT_EQ(reply.substr(0, 12), "HTTP/1.1 431") << reply;
    EXPECT_NE(reply.find("more than 64 header fields"), std::string::npos) << reply;
    EXPECT_EQ(CountOf(reply, "HTTP/1.1 "), 1u);
  }
  {
    // 16 MiB of one header line: the server stops taking it at its head limit (16 KiB, plus what
    // it drops while closing and what the sockets' buffers hold), and does not grow.
    const std::size_t before = ResidentBytes();
    RawConnection c(s.port());
    ASSERT_TRUE(c.Send("GET /health HTTP/1.1\r\nHost: t\r\nX: "));
    const std::string chunk(64 * 1024, 'a');
    int sent = 0;
    while (sent < 256 && c.Send(chunk)) ++sent;
    EXPECT_LT(sent, 256) << "the server kept reading an endless header line";
    EXPECT_LT(ResidentBytes(), before + (32u << 20));
  }
  EXPECT_TRUE(HealthWithin(s.port(), milliseconds(2000)));
}

TEST(HttpServerHostile, SlowClientsAreCutAtTheHeadDeadlineAndDoNotStarveHealth) {
  HttpServerOptions o;
  o.worker_threads = 2;
  o.head_timeout = milliseconds(1000);
  o.read_timeout = milliseconds(5000);
  HttpServer s(std::move(o));
  ASSERT_TRUE(s.Start().ok());
  // Sixteen clients (eight times the workers) from another address, each sending its head a
  // byte every 100 ms: never silent long enough for read_timeout.
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 16; ++i) {
    slow.push_back(std::make_unique<RawConnection>(s.port(), "127.0.0.2"));
    ASSERT_TRUE(slow.back()->connected());
  }
  const std::string head = "GET /health HTTP/1.1\r\nHost: t\r\nX-Padding: " + std::string(64, 'p');
  const auto t0 = Clock::now();
  std::atomic<bool> done{false};
  std::thread drip([&] {
    for (std::size_t i = 0; i < head.size() && !done.load(); ++i) {
      for (auto& c : slow) c->Send(std::string(1, head[i]));
      std::this_thread::sleep_for(milliseconds(100));
    }
  });
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(HealthWithin(s.port(), milliseconds(500))) << "health starved, round " << i;
    std::this_thread::sleep_for(milliseconds(100));
  }
  // Every slow client gets 408 at the head deadline and its connection closes.
  for (auto& c : slow) {
    const std::string reply = c->ReadToEnd();
    EXPECT_EQ(reply.substr(0, 12), "HTTP/1.1 408") << reply;
  }
  EXPECT_LT(Clock::now() - t0, milliseconds(4000));
  done.store(true);
  drip.join();
  EXPECT_GE(
      MetricValue(s.metrics().RenderPrometheus(), R"(veil_http_timeouts_total{phase="head"})"), 16);
}

TEST(HttpServerHostile, AGetWithABodyIsRefusedAndItsBodyIsNeverARequest) {
  HttpServer s({});
  std::atomic<int> metrics_reads{0};
  s.Handle("GET", "/count", [&](const HttpRequest&, HttpResponse& res) {
    metrics_reads.fetch_add(1);
    res.body = "{}";
  });
  ASSERT_TRUE(s.Start().ok());
  const std::string smuggled = "GET /count HTTP/1.1\r\nHost: t\r\n\r\n";
  for (const std::string& framing : {"Content-Length: " + std::to_string(smuggled.size()) + "\r\n",
                                     std::string("Transfer-Encoding: chunked\r\n")}) {
    RawConnection c(s.port());
    ASSERT_TRUE(c.Send("GET /health HTTP/1.1\r\nHost: t\r\n" + framing + "\r\n" + smuggled));
    const std::string reply = c.ReadToEnd();
    EXPECT_EQ(reply.substr(0, 12), "HTTP/1.1 400") << reply;
    EXPECT_EQ(CountOf(reply, "HTTP/1.1 "), 1u) << reply;
  }
  {
    // A POST with both framings: neither is believed.
    RawConnection c(s.port());
    ASSERT_TRUE(
        c.Send("POST /count HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n"
               "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" +
               smuggled));
    const std::string reply = c.ReadToEnd();
    EXPECT_EQ(reply.substr(0, 12), "HTTP/1.1 400") << reply;
    EXPECT_EQ(CountOf(reply, "HTTP/1.1 "), 1u) << reply;
  }
  EXPECT_EQ(metrics_reads.load(), 0);
}

TEST(HttpServerHostile, ConnectionsPerClientAddressAreCapped) {
  HttpServerOptions o;
  o.max_connections_per_client = 3;
  HttpServer s(std::move(o));
  ASSERT_TRUE(s.Start().ok());
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(std::make_unique<RawConnection>(s.port(), "127.0.0.2"));
    ASSERT_TRUE(held.back()->connected());
  }
  std::this_thread::sleep_for(milliseconds(100));  // the server has accepted them
  RawConnection fourth(s.port(), "127.0.0.2");
  ASSERT_TRUE(fourth.connected());
  const std::string reply = fourth.ReadToEnd();
  EXPECT_EQ(reply.substr(0, 12), "HTTP/1.1 503") << reply;
  EXPECT_NE(reply.find("too many connections from this client address"), std::string::npos);
  // Other addresses are served; and a held connection still works.
  EXPECT_TRUE(HealthWithin(s.port(), milliseconds(2000), "127.0.0.3"));
  ASSERT_TRUE(held[0]->Send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n"));
  EXPECT_EQ(held[0]->ReadResponse().substr(0, 12), "HTTP/1.1 200");
  EXPECT_EQ(MetricValue(s.metrics().RenderPrometheus(),
                        R"(veil_http_connections_refused_total{reason="per_client"})"),
            1);
}

TEST(HttpServerHostile, AFullServerEvictsIdleConnectionsAndRefusesTheRest) {
  HttpServerOptions o;
  o.max_connections = 4;
  HttpServer s(std::move(o));
  ASSERT_TRUE(s.Start().ok());
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 4; ++i) {
    idle.push_back(std::make_unique<RawConnection>(s.port()));
    ASSERT_TRUE(idle.back()->Send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n"));
    ASSERT_EQ(idle.back()->ReadResponse().substr(0, 12), "HTTP/1.1 200");
  }
  // Full of idle keep-alive connections: a new client takes the place of the longest idle one.
  EXPECT_TRUE(HealthWithin(s.port(), milliseconds(2000)));
  EXPECT_EQ(idle[0]->ReadToEnd(), "");  // closed by the server
  // Full of connections mid-request: a new one is refused.
  std::vector<std::unique_ptr<RawConnection>> busy;
  for (int i = 0; i < 4; ++i) {
    busy.push_back(std::make_unique<RawConnection>(s.port()));
    ASSERT_TRUE(busy.back()->Send("GET /health HTTP/1.1\r\n"));
  }
  std::this_thread::sleep_for(milliseconds(100));
  RawConnection refused(s.port());
  const std::string reply = refused.ReadToEnd();
  EXPECT_EQ(reply.substr(0, 12), "HTTP/1.1 503") << reply;
  EXPECT_NE(reply.find("connection limit"), std::string::npos) << reply;
}

TEST(HttpServerHostile, BodiesBeingReceivedShareABoundedBudget) {
  HttpServerOptions o;
  o.max_body_bytes = 64 * 1024;
  o.max_buffered_body_bytes = 100 * 1024;  // one client may hold 64 KiB of it
  HttpServer s(std::move(o));
  s.Handle("POST", "/sink", [](const HttpRequest& req, HttpResponse& res) {
    res.body = "{\"len\":" + std::to_string(req.body.size()) + "}";
  });
  ASSERT_TRUE(s.Start().ok());
  const std::string head = "POST /sink HTTP/1.1\r\nHost: t\r\nContent-Length: 60000\r\n\r\n";
  RawConnection a(s.port(), "127.0.0.2");
  ASSERT_TRUE(a.Send(head + std::string(1000, 'a')));
  std::this_thread::sleep_for(milliseconds(100));
  // The same client's second body would pass its share; another client's, the total.
  RawConnection a2(s.port(), "127.0.0.2");
  ASSERT_TRUE(a2.Send(head));
  EXPECT_EQ(a2.ReadResponse().substr(0, 12), "HTTP/1.1 503");
  RawConnection b(s.port(), "127.0.0.3");
  ASSERT_TRUE(b.Send(head));
  const std::string refused = b.ReadResponse();
  EXPECT_EQ(refused.substr(0, 12), "HTTP/1.1 503") << refused;
  EXPECT_NE(refused.find("retry later"), std::string::npos);
  // The refused body is read and dropped, and the connection serves the next request.
  ASSERT_TRUE(b.Send(std::string(60000, 'b') + "GET /health HTTP/1.1\r\nHost: t\r\n\r\n"));
  EXPECT_EQ(b.ReadResponse().substr(0, 12), "HTTP/1.1 200");
  // The first body completes and is served; its room comes back.
  ASSERT_TRUE(a.Send(std::string(59000, 'a')));
  EXPECT_NE(a.ReadResponse().find("{\"len\":60000}"), std::string::npos);
  RawConnection c(s.port(), "127.0.0.3");
  ASSERT_TRUE(c.Send(head + std::string(60000, 'c')));
  EXPECT_NE(c.ReadResponse().find("{\"len\":60000}"), std::string::npos);
}

TEST(HttpServerHostile, ExpectContinueGetsTheGoAheadOnlyWithinTheLimit) {
  HttpServerOptions o;
  o.max_body_bytes = 1024;
  HttpServer s(std::move(o));
  s.Handle("POST", "/sink", [](const HttpRequest& req, HttpResponse& res) {
    res.body = "{\"len\":" + std::to_string(req.body.size()) + "}";
  });
  ASSERT_TRUE(s.Start().ok());
  RawConnection c(s.port());
  ASSERT_TRUE(
      c.Send("POST /sink HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n"
             "Expect: 100-continue\r\n\r\n"));
  std::string cont;
  char ch;
  while (cont.find("\r\n\r\n") == std::string::npos && c.ReadByte(&ch)) cont += ch;
  EXPECT_EQ(cont, "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(c.Send("0123456789"));
  EXPECT_NE(c.ReadResponse().find("{\"len\":10}"), std::string::npos);
}

}  // namespace
}  // namespace veil::net
