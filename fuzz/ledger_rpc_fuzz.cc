// The veil-ledger node's JSON-RPC surface: arbitrary bytes as an HTTP body into the node's
// dispatcher (every arkiv_* method) over an in-memory SQLite ledger. Checks: no crash or
// sanitizer report, the reply is JSON (or empty for notifications), and a body none of whose
// requests succeeded leaves the chain head unchanged.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include "node.h"
#include "veil/base/status.h"

namespace {

struct Fixture {
  std::shared_ptr<veil::ledger::Ledger> ledger;
  std::unique_ptr<veil::net::JsonRpcDispatcher> dispatcher;
  Fixture() {
    auto store = veil::ledger_node::OpenStore("sqlite::memory:");
    VEIL_CHECK(store.ok());
    auto l = veil::ledger::Ledger::Open(std::move(*store), veil::ledger::LedgerOptions{});
    VEIL_CHECK(l.ok());
    ledger = std::move(*l);
    dispatcher = std::make_unique<veil::net::JsonRpcDispatcher>();
    auto api = std::make_shared<veil::ledger::LocalLedger>(ledger);
    VEIL_CHECK(veil::ledger_node::RegisterLedgerMethods(*dispatcher, api).ok());
  }
};

bool AnySuccess(const nlohmann::json& reply) {
  if (reply.is_array()) {
    for (const auto& r : reply) {
      if (AnySuccess(r)) return true;
    }
    return false;
  }
  return reply.is_object() && reply.contains("result");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Fixture f;
  const auto before = f.ledger->Head();
  const std::string out =
      f.dispatcher->Handle(std::string_view(reinterpret_cast<const char*>(data), size));
  if (out.empty()) return 0;  // notifications only: their outcome is not visible
  const auto reply = nlohmann::json::parse(out, nullptr, false);
  VEIL_CHECK_MSG(!reply.is_discarded(), "the reply is not JSON");
  if (!AnySuccess(reply))
    VEIL_CHECK_MSG(f.ledger->Head() == before, "a failed request changed the head");
  return 0;
}
