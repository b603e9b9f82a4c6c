// GuardianService: the guardian's HTTP surface on net::HttpServer.
//
// Handle maps one HTTP request to one response without any socket, so tests and fuzzers call it
// directly; Register installs the same handler on an HttpServer for POST /v1/put, /v1/get,
// /v1/extend, /v1/destroy and GET /v1/identity, and a /health check that runs a read against the
// store. The binary (apps/kalypso-guardian) only builds an HttpServer (TLS, listen address,
// HttpServerOptions::max_body_bytes = limits.max_body_bytes), a Guardian, a Sweeper, and calls
// Register.
//
// Responses: 200 with the protocol.h response body when the request was accepted (per-item
// errors travel inside it), else the HTTP status of net/error_map.h for the request-level Status
// (400, 401, 404, 405, 413 for a body over the limit, 429, 500) with protocol.h's error body.
//
// Metrics (in the server's registry): veil_guardian_requests_total{route,outcome} and
// veil_guardian_items_total{route,outcome} are counted here (the Sweeper counts its own); the
// HTTP server counts statuses and latencies itself. Logs: one line per refused request
// with the route, status code and message, and one per destroy with the item count; never a
// share, key, signature, nonce or body.
//
// Thread safety: Handle may run concurrently from any number of threads.
#pragma once

#include <memory>

#include "veil/guardian/guardian.h"
#include "veil/net/http_server.h"
#include "veil/net/metrics.h"

namespace veil::guardian {

class GuardianService {
 public:
  // metrics: the registry to count in (typically the HttpServer's); a fresh one when null.
  explicit GuardianService(std::shared_ptr<Guardian> guardian,
                           std::shared_ptr<net::MetricsRegistry> metrics = nullptr);

  net::HttpResponse Handle(const net::HttpRequest& request);

  // Routes and the health check; call before server.Start().
  void Register(net::HttpServer& server);

  Guardian& guardian() { return *guardian_; }

 private:
  std::shared_ptr<Guardian> guardian_;
  std::shared_ptr<net::MetricsRegistry> metrics_;
};

}  // namespace veil::guardian
