// Fuzzes the JSON-RPC 2.0 envelope decoder (a pure function) and the dispatcher behind it: no
// crash, every item is a well-formed request or an error with a spec code, a valid request
// survives re-encoding, and every response body is JSON.
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "veil/net/error_map.h"
#include "veil/net/json_rpc.h"

namespace {

constexpr std::size_t kMaxBatch = 8;

const veil::net::JsonRpcDispatcher& Dispatcher() {
  static const veil::net::JsonRpcDispatcher* d = [] {
    auto* disp = new veil::net::JsonRpcDispatcher({.max_batch = kMaxBatch});
    (void)disp->Register("echo",
                         [](const nlohmann::json& p) -> veil::Result<nlohmann::json> { return p; });
    (void)disp->Register("fail", [](const nlohmann::json&) -> veil::Result<nlohmann::json> {
      return veil::NotFound("nothing here");
    });
    (void)disp->Register("field", [](const nlohmann::json& p) -> veil::Result<nlohmann::json> {
      return nlohmann::json(p.at("x").get<std::string>());  // wrong shape: throws, -32602
    });
    return disp;
  }();
  return *d;
}

bool SpecCode(int code) {
  return code == veil::net::kJsonRpcParseError || code == veil::net::kJsonRpcInvalidRequest;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  veil::net::JsonRpcEnvelope env = veil::net::DecodeJsonRpc(body, kMaxBatch);
  if (env.items.empty() || env.items.size() > kMaxBatch) std::abort();
  if (!env.batch && env.items.size() != 1) std::abort();
  for (const auto& item : env.items) {
    if (const auto* e = std::get_if<veil::net::JsonRpcError>(&item)) {
      if (!SpecCode(e->code) || e->message.empty()) std::abort();
      continue;
    }
    const auto& r = std::get<veil::net::JsonRpcRequest>(item);
    if (r.method.empty()) std::abort();
    if (!r.params.is_null() && !r.params.is_object() && !r.params.is_array()) std::abort();
    // Re-encode and decode again: the same request comes back.
    nlohmann::json again = {{"jsonrpc", "2.0"}, {"method", r.method}};
    if (!r.params.is_null()) again["params"] = r.params;
    if (r.id) again["id"] = *r.id;
    auto env2 = veil::net::DecodeJsonRpc(veil::net::DumpJson(again), kMaxBatch);
    const auto* r2 = std::get_if<veil::net::JsonRpcRequest>(&env2.items.at(0));
    if (r2 == nullptr || r2->method != r.method || r2->params != r.params || r2->id != r.id) {
      std::abort();
    }
  }
  std::string response = Dispatcher().Handle(body);
  if (!response.empty() && !nlohmann::json::accept(response)) std::abort();
  return 0;
}
