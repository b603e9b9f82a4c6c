// The veil-ledger node (node.h).
#include "node.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <functional>
#include <iterator>
#include <utility>
#include <vector>

#include "veil/ledger/json.h"
#include "veil/net/log.h"
#include "veil/net/metrics.h"

namespace veil::ledger_node {
namespace {

using Json = nlohmann::json;
namespace lj = ledger::json;

// Positional params (Arkiv's style): null or an array of min..max elements.
Status CheckParams(const Json& params, std::size_t min, std::size_t max) {
  if (params.is_null()) {
    if (min == 0) return Status::Ok();
    return InvalidArgument("expected " + std::to_string(min) + " positional params");
  }
  if (!params.is_array()) return InvalidArgument("params must be an array");
  if (params.size() < min || params.size() > max) {
    return InvalidArgument("expected " + std::to_string(min) +
                           (max == min ? "" : ".." + std::to_string(max)) +
                           " positional params, got " + std::to_string(params.size()));
  }
  return Status::Ok();
}

const Json* Param(const Json& params, std::size_t i) {
  if (!params.is_array() || i >= params.size()) return nullptr;
  return &params[i];
}

Result<std::string> QueryText(const Json& params) {
  const Json* q = Param(params, 0);
  if (q == nullptr || !q->is_string()) return InvalidArgument("params[0]: expected a query string");
  return q->get<std::string>();
}

// The ClientLimits key of a call: the peer's net::ClientAddressKey (an IPv6 peer by its /64),
// "" in process.
std::string ClientOf(const net::JsonRpcCallContext& context) {
  return context.peer.empty() ? std::string() : net::ClientAddressKey(context.peer);
}

// Runs `read` as a read of the calling client: admitted by its budget, and its time charged to
// it. Without `clients`, runs it.
Status ChargedRead(ClientLimits* clients, const net::JsonRpcCallContext& context,
                   const std::function<Status()>& read) {
  if (clients == nullptr) return read();
  std::string account;
  VEIL_RETURN_IF_ERROR(clients->BeginRead(ClientOf(context), &account));
  const auto start = std::chrono::steady_clock::now();
  struct End {
    ClientLimits* clients;
    const std::string& account;
    std::chrono::steady_clock::time_point start;
    ~End() {
      clients->EndRead(account, std::chrono::duration_cast<std::chrono::microseconds>(
                                    std::chrono::steady_clock::now() - start));
    }
  } end{clients, account, start};
  return read();
}

Result<ledger::QueryOptions> Options(const Json& params, std::size_t i) {
  const Json* o = Param(params, i);
  if (o == nullptr) return ledger::QueryOptions{};
  return lj::QueryOptionsFromJson(*o);
}

}  // namespace

Result<std::unique_ptr<ledger::Store>> OpenStore(std::string_view spec) {
  if (spec.rfind("sqlite:", 0) == 0) {
    ledger::SqliteOptions o;
    o.path = std::string(spec.substr(7));
    if (o.path.empty()) return InvalidArgument("store: sqlite:PATH needs a path");
    return ledger::OpenSqliteStore(o);
  }
  if (spec.rfind("postgres://", 0) == 0 || spec.rfind("postgresql://", 0) == 0) {
    ledger::PostgresOptions o;
    o.url = std::string(spec);
    return ledger::OpenPostgresStore(o);
  }
  return InvalidArgument("store: expected sqlite:PATH, postgres://... or postgresql://...");
}

Result<std::chrono::milliseconds> ParseDuration(std::string_view text, bool allow_instant) {
  if (allow_instant && text == "instant") return std::chrono::milliseconds(0);
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  if (ec != std::errc() || n == 0 || n > 86'400'000) {
    return InvalidArgument("duration: expected a positive number and a unit (ms, s, m)");
  }
  if (unit == "ms") return std::chrono::milliseconds(n);
  if (unit == "s") return std::chrono::milliseconds(n * 1000);
  if (unit == "m") return std::chrono::milliseconds(n * 60'000);
  return InvalidArgument("duration: unit must be ms, s or m");
}

void FailedReceiptLog::Add(const ledger::TxReceipt& r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!by_hash_.emplace(r.tx_hash, r).second) return;
  order_.push_back(r.tx_hash);
  while (order_.size() > capacity_) {
    by_hash_.erase(order_.front());
    order_.pop_front();
  }
}

std::optional<ledger::TxReceipt> FailedReceiptLog::Find(const ledger::Hash32& tx_hash) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_hash_.find(tx_hash);
  if (it == by_hash_.end()) return std::nullopt;
  return it->second;
}

namespace {
const std::string kNoClient;  // the key of the shared account: no peer's address is ""
}  // namespace

ClientLimits::ClientLimits(ClientLimitOptions options, Clock clock)
    : options_(options), clock_(std::move(clock)) {
  if (!clock_) clock_ = [] { return std::chrono::steady_clock::now(); };
}

void ClientLimits::Refill(Account& a) const {
  const auto now = clock_();
  const std::int64_t burst_us = std::chrono::microseconds(options_.read_burst).count();
  const std::int64_t elapsed_us =
      std::chrono::duration_cast<std::chrono::microseconds>(now - a.filled).count();
  a.filled = now;
  if (elapsed_us <= 0) return;
  // read_ms_per_second of read time per second: as many microseconds per 1000 elapsed.
  const double gained = static_cast<double>(elapsed_us) *
                        static_cast<double>(options_.read_ms_per_second.count()) / 1000.0;
  const double filled = static_cast<double>(a.tokens_us) + gained;
  a.tokens_us =
      filled >= static_cast<double>(burst_us) ? burst_us : static_cast<std::int64_t>(filled);
}

std::map<std::string, ClientLimits::Account>::iterator ClientLimits::AccountOf(
    const std::string& client) {
  auto it = accounts_.find(client);
  if (it != accounts_.end()) return it;
  if (accounts_.size() >= options_.max_clients) {
    // Forget the idle ones: no read running, nothing queued, the bucket full again.
    for (auto i = accounts_.begin(); i != accounts_.end();) {
      Refill(i->second);
      const bool idle =
          i->second.reads == 0 && i->second.queued_bytes == 0 &&
          i->second.tokens_us >= std::chrono::microseconds(options_.read_burst).count();
      i = idle ? accounts_.erase(i) : std::next(i);
    }
  }
  // Still full: the newcomers share one account (named by no address: "" is never a peer's).
  const std::string& key = accounts_.size() >= options_.max_clients ? kNoClient : client;
  auto [at, added] = accounts_.try_emplace(key);
  if (added) {
    at->second.tokens_us = std::chrono::microseconds(options_.read_burst).count();
    at->second.filled = clock_();
  }
  return at;
}

Status ClientLimits::BeginRead(const std::string& client, std::string* account) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = AccountOf(client);
  Account& a = it->second;
  if (options_.read_ms_per_second.count() > 0) {
    Refill(a);
    if (a.tokens_us <= 0) {
      const std::int64_t wait_ms =
          (-a.tokens_us) / options_.read_ms_per_second.count() + 1;  // us / (ms/s) = ms
      return ResourceExhausted("this client's read budget is used up (" +
                               std::to_string(options_.read_ms_per_second.count()) +
                               " ms of reads a second); retry in " + std::to_string(wait_ms) +
                               " ms");
    }
  }
  if (options_.max_concurrent_reads > 0 && a.reads >= options_.max_concurrent_reads) {
    return ResourceExhausted("this client has " + std::to_string(a.reads) +
                             " reads running, the most a client may; retry when one is done");
  }
  ++a.reads;
  *account = it->first;
  return Status::Ok();
}

void ClientLimits::EndRead(const std::string& account, std::chrono::microseconds used) {
  std::lock_guard<std::mutex> lock(mu_);
  Account& a = AccountOf(account)->second;
  if (a.reads > 0) --a.reads;
  if (options_.read_ms_per_second.count() > 0) {
    Refill(a);
    a.tokens_us -= used.count();
  }
}

Status ClientLimits::Reserve(const std::string& client, const ledger::Hash32& tx,
                             std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = AccountOf(client);
  Account& a = it->second;
  if (options_.max_queued_bytes > 0 && a.queued_bytes + bytes > options_.max_queued_bytes) {
    return ResourceExhausted(
        "this client's transactions waiting for a block hold " + std::to_string(a.queued_bytes) +
        " bytes, the most a client may have " + std::to_string(options_.max_queued_bytes) +
        "; retry after the next block");
  }
  a.queued_bytes += bytes;
  queued_.emplace(tx, std::make_pair(it->first, bytes));
  return Status::Ok();
}

void ClientLimits::Release(const ledger::Hash32& tx) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = queued_.find(tx);
  if (it == queued_.end()) return;
  auto a = accounts_.find(it->second.first);
  if (a != accounts_.end()) {
    a->second.queued_bytes -= std::min(a->second.queued_bytes, it->second.second);
  }
  queued_.erase(it);
}

std::size_t ClientLimits::QueuedBytes(const std::string& client) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = accounts_.find(client);
  return it == accounts_.end() ? 0 : it->second.queued_bytes;
}

Status RegisterLedgerMethods(net::JsonRpcDispatcher& d, std::shared_ptr<ledger::LedgerAdmin> api,
                             std::shared_ptr<net::MetricsRegistry> metrics,
                             std::shared_ptr<const FailedReceiptLog> failures,
                             std::shared_ptr<const ledger::Ledger> local,
                             std::shared_ptr<ClientLimits> clients, bool operator_methods) {
  using net::JsonRpcDispatcher;
  std::vector<std::pair<const char*, JsonRpcDispatcher::Handler>> methods;
  net::Gauge* head_gauge = nullptr;
  const bool collected = metrics && local;  // the head gauge is set by the collector below
  net::Counter* landed = nullptr;
  net::Counter* failed = nullptr;
  net::Counter* pending = nullptr;
  if (metrics) {
    head_gauge = &metrics->GetGauge("veil_ledger_head_block", "the chain head's block number");
    const char* help = "transactions accepted by arkiv_sendTransaction, by outcome";
    landed = &metrics->GetCounter("veil_ledger_transactions_total", help, {{"result", "landed"}});
    failed = &metrics->GetCounter("veil_ledger_transactions_total", help, {{"result", "failed"}});
    pending = &metrics->GetCounter("veil_ledger_transactions_total", help, {{"result", "pending"}});
  }
  const Status send_registered = d.RegisterWithContext(
      "arkiv_sendTransaction",
      [=](const net::JsonRpcCallContext& context, const Json& p) -> Result<Json> {
        VEIL_RETURN_IF_ERROR(CheckParams(p, 1, 1));
        VEIL_ASSIGN_OR_RETURN(Bytes tx, lj::BytesFromHex(p[0], "params[0]", kMaxTxBytes));
        // The client's room in the queue, reserved before the ledger queues (a timed ledger's
        // receipt says pending) and given back when it does not.
        const bool timed = local != nullptr && local->mode() == ledger::BlockMode::kTimed;
        const ledger::Hash32 hash = ledger::TxHash(tx);
        if (clients && timed) {
          VEIL_RETURN_IF_ERROR(clients->Reserve(ClientOf(context), hash, tx.size()));
        }
        auto submitted = api->Submit(tx);
        if (clients && timed && !(submitted.ok() && submitted->pending)) clients->Release(hash);
        VEIL_ASSIGN_OR_RETURN(auto r, std::move(submitted));
        if (landed != nullptr) {
          (r.pending ? pending : r.status.ok() ? landed : failed)->Inc();
          if (r.status.ok() && !r.pending && !collected) {
            head_gauge->Set(static_cast<double>(r.block));
          }
        }
        return lj::ToJson(r);
      });
  VEIL_RETURN_IF_ERROR(send_registered);
  methods.emplace_back("arkiv_getEntity", [=](const Json& p) -> Result<Json> {
    VEIL_RETURN_IF_ERROR(CheckParams(p, 1, 2));
    VEIL_ASSIGN_OR_RETURN(auto key, lj::KeyFromJson(p[0], "params[0]"));
    ledger::Projection proj;
    if (const Json* o = Param(p, 1)) {
      // Only "select" applies to a single entity.
      if (!o->is_object() || o->size() != 1 || !o->contains("select")) {
        return InvalidArgument("params[1]: expected {\"select\": [...]}");
      }
      VEIL_ASSIGN_OR_RETURN(proj, lj::ProjectionFromJson(o->at("select")));
    }
    VEIL_ASSIGN_OR_RETURN(auto e, api->Get(key, proj));
    if (!e) return Json(nullptr);
    return lj::ToJson(*e, proj);
  });
  // A page is written as text directly (ledger/json.h, ToJsonText): no DOM for 200 entities.
  const Status query_registered = d.RegisterRawWithContext(
      "arkiv_query",
      [=](const net::JsonRpcCallContext& context, const Json& p, std::string* out) -> Status {
        VEIL_RETURN_IF_ERROR(CheckParams(p, 1, 2));
        VEIL_ASSIGN_OR_RETURN(auto text, QueryText(p));
        VEIL_ASSIGN_OR_RETURN(auto options, Options(p, 1));
        ledger::QueryPage page;
        VEIL_RETURN_IF_ERROR(ChargedRead(clients.get(), context, [&]() -> Status {
          VEIL_ASSIGN_OR_RETURN(page, api->Query(text, options));
          return Status::Ok();
        }));
        lj::AppendJsonText(page, options.projection, out);
        return Status::Ok();
      });
  VEIL_RETURN_IF_ERROR(query_registered);
  methods.emplace_back("arkiv_getEntityCount", [=](const Json& p) -> Result<Json> {
    VEIL_RETURN_IF_ERROR(CheckParams(p, 0, 1));
    std::string text = "*";
    if (const Json* o = Param(p, 0)) {
      // Unlike Arkiv, an unknown member is an error rather than a silent chain-wide count.
      if (!o->is_object() || o->size() != 1 || !o->contains("query") ||
          !o->at("query").is_string()) {
        return InvalidArgument("params[0]: expected {\"query\": \"...\"}");
      }
      text = o->at("query").get<std::string>();
    }
    VEIL_ASSIGN_OR_RETURN(auto c, api->Count(text));
    return lj::ToJson(c);
  });
  methods.emplace_back("arkiv_explain", [=](const Json& p) -> Result<Json> {
    VEIL_RETURN_IF_ERROR(CheckParams(p, 1, 2));
    VEIL_ASSIGN_OR_RETURN(auto text, QueryText(p));
    VEIL_ASSIGN_OR_RETURN(auto options, Options(p, 1));
    VEIL_ASSIGN_OR_RETURN(auto plan, api->Explain(text, options));
    return Json(plan);
  });
  methods.emplace_back("arkiv_explainCount", [=](const Json& p) -> Result<Json> {
    VEIL_RETURN_IF_ERROR(CheckParams(p, 1, 1));
    VEIL_ASSIGN_OR_RETURN(auto text, QueryText(p));
    VEIL_ASSIGN_OR_RETURN(auto plan, api->ExplainCount(text));
    return Json(plan);
  });
  methods.emplace_back("arkiv_getHead", [=](const Json& p) -> Result<Json> {
    VEIL_RETURN_IF_ERROR(CheckParams(p, 0, 0));
    VEIL_ASSIGN_OR_RETURN(auto h, api->Head());
    if (head_gauge != nullptr && !collected) head_gauge->Set(static_cast<double>(h.number));
    return lj::ToJson(h);
  });
  methods.emplace_back("arkiv_blockNumber", [=](const Json& p) -> Result<Json> {
    VEIL_RETURN_IF_ERROR(CheckParams(p, 0, 0));
    VEIL_ASSIGN_OR_RETURN(auto h, api->Head());
    return Json(h.number);
  });
  methods.emplace_back("arkiv_chainId", [=](const Json& p) -> Result<Json> {
    VEIL_RETURN_IF_ERROR(CheckParams(p, 0, 0));
    VEIL_ASSIGN_OR_RETURN(auto id, api->ChainId());
    return Json(id);
  });
  methods.emplace_back("arkiv_getChainInfo", [=](const Json& p) -> Result<Json> {
    VEIL_RETURN_IF_ERROR(CheckParams(p, 0, 0));
    VEIL_ASSIGN_OR_RETURN(auto info, api->ChainInfo());
    return lj::ToJson(info);
  });
  methods.emplace_back("arkiv_getBlock", [=](const Json& p) -> Result<Json> {
    VEIL_RETURN_IF_ERROR(CheckParams(p, 1, 1));
    if (!p[0].is_number_integer() || (!p[0].is_number_unsigned() && p[0].get<std::int64_t>() < 0)) {
      return InvalidArgument("params[0]: expected a block number");
    }
    VEIL_ASSIGN_OR_RETURN(auto b, api->GetBlock(p[0].get<std::uint64_t>()));
    if (!b) return Json(nullptr);
    return lj::ToJson(*b);
  });
  methods.emplace_back("arkiv_getReceipt", [=](const Json& p) -> Result<Json> {
    VEIL_RETURN_IF_ERROR(CheckParams(p, 1, 1));
    VEIL_ASSIGN_OR_RETURN(auto hash, lj::HashFromJson(p[0], "params[0]"));
    VEIL_ASSIGN_OR_RETURN(auto r, api->GetReceipt(hash));
    if (!r && failures) r = failures->Find(hash);
    if (!r) return Json(nullptr);
    return lj::ToJson(*r);
  });
  methods.emplace_back("arkiv_getAccount", [=](const Json& p) -> Result<Json> {
    VEIL_RETURN_IF_ERROR(CheckParams(p, 1, 1));
    VEIL_ASSIGN_OR_RETURN(auto a, lj::AddressFromJson(p[0], "params[0]"));
    VEIL_ASSIGN_OR_RETURN(auto acct, api->GetAccount(a));
    return lj::ToJson(acct);
  });
  methods.emplace_back("arkiv_verifyChain", [=](const Json& p) -> Result<Json> {
    if (!operator_methods) {
      return PermissionDenied(
          "arkiv_verifyChain is an operator call and this node does not serve it: run "
          "`veil-ledger verify-chain --store SPEC` beside the node, or start the node with "
          "--operator-rpc");
    }
    VEIL_RETURN_IF_ERROR(CheckParams(p, 0, 0));
    VEIL_RETURN_IF_ERROR(api->VerifyChain());
    VEIL_ASSIGN_OR_RETURN(auto h, api->Head());
    return Json{{"ok", true}, {"head", h.number}};
  });
  for (auto& [name, handler] : methods) {
    if (!clients || std::string_view(name) == "arkiv_verifyChain") {
      VEIL_RETURN_IF_ERROR(d.Register(name, std::move(handler)));
      continue;
    }
    auto charged = [clients, inner = std::move(handler)](const net::JsonRpcCallContext& context,
                                                         const Json& p) -> Result<Json> {
      Result<Json> out = Status(Code::kInternal, "not run");
      VEIL_RETURN_IF_ERROR(ChargedRead(clients.get(), context, [&]() -> Status {
        out = inner(p);
        return out.status();
      }));
      return out;
    };
    VEIL_RETURN_IF_ERROR(d.RegisterWithContext(name, std::move(charged)));
  }
  // The in-process ledger's own state, read when /metrics is rendered (added once every method is
  // registered): its head (which the timed mode's timer moves too; the collector is then the
  // gauge's only writer, so it never moves back), its block writes (the counter moves by what the
  // ledger counted since the scrape that last moved it: a compare-and-swap on the highest value
  // seen, so two scrapes never count the same writes twice) and the transactions waiting for a
  // group commit.
  if (metrics && local) {
    net::Counter* writes = &metrics->GetCounter(
        "veil_ledger_block_writes_total",
        "block writes sent to the store (a group commit writes several blocks in one)");
    net::Gauge* waiting = &metrics->GetGauge(
        "veil_ledger_waiting_transactions", "transactions waiting for a group commit to take them");
    auto seen = std::make_shared<std::atomic<std::uint64_t>>(0);
    std::weak_ptr<const ledger::Ledger> weak = local;
    metrics->AddCollector([weak, writes, waiting, head_gauge, seen] {
      const auto ledger = weak.lock();
      if (!ledger) return;
      head_gauge->Set(static_cast<double>(ledger->Head().number));
      waiting->Set(static_cast<double>(ledger->WaitingTxs()));
      const std::uint64_t now = ledger->BlockWrites();
      std::uint64_t before = seen->load(std::memory_order_relaxed);
      while (now > before && !seen->compare_exchange_weak(before, now)) {
      }
      if (now > before) writes->Inc(static_cast<double>(now - before));
    });
  }
  return Status::Ok();
}

ledger::RpcTransport MakeRpcTransport(std::shared_ptr<net::JsonRpcClient> client) {
  return [client](std::string_view method, const Json& params, bool idempotent) -> Result<Json> {
    return client->Call(
        method, params,
        idempotent ? net::Idempotency::kIdempotent : net::Idempotency::kNotIdempotent);
  };
}

ledger::RpcTextTransport MakeRpcTextTransport(std::shared_ptr<net::JsonRpcClient> client) {
  return [client](std::string_view method, const Json& params, bool idempotent,
                  const ledger::RpcTextReader& read) -> Status {
    return client->CallWithReader(
        method, params,
        idempotent ? net::Idempotency::kIdempotent : net::Idempotency::kNotIdempotent, read);
  };
}

Result<std::unique_ptr<ledger::RemoteLedger>> ConnectRemote(const std::string& base_url) {
  net::HttpClientOptions o;
  o.base_url = base_url;
  VEIL_ASSIGN_OR_RETURN(auto client, net::JsonRpcClient::Create(o));
  auto shared = std::make_shared<net::JsonRpcClient>(std::move(client));
  return std::make_unique<ledger::RemoteLedger>(MakeRpcTransport(shared),
                                                MakeRpcTextTransport(shared));
}

Result<std::unique_ptr<Node>> Node::Start(NodeOptions options) {
  std::unique_ptr<Node> n(new Node());
  n->options_ = std::move(options);
  // The block time the node declares (ChainInfo): a timed node's own, an instant node's nominal.
  const std::chrono::milliseconds declared =
      n->options_.block_time.count() > 0 ? n->options_.block_time : n->options_.nominal_block_time;
  if (declared.count() <= 0) return InvalidArgument("nominal block time: must be positive");
  VEIL_ASSIGN_OR_RETURN(auto store, OpenStore(n->options_.store));
  ledger::LedgerOptions lo;
  lo.chain_id = n->options_.chain_id;
  lo.read_connections = n->options_.read_connections;
  lo.limits = n->options_.limits;
  lo.mode =
      n->options_.block_time.count() > 0 ? ledger::BlockMode::kTimed : ledger::BlockMode::kInstant;
  lo.nominal_block_time_ms = static_cast<std::uint64_t>(declared.count());
  lo.expiry_clock = n->options_.expiry_clock;
  VEIL_ASSIGN_OR_RETURN(auto ledger, ledger::Ledger::Open(std::move(store), lo));
  n->ledger_ = std::move(ledger);
  n->api_ = std::make_shared<ledger::LocalLedger>(n->ledger_);

  net::HttpServerOptions so;
  so.host = n->options_.host;
  so.port = n->options_.port;
  so.max_body_bytes = n->options_.max_body_bytes;
  so.worker_threads = n->options_.worker_threads;
  so.max_connections = n->options_.max_connections;
  so.max_connections_per_client = n->options_.max_connections_per_client;
  n->server_ = std::make_unique<net::HttpServer>(std::move(so));
  n->dispatcher_ = std::make_unique<net::JsonRpcDispatcher>(net::JsonRpcDispatcherOptions{},
                                                            n->server_->shared_metrics());
  n->clients_ = std::make_shared<ClientLimits>(n->options_.clients);
  VEIL_RETURN_IF_ERROR(RegisterLedgerMethods(*n->dispatcher_, n->api_, n->server_->shared_metrics(),
                                             n->failures_, n->ledger_, n->clients_,
                                             n->options_.operator_rpc));
  // The dispatcher gives every call of a body (a batch too) the peer's address: its calls share
  // the client's limits.
  n->dispatcher_->Mount(*n->server_, "/rpc");
  std::weak_ptr<ledger::LedgerAdmin> weak = n->api_;
  n->server_->SetHealthCheck([weak]() -> Status {
    auto api = weak.lock();
    if (!api) return Unavailable("stopping");
    return api->Head().status();
  });
  VEIL_RETURN_IF_ERROR(n->server_->Start());
  // A timed node seals every block time; an instant one on a slot clock seals an empty block
  // when an expiry falls due on an idle chain (Ledger::SealIfExpiryDue), checked four times a
  // slot, so data leaves within a quarter of a slot of its expiry.
  if (lo.mode == ledger::BlockMode::kTimed) {
    n->timer_period_ = n->options_.block_time;
  } else if (n->ledger_->expiry_clock_ms() != 0) {
    n->timer_period_ =
        std::chrono::milliseconds(std::max<std::uint64_t>(n->ledger_->expiry_clock_ms() / 4, 1));
  }
  if (n->timer_period_.count() > 0) n->timer_ = std::thread([p = n.get()] { p->TimerLoop(); });
  if (n->options_.sweep_interval.count() > 0) {
    n->sweeper_ = std::thread([p = n.get()] { p->SweepLoop(); });
  }
  return n;
}

void Node::TimerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, timer_period_, [&] { return stopping_; })) {
    lock.unlock();
    if (options_.block_time.count() == 0) {
      auto due = ledger_->SealIfExpiryDue();
      if (!due.ok()) net::log::Warn("expiry seal failed", {{"error", due.status().ToString()}});
      lock.lock();
      continue;
    }
    auto r = Seal();
    if (!r.ok()) {
      net::log::Warn("seal failed", {{"error", r.status().ToString()}});
    } else {
      net::log::Debug("sealed", {{"block", r->header.number}, {"txs", r->receipts.size()}});
    }
    lock.lock();
  }
}

Result<ledger::SealResult> Node::Seal() {
  VEIL_ASSIGN_OR_RETURN(auto r, ledger_->SealBlock());
  for (const auto& receipt : r.receipts) {
    clients_->Release(receipt.tx_hash);
    if (!receipt.status.ok()) failures_->Add(receipt);
  }
  return r;
}

void Node::SweepLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, options_.sweep_interval, [&] { return stopping_; })) {
    lock.unlock();
    auto r = ledger_->Sweep(options_.sweep_max_rows);
    if (!r.ok()) {
      net::log::Warn("sweep failed", {{"error", r.status().ToString()}});
    } else if (*r > 0) {
      net::log::Info("swept", {{"entities", *r}});
    }
    lock.lock();
  }
}

Status Node::Stop() {
  if (stopped_) return Status::Ok();
  stopped_ = true;
  // A node whose Start failed half way has only some of its parts.
  Status s = server_ ? server_->Stop() : Status::Ok();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (timer_.joinable()) timer_.join();
  if (sweeper_.joinable()) sweeper_.join();
  if (ledger_ && options_.block_time.count() > 0) {
    // Seal what was accepted before the stop, so no acknowledged pending transaction is lost.
    for (int i = 0; i < 1000; ++i) {
      auto r = ledger_->SealBlock();
      if (!r.ok()) {
        if (s.ok()) s = r.status();
        break;
      }
      if (r->still_queued == 0) break;
    }
  }
  // The method handlers hold the api, and through it the ledger: drop them before the ledger,
  // so the store closes here (the server is stopped and will not call them again).
  dispatcher_.reset();
  api_.reset();
  ledger_.reset();  // closes the store
  return s;
}

Node::~Node() { Stop().IgnoreError(); }

}  // namespace veil::ledger_node
