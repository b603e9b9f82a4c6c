// ledger::Client over a node (RemoteLedger -> in-process Node on 127.0.0.1, SQLite in memory),
// instant and timed: the round trip of every operation, a nonce race between two Clients on one
// key, the wait for a timed node's receipt and its timeout, and a transaction that fails in its
// block (the node keeps its receipt, FailedReceiptLog). tests/ledger/client_test.cc covers the
// in-process ledger.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "apps_test_util.h"
#include "veil/ledger/client.h"

namespace veil::ledger_node::testing {
namespace {

using namespace std::chrono_literals;
using ledger::Attribute;
using ledger::Client;
using ledger::ClientOptions;
using ledger::Signer;
using ledger::TxReceipt;

::testing::AssertionResult Landed(const Result<TxReceipt>& r) {
  if (!r.ok()) return ::testing::AssertionFailure() << "error: " << r.status().ToString();
  if (!r->status.ok()) return ::testing::AssertionFailure() << "failed: " << r->status.ToString();
  if (r->pending || r->block == 0) return ::testing::AssertionFailure() << "not landed";
  return ::testing::AssertionSuccess();
}

class ClientRemoteTest : public ::testing::Test {
 protected:
  // A node with `block_time` (0: instant) and a RemoteLedger to it.
  void Start(std::chrono::milliseconds block_time) {
    NodeOptions o;
    o.store = "sqlite::memory:";
    o.block_time = block_time;
    o.expiry_clock = ledger::ExpiryClock::kBlocks;  // the tests give small expiry blocks
    StartNode(o, &node_, &api_);
  }
  void TearDown() override {
    api_.reset();
    if (node_) {
      EXPECT_TRUE(node_->Stop().ok());
    }
  }
  Signer SignerOfKey() const { return Signer(crypto::Ed25519SigningKey::FromSeed(key_.seed())); }

  crypto::Ed25519SigningKey key_ = crypto::Ed25519SigningKey::Generate();
  std::unique_ptr<Node> node_;
  std::unique_ptr<ledger::RemoteLedger> api_;
};

TEST_F(ClientRemoteTest, EveryOperationOverTheNode) {
  ASSERT_NO_FATAL_FAILURE(Start(0ms));
  Client c(*api_, SignerOfKey());
  auto r = c.Create(Create(100, {Attribute::Str("kind", "doc")}));
  ASSERT_TRUE(Landed(r));
  const ledger::EntityKey k = r->created.at(0);
  ledger::UpdateOp u;
  u.key = k;
  u.set = {Attribute::Num("n", 1)};
  ASSERT_TRUE(Landed(c.Update(u)));
  ASSERT_TRUE(Landed(c.Extend(k, 500)));
  Client other(*api_, Signer(crypto::Ed25519SigningKey::Generate()));
  ASSERT_TRUE(Landed(c.Transfer(k, other.address())));
  auto e = api_->Get(k);
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_EQ((*e)->owner, other.address());
  EXPECT_EQ((*e)->expires_block, 500u);
  ASSERT_TRUE(Landed(other.Delete(k)));
  EXPECT_EQ(*api_->Get(k), std::nullopt);
  EXPECT_EQ(*c.NextNonce(), 4u);
  EXPECT_EQ(api_->GetAccount(c.address())->tx_nonce, 4u);
}

TEST_F(ClientRemoteTest, ANonceRaceIsRetriedAndBothLand) {
  ASSERT_NO_FATAL_FAILURE(Start(0ms));
  Client a(*api_, SignerOfKey());
  Client b(*api_, SignerOfKey());
  ASSERT_EQ(*a.NextNonce(), 0u);
  ASSERT_EQ(*b.NextNonce(), 0u);
  // Different operations: the same ones with the same nonce would be the same signed bytes, one
  // transaction (RemoteLedger::Submit returns its landed receipt to both).
  auto ra = a.Create(Create(100, {Attribute::Str("by", "a")}));
  auto rb = b.Create(Create(100, {Attribute::Str("by", "b")}));
  ASSERT_TRUE(Landed(ra));
  ASSERT_TRUE(Landed(rb));
  EXPECT_EQ(ra->nonce, 0u);
  EXPECT_EQ(rb->nonce, 1u);
  EXPECT_EQ(api_->Count("*")->count, 2u);
}

// A timed node: the client waits for the block; a transaction that fails in its block comes
// back as the node's failed receipt, and the nonce it did not use goes to the next one.
TEST_F(ClientRemoteTest, ATimedNodesReceiptsAreWaitedFor) {
  ASSERT_NO_FATAL_FAILURE(Start(50ms));
  ClientOptions o;
  o.receipt_timeout = 20s;
  Client c(*api_, SignerOfKey(), o);
  auto r = c.Create(Create(1000));
  ASSERT_TRUE(Landed(r));
  EXPECT_EQ(r->nonce, 0u);
  ledger::DeleteOp missing;
  missing.key[0] = 7;
  auto failed = c.Submit({missing});
  ASSERT_TRUE(failed.ok()) << failed.status().ToString();
  EXPECT_EQ(failed->status.code(), Code::kNotFound) << failed->status.ToString();
  EXPECT_EQ(failed->failed_op, std::optional<std::size_t>(0));
  EXPECT_FALSE(failed->pending);
  auto next = c.Create(Create(1000));
  ASSERT_TRUE(Landed(next));
  EXPECT_EQ(next->nonce, 1u);
  // Two Clients on one key race for nonce 2 in one block: the loser's failed receipt (a replay)
  // sends it back to the account, and it lands in a later block.
  Client d(*api_, SignerOfKey(), o);
  ASSERT_EQ(*d.NextNonce(), 2u);
  Result<TxReceipt> rc = Internal("not run"), rd = Internal("not run");
  std::thread tc([&] { rc = c.Create(Create(1000, {Attribute::Str("by", "c")})); });
  std::thread td([&] { rd = d.Create(Create(1000, {Attribute::Str("by", "d")})); });
  tc.join();
  td.join();
  ASSERT_TRUE(Landed(rc));
  ASSERT_TRUE(Landed(rd));
  EXPECT_NE(rc->nonce, rd->nonce);
  EXPECT_EQ(api_->Count("by = \"c\" || by = \"d\"")->count, 2u);
}

// A node whose next block is an hour away: the wait ends at the deadline with a clear error.
TEST_F(ClientRemoteTest, TheWaitTimesOut) {
  ASSERT_NO_FATAL_FAILURE(Start(std::chrono::hours(1)));
  ClientOptions o;
  o.receipt_timeout = 300ms;
  Client c(*api_, SignerOfKey(), o);
  auto r = c.Create(Create(1000));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kUnavailable);
  EXPECT_NE(r.status().message().find("no receipt for transaction"), std::string::npos)
      << r.status().ToString();
  auto sealed = node_->Seal();
  ASSERT_TRUE(sealed.ok());
  ASSERT_EQ(sealed->receipts.size(), 1u);
  EXPECT_TRUE(sealed->receipts[0].status.ok());
}

}  // namespace
}  // namespace veil::ledger_node::testing
