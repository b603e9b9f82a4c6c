// Fuzzes raw HTTP request bytes through our server: the request parser (net/http_wire), the
// connection's framing and limits, the pre-routing checks, the JSON-RPC dispatcher, /health and
// /metrics, reached in-process through HttpServer::ServeRawForTesting, which drives the same
// per-connection state machine as the event thread on an in-memory buffer. No socket is opened.
#include <cstdlib>
#include <memory>

#include "veil/net/http_server.h"
#include "veil/net/json_rpc.h"

namespace {

veil::net::HttpServer& Server() {
  static veil::net::JsonRpcDispatcher* dispatcher = [] {
    auto* d = new veil::net::JsonRpcDispatcher({.max_batch = 8});
    (void)d->Register("echo",
                      [](const nlohmann::json& p) -> veil::Result<nlohmann::json> { return p; });
    return d;
  }();
  static veil::net::HttpServer* server = [] {
    veil::net::HttpServerOptions o;
    o.max_body_bytes = 4096;
    auto* s = new veil::net::HttpServer(std::move(o));
    s->Handle("GET", "/get", [](const veil::net::HttpRequest& req, veil::net::HttpResponse& res) {
      res.body = "{\"len\":" + std::to_string(req.target.size()) + "}";
    });
    dispatcher->Mount(*s);
    return s;
  }();
  return *server;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view raw(reinterpret_cast<const char*>(data), size);
  std::string out = Server().ServeRawForTesting(raw);
  // Whatever came in, anything that goes out is an HTTP/1.1 response.
  if (!out.empty() && out.rfind("HTTP/1.1 ", 0) != 0) std::abort();
  return 0;
}
