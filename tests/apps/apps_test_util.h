// Helpers for the veil-ledger tests: wallets, transactions (also deliberately invalid ones), and
// a real `veil-ledger serve` process started with fork/exec on 127.0.0.1.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "node.h"
#include "veil/crypto/ed25519.h"
#include "veil/ledger/transaction.h"

namespace veil::ledger_node::testing {

struct Wallet {
  crypto::Ed25519SigningKey key = crypto::Ed25519SigningKey::Generate();
  std::uint64_t nonce = 0;
  ledger::Address address() const {
    return ledger::AddressOf(ledger::SigScheme::kEd25519, key.public_key());
  }
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

// Signs the next transaction of `w` (advancing its nonce).
inline Bytes Sign(Wallet& w, std::vector<ledger::Operation> ops, std::uint64_t chain_id = 1) {
  ledger::Transaction tx;
  tx.chain_id = chain_id;
  tx.nonce = w.nonce++;
  tx.ops = std::move(ops);
  auto enc = ledger::SignEd25519(tx, w.key, ledger::Limits::Arkiv());
  EXPECT_TRUE(enc.ok()) << enc.status().ToString();
  return enc.ok() ? *enc : Bytes{};
}

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

inline std::filesystem::path TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("veil-apps-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
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

// A `veil-ledger serve` child process.
class ServerProcess {
 public:
  ServerProcess() = default;
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  ~ServerProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  // Starts the server with `args` after "serve" and waits (up to 20 s) for its port file.
  bool Start(const std::filesystem::path& dir, std::vector<std::string> args) {
    const auto port_file = dir / "port";
    std::filesystem::remove(port_file);
    log_ = dir / "server.log";
    args.insert(args.begin(), {BinaryPath(), "serve", "--listen", "127.0.0.1:0", "--port-file",
                               port_file.string()});
    pid_ = ::fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0) ::dup2(fd, 2);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream f(port_file);
      int port = 0;
      if (f >> port && port > 0) {
        port_ = port;
        return true;
      }
      int st = 0;
      if (::waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // Sends `sig` and waits; returns the exit code (or 128 + the signal that killed it).
  int Signal(int sig) {
    if (pid_ <= 0) return -1;
    ::kill(pid_, sig);
    int st = 0;
    ::waitpid(pid_, &st, 0);
    pid_ = -1;
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
  }

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string Log() const {
    std::ifstream f(log_);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::filesystem::path log_;
};

}  // namespace veil::ledger_node::testing
