// End to end against the real `veil-ledger serve` binary (fork/exec, 127.0.0.1, SQLite file):
// every method, bad input (each a clear JSON-RPC error that changes nothing), /health and
// /metrics, raw HTTP as curl sends it, the inspection verbs, and a graceful SIGTERM stop.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <nlohmann/json.hpp>

#include "apps_test_util.h"
#include "net/net_test_util.h"
#include "net/raw_connection.h"
#include "support/scratch_dir.h"
#include "veil/ledger/json.h"
#include "veil/net/error_map.h"

namespace veil::ledger_node::testing {
namespace {

using Json = nlohmann::json;
namespace lj = ledger::json;
using ledger::Attribute;

// One HTTP/1.1 request on a fresh socket, as curl would send it; returns the whole response.
std::string RawHttp(int port, const std::string& request) {
  net::RawConnection c(static_cast<std::uint16_t>(port));
  if (!c.connected() || !c.Send(request)) return "";
  return c.ReadToEnd();
}

std::string Post(const std::string& body) {
  return "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n"
         "Content-Type: application/json\r\nConnection: close\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

class ServeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_.path();
    db_ = (dir_ / "chain.db").string();
    // --operator-rpc: arkiv_verifyChain is served (BadInput... verifies the chain through it);
    // EveryMethod... checks that a node started without it refuses the call.
    ASSERT_TRUE(server_.Start(dir_, {"--store", "sqlite:" + db_, "--operator-rpc"}))
        << server_.Log();
    net::HttpClientOptions o;
    o.base_url = server_.url();
    auto c = net::JsonRpcClient::Create(o);
    ASSERT_TRUE(c.ok());
    rpc_ = std::make_shared<net::JsonRpcClient>(std::move(*c));
    api_ = std::make_unique<ledger::RemoteLedger>(MakeRpcTransport(rpc_));
  }

  // The raw JSON-RPC reply to `body` (one request).
  Json Rpc(const std::string& body) {
    auto r = rpc_->http().Post("/rpc", body, "application/json", net::Idempotency::kIdempotent);
    EXPECT_TRUE(r.ok());
    if (!r.ok()) return nullptr;
    EXPECT_EQ(r->status, 200) << r->body;
    return Json::parse(r->body, nullptr, false);
  }
  Json Call(const std::string& method, const Json& params) {
    Json req = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}};
    if (!params.is_null()) req["params"] = params;
    return Rpc(req.dump());
  }
  // Head and live count: must not move under bad input.
  std::pair<ledger::BlockHeader, std::uint64_t> Snapshot() {
    return {*api_->Head(), api_->Count("*")->count};
  }

  veil::testing::ScratchDir scratch_{"veil-apps-serve"};
  std::filesystem::path dir_;
  std::string db_;
  ServerProcess server_;
  std::shared_ptr<net::JsonRpcClient> rpc_;
  std::unique_ptr<ledger::RemoteLedger> api_;
};

TEST_F(ServeTest, EveryMethodThenGracefulStopAndInspect) {
  Wallet w;
  auto r = api_->Submit(Sign(w, {Create(1000, {Attribute::Str("kind", "doc")}), Create(1000)}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->status.ok());
  const std::string key = lj::HexOf(r->created[0]);
  const std::string hash = lj::HexOf(r->tx_hash);

  EXPECT_EQ(Call("arkiv_blockNumber", Json::array())["result"], 1);
  EXPECT_EQ(Call("arkiv_chainId", Json::array())["result"], 1);
  EXPECT_EQ(Call("arkiv_getEntity", {key})["result"]["key"], key);
  EXPECT_EQ(Call("arkiv_getEntity", {key, {{"select", {"key"}}}})["result"].size(), 1u);
  EXPECT_EQ(Call("arkiv_query", {"kind = \"doc\""})["result"]["entities"].size(), 1u);
  EXPECT_EQ(Call("arkiv_getEntityCount", Json::array())["result"]["count"], 2);
  EXPECT_EQ(Call("arkiv_getEntityCount", {{{"query", "kind = \"doc\""}}})["result"]["count"], 1);
  EXPECT_TRUE(Call("arkiv_explain", {"kind = \"doc\""})["result"].is_string());
  const Json count_plan = Call("arkiv_explainCount", {"kind = \"doc\""})["result"];
  ASSERT_TRUE(count_plan.is_string()) << count_plan.dump();
  EXPECT_NE(count_plan.get<std::string>().find("attr_str_nv"), std::string::npos) << count_plan;
  EXPECT_EQ(Call("arkiv_explainCount", {"kind = "})["error"]["code"], net::kJsonRpcInvalidParams);
  EXPECT_EQ(Call("arkiv_explainCount", {"*", 1})["error"]["code"], net::kJsonRpcInvalidParams);
  EXPECT_EQ(Call("arkiv_getHead", nullptr)["result"]["number"], 1);
  Json block = Call("arkiv_getBlock", {1})["result"];
  EXPECT_EQ(block["transactions"], Json::array({hash}));
  EXPECT_TRUE(Call("arkiv_getBlock", {2})["result"].is_null());
  EXPECT_EQ(Call("arkiv_getReceipt", {hash})["result"]["block"], 1);
  EXPECT_EQ(Call("arkiv_getAccount", {lj::HexOf(w.address())})["result"]["txNonce"], 1);
  EXPECT_EQ(Call("arkiv_verifyChain", nullptr)["result"]["ok"], true);

  // The inspection verbs through the node.
  std::string out;
  EXPECT_EQ(RunCli({"verify-chain", "--rpc", server_.url()}, &out), 0);
  EXPECT_EQ(Json::parse(out)["head"], 1);
  EXPECT_EQ(RunCli({"entity", key, "--rpc", server_.url()}, &out), 0);
  EXPECT_EQ(Json::parse(out)["key"], key);
  EXPECT_EQ(RunCli({"count", "kind = \"doc\"", "--explain", "--rpc", server_.url()}, &out), 0);
  EXPECT_EQ(out.rfind("compiled: ", 0), 0u) << out;

  // /health and /metrics.
  auto health = rpc_->http().Get("/health");
  ASSERT_TRUE(health.ok());
  EXPECT_EQ(health->status, 200);
  auto metrics = rpc_->http().Get("/metrics");
  ASSERT_TRUE(metrics.ok());
  EXPECT_NE(metrics->body.find("veil_rpc_requests_total{method=\"arkiv_query\"}"),
            std::string::npos);
  EXPECT_NE(metrics->body.find("veil_ledger_transactions_total{result=\"landed\"} 1"),
            std::string::npos);
  EXPECT_EQ(net::MetricSample(metrics->body, "veil_ledger_block_writes_total"), 1);
  EXPECT_EQ(net::MetricSample(metrics->body, "veil_ledger_waiting_transactions"), 0);
  EXPECT_EQ(net::MetricSample(metrics->body, "veil_ledger_head_block"), 1);

  EXPECT_EQ(server_.Signal(SIGTERM), 0) << server_.Log();
  EXPECT_NE(server_.Log().find("\"msg\":\"stopped\""), std::string::npos);

  // Without --operator-rpc the node refuses arkiv_verifyChain, naming the operator's paths, and
  // the CLI through it fails; on the store it verifies.
  {
    ServerProcess plain;
    ASSERT_TRUE(plain.Start(dir_, {"--store", "sqlite:" + db_})) << plain.Log();
    net::HttpClientOptions o;
    o.base_url = plain.url();
    auto c = net::JsonRpcClient::Create(o);
    ASSERT_TRUE(c.ok());
    auto refused = c->Call("arkiv_verifyChain", nullptr, net::Idempotency::kIdempotent);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), Code::kPermissionDenied);
    EXPECT_NE(refused.status().message().find("verify-chain --store"), std::string::npos)
        << refused.status().ToString();
    EXPECT_EQ(RunCli({"verify-chain", "--rpc", plain.url()}, &out), 1) << out;
    EXPECT_EQ(plain.Signal(SIGTERM), 0) << plain.Log();
  }

  // The inspection verbs straight on the store, after the stop.
  const std::string store = "sqlite:" + db_;
  EXPECT_EQ(RunCli({"verify-chain", "--store", store}, &out), 0) << out;
  EXPECT_EQ(Json::parse(out)["ok"], true);
  EXPECT_EQ(RunCli({"entity", key, "--store", store}, &out), 0);
  EXPECT_EQ(Json::parse(out)["key"], key);
  EXPECT_EQ(RunCli({"block", "1", "--store", store}, &out), 0);
  EXPECT_EQ(Json::parse(out)["transactions"], Json::array({hash}));
  EXPECT_EQ(RunCli({"query", "kind = \"doc\"", "--store", store, "--select", "key"}, &out), 0);
  EXPECT_EQ(Json::parse(out)["entities"][0], (Json{{"key", key}}));
  EXPECT_EQ(RunCli({"count", "*", "--store", store}, &out), 0);
  EXPECT_EQ(Json::parse(out)["count"], 2);
  EXPECT_EQ(RunCli({"count", "*", "--explain", "--store", store}, &out), 0);
  EXPECT_NE(out.find("counters: "), std::string::npos) << out;
  EXPECT_EQ(RunCli({"query", "kind = \"doc\"", "--explain", "--store", store}, &out), 0);
  EXPECT_NE(out.find("attr_str_nv"), std::string::npos) << out;
  EXPECT_EQ(RunCli({"count", "kind = ", "--explain", "--store", store}, &out), 1);
  EXPECT_EQ(RunCli({"receipt", hash, "--store", store}, &out), 0);
  EXPECT_EQ(RunCli({"block", "9", "--store", store}, &out), 1);
  EXPECT_EQ(RunCli({"entity", "0x12", "--store", store}, &out), 1);
  EXPECT_EQ(RunCli({"verify-chain"}, &out), 1);  // neither --store nor --rpc
}

TEST_F(ServeTest, BadInputIsAClearErrorAndChangesNothing) {
  Wallet w;
  const Bytes landed = Sign(w, {Create(1000)});
  ASSERT_TRUE(api_->Submit(landed)->status.ok());
  const auto before = Snapshot();
  auto error_of = [&](const Json& reply) -> std::pair<int, std::string> {
    if (!reply.contains("error")) return {0, reply.dump()};
    return {reply["error"]["code"].get<int>(), reply["error"]["message"].get<std::string>()};
  };
  auto send = [&](const std::string& tx_hex) {
    return error_of(Call("arkiv_sendTransaction", {tx_hex}));
  };

  auto e = error_of(Rpc("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"));
  EXPECT_EQ(e.first, net::kJsonRpcParseError) << e.second;
  e = error_of(Call("arkiv_nope", nullptr));
  EXPECT_EQ(e.first, net::kJsonRpcMethodNotFound);
  EXPECT_NE(e.second.find("arkiv_nope"), std::string::npos);
  e = error_of(Call("arkiv_getBlock", {"one"}));
  EXPECT_EQ(e.first, net::kJsonRpcInvalidParams);
  EXPECT_NE(e.second.find("block number"), std::string::npos);
  e = error_of(Call("arkiv_getEntity", {42}));
  EXPECT_EQ(e.first, net::kJsonRpcInvalidParams);
  e = error_of(Call("arkiv_query", {"*", {{"limit", "ten"}}}));
  EXPECT_EQ(e.first, net::kJsonRpcInvalidParams);
  e = error_of(Call("arkiv_getEntityCount", {{{"filter", "x"}}}));
  EXPECT_EQ(e.first, net::kJsonRpcInvalidParams);
  e = error_of(Call("arkiv_sendTransaction", {1, 2}));
  EXPECT_EQ(e.first, net::kJsonRpcInvalidParams);
  e = send("0xzz");
  EXPECT_EQ(e.first, net::kJsonRpcInvalidParams);
  e = send("0x0102");
  EXPECT_EQ(e.first, net::kJsonRpcInvalidParams);

  // Over the ledger's limits: a payload of 128 KiB + 1, and 31 attributes on a create.
  ledger::Transaction big;
  big.chain_id = 1;
  big.nonce = NextNonce(w);
  big.ops = {Create(1000, {}, Bytes(131'073, 7))};
  e = send(lj::HexOf(SignUnchecked(w, big)));
  EXPECT_EQ(e.first, net::kJsonRpcInvalidParams) << e.second;
  ledger::Transaction many = big;
  std::vector<Attribute> attrs;
  for (int i = 0; i < 31; ++i) {
    attrs.push_back(Attribute::Num("a" + std::to_string(100 + i), 1));
  }
  many.ops = {Create(1000, attrs)};
  e = send(lj::HexOf(SignUnchecked(w, many)));
  EXPECT_NE(e.first, 0) << e.second;

  // A bad signature, a replayed nonce (same and fresh transaction), a wrong chain.
  Bytes forged = SignAt(w, {Create(1000)}, NextNonce(w));
  forged.back() ^= 1;
  e = send(lj::HexOf(forged));
  EXPECT_EQ(e.first, net::kJsonRpcVerificationFailed);
  EXPECT_EQ(e.second, "verification failed");
  Json replay = Call("arkiv_sendTransaction", {lj::HexOf(landed)})["result"];
  EXPECT_EQ(replay["status"]["code"], "failed precondition");
  EXPECT_NE(replay["status"]["message"].get<std::string>().find("replay"), std::string::npos);
  replay = Call("arkiv_sendTransaction", {lj::HexOf(SignAt(w, {Create(1000)}, 0))})["result"];
  EXPECT_EQ(replay["status"]["code"], "failed precondition");
  Wallet stranger;
  e = send(lj::HexOf(Sign(stranger, {Create(1000)}, 9)));
  EXPECT_EQ(e.first, net::kJsonRpcInvalidParams);

  // A body over the node's limit: HTTP 413, never parsed.
  const std::string huge(10u << 20, 'x');
  auto r = rpc_->http().Post("/rpc", huge, "application/json", net::Idempotency::kNotIdempotent);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 413);

  EXPECT_EQ(Snapshot(), before);
  EXPECT_TRUE(api_->VerifyChain().ok());
  EXPECT_EQ(server_.Signal(SIGTERM), 0);
}

TEST_F(ServeTest, CurlStyleRawHttp) {
  std::string reply =
      RawHttp(server_.port(), Post(R"({"jsonrpc":"2.0","id":7,"method":"arkiv_blockNumber"})"));
  EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply;
  EXPECT_NE(reply.find(R"({"id":7,"jsonrpc":"2.0","result":0})"), std::string::npos) << reply;
  reply = RawHttp(server_.port(), Post(R"({"jsonrpc":"2.0","id":1,"method":"arkiv_query",)"
                                       R"("params":["$all",{"limit":1}]})"));
  EXPECT_NE(reply.find("\"entities\":[]"), std::string::npos) << reply;
  reply = RawHttp(server_.port(),
                  "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_NE(reply.find(R"({"status":"ok"})"), std::string::npos);
  reply = RawHttp(server_.port(), "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(reply.rfind("HTTP/1.1 404", 0), 0u) << reply;
  // The real curl, when present.
  if (::access("/usr/bin/curl", X_OK) == 0) {
    const std::string cmd =
        "curl -s -X POST -H 'Content-Type: application/json' --data "
        "'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"arkiv_chainId\"}' " +
        server_.url() + "/rpc";
    FILE* p = ::popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    char buf[512] = {};
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, p);
    ::pclose(p);
    EXPECT_EQ(std::string(buf, n), R"({"id":1,"jsonrpc":"2.0","result":1})");
  }
  EXPECT_EQ(server_.Signal(SIGINT), 0);
}

TEST_F(ServeTest, TimedBlocksSealOnTheClockAndAtShutdown) {
  EXPECT_EQ(server_.Signal(SIGTERM), 0);
  ServerProcess timed;
  ASSERT_TRUE(timed.Start(
      dir_, {"--store", "sqlite:" + db_, "--block-time", "200ms", "--sweep-interval", "100ms"}))
      << timed.Log();
  auto api = ConnectRemote(timed.url());
  ASSERT_TRUE(api.ok());
  Wallet w;
  auto r1 = (*api)->Submit(Sign(w, {Create(1000)}));
  auto r2 = (*api)->Submit(Sign(w, {Create(1000)}));
  ASSERT_TRUE(r1.ok() && r2.ok());
  EXPECT_TRUE(r1->pending);
  std::optional<ledger::TxReceipt> landed;
  for (int i = 0; i < 100 && !landed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto got = (*api)->GetReceipt(r2->tx_hash);
    ASSERT_TRUE(got.ok());
    landed = *got;
  }
  ASSERT_TRUE(landed.has_value());
  EXPECT_EQ(landed->created.size(), 1u);
  EXPECT_TRUE(landed->status.ok());
  // A transaction that fails when sealed is not stored, but the node remembers its receipt.
  ledger::DeleteOp missing;
  missing.key[0] = 0x42;
  auto doomed = (*api)->Submit(SignAt(w, {missing}, NextNonce(w)));  // it will not use its nonce
  ASSERT_TRUE(doomed.ok() && doomed->pending);
  std::optional<ledger::TxReceipt> failed;
  for (int i = 0; i < 100 && !failed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto got = (*api)->GetReceipt(doomed->tx_hash);
    ASSERT_TRUE(got.ok());
    failed = *got;
  }
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->status.code(), Code::kNotFound);
  EXPECT_EQ(failed->failed_op, std::optional<std::size_t>(0));
  // A transaction queued just before SIGTERM is sealed during the graceful stop.
  auto r3 = (*api)->Submit(Sign(w, {Create(1000)}));
  ASSERT_TRUE(r3.ok() && r3->pending);
  EXPECT_EQ(timed.Signal(SIGTERM), 0) << timed.Log();
  std::string out;
  EXPECT_EQ(RunCli({"receipt", lj::HexOf(r3->tx_hash), "--store", "sqlite:" + db_}, &out), 0)
      << out;
  EXPECT_EQ(RunCli({"verify-chain", "--store", "sqlite:" + db_}, &out), 0) << out;
}

}  // namespace
}  // namespace veil::ledger_node::testing
