// HttpServer: an HTTP/1.1 (optionally TLS) server over cpp-httplib with JSON errors, limits,
// metrics, /health and /metrics built in, and a bounded graceful stop (docs/notes/net.md).
//
// Routes are exact (method, path) pairs registered with Handle before Start; GET routes also
// answer HEAD. Every response the server writes is counted in its MetricsRegistry
// (veil_http_requests_total{route,method,code}, veil_http_request_errors_total,
// veil_http_request_duration_seconds); unregistered paths share the route label "other".
//
// Limits: a request body longer than max_body_bytes gets 413 with a JSON error and is read only
// to be discarded, never buffered (Expect: 100-continue gets the 413 before any body is sent);
// POST needs a Content-Length (chunked bodies get 411) and compressed bodies get 415, so the
// limit applies to the bytes handlers see; methods other than GET, HEAD and POST get 405.
// Every error response has a JSON body {"error":{"code":HTTP_STATUS,"message":"..."}} unless
// the handler set its own.
//
// Listening: host is 127.0.0.1 unless the caller asks otherwise; nothing is refused (binding to
// 0.0.0.0 exposes the server to the network, which is the operator's choice). Port 0 asks the
// kernel for a free port; port() then reports it. SO_REUSEPORT is not set, so two processes
// cannot share a port by accident.
//
// Stop: closes the listening socket (new connections are refused from then on), waits for
// requests already being served to finish and their responses to be written, then closes idle
// keep-alive connections; after `grace` it shuts every remaining connection down. A handler that
// never returns still blocks Stop: handlers must be bounded.
//
// Thread safety: Handle and SetHealthCheck before Start, from one thread. Start, Stop and port()
// may be called from any thread. Handlers run concurrently on the worker threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "veil/base/result.h"
#include "veil/net/metrics.h"
#include "veil/net/tls.h"

namespace veil::net {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;  // 0: any free port
  std::size_t worker_threads = 8;
  std::size_t max_body_bytes = 1 << 20;
  std::chrono::milliseconds read_timeout{5000};   // per read while receiving a request
  std::chrono::milliseconds write_timeout{5000};  // per write while sending a response
  std::chrono::milliseconds keep_alive_timeout{5000};
  std::size_t keep_alive_max_requests = 1000;  // then the server closes the connection
  std::optional<TlsCredentials> tls;           // set: HTTPS only
};

struct HttpRequest {
  std::string method;
  std::string path;                                          // decoded, without the query
  std::string target;                                        // as sent, with the query
  std::vector<std::pair<std::string, std::string>> headers;  // names as sent
  std::string body;
  std::string remote_addr;
  int remote_port = 0;

  // First value of a header, matched case-insensitively; empty when absent.
  std::string Header(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

using HttpHandler = std::function<void(const HttpRequest&, HttpResponse&)>;

class HttpServer {
 public:
  // metrics may be shared with other components; a fresh registry is made when null.
  explicit HttpServer(HttpServerOptions options,
                      std::shared_ptr<MetricsRegistry> metrics = nullptr);
  ~HttpServer();  // Stop() with the default grace
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // method is "GET" or "POST"; path is matched exactly. A second handler for the same pair, or
  // a call after Start, is a programming error. /health and /metrics are taken.
  void Handle(std::string method, std::string path, HttpHandler handler);

  // /health answers 200 {"status":"ok"} while this returns ok, else 503 with the status text.
  void SetHealthCheck(std::function<Status()> check);

  // Binds and listens, then serves on a background thread; returns once connections are
  // accepted. kUnavailable when the address cannot be bound, kInvalidArgument for bad TLS
  // material, kFailedPrecondition when called twice.
  Status Start();

  // Graceful stop (see above); idempotent. Returns kUnavailable when connections had to be cut
  // because they were still busy after `grace`.
  Status Stop(std::chrono::milliseconds grace = std::chrono::milliseconds(5000));

  // The bound port once started (the requested one, or the kernel's pick for 0).
  std::uint16_t port() const;
  bool tls() const;
  MetricsRegistry& metrics() { return *metrics_; }
  const std::shared_ptr<MetricsRegistry>& shared_metrics() const { return metrics_; }

  // Feeds raw bytes, as if received on one connection, through the same request parser, limits
  // and handlers as a real connection, and returns the bytes the server would send back. For
  // fuzzing and tests; works without Start (the server is then never listening).
  std::string ServeRawForTesting(std::string_view raw);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::shared_ptr<MetricsRegistry> metrics_;
};

}  // namespace veil::net
