// JSON-RPC 2.0 envelope decoding and dispatch (docs/notes/net.md, "JSON-RPC").
#include "veil/net/json_rpc.h"

#include <chrono>
#include <exception>

#include "veil/net/error_map.h"
#include "veil/net/http_server.h"
#include "veil/net/json_strict.h"
#include "veil/net/metrics.h"

namespace veil::net {
namespace {

using nlohmann::json;

JsonRpcError Invalid(std::string message, json id = nullptr) {
  return JsonRpcError{kJsonRpcInvalidRequest, std::move(message), std::move(id)};
}

std::string Truncated(std::string_view s) {
  constexpr std::size_t kMax = 32;
  return s.size() <= kMax ? std::string(s) : std::string(s.substr(0, kMax)) + "...";
}

JsonRpcItem DecodeOne(const json& v) {
  if (!v.is_object()) return Invalid("a request must be a JSON object");
  json id = nullptr;
  bool has_id = false;
  if (auto it = v.find("id"); it != v.end()) {
    if (!it->is_string() && !it->is_number_integer() && !it->is_null()) {
      return Invalid("\"id\" must be a string, an integer or null");
    }
    id = *it;
    has_id = true;
  }
  for (const auto& [key, value] : v.items()) {
    if (key != "jsonrpc" && key != "method" && key != "params" && key != "id") {
      return Invalid("unexpected member \"" + Truncated(key) +
                         "\" (a request has only jsonrpc, method, params and id)",
                     id);
    }
  }
  auto jsonrpc = v.find("jsonrpc");
  if (jsonrpc == v.end()) return Invalid("missing \"jsonrpc\" (must be \"2.0\")", id);
  if (!jsonrpc->is_string() || jsonrpc->get_ref<const std::string&>() != "2.0") {
    return Invalid("\"jsonrpc\" must be the string \"2.0\"", id);
  }
  auto method = v.find("method");
  if (method == v.end()) return Invalid("missing \"method\"", id);
  if (!method->is_string()) return Invalid("\"method\" must be a string", id);
  if (method->get_ref<const std::string&>().empty()) {
    return Invalid("\"method\" must not be empty", id);
  }
  JsonRpcRequest request;
  request.method = method->get<std::string>();
  if (auto params = v.find("params"); params != v.end()) {
    if (!params->is_object() && !params->is_array()) {
      return Invalid("\"params\" must be an object or an array", id);
    }
    request.params = *params;
  }
  if (has_id) request.id = std::move(id);
  return request;
}

}  // namespace

JsonRpcEnvelope DecodeJsonRpc(std::string_view body, std::size_t max_batch) {
  JsonRpcEnvelope env;
  auto parsed = ParseStrictJson(body, kMaxJsonDepth);
  if (!parsed.ok()) {
    env.items.emplace_back(JsonRpcError{kJsonRpcParseError, parsed.status().message(), nullptr});
    return env;
  }
  json doc = std::move(*parsed);
  if (!doc.is_array()) {
    env.items.push_back(DecodeOne(doc));
    return env;
  }
  if (doc.empty()) {
    env.items.emplace_back(Invalid("empty batch"));
    return env;
  }
  if (doc.size() > max_batch) {
    env.items.emplace_back(Invalid("batch of " + std::to_string(doc.size()) +
                                   " requests exceeds the limit of " + std::to_string(max_batch)));
    return env;
  }
  env.batch = true;
  env.items.reserve(doc.size());
  for (const auto& element : doc) env.items.push_back(DecodeOne(element));
  return env;
}

nlohmann::json JsonRpcErrorResponse(const JsonRpcError& error) {
  return json{{"jsonrpc", "2.0"},
              {"error", {{"code", error.code}, {"message", error.message}}},
              {"id", error.id}};
}

nlohmann::json JsonRpcResultResponse(nlohmann::json result, nlohmann::json id) {
  return json{{"jsonrpc", "2.0"}, {"result", std::move(result)}, {"id", std::move(id)}};
}

std::string DumpJson(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

JsonRpcDispatcher::JsonRpcDispatcher(JsonRpcDispatcherOptions options,
                                     std::shared_ptr<MetricsRegistry> metrics)
    : options_(options), metrics_(std::move(metrics)) {}

Status JsonRpcDispatcher::Register(std::string method, Handler handler) {
  VEIL_CHECK_MSG(handler != nullptr, "JSON-RPC handler must not be empty");
  return RegisterWithContext(
      std::move(method), [h = std::move(handler)](const JsonRpcCallContext&, const json& params) {
        return h(params);
      });
}

Status JsonRpcDispatcher::RegisterWithContext(std::string method, ContextHandler handler) {
  VEIL_CHECK_MSG(handler != nullptr, "JSON-RPC handler must not be empty");
  return RegisterRawWithContext(
      std::move(method),
      [h = std::move(handler)](const JsonRpcCallContext& context, const json& params,
                               std::string* out) -> Status {
        Result<json> r = h(context, params);
        if (!r.ok()) return r.status();
        *out += DumpJson(*r);
        return Status::Ok();
      });
}

Status JsonRpcDispatcher::RegisterRaw(std::string method, RawHandler handler) {
  VEIL_CHECK_MSG(handler != nullptr, "JSON-RPC handler must not be empty");
  return RegisterRawWithContext(
      std::move(method), [h = std::move(handler)](const JsonRpcCallContext&, const json& params,
                                                  std::string* out) { return h(params, out); });
}

Status JsonRpcDispatcher::RegisterRawWithContext(std::string method, RawContextHandler handler) {
  if (method.empty()) return InvalidArgument("a JSON-RPC method name must not be empty");
  if (method.rfind("rpc.", 0) == 0) {
    return InvalidArgument("JSON-RPC method names starting with \"rpc.\" are reserved");
  }
  VEIL_CHECK_MSG(handler != nullptr, "JSON-RPC handler must not be empty");
  auto [it, inserted] = handlers_.try_emplace(std::move(method), std::move(handler));
  if (!inserted) return FailedPrecondition("JSON-RPC method already registered: " + it->first);
  return Status::Ok();
}

std::string JsonRpcDispatcher::Run(const JsonRpcRequest& request,
                                   const JsonRpcCallContext& context) const {
  json id = request.id.value_or(nullptr);
  auto it = handlers_.find(request.method);
  // Unregistered names share one label, so callers cannot grow the registry.
  const std::string label = it != handlers_.end() ? request.method : "unknown";
  auto start = std::chrono::steady_clock::now();
  int error_code = 0;
  std::string response;
  auto error = [&](std::string message) {
    response = DumpJson(JsonRpcErrorResponse({error_code, std::move(message), id}));
  };
  if (it == handlers_.end()) {
    error_code = kJsonRpcMethodNotFound;
    error("method not found: \"" + Truncated(request.method) + "\"");
  } else {
    try {
      // JsonRpcResultResponse's members in the order DumpJson writes them.
      response = "{\"id\":" + DumpJson(id) + ",\"jsonrpc\":\"2.0\",\"result\":";
      const Status st = it->second(context, request.params, &response);
      if (st.ok()) {
        response += '}';
      } else {
        error_code = JsonRpcCodeForStatus(st.code());
        error(st.message());
      }
    } catch (const json::exception& e) {
      // nlohmann's type and key errors name types and keys, never values.
      error_code = kJsonRpcInvalidParams;
      std::string what = e.what();
      auto bracket = what.find("] ");
      error("invalid params: " + (bracket == std::string::npos ? what : what.substr(bracket + 2)));
    } catch (...) {
      error_code = kJsonRpcInternalError;
      error("internal error");
    }
  }
  if (metrics_) {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    metrics_->GetCounter("veil_rpc_requests_total", "JSON-RPC calls by method", {{"method", label}})
        .Inc();
    metrics_
        ->GetHistogram("veil_rpc_duration_seconds", "JSON-RPC handler latency in seconds",
                       {{"method", label}})
        .Observe(seconds);
    if (error_code != 0) {
      metrics_
          ->GetCounter("veil_rpc_errors_total", "JSON-RPC errors by method and code",
                       {{"method", label}, {"code", std::to_string(error_code)}})
          .Inc();
    }
  }
  return response;
}

std::string JsonRpcDispatcher::Handle(std::string_view body,
                                      const JsonRpcCallContext& context) const {
  JsonRpcEnvelope env = DecodeJsonRpc(body, options_.max_batch);
  std::vector<std::string> responses;
  for (const JsonRpcItem& item : env.items) {
    if (const auto* error = std::get_if<JsonRpcError>(&item)) {
      if (metrics_) {
        metrics_
            ->GetCounter("veil_rpc_errors_total", "JSON-RPC errors by method and code",
                         {{"method", "invalid"}, {"code", std::to_string(error->code)}})
            .Inc();
      }
      responses.push_back(DumpJson(JsonRpcErrorResponse(*error)));
      continue;
    }
    const auto& request = std::get<JsonRpcRequest>(item);
    std::string response = Run(request, context);
    if (request.id.has_value()) responses.push_back(std::move(response));
  }
  if (responses.empty()) return std::string();
  if (!env.batch) return std::move(responses[0]);
  std::string out = "[";
  for (std::size_t i = 0; i < responses.size(); ++i) {
    if (i != 0) out += ',';
    out += responses[i];
  }
  out += ']';
  return out;
}

void JsonRpcDispatcher::Mount(HttpServer& server, std::string path) const {
  server.Handle("POST", std::move(path), [this](const HttpRequest& req, HttpResponse& res) {
    std::string body = Handle(req.body, JsonRpcCallContext{req.remote_addr});
    if (body.empty()) {
      res.status = 204;
      res.body.clear();
      return;
    }
    res.status = 200;
    res.content_type = "application/json";
    res.body = std::move(body);
  });
}

}  // namespace veil::net
