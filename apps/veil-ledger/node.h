// The `veil-ledger` node as a library: store specs, the arkiv_* JSON-RPC methods over a LedgerApi,
// the block timer and sweeper, and a Node that runs all of it behind an HttpServer
// (docs/notes/veil-ledger.md). main.cc is a thin CLI over it; tests and the fuzz target start
// Nodes or dispatchers in-process.
//
// Thread safety: RegisterLedgerMethods before the server starts; the handlers are as thread-safe
// as the LedgerApi (LocalLedger: fully). Node's Start/Stop from one thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "veil/base/result.h"
#include "veil/ledger/api.h"
#include "veil/ledger/ledger.h"
#include "veil/ledger/remote.h"
#include "veil/net/http_client.h"
#include "veil/net/http_server.h"
#include "veil/net/json_rpc.h"

namespace veil::ledger_node {

// "sqlite:PATH" (":memory:" allowed), "postgres://..." or "postgresql://...".
Result<std::unique_ptr<ledger::Store>> OpenStore(std::string_view spec);

// "instant" -> 0; "2s", "500ms", "1m" -> that duration (positive).
Result<std::chrono::milliseconds> ParseDuration(std::string_view text, bool allow_instant);

// The largest hex-encoded transaction arkiv_sendTransaction accepts (bytes of the decoded tx).
inline constexpr std::size_t kMaxTxBytes = 4u << 20;

// Receipts of transactions that failed when a timed node sealed them. Failed transactions are
// not stored, so without this a client polling arkiv_getReceipt would wait forever; the node keeps
// the most recent `capacity` in memory (lost on restart) and arkiv_getReceipt returns them.
class FailedReceiptLog {
 public:
  explicit FailedReceiptLog(std::size_t capacity) : capacity_(capacity) {}
  void Add(const ledger::TxReceipt& r);
  std::optional<ledger::TxReceipt> Find(const ledger::Hash32& tx_hash) const;

 private:
  mutable std::mutex mu_;
  std::size_t capacity_;
  std::deque<ledger::Hash32> order_;
  std::map<ledger::Hash32, ledger::TxReceipt> by_hash_;
};

// Registers arkiv_sendTransaction, arkiv_getEntity, arkiv_query, arkiv_getEntityCount,
// arkiv_explain, arkiv_explainCount, arkiv_getHead, arkiv_blockNumber, arkiv_chainId,
// arkiv_getBlock, arkiv_getReceipt, arkiv_getAccount and arkiv_verifyChain. `metrics` may be null.
// With `local` (the ledger behind `api`, in this process) the metrics also count its block writes
// (veil_ledger_block_writes_total: in instant mode, landed transactions over block writes is
// the mean group-commit size).
Status RegisterLedgerMethods(net::JsonRpcDispatcher& dispatcher,
                             std::shared_ptr<ledger::LedgerApi> api,
                             std::shared_ptr<net::MetricsRegistry> metrics = nullptr,
                             std::shared_ptr<const FailedReceiptLog> failures = nullptr,
                             std::shared_ptr<const ledger::Ledger> local = nullptr);

// A RemoteLedger transport over a JsonRpcClient (idempotent calls are retried by the client).
ledger::RpcTransport MakeRpcTransport(std::shared_ptr<net::JsonRpcClient> client);
// Its text form (JsonRpcClient::CallWithReader), which RemoteLedger reads pages through.
ledger::RpcTextTransport MakeRpcTextTransport(std::shared_ptr<net::JsonRpcClient> client);
// A RemoteLedger talking to http://HOST:PORT.
Result<std::unique_ptr<ledger::RemoteLedger>> ConnectRemote(const std::string& base_url);

struct NodeOptions {
  std::string store = "sqlite::memory:";
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  std::uint64_t chain_id = 1;
  std::chrono::milliseconds block_time{0};  // 0: instant (one block per transaction)
  std::chrono::milliseconds sweep_interval{10'000};
  std::size_t sweep_max_rows = 1000;
  std::size_t max_body_bytes = 9u << 20;  // a kMaxTxBytes transaction in hex, and some
  std::size_t worker_threads = 8;
  // Reads on their own database connections, beside the writer's (LedgerOptions; an in-memory
  // SQLite store has none and reads on the writer's).
  std::size_t read_connections = 4;
};

class Node {
 public:
  // Opens the store and the ledger, registers the methods, starts the server and the timers.
  static Result<std::unique_ptr<Node>> Start(NodeOptions options);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  std::uint16_t port() const { return server_->port(); }
  ledger::Ledger& ledger() { return *ledger_; }
  std::shared_ptr<ledger::LedgerApi> api() { return api_; }

  // Graceful: stop accepting, finish in-flight requests, stop the timers, seal what is queued
  // (timed mode), close the store. Idempotent.
  Status Stop();

 private:
  Node() = default;
  void TimerLoop();
  void SweepLoop();

  NodeOptions options_;
  std::shared_ptr<ledger::Ledger> ledger_;
  std::shared_ptr<ledger::LedgerApi> api_;
  std::shared_ptr<FailedReceiptLog> failures_ = std::make_shared<FailedReceiptLog>(10'000);
  std::unique_ptr<net::JsonRpcDispatcher> dispatcher_;
  std::unique_ptr<net::HttpServer> server_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool stopped_ = false;
  std::thread timer_;
  std::thread sweeper_;
};

}  // namespace veil::ledger_node
