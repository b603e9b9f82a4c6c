// JSON-RPC 2.0 envelope decoding and dispatch (docs/notes/net.md, "JSON-RPC").
#include "veil/net/json_rpc.h"

#include <chrono>
#include <exception>
#include <set>

#include "veil/net/error_map.h"
#include "veil/net/http_server.h"
#include "veil/net/metrics.h"

namespace veil::net {
namespace {

using nlohmann::json;

struct TooDeep {};
struct DuplicateKey {};

// Tracks nesting depth and the keys of every open object while nlohmann parses.
class StrictParseState {
 public:
  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (open_.size() >= kMaxJsonDepth) throw TooDeep{};
        open_.emplace_back();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!open_.empty()) open_.pop_back();
        break;
      case json::parse_event_t::key:
        if (!open_.empty() && !open_.back().insert(parsed.get<std::string>()).second) {
          throw DuplicateKey{};
        }
        break;
      case json::parse_event_t::value:
        break;
    }
    return true;
  }

 private:
  std::vector<std::set<std::string>> open_;
};

// nlohmann's message without the "last read: '...'" part, which would echo the input.
std::string ParseErrorReason(const json::parse_error& e) {
  std::string what = e.what();
  auto colon = what.find(": ", what.find("parse error"));
  std::string reason = colon == std::string::npos ? "invalid JSON" : what.substr(colon + 2);
  auto last_read = reason.find("; last read");
  if (last_read != std::string::npos) {
    auto expected = reason.find("; expected", last_read);
    std::string tail = expected == std::string::npos ? "" : reason.substr(expected);
    reason = reason.substr(0, last_read) + tail;
  }
  return reason;
}

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
  json doc;
  try {
    StrictParseState state;
    doc = json::parse(body.begin(), body.end(), std::ref(state));
  } catch (const json::parse_error& e) {
    env.items.emplace_back(JsonRpcError{
        kJsonRpcParseError,
        "parse error at byte " + std::to_string(e.byte) + ": " + ParseErrorReason(e), nullptr});
    return env;
  } catch (const TooDeep&) {
    env.items.emplace_back(JsonRpcError{
        kJsonRpcParseError,
        "parse error: JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels",
        nullptr});
    return env;
  } catch (const DuplicateKey&) {
    env.items.emplace_back(
        JsonRpcError{kJsonRpcParseError, "parse error: duplicate key in a JSON object", nullptr});
    return env;
  } catch (const std::exception&) {
    env.items.emplace_back(JsonRpcError{kJsonRpcParseError, "parse error: invalid JSON", nullptr});
    return env;
  }
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
  if (method.empty()) return InvalidArgument("a JSON-RPC method name must not be empty");
  if (method.rfind("rpc.", 0) == 0) {
    return InvalidArgument("JSON-RPC method names starting with \"rpc.\" are reserved");
  }
  VEIL_CHECK_MSG(handler != nullptr, "JSON-RPC handler must not be empty");
  auto [it, inserted] = handlers_.try_emplace(std::move(method), std::move(handler));
  if (!inserted) return FailedPrecondition("JSON-RPC method already registered: " + it->first);
  return Status::Ok();
}

nlohmann::json JsonRpcDispatcher::Run(const JsonRpcRequest& request) const {
  json id = request.id.value_or(nullptr);
  auto it = handlers_.find(request.method);
  // Unregistered names share one label, so callers cannot grow the registry.
  const std::string label = it != handlers_.end() ? request.method : "unknown";
  auto start = std::chrono::steady_clock::now();
  int error_code = 0;
  json response;
  if (it == handlers_.end()) {
    error_code = kJsonRpcMethodNotFound;
    response = JsonRpcErrorResponse(
        {error_code, "method not found: \"" + Truncated(request.method) + "\"", id});
  } else {
    try {
      Result<json> r = it->second(request.params);
      if (r.ok()) {
        response = JsonRpcResultResponse(std::move(r).value(), id);
      } else {
        error_code = JsonRpcCodeForStatus(r.status().code());
        response = JsonRpcErrorResponse({error_code, r.status().message(), id});
      }
    } catch (const json::exception& e) {
      // nlohmann's type and key errors name types and keys, never values.
      error_code = kJsonRpcInvalidParams;
      std::string what = e.what();
      auto bracket = what.find("] ");
      response = JsonRpcErrorResponse(
          {error_code,
           "invalid params: " + (bracket == std::string::npos ? what : what.substr(bracket + 2)),
           id});
    } catch (...) {
      error_code = kJsonRpcInternalError;
      response = JsonRpcErrorResponse({error_code, "internal error", id});
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

std::string JsonRpcDispatcher::Handle(std::string_view body) const {
  JsonRpcEnvelope env = DecodeJsonRpc(body, options_.max_batch);
  json responses = json::array();
  for (const JsonRpcItem& item : env.items) {
    if (const auto* error = std::get_if<JsonRpcError>(&item)) {
      if (metrics_) {
        metrics_
            ->GetCounter("veil_rpc_errors_total", "JSON-RPC errors by method and code",
                         {{"method", "invalid"}, {"code", std::to_string(error->code)}})
            .Inc();
      }
      responses.push_back(JsonRpcErrorResponse(*error));
      continue;
    }
    const auto& request = std::get<JsonRpcRequest>(item);
    json response = Run(request);
    if (request.id.has_value()) responses.push_back(std::move(response));
  }
  if (responses.empty()) return std::string();
  return DumpJson(env.batch ? responses : responses[0]);
}

void JsonRpcDispatcher::Mount(HttpServer& server, std::string path) const {
  server.Handle("POST", std::move(path), [this](const HttpRequest& req, HttpResponse& res) {
    std::string body = Handle(req.body);
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
