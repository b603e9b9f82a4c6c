// HttpServer: an HTTP/1.1 (optionally TLS) server with JSON errors, limits, metrics, /health and
// /metrics built in, and a bounded graceful stop (docs/notes/net.md).
//
// Routes are exact (method, path) pairs registered with Handle before Start; GET routes also
// answer HEAD. Every response the server writes is counted in its MetricsRegistry
// (veil_http_requests_total{route,method,code}, veil_http_request_errors_total,
// veil_http_request_duration_seconds); unregistered paths share the route label "other".
//
// Shape: one event thread owns every socket (epoll; accepting, TLS, reading requests, writing
// responses) and hands only complete requests, head and body, to the worker threads. A slow or
// silent client therefore holds a socket and a bounded buffer, never a worker; /health and
// /metrics run on a lane of their own, so they answer while every worker is busy.
//
// Limits (every one an option below; docs/notes/net.md has the table and what each protects):
//   - framing is strict (http_wire.h): one reading of the bytes only, so no request can be
//     smuggled past a proxy or into the next request: a GET or HEAD with a body, Transfer-Encoding
//     (411 on a POST), two lengths, a bare LF, obsolete folding are refused and the connection
//     closed after the refusal is written; a POST needs one Content-Length;
//   - the request head is bounded in bytes and fields (431) and must arrive within head_timeout
//     of the request's first byte (408), the whole request within request_timeout, with no
//     silence longer than read_timeout;
//   - a body over max_body_bytes gets 413 before it is read (with Expect: 100-continue, before it
//     is sent); the rest of it is read and dropped up to a bound, else the connection closes;
//     bodies being received hold at most max_buffered_body_bytes in all (a quarter of it, or
//     max_body_bytes if larger, for one client address): past that, 503 and the connection closes;
//   - at most max_connections connections (the longest idle keep-alive connection makes room
//     for a new one), at most max_connections_per_client from one client address (IPv4 address,
//     or IPv6 /64: ClientAddressKey); a connection over a limit gets 503 (plain HTTP) and is
//     closed;
//   - a response that stalls for write_timeout, or is not out within request_timeout, is cut.
//
// Listening: host is 127.0.0.1 unless the caller asks otherwise; nothing is refused (binding to
// 0.0.0.0 exposes the server to the network, which is the operator's choice). Port 0 asks the
// kernel for a free port; port() then reports it. SO_REUSEPORT is not set, so two processes
// cannot share a port by accident.
//
// Stop: closes the listening socket (new connections are refused from then on) and refuses every
// request not yet handed to a worker with 503; waits for requests already being served to finish
// and their responses to be written, then closes every connection; after `grace` it cuts every
// remaining connection. A handler that never returns still blocks Stop (its worker is joined):
// handlers must be bounded.
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
  std::size_t max_head_bytes = 16 * 1024;  // request line and header fields
  std::size_t max_header_fields = 64;
  std::size_t max_buffered_body_bytes = 64 << 20;  // bodies being received, all connections
  std::size_t max_connections = 1024;
  std::size_t max_connections_per_client = 64;         // per ClientAddressKey
  std::chrono::milliseconds head_timeout{10000};       // a request's first byte to its full head
  std::chrono::milliseconds request_timeout{60000};    // first byte to full body; a response's life
  std::chrono::milliseconds read_timeout{5000};        // longest silence while a request arrives
  std::chrono::milliseconds write_timeout{5000};       // longest stall while a response leaves
  std::chrono::milliseconds keep_alive_timeout{5000};  // idle time between requests
  std::size_t keep_alive_max_requests = 1000;          // then the server closes the connection
  std::optional<TlsCredentials> tls;                   // set: HTTPS only
};

// The key under which a client is counted (connections here; request budgets in the daemons), from
// a peer address as HttpRequest::remote_addr gives it: an IPv4 address (also when written
// IPv4-mapped, ::ffff:a.b.c.d) is itself; an IPv6 address is cut to its first ipv6_prefix_bits
// bits (0..128), written "2001:db8:1:2::/64", because one end site is assigned at least a /64 and
// picks addresses inside it freely; a zone ("%eth0") is ignored. Anything that does not parse is
// its own key: "?" and at most 64 bytes of it.
std::string ClientAddressKey(std::string_view ip, int ipv6_prefix_bits = 64);

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
  // and handlers as a real connection (at most 16 requests), and returns the bytes the server
  // would send back. For fuzzing and tests; works without Start (the server is then never
  // listening).
  std::string ServeRawForTesting(std::string_view raw);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::shared_ptr<MetricsRegistry> metrics_;
};

}  // namespace veil::net
