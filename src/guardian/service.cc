// The guardian's HTTP surface (service.h).
#include "veil/guardian/service.h"

#include <utility>

#include "veil/net/error_map.h"
#include "veil/net/log.h"

namespace veil::guardian {
namespace {

net::HttpResponse ErrorResponse(const Status& s) {
  net::HttpResponse r;
  r.status = net::HttpStatusForCode(s.code());
  r.body = EncodeErrorBody(s);
  return r;
}

// HttpServer only routes registered (method, path) pairs; this is for direct callers of Handle.
net::HttpResponse MethodNotAllowed(const char* allowed) {
  net::HttpResponse r =
      ErrorResponse(InvalidArgument(std::string("method not allowed; use ") + allowed));
  r.status = 405;
  r.headers.emplace_back("Allow", allowed);
  return r;
}

// The signature from the Veil-Signature header or the veil-signature query parameter (one).
Result<Bytes> RequestSignature(const net::HttpRequest& request) {
  const std::string header = request.Header(kSignatureHeader);
  VEIL_ASSIGN_OR_RETURN(Bytes from_query, DecodeSignatureQuery(request.target));
  if (!header.empty() && !from_query.empty()) {
    return InvalidArgument("signature given both as a header and in the query");
  }
  if (!from_query.empty()) return from_query;
  if (header.empty()) return Unauthenticated("missing Veil-Signature header");
  return DecodeSignatureHeader(header);
}

}  // namespace

GuardianService::GuardianService(std::shared_ptr<Guardian> guardian,
                                 std::shared_ptr<net::MetricsRegistry> metrics)
    : guardian_(std::move(guardian)),
      metrics_(metrics ? std::move(metrics) : std::make_shared<net::MetricsRegistry>()) {}

net::HttpResponse GuardianService::Handle(const net::HttpRequest& request) {
  if (request.path == kIdentityPath) {
    if (request.method != "GET" && request.method != "HEAD") return MethodNotAllowed("GET");
    net::HttpResponse r;
    r.body = EncodeIdentityBody(guardian_->public_identity());
    return r;
  }
  const auto route = RouteFromPath(request.path);
  if (!route) return ErrorResponse(NotFound("no such route"));
  const std::string route_name(RouteName(*route));
  if (request.method != "POST") return MethodNotAllowed("POST");

  auto signature = RequestSignature(request);
  if (!signature.ok()) {
    metrics_
        ->GetCounter(
            "veil_guardian_requests_total", "Guardian requests by route and outcome.",
            {{"outcome", std::string(CodeName(signature.status().code()))}, {"route", route_name}})
        .Inc();
    return ErrorResponse(signature.status());
  }
  auto result = guardian_->HandleRequest(*route, request.body, *signature, request.remote_addr);
  if (!result.ok()) {
    const Status& s = result.status();
    metrics_
        ->GetCounter("veil_guardian_requests_total", "Guardian requests by route and outcome.",
                     {{"outcome", std::string(CodeName(s.code()))}, {"route", route_name}})
        .Inc();
    net::log::Info("guardian request refused", {{"route", route_name},
                                                {"code", CodeName(s.code())},
                                                {"message", s.message()},
                                                {"remote", request.remote_addr}});
    return ErrorResponse(s);
  }
  metrics_
      ->GetCounter("veil_guardian_requests_total", "Guardian requests by route and outcome.",
                   {{"outcome", "ok"}, {"route", route_name}})
      .Inc();
  std::size_t ok_items = 0;
  for (const auto& it : result->items) {
    if (it.status.ok()) ++ok_items;
  }
  const std::size_t failed_items = result->items.size() - ok_items;
  auto& items_ok = metrics_->GetCounter("veil_guardian_items_total",
                                        "Guardian request items by route and outcome.",
                                        {{"outcome", "ok"}, {"route", route_name}});
  auto& items_err = metrics_->GetCounter("veil_guardian_items_total",
                                         "Guardian request items by route and outcome.",
                                         {{"outcome", "error"}, {"route", route_name}});
  items_ok.Inc(static_cast<double>(ok_items));
  items_err.Inc(static_cast<double>(failed_items));
  if (*route == Route::kDestroy && ok_items > 0) {
    net::log::Info("guardian destroyed shares", {{"count", ok_items}});
  }
  net::HttpResponse r;
  r.body = EncodeResponse(*route, *result);
  return r;
}

void GuardianService::Register(net::HttpServer& server) {
  auto handler = [this](const net::HttpRequest& req, net::HttpResponse& resp) {
    resp = Handle(req);
  };
  for (Route r : kAllRoutes) server.Handle("POST", std::string(RoutePath(r)), handler);
  server.Handle("GET", kIdentityPath, handler);
  server.SetHealthCheck([g = guardian_]() -> Status { return g->Check(); });
}

}  // namespace veil::guardian
