// The `veil-ledger` node as a library: store specs, the arkiv_* JSON-RPC methods over a
// LedgerAdmin, the block timer and sweeper, and a Node that runs all of it behind an HttpServer
// (docs/notes/veil-ledger.md). main.cc is a thin CLI over it; tests and the fuzz target start
// Nodes or dispatchers in-process.
//
// Thread safety: RegisterLedgerMethods before the server starts; the handlers are as thread-safe
// as the LedgerAdmin (LocalLedger: fully). Node's Start/Stop from one thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "veil/base/result.h"
#include "veil/ledger/admin.h"
#include "veil/ledger/ledger.h"
#include "veil/ledger/local.h"
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

// What one client (an HTTP peer address) may take of a node: read work in a time window, reads at
// once, and, in timed mode, queued transactions (docs/notes/veil-ledger.md, "Limits per
// client"). Fresh keys cost nothing and a JSON-RPC batch is 100 calls, so neither a signer nor a
// request is the unit; the peer address is.
struct ClientLimitOptions {
  // A token bucket of read time (wall time of the calls, queueing for a database connection
  // included) per client: it fills at read_ms_per_second up to read_burst; a read starts only
  // while the client's bucket is above zero, and its time is taken out when it ends (the bucket
  // may go below zero: the client then waits until it has paid for it). 0: no bucket. Every
  // call but arkiv_sendTransaction and arkiv_verifyChain is a read; the calls of a batch share
  // their client's bucket.
  std::chrono::milliseconds read_ms_per_second{1000};
  std::chrono::milliseconds read_burst{5000};
  // Reads of one client running at once (the HTTP server has 8 workers). 0: unbounded.
  std::size_t max_concurrent_reads = 4;
  // Timed mode: the encoded bytes of one client's transactions waiting in the queue (besides the
  // ledger's per-sender and total bounds, QueueLimits). 0: unbounded.
  std::size_t max_queued_bytes = std::size_t{64} << 20;
  // Clients tracked at once; past it, idle ones are forgotten, and while none is idle the new
  // ones share one entry (an address flood then limits only itself and other newcomers).
  std::size_t max_clients = 10'000;
};

// The per-client accounts of ClientLimitOptions. Refusals are kResourceExhausted with a message
// that says when to retry (a client treats them as "retry later").
//
// Thread safety: every method is safe from any thread.
class ClientLimits {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  explicit ClientLimits(ClientLimitOptions options, Clock clock = nullptr);

  // A read by `client` may start now, or the reason it may not. *account names the account it
  // was counted in (the client's, or the newcomers' shared one), which stays while the read
  // runs; each admitted read must end with EndRead on it.
  Status BeginRead(const std::string& client, std::string* account);
  void EndRead(const std::string& account, std::chrono::microseconds used);
  // Timed mode: room for transaction `tx` of `bytes` from `client` in the queue, reserved before
  // the ledger queues it (so a block sealed at once cannot miss it) and given back by Release:
  // when the ledger did not queue it, or once a block took it (sealed, or failed when sealed).
  Status Reserve(const std::string& client, const ledger::Hash32& tx, std::size_t bytes);
  void Release(const ledger::Hash32& tx);
  std::size_t QueuedBytes(const std::string& client) const;

 private:
  struct Account {
    std::int64_t tokens_us = 0;
    std::chrono::steady_clock::time_point filled{};
    std::size_t reads = 0;
    std::size_t queued_bytes = 0;
  };
  // The client's account, made (full) if new, and its key; under mu_. An account with a read
  // running or bytes queued is never forgotten, so its key finds it until they are done.
  std::map<std::string, Account>::iterator AccountOf(const std::string& client);
  void Refill(Account& a) const;

  ClientLimitOptions options_;
  Clock clock_;
  mutable std::mutex mu_;
  std::map<std::string, Account> accounts_;
  std::multimap<ledger::Hash32, std::pair<std::string, std::size_t>> queued_;
};

// Registers arkiv_sendTransaction, arkiv_getEntity, arkiv_query, arkiv_getEntityCount,
// arkiv_explain, arkiv_explainCount, arkiv_getHead, arkiv_blockNumber, arkiv_chainId,
// arkiv_getChainInfo, arkiv_getBlock, arkiv_getReceipt, arkiv_getAccount and arkiv_verifyChain.
// `metrics` may be null. With `local` (the ledger behind `api`, in this process) the metrics also
// count its block writes (veil_ledger_block_writes_total: in instant mode, landed transactions over
// block writes is the mean group-commit size). With `clients`, each call is counted against its
// caller (the JsonRpcCallContext's peer, by net::ClientAddressKey; ClientLimits). arkiv_verifyChain
// is an operator's call: without `operator_methods` it is refused (kPermissionDenied) without
// running.
Status RegisterLedgerMethods(net::JsonRpcDispatcher& dispatcher,
                             std::shared_ptr<ledger::LedgerAdmin> api,
                             std::shared_ptr<net::MetricsRegistry> metrics = nullptr,
                             std::shared_ptr<const FailedReceiptLog> failures = nullptr,
                             std::shared_ptr<const ledger::Ledger> local = nullptr,
                             std::shared_ptr<ClientLimits> clients = nullptr,
                             bool operator_methods = false);

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
  // What an instant node declares as its block time (ChainInfo::nominal_block_time_ms; a timed
  // node's is block_time). Positive.
  std::chrono::milliseconds nominal_block_time{2000};
  // The expiry clock of a chain the node creates (LedgerOptions; `serve --expiry-clock`).
  ledger::ExpiryClock expiry_clock = ledger::ExpiryClock::kAuto;
  std::chrono::milliseconds sweep_interval{10'000};
  std::size_t sweep_max_rows = 1000;
  std::size_t max_body_bytes = 9u << 20;  // a kMaxTxBytes transaction in hex, and some
  std::size_t worker_threads = 8;
  // The HTTP server's connection caps (net::HttpServerOptions).
  std::size_t max_connections = 1024;
  std::size_t max_connections_per_client = 64;
  // Reads on their own database connections, beside the writer's (LedgerOptions; an in-memory
  // SQLite store has none and reads on the writer's).
  std::size_t read_connections = 4;
  // The ledger's limits (a read's work budget and the queue's bounds among them).
  ledger::Limits limits = ledger::Limits::Arkiv();
  ClientLimitOptions clients;
  // Serves arkiv_verifyChain (a scan of the whole chain) to RPC clients; off by default.
  bool operator_rpc = false;
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
  std::shared_ptr<ledger::LedgerAdmin> api() { return api_; }

  // Timed mode: seals one block now, as the timer does (the failed transactions' receipts kept,
  // the clients' queued bytes given back).
  Result<ledger::SealResult> Seal();

  // Graceful: stop accepting, finish in-flight requests, stop the timers, seal what is queued
  // (timed mode), close the store. Idempotent.
  Status Stop();

 private:
  Node() = default;
  void TimerLoop();
  void SweepLoop();

  NodeOptions options_;
  std::shared_ptr<ledger::Ledger> ledger_;
  std::shared_ptr<ledger::LedgerAdmin> api_;
  std::shared_ptr<FailedReceiptLog> failures_ = std::make_shared<FailedReceiptLog>(10'000);
  std::shared_ptr<ClientLimits> clients_;
  std::unique_ptr<net::JsonRpcDispatcher> dispatcher_;
  std::unique_ptr<net::HttpServer> server_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool stopped_ = false;
  std::thread timer_;
  std::chrono::milliseconds timer_period_{0};  // the timer thread's period (0: none)
  std::thread sweeper_;
};

}  // namespace veil::ledger_node
