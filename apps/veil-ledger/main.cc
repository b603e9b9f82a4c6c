// veil-ledger: the ledger node and its inspection verbs (docs/notes/veil-ledger.md).
//
//   veil-ledger serve --store sqlite:PATH|postgres://... --listen 127.0.0.1:PORT
//                     [--block-time instant|2s] [--chain-id N] [--port-file FILE]
//                     [--read-connections N] [--operator-rpc] [--client-read-ms N]
//                     [--client-queue-bytes N]
//   veil-ledger query TEXT | count TEXT | entity KEY | block N | receipt HASH | verify-chain
//               (--store SPEC | --rpc http://127.0.0.1:PORT)
//
// Every inspection verb prints JSON on stdout; errors go to stderr as JSON and exit 1 (2 for a
// usage error). serve logs JSON lines on stderr and exits 0 after a graceful stop (SIGINT or
// SIGTERM).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "node.h"
#include "veil/ledger/json.h"
#include "veil/net/daemon.h"
#include "veil/net/log.h"
#include "veil/net/signals.h"

namespace {

using veil::Result;
using veil::Status;
using Json = nlohmann::json;
namespace lj = veil::ledger::json;
namespace node = veil::ledger_node;
namespace vlog = veil::net::log;

int Fail(const Status& s) { return veil::net::PrintError(s); }

int Print(const Json& j) {
  std::cout << j.dump(2) << "\n";
  return 0;
}

// An explain's text as it is (the SQL, its parameters and the plan, one per line).
int PrintText(const veil::Result<std::string>& text) {
  if (!text.ok()) return Fail(text.status());
  std::cout << *text;
  return 0;
}

struct Target {
  std::string store;
  std::string rpc;
  std::uint64_t chain_id = 1;
};

// The api of an inspection verb: a ledger opened on the store, or a node over JSON-RPC.
Result<std::shared_ptr<veil::ledger::LedgerApi>> Open(const Target& t) {
  if (t.store.empty() == t.rpc.empty()) {
    return veil::InvalidArgument("give exactly one of --store and --rpc");
  }
  if (!t.rpc.empty()) {
    VEIL_ASSIGN_OR_RETURN(auto remote, node::ConnectRemote(t.rpc));
    return std::shared_ptr<veil::ledger::LedgerApi>(std::move(remote));
  }
  VEIL_ASSIGN_OR_RETURN(auto store, node::OpenStore(t.store));
  veil::ledger::LedgerOptions o;
  o.chain_id = t.chain_id;
  VEIL_ASSIGN_OR_RETURN(auto ledger, veil::ledger::Ledger::Open(std::move(store), o));
  return std::shared_ptr<veil::ledger::LedgerApi>(
      std::make_shared<veil::ledger::LocalLedger>(std::move(ledger)));
}

void AddTarget(CLI::App* cmd, Target* t) {
  cmd->add_option("--store", t->store, "sqlite:PATH, postgres://... or postgresql://...");
  cmd->add_option("--rpc", t->rpc, "a node's URL, http://127.0.0.1:PORT");
  cmd->add_option("--chain-id", t->chain_id, "chain id (with --store)");
}

struct ServeArgs {
  std::string store;
  std::string listen = "127.0.0.1:8545";
  std::string block_time = "instant";
  std::string sweep_interval = "10s";
  std::uint64_t chain_id = 1;
  std::string port_file;
  std::size_t max_body = 9u << 20;
  std::size_t read_connections = 4;
  bool operator_rpc = false;
  std::uint64_t client_read_ms = 1000;
  std::uint64_t client_read_burst_ms = 5000;
  std::size_t max_connections = 1024;
  std::size_t max_connections_per_client = 64;
  std::size_t client_queue_bytes = std::size_t{64} << 20;
};

int Serve(const ServeArgs& a) {
  // First, before any thread: every later thread inherits the blocked signals.
  if (Status s = veil::net::BlockShutdownSignals(); !s.ok()) return Fail(s);
  node::NodeOptions o;
  o.store = a.store;
  o.chain_id = a.chain_id;
  o.max_body_bytes = a.max_body;
  o.read_connections = a.read_connections;
  o.operator_rpc = a.operator_rpc;
  o.clients.read_ms_per_second = std::chrono::milliseconds(a.client_read_ms);
  o.clients.read_burst = std::chrono::milliseconds(a.client_read_burst_ms);
  o.max_connections = a.max_connections;
  o.max_connections_per_client = a.max_connections_per_client;
  o.clients.max_queued_bytes = a.client_queue_bytes;
  auto listen = veil::net::ParseListenAddress(a.listen);
  if (!listen.ok()) return Fail(listen.status());
  o.host = listen->host;
  o.port = listen->port;
  auto bt = node::ParseDuration(a.block_time, true);
  if (!bt.ok()) return Fail(bt.status());
  o.block_time = *bt;
  auto sweep = node::ParseDuration(a.sweep_interval, false);
  if (!sweep.ok()) return Fail(sweep.status());
  o.sweep_interval = *sweep;

  auto n = node::Node::Start(o);
  if (!n.ok()) return Fail(n.status());
  const std::uint16_t port = (*n)->port();
  if (Status s = veil::net::WritePortFile(a.port_file, port); !s.ok()) return Fail(s);
  vlog::Info("listening", {{"host", o.host},
                           {"port", port},
                           {"chain_id", o.chain_id},
                           {"block_time_ms", static_cast<std::int64_t>(o.block_time.count())},
                           {"head", (*n)->ledger().Head().number}});
  return veil::net::WaitForShutdownAndStop([&] { return (*n)->Stop(); });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"veil-ledger: the Arkiv-model ledger node and its inspection tools"};
  app.require_subcommand(1);

  ServeArgs serve;
  auto* serve_cmd = app.add_subcommand("serve", "run a node (HTTP/JSON-RPC at /rpc)");
  serve_cmd->add_option("--store", serve.store, "sqlite:PATH, postgres://... or postgresql://...")
      ->required();
  serve_cmd->add_option("--listen", serve.listen, "HOST:PORT (port 0: any free port)");
  serve_cmd->add_option("--block-time", serve.block_time, "instant, or a duration: 2s, 500ms");
  serve_cmd->add_option("--sweep-interval", serve.sweep_interval, "sweeper period: 10s, 1m");
  serve_cmd->add_option("--chain-id", serve.chain_id, "chain id");
  serve_cmd->add_option("--port-file", serve.port_file, "write the bound port to FILE");
  serve_cmd->add_option("--max-body", serve.max_body, "largest request body in bytes");
  serve_cmd->add_option("--read-connections", serve.read_connections,
                        "database connections for reads beside the writer's (0: reads share it)");
  serve_cmd->add_flag("--operator-rpc", serve.operator_rpc,
                      "serve arkiv_verifyChain (a scan of the whole chain) to RPC clients");
  serve_cmd->add_option("--client-read-ms", serve.client_read_ms,
                        "read time each client address may use per second (0: unbounded)");
  serve_cmd->add_option("--client-read-burst-ms", serve.client_read_burst_ms,
                        "read time a client address may bank for a burst");
  serve_cmd->add_option("--max-connections", serve.max_connections,
                        "HTTP connections in all (the longest idle one makes room)");
  serve_cmd->add_option("--max-connections-per-client", serve.max_connections_per_client,
                        "HTTP connections from one client address (IPv6: one /64)");
  serve_cmd->add_option("--client-queue-bytes", serve.client_queue_bytes,
                        "timed mode: bytes of each client address's queued transactions (0: "
                        "unbounded)");

  Target target;
  std::string text, key, hash, cursor, select;
  std::uint64_t number = 0;
  std::size_t limit = 200;
  bool explain = false;
  auto* query_cmd = app.add_subcommand("query", "one page of a query");
  query_cmd->add_option("query", text, "query text, e.g. 'kind = \"doc\"'")->required();
  query_cmd->add_option("--limit", limit, "page size (1..200)");
  query_cmd->add_option("--cursor", cursor, "cursor from the previous page");
  query_cmd->add_option("--select", select, "comma-separated columns");
  auto* count_cmd = app.add_subcommand("count", "count entities matching a query");
  count_cmd->add_option("query", text, "query text")->required();
  for (auto* c : {query_cmd, count_cmd}) {
    c->add_flag("--explain", explain, "print the compiled query, its SQL and the database's plan");
  }
  auto* entity_cmd = app.add_subcommand("entity", "one entity by key");
  entity_cmd->add_option("key", key, "0x + 64 hex digits")->required();
  auto* block_cmd = app.add_subcommand("block", "a block header and its transactions");
  block_cmd->add_option("number", number, "block number")->required();
  auto* receipt_cmd = app.add_subcommand("receipt", "the receipt of a landed transaction");
  receipt_cmd->add_option("hash", hash, "0x + 64 hex digits")->required();
  auto* verify_cmd = app.add_subcommand(
      "verify-chain",
      "recompute every hash of the chain (--rpc: only a node started with --operator-rpc)");
  for (auto* c : {query_cmd, count_cmd, entity_cmd, block_cmd, receipt_cmd, verify_cmd}) {
    AddTarget(c, &target);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (serve_cmd->parsed()) return Serve(serve);

  auto api_or = Open(target);
  if (!api_or.ok()) return Fail(api_or.status());
  auto& api = **api_or;
  if (query_cmd->parsed()) {
    veil::ledger::QueryOptions o;
    o.limit = limit;
    o.cursor = cursor;
    if (!select.empty()) {
      Json cols = Json::array();
      std::size_t start = 0;
      while (start <= select.size()) {
        const auto comma = select.find(',', start);
        cols.push_back(
            select.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      auto p = lj::ProjectionFromJson(cols);
      if (!p.ok()) return Fail(p.status());
      o.projection = *p;
    }
    if (explain) return PrintText(api.Explain(text, o));
    auto page = api.Query(text, o);
    if (!page.ok()) return Fail(page.status());
    return Print(lj::ToJson(*page, o.projection));
  }
  if (count_cmd->parsed()) {
    if (explain) return PrintText(api.ExplainCount(text));
    auto c = api.Count(text);
    if (!c.ok()) return Fail(c.status());
    return Print(lj::ToJson(*c));
  }
  if (entity_cmd->parsed()) {
    auto k = lj::KeyFromJson(Json(key), "key");
    if (!k.ok()) return Fail(k.status());
    auto e = api.Get(*k);
    if (!e.ok()) return Fail(e.status());
    if (!*e) return Fail(veil::NotFound("no live entity with this key"));
    return Print(lj::ToJson(**e));
  }
  if (block_cmd->parsed()) {
    auto b = api.GetBlock(number);
    if (!b.ok()) return Fail(b.status());
    if (!*b) return Fail(veil::NotFound("block " + std::to_string(number) + " is past the head"));
    return Print(lj::ToJson(**b));
  }
  if (receipt_cmd->parsed()) {
    auto h = lj::HashFromJson(Json(hash), "hash");
    if (!h.ok()) return Fail(h.status());
    auto r = api.GetReceipt(*h);
    if (!r.ok()) return Fail(r.status());
    if (!*r) return Fail(veil::NotFound("no landed transaction with this hash"));
    return Print(lj::ToJson(**r));
  }
  // verify-chain
  Status s = api.VerifyChain();
  if (!s.ok()) return Fail(s);
  auto head = api.Head();
  if (!head.ok()) return Fail(head.status());
  return Print(Json{{"ok", true}, {"head", head->number}, {"hash", lj::HexOf(head->hash)}});
}
