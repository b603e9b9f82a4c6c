// Helpers for the veil-ledger tests: wallets, transactions (also deliberately invalid ones), and
// a real `veil-ledger serve` process started with fork/exec on 127.0.0.1.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "apps/daemon_process.h"
#include "node.h"
#include "veil/crypto/ed25519.h"
#include "veil/ledger/client.h"
#include "veil/ledger/transaction.h"

namespace veil::ledger_node::testing {

// The chain id a node gets unless told otherwise (NodeOptions::chain_id, `serve --chain-id`).
inline constexpr std::uint64_t kChainId = 1;

// A key, and the Client that counts its nonces. The Client is offline (it only signs): these
// tests submit by several channels (LedgerApi, raw JSON-RPC, HTTP), so a wallet signs its next
// transaction and the test sends it where it wants.
struct Wallet {
  crypto::Ed25519SigningKey key = crypto::Ed25519SigningKey::Generate();
  ledger::Client client = ledger::Client::Offline(
      ledger::Signer(crypto::Ed25519SigningKey::FromSeed(key.seed())), kChainId);
  ledger::Address address() const { return client.address(); }
};

inline ledger::CreateOp Create(std::uint64_t expires, std::vector<ledger::Attribute> attrs = {},
                               Bytes payload = {1, 2, 3}) {
  ledger::CreateOp c;
  c.expires_block = expires;
  c.content_type = "application/octet-stream";
  c.payload = std::move(payload);
  c.attributes = std::move(attrs);
  return c;
}

// Signs the next transaction of `w`, counting its nonce as used. For another chain than the
// node's (a test of the wrong-chain refusal) it signs with the next nonce and counts nothing.
inline Bytes Sign(Wallet& w, std::vector<ledger::Operation> ops,
                  std::uint64_t chain_id = kChainId) {
  Result<Bytes> enc = Status(Code::kInternal, "unset");
  if (chain_id == kChainId) {
    auto prepared = w.client.SignNext(std::move(ops));
    enc = prepared.ok() ? Result<Bytes>(std::move(prepared->encoded))
                        : Result<Bytes>(prepared.status());
  } else {
    ledger::Transaction tx;
    tx.chain_id = chain_id;
    tx.nonce = *w.client.NextNonce();
    tx.ops = std::move(ops);
    enc = w.client.signer().Sign(tx, ledger::Limits::Arkiv());
  }
  EXPECT_TRUE(enc.ok()) << enc.status().ToString();
  return enc.ok() ? *enc : Bytes{};
}

// Signs with `nonce` and counts nothing: a replay, a gap, or a transaction that will not use its
// nonce (a forgery, one that fails).
inline Bytes SignAt(Wallet& w, std::vector<ledger::Operation> ops, std::uint64_t nonce) {
  auto enc = w.client.Sign(std::move(ops), nonce);
  EXPECT_TRUE(enc.ok()) << enc.status().ToString();
  return enc.ok() ? *enc : Bytes{};
}

// The nonce `w`'s next transaction will carry.
inline std::uint64_t NextNonce(Wallet& w) { return *w.client.NextNonce(); }

// Signs without the limit checks, so a test can send what SignEd25519 refuses to make.
inline Bytes SignUnchecked(const Wallet& w, const ledger::Transaction& tx) {
  ledger::SignedTransaction stx;
  stx.tx = tx;
  stx.scheme = ledger::SigScheme::kEd25519;
  stx.public_key.assign(w.key.public_key().begin(), w.key.public_key().end());
  Bytes msg;
  const std::string label = "veil.ledger.tx.v1";
  msg.assign(label.begin(), label.end());
  const Bytes body = ledger::EncodeBody(tx, stx.scheme, stx.public_key);
  msg.insert(msg.end(), body.begin(), body.end());
  const auto sig = w.key.Sign(msg);
  stx.signature.assign(sig.begin(), sig.end());
  return ledger::Encode(stx);
}

// Starts an in-process node with `o` on 127.0.0.1 and connects a RemoteLedger to it (call under
// ASSERT_NO_FATAL_FAILURE).
inline void StartNode(NodeOptions o, std::unique_ptr<Node>* node,
                      std::unique_ptr<ledger::RemoteLedger>* api) {
  auto n = Node::Start(std::move(o));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  *node = std::move(*n);
  auto r = ConnectRemote("http://127.0.0.1:" + std::to_string((*node)->port()));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  *api = std::move(*r);
}

inline std::string BinaryPath() { return std::string(VEIL_BUILD_DIR) + "/apps/veil-ledger"; }

// Runs the CLI to completion; returns its exit code and stdout.
inline int RunCli(const std::vector<std::string>& args, std::string* out) {
  std::string cmd = BinaryPath();
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  std::size_t n;
  out->clear();
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, n);
  const int st = ::pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// A `veil-ledger serve` child process (daemon_process.h does the process work).
class ServerProcess {
 public:
  // Starts the server with `args` after "serve" and waits (up to 20 s) for its port file.
  bool Start(const std::filesystem::path& dir, std::vector<std::string> args) {
    log_ = dir / "server.log";
    const auto port_file = dir / "port";
    // These tests give small expiry blocks: a chain they make counts expiry in blocks, unless
    // a test chooses its clock.
    if (std::find(args.begin(), args.end(), "--expiry-clock") == args.end()) {
      args.insert(args.begin(), {"--expiry-clock", "blocks"});
    }
    args.insert(args.begin(), {BinaryPath(), "serve", "--listen", "127.0.0.1:0", "--port-file",
                               port_file.string()});
    return process_.Start(std::move(args), port_file, log_);
  }

  // Sends `sig` and waits; returns the exit code (or 128 + the signal that killed it).
  int Signal(int sig) { return process_.Signal(sig); }

  int port() const { return process_.port(); }
  const veil::testing::DaemonProcess& process() const { return process_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }
  std::string Log() const { return process_.Log(); }

 private:
  veil::testing::DaemonProcess process_;
  std::filesystem::path log_;
};

}  // namespace veil::ledger_node::testing
