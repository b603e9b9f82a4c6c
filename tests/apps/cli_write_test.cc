// The write verbs of the real `veil-ledger` binary (run to completion through the shell):
// keygen and its key file, create then query back with the inspection verbs, update, extend,
// transfer and delete, on a store and through a timed node, and bad input (a bad key file, bad
// attributes, a failed operation), each a clear error with a non-zero exit that changes nothing.
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "apps_test_util.h"
#include "support/scratch_dir.h"

namespace veil::ledger_node::testing {
namespace {

using Json = nlohmann::json;

struct CliRun {
  int code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
  Json json() const { return Json::parse(out, nullptr, false); }
};

// Runs the CLI with `args`, stdout and stderr apart.
CliRun Cli(const std::filesystem::path& dir, const std::vector<std::string>& args) {
  const auto err_file = dir / "stderr";
  CliRun r;
  std::string cmd = BinaryPath();
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += " 2>'" + err_file.string() + "'";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream e(err_file);
  r.err.assign(std::istreambuf_iterator<char>(e), std::istreambuf_iterator<char>());
  return r;
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class CliWriteTest : public ::testing::Test {
 protected:
  // The slot of now on the default instant chain's expiry clock (2 s).
  static std::uint64_t SlotNow() {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count()) /
           2000;
  }
  void SetUp() override {
    dir_ = scratch_.path();
    store_ = "sqlite:" + (dir_ / "chain.db").string();
    key_ = (dir_ / "alice.key").string();
    const CliRun r = Cli(dir_, {"keygen", "--out", key_});
    ASSERT_EQ(r.code, 0) << r.err;
    address_ = r.json()["address"].get<std::string>();
  }

  CliRun Store(std::vector<std::string> args) {
    args.insert(args.end(), {"--store", store_});
    return Cli(dir_, args);
  }
  // The live count on the store (-1 if the verb failed).
  long LiveCount() {
    const CliRun r = Store({"count", "*"});
    return r.code == 0 ? r.json()["count"].get<long>() : -1;
  }

  veil::testing::ScratchDir scratch_{"veil-apps-cli-write"};
  std::filesystem::path dir_;
  std::string store_;
  std::string key_;
  std::string address_;
};

TEST_F(CliWriteTest, KeygenWritesAPrivateFileOnce) {
  struct stat st {};
  ASSERT_EQ(::stat(key_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const std::string text = ReadFile(key_);
  EXPECT_EQ(text.rfind("veil-ledger-key v1 ed25519 ", 0), 0u) << text;
  EXPECT_EQ(text.size(), std::string("veil-ledger-key v1 ed25519 ").size() + 64 + 1);
  EXPECT_EQ(address_.size(), 42u);
  // The address of the key in the file.
  CliRun r = Cli(dir_, {"address", "--key", key_});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.json()["address"], address_);
  // Never overwritten.
  r = Cli(dir_, {"keygen", "--out", key_});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("never overwrites"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(key_), text);
  // The composite scheme: a longer seed, another address.
  const std::string composite = (dir_ / "pq.key").string();
  r = Cli(dir_, {"keygen", "--out", composite, "--scheme", "composite"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.json()["scheme"], "composite");
  EXPECT_EQ(ReadFile(composite).size(), std::string("veil-ledger-key v1 composite ").size() + 129);
  EXPECT_NE(r.json()["address"], address_);
  r = Cli(dir_, {"keygen", "--out", (dir_ / "x.key").string(), "--scheme", "rsa"});
  EXPECT_EQ(r.code, 1);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x.key"));
}

// Create with a payload and attributes, then find it with the inspection verbs; update, extend,
// transfer (to a composite key) and delete it, each receipt's nonce the next one.
TEST_F(CliWriteTest, CreateThenQueryItBackFromTheShell) {
  // The chain the CLI makes on --store is instant: it counts expiry in 2 s slots of its blocks'
  // timestamps, so `--expires-in 100` is 100 slots after the slot of now.
  std::uint64_t slot_before = SlotNow();
  CliRun r = Store({"create", "--key", key_, "--payload", "hello", "--attr", "kind=doc", "--num",
                    "n=5", "--expires-in", "100"});
  std::uint64_t slot_after = SlotNow();
  ASSERT_EQ(r.code, 0) << r.err;
  Json receipt = r.json();
  ASSERT_EQ(receipt["status"]["code"], "ok") << r.out;
  EXPECT_EQ(receipt["nonce"], 0);
  EXPECT_EQ(receipt["sender"], address_);
  ASSERT_EQ(receipt["created"].size(), 1u);
  const std::string key = receipt["created"][0];

  r = Store({"query", "kind = \"doc\" && n = 5"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json page = r.json();
  ASSERT_EQ(page["entities"].size(), 1u) << r.out;
  EXPECT_EQ(page["entities"][0]["key"], key);
  EXPECT_EQ(page["entities"][0]["owner"], address_);
  EXPECT_EQ(page["entities"][0]["payload"], "0x68656c6c6f");  // "hello"
  const std::uint64_t expires = page["entities"][0]["expiresAt"].get<std::uint64_t>();
  EXPECT_GE(expires, slot_before + 100);
  EXPECT_LE(expires, slot_after + 100);

  std::ofstream(dir_ / "payload.bin", std::ios::binary) << std::string("\x00\x01\x02", 3);
  r = Store({"update", key, "--key", key_, "--num", "n=6", "--unset", "kind", "--payload-file",
             (dir_ / "payload.bin").string(), "--content-type", "application/x-test"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.json()["nonce"], 1);
  r = Store({"entity", key});
  ASSERT_EQ(r.code, 0) << r.err;
  Json e = r.json();
  EXPECT_EQ(e["payload"], "0x000102");
  EXPECT_EQ(e["contentType"], "application/x-test");
  EXPECT_EQ(e["attributes"].size(), 1u);
  EXPECT_EQ(e["attributes"][0]["value"], 6);

  // A lifetime as a duration: 1 h is 1,800 slots of 2 s.
  slot_before = SlotNow();
  r = Store({"extend", key, "--key", key_, "--expires-in", "1h"});
  slot_after = SlotNow();
  ASSERT_EQ(r.code, 0) << r.err;
  const std::uint64_t extended = Store({"entity", key}).json()["expiresAt"].get<std::uint64_t>();
  EXPECT_GE(extended, slot_before + 1800);
  EXPECT_LE(extended, slot_after + 1800);

  const std::string bob_key = (dir_ / "bob.key").string();
  r = Cli(dir_, {"keygen", "--out", bob_key, "--scheme", "composite"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string bob = r.json()["address"];
  r = Store({"transfer", key, "--to", bob, "--key", key_});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.json()["nonce"], 3);
  EXPECT_EQ(Store({"entity", key}).json()["owner"], bob);

  // Alice no longer owns it: the receipt says why, on stdout, and the exit code is 1.
  r = Store({"delete", key, "--key", key_});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.json()["status"]["code"], "permission denied") << r.out;
  EXPECT_EQ(r.json()["failedOp"], 0);
  EXPECT_NE(r.err.find("only the owner"), std::string::npos) << r.err;
  r = Store({"delete", key, "--key", bob_key});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Store({"entity", key}).code, 1);
  EXPECT_EQ(LiveCount(), 0);
  // Alice's failed delete used no nonce.
  r = Store({"create", "--key", key_, "--expires-in", "10", "--readonly"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.json()["nonce"], 4);
  EXPECT_EQ(Store({"entity", r.json()["created"][0]}).json()["creationFlags"], 1);
}

// Through a timed node (--rpc): the verb waits for the block and prints the landed receipt; a
// transaction that fails in its block comes back as the node's failed receipt.
TEST_F(CliWriteTest, ThroughATimedNode) {
  ServerProcess server;
  ASSERT_TRUE(server.Start(dir_, {"--store", store_, "--block-time", "200ms"})) << server.Log();
  const std::string rpc = server.url();
  CliRun r = Cli(dir_, {"create", "--key", key_, "--rpc", rpc, "--attr", "kind=doc", "--expires-in",
                        "50", "--timeout", "20s"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.json()["pending"], false);
  EXPECT_GT(r.json()["block"].get<int>(), 0);
  const std::string key = r.json()["created"][0];
  r = Cli(dir_, {"query", "kind = \"doc\"", "--rpc", rpc});
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(r.json()["entities"].size(), 1u);
  EXPECT_EQ(r.json()["entities"][0]["key"], key);
  r = Cli(dir_, {"delete", "0x" + std::string(64, '1'), "--key", key_, "--rpc", rpc});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.json()["status"]["code"], "not found") << r.out;
  r = Cli(dir_, {"delete", key, "--key", key_, "--rpc", rpc});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.json()["nonce"], 1);
  EXPECT_EQ(server.Signal(SIGTERM), 0) << server.Log();
}

TEST_F(CliWriteTest, ABadKeyFileIsRefused) {
  const auto create_with = [&](const std::string& key_file) {
    return Store({"create", "--key", key_file, "--expires-in", "10"});
  };
  // Readable by others.
  const std::string shared = (dir_ / "shared.key").string();
  std::filesystem::copy_file(key_, shared);
  ASSERT_EQ(::chmod(shared.c_str(), 0644), 0);
  CliRun r = create_with(shared);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("chmod 600"), std::string::npos) << r.err;
  // Not a key file, or a truncated one; no message shows the file's text.
  const std::string secret_hex = ReadFile(key_).substr(27, 13);
  for (const std::string& text :
       {std::string("garbage\n"), ReadFile(key_).substr(0, 40),
        std::string("veil-ledger-key v1 ed25519 ") + std::string(64, 'g') + "\n",
        std::string("veil-ledger-key v2 ed25519 ") + std::string(64, '0') + "\n",
        std::string("veil-ledger-key v1 composite ") + std::string(64, '0') + "\n"}) {
    const std::string bad = (dir_ / "bad.key").string();
    std::filesystem::remove(bad);
    std::ofstream(bad) << text;
    ASSERT_EQ(::chmod(bad.c_str(), 0600), 0);
    r = create_with(bad);
    EXPECT_EQ(r.code, 1) << text;
    EXPECT_NE(r.err.find("not a key file"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(secret_hex), std::string::npos) << "the key's text is echoed";
  }
  // Missing.
  r = create_with((dir_ / "none.key").string());
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("No such file"), std::string::npos) << r.err;
  // Nothing was written.
  EXPECT_EQ(LiveCount(), 0);
  EXPECT_EQ(Store({"block", "1"}).code, 1);
}

TEST_F(CliWriteTest, BadInputIsAClearErrorAndChangesNothing) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"create", "--expires-in", "10", "--num", "n=-1"}, "must be an integer"},
      {{"create", "--expires-in", "10", "--num", "n=18446744073709551616"}, "must be an integer"},
      {{"create", "--expires-in", "10", "--attr", "n=1", "--num", "n=2"}, "given twice"},
      {{"create", "--expires-in", "10", "--attr", "noequals"}, "expected NAME=VALUE"},
      {{"create", "--expires-in", "10", "--attr", "Upper=1"}, "attribute name"},
      {{"create", "--expires-in", "0"}, "at least 1 block"},
      {{"create", "--expires-in", "0s"}, "at least 1 block"},
      {{"create", "--expires-in", "3w"}, "one of s, m, h, d"},
      {{"create", "--expires-in", "soon"}, "a count of blocks or a duration"},
      {{"create", "--expires-in", "-5"}, "a count of blocks or a duration"},
      {{"create", "--expires-in", "18446744073709551615d"}, "too long"},
      {{"create", "--expires-in", "10", "--payload-file", "/nonexistent/x"}, "cannot open"},
      {{"update", "0x12", "--num", "a=1"}, "key"},
      {{"update", "0x" + std::string(64, '1')}, "nothing to change"},
      {{"update", "0x" + std::string(64, '1'), "--content-type", "text/plain", "--num", "a=1"},
       "needs --payload"},
      {{"transfer", "0x" + std::string(64, '1'), "--to", "0x12"}, "--to"},
      {{"create", "--expires-in", "10", "--timeout", "soon"}, "--timeout"},
  };
  for (const auto& [args, why] : cases) {
    std::vector<std::string> full = args;
    full.insert(full.end(), {"--key", key_});
    const CliRun r = Store(full);
    EXPECT_EQ(r.code, 1) << args[0] << " " << why << ": " << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  }
  // Usage errors (CLI11) exit 2.
  EXPECT_EQ(Store({"create", "--key", key_}).code, 2);  // no --expires-in
  EXPECT_EQ(Store({"create", "--key", key_, "--expires-in", "1", "--payload", "a", "--payload-file",
                   key_})
                .code,
            2);
  EXPECT_EQ(Cli(dir_, {"create", "--key", key_, "--expires-in", "1"}).code, 1);  // no target
  EXPECT_EQ(LiveCount(), 0);
  EXPECT_EQ(Store({"block", "1"}).code, 1);
}

}  // namespace
}  // namespace veil::ledger_node::testing
