// JSON-RPC 2.0 (https://www.jsonrpc.org/specification) on nlohmann::json: a strict envelope decoder
// and a method dispatcher mounted on an HttpServer.
//
// DecodeJsonRpc is a pure function from the bytes of an HTTP body to the requests it holds, or to
// the error responses the spec asks for; it touches no socket and no global state, so it is fuzzed
// directly (fuzz/json_rpc_decode_fuzz.cc). It is strict:
//   - malformed JSON (or invalid UTF-8, duplicate object keys, nesting deeper than kMaxJsonDepth)
//     is -32700 with the byte offset of the fault and never echoes the input;
//   - a request must be an object with exactly the members "jsonrpc" (the string "2.0"), "method"
//     (a string), optionally "params" (an object or an array) and optionally "id" (a string, an
//     integer or null); anything else is -32600 naming the member at fault;
//   - an object without "id" is a notification: it runs, but nothing is returned for it;
//   - a batch is a non-empty array of at most max_batch requests; an empty or oversized batch is
//     one -32600 error; an invalid element gets its own error inside the batch response.
//
// JsonRpcDispatcher maps method names to handlers. A handler's error Status becomes a JSON-RPC
// error through error_map.h (kInvalidArgument -> -32602 and so on) carrying the Status message,
// which is the only text of a handler that reaches the caller: handlers must never put a secret
// in it. An exception escaping a handler becomes -32602 (a nlohmann::json type or key error, i.e.
// params of the wrong shape) or -32603 "internal error" (anything else, its text not sent).
// Handlers receive the "params" value, or null when the request had none; a context handler also
// receives the call's JsonRpcCallContext (who is calling), so that it can count work against
// the caller (every call of a batch carries the same context).
//
// Thread safety: DecodeJsonRpc is pure. Register every method before the server starts; after
// that Handle may run concurrently from any number of threads (handlers must be thread-safe).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "veil/base/result.h"

namespace veil::net {

class HttpServer;
class MetricsRegistry;

inline constexpr std::size_t kMaxJsonDepth = 64;
inline constexpr std::size_t kDefaultMaxBatch = 100;

struct JsonRpcRequest {
  std::string method;
  nlohmann::json params;             // null when absent, else an object or array
  std::optional<nlohmann::json> id;  // absent: a notification; else a string, integer or null
};

struct JsonRpcError {
  int code = 0;
  std::string message;
  nlohmann::json id;  // the request's id when it could be read, else null
};

// One element of the body: a request to run or an error to return as it is.
using JsonRpcItem = std::variant<JsonRpcRequest, JsonRpcError>;

struct JsonRpcEnvelope {
  bool batch = false;  // the body was an array: the response is an array too
  std::vector<JsonRpcItem> items;
};

// Never fails: a body that is not even a request yields one JsonRpcError item (batch == false).
JsonRpcEnvelope DecodeJsonRpc(std::string_view body, std::size_t max_batch = kDefaultMaxBatch);

// The response object for an error, or for a result.
nlohmann::json JsonRpcErrorResponse(const JsonRpcError& error);
nlohmann::json JsonRpcResultResponse(nlohmann::json result, nlohmann::json id);

// Serialises a response; strings that are not valid UTF-8 are replaced rather than thrown on.
std::string DumpJson(const nlohmann::json& value);

// Who made a call: the HTTP peer's address when the dispatcher is mounted on a server, empty
// for in-process calls.
struct JsonRpcCallContext {
  std::string peer;  // the client's IP address, as HttpRequest::remote_addr gives it
};

struct JsonRpcDispatcherOptions {
  std::size_t max_batch = kDefaultMaxBatch;
};

class JsonRpcDispatcher {
 public:
  using Handler = std::function<Result<nlohmann::json>(const nlohmann::json& params)>;
  // A handler that writes its result as JSON text: it appends exactly one complete JSON value
  // to *out (which already holds the response's head), and vouches for it. For results whose
  // DOM would cost more than the work behind them (a ledger page of 200 entities); the text is
  // not copied again on its way to the socket. On an error status *out is discarded.
  using RawHandler = std::function<Status(const nlohmann::json& params, std::string* out)>;
  // The same two forms with the call's context (who is calling).
  using ContextHandler = std::function<Result<nlohmann::json>(const JsonRpcCallContext& context,
                                                              const nlohmann::json& params)>;
  using RawContextHandler = std::function<Status(const JsonRpcCallContext& context,
                                                 const nlohmann::json& params, std::string* out)>;

  // metrics may be null; when set, per-method counts, errors and latency are recorded there.
  explicit JsonRpcDispatcher(JsonRpcDispatcherOptions options = {},
                             std::shared_ptr<MetricsRegistry> metrics = nullptr);

  // kFailedPrecondition when the name is taken, kInvalidArgument when it is empty or starts
  // with "rpc." (reserved by the spec).
  Status Register(std::string method, Handler handler);
  Status RegisterRaw(std::string method, RawHandler handler);
  Status RegisterWithContext(std::string method, ContextHandler handler);
  Status RegisterRawWithContext(std::string method, RawContextHandler handler);

  // Runs one HTTP body and returns the response body; empty when the body held only
  // notifications (the HTTP layer then answers 204 No Content).
  std::string Handle(std::string_view body, const JsonRpcCallContext& context = {}) const;

  // Serves Handle at `path` (POST only) on the server, with the peer's address as the context.
  void Mount(HttpServer& server, std::string path = "/rpc") const;

 private:
  // The response's JSON text.
  std::string Run(const JsonRpcRequest& request, const JsonRpcCallContext& context) const;

  JsonRpcDispatcherOptions options_;
  std::shared_ptr<MetricsRegistry> metrics_;
  std::map<std::string, RawContextHandler, std::less<>> handlers_;
};

}  // namespace veil::net
