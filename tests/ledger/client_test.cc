// ledger::Client over a LocalLedger (SQLite in memory), instant and timed: every operation's
// round trip, the nonce it tracks, races between two Clients on one key, the wait for a timed
// ledger's receipt and its timeout, failed operations, refused transactions, both signature
// schemes and the offline signer. tests/apps/client_remote_test.cc runs the same Client against
// a node over HTTP.
#include "veil/ledger/client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "ledger/ledger_test_util.h"

namespace veil::ledger {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t kChain = 42;

// A Signer over a copy of `key` (two Clients on one key need two Signers).
Signer SignerOf(const crypto::Ed25519SigningKey& key) {
  return Signer(crypto::Ed25519SigningKey::FromSeed(key.seed()));
}

class ClientTest : public ::testing::Test {
 protected:
  void Open(BlockMode mode = BlockMode::kInstant) {
    auto store = OpenSqliteStore(SqliteOptions{});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    LedgerOptions o;
    o.chain_id = kChain;
    o.mode = mode;
    o.expiry_clock = expiry_clock_;
    auto l = Ledger::Open(std::move(store).value(), o);
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    ledger_ = std::shared_ptr<Ledger>(std::move(l).value());
    api_ = std::make_unique<LocalLedger>(ledger_);
  }
  void SetUp() override { Open(); }
  void TearDown() override { StopSealing(); }

  // Timed mode: a thread seals a block every `period` until StopSealing.
  void StartSealing(std::chrono::milliseconds period) {
    sealer_ = std::thread([this, period] {
      while (!stop_) {
        std::this_thread::sleep_for(period);
        EXPECT_TRUE(ledger_->SealBlock().ok());
      }
    });
  }
  void StopSealing() {
    stop_ = true;
    if (sealer_.joinable()) sealer_.join();
    stop_ = false;
  }

  std::uint64_t AccountNonce(const Address& a) {
    auto acct = api_->GetAccount(a);
    EXPECT_TRUE(acct.ok()) << acct.status().ToString();
    return acct.ok() ? acct->tx_nonce : ~0ull;
  }

  crypto::Ed25519SigningKey key_ = crypto::Ed25519SigningKey::Generate();
  // The nonce tests give small expiry blocks: block numbers (the lease-clock tests set kAuto).
  ExpiryClock expiry_clock_ = ExpiryClock::kBlocks;
  std::shared_ptr<Ledger> ledger_;
  std::unique_ptr<LocalLedger> api_;
  std::thread sealer_;
  std::atomic<bool> stop_{false};
};

// Options that wait at most `timeout` for a timed ledger's receipt.
ClientOptions Waiting(std::chrono::milliseconds timeout) {
  ClientOptions o;
  o.receipt_timeout = timeout;
  return o;
}

// Whether `r` is a landed receipt (and if not, why).
::testing::AssertionResult Landed(const Result<TxReceipt>& r) {
  if (!r.ok()) return ::testing::AssertionFailure() << "error: " << r.status().ToString();
  if (!r->status.ok()) return ::testing::AssertionFailure() << "failed: " << r->status.ToString();
  if (r->pending || r->block == 0) return ::testing::AssertionFailure() << "not landed";
  return ::testing::AssertionSuccess();
}

TEST_F(ClientTest, EveryOperationRoundTrips) {
  Client c(*api_, SignerOf(key_));
  auto created =
      c.Create(Create(100, {Attribute::Num("n", 7), Attribute::Str("s", "x")}, {9, 8, 7}));
  ASSERT_TRUE(Landed(created));
  ASSERT_EQ(created->created.size(), 1u);
  const EntityKey k = created->created[0];
  EXPECT_EQ(k, DeriveEntityKey(kChain, c.address(), 0));
  EXPECT_EQ(created->sender, c.address());
  auto e = api_->Get(k);
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_EQ((*e)->owner, c.address());
  EXPECT_EQ((*e)->payload, (Bytes{9, 8, 7}));

  UpdateOp u;
  u.key = k;
  u.set = {Attribute::Num("n", 8)};
  u.unset = {"s"};
  u.replace_payload = true;
  u.content_type = "text/plain";
  u.payload = {1};
  ASSERT_TRUE(Landed(c.Update(u)));
  e = api_->Get(k);
  EXPECT_EQ((*e)->attributes, std::vector<Attribute>{Attribute::Num("n", 8)});
  EXPECT_EQ((*e)->content_type, "text/plain");

  ASSERT_TRUE(Landed(c.Extend(k, 500)));
  EXPECT_EQ((*api_->Get(k))->expires_block, 500u);

  Client other(*api_, Signer(crypto::Ed25519SigningKey::Generate()));
  ASSERT_TRUE(Landed(c.Transfer(k, other.address())));
  EXPECT_EQ((*api_->Get(k))->owner, other.address());
  // Now only the new owner may delete it.
  auto denied = c.Delete(k);
  ASSERT_TRUE(denied.ok());
  EXPECT_EQ(denied->status.code(), Code::kPermissionDenied) << denied->status.ToString();
  ASSERT_TRUE(Landed(other.Delete(k)));
  EXPECT_EQ(*api_->Get(k), std::nullopt);
  EXPECT_EQ(AccountNonce(c.address()), 4u);
  EXPECT_EQ(AccountNonce(other.address()), 1u);
}

// Several operations in one transaction apply together: a create and an update of the entity
// it creates (its key predicted), then a create beside a failing delete, which leaves nothing.
TEST_F(ClientTest, OperationsInOneTransaction) {
  Client c(*api_, SignerOf(key_));
  const EntityKey k = DeriveEntityKey(kChain, c.address(), 0);
  UpdateOp u;
  u.key = k;
  u.set = {Attribute::Num("v", 2)};
  auto r = c.Submit({Create(100, {Attribute::Num("v", 1)}), u, ExtendOp{k, 200}});
  ASSERT_TRUE(Landed(r));
  EXPECT_EQ(r->created, std::vector<EntityKey>{k});
  EXPECT_EQ((*api_->Get(k))->attributes, std::vector<Attribute>{Attribute::Num("v", 2)});
  DeleteOp missing;
  missing.key[0] = 0x42;
  auto failed = c.Submit({Create(100), missing});
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->status.code(), Code::kNotFound);
  EXPECT_EQ(failed->failed_op, std::optional<std::size_t>(1));
  EXPECT_EQ(api_->Count("*")->count, 1u);
}

// The client reads the account once and counts from there: receipts carry 0, 1, 2, ..., and a
// transaction made behind its back (another Client, same key) is not seen until the ledger
// refuses the stale nonce, when the client re-reads and lands the next one anyway.
TEST_F(ClientTest, TracksTheNonceAcrossCalls) {
  Client c(*api_, SignerOf(key_));
  for (std::uint64_t i = 0; i < 4; ++i) {
    auto r = c.Create(Create(100));
    ASSERT_TRUE(Landed(r));
    EXPECT_EQ(r->nonce, i);
  }
  EXPECT_EQ(*c.NextNonce(), 4u);
  Client behind_its_back(*api_, SignerOf(key_));
  ASSERT_TRUE(Landed(behind_its_back.Create(Create(100, {Attribute::Num("other", 1)}))));
  EXPECT_EQ(*c.NextNonce(), 4u);  // counted, not read
  auto r = c.Create(Create(100));
  ASSERT_TRUE(Landed(r));
  EXPECT_EQ(r->nonce, 5u);
  EXPECT_EQ(*c.NextNonce(), 6u);
  EXPECT_EQ(AccountNonce(c.address()), 6u);
}

// A failed operation uses no nonce: the next transaction carries the same one and lands.
TEST_F(ClientTest, AFailedOperationLeavesTheNonce) {
  Client c(*api_, SignerOf(key_));
  ASSERT_TRUE(Landed(c.Create(Create(100))));
  DeleteOp missing;
  missing.key[0] = 1;
  auto failed = c.Submit({missing});
  ASSERT_TRUE(failed.ok()) << failed.status().ToString();
  EXPECT_EQ(failed->status.code(), Code::kNotFound) << failed->status.ToString();
  EXPECT_EQ(failed->failed_op, std::optional<std::size_t>(0));
  EXPECT_EQ(failed->nonce, 1u);
  EXPECT_EQ(failed->block, 0u);
  EXPECT_EQ(*c.NextNonce(), 1u);
  auto next = c.Create(Create(100));
  ASSERT_TRUE(Landed(next));
  EXPECT_EQ(next->nonce, 1u);
}

// A transaction refused before signing (over a limit, no operations) and one the ledger refuses
// (a wrong chain) change nothing, the count included.
TEST_F(ClientTest, RefusedTransactionsChangeNothing) {
  Client c(*api_, SignerOf(key_));
  auto big = c.Create(Create(100, {}, Bytes(Limits::Arkiv().max_payload_bytes + 1, 1)));
  EXPECT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), Code::kResourceExhausted) << big.status().ToString();
  auto empty = c.Submit({});
  EXPECT_EQ(empty.status().code(), Code::kInvalidArgument) << empty.status().ToString();
  EXPECT_EQ(*c.NextNonce(), 0u);
  ASSERT_TRUE(Landed(c.Create(Create(100))));
  Client wrong_chain = Client::Offline(SignerOf(key_), kChain + 1, 1);
  auto tx = wrong_chain.SignNext({Create(100)});
  ASSERT_TRUE(tx.ok());
  EXPECT_EQ(api_->Submit(tx->encoded).status().code(), Code::kInvalidArgument);
  auto r = c.Create(Create(100));
  ASSERT_TRUE(Landed(r));
  EXPECT_EQ(r->nonce, 1u);
}

// A count ahead of the account ("nonce too high": the transaction itself fails) is corrected
// from the account, and the transaction lands with the account's nonce.
TEST_F(ClientTest, ACountAheadOfTheAccountIsCorrected) {
  Client c(*api_, SignerOf(key_));
  c.SetNextNonce(5);
  auto r = c.Create(Create(100));
  ASSERT_TRUE(Landed(r));
  EXPECT_EQ(r->nonce, 0u);
  EXPECT_EQ(*c.NextNonce(), 1u);
}

// Two Clients on one key that both read nonce 0: the second one's transaction is refused as a
// replay, and the client re-reads the account, signs again and lands it.
TEST_F(ClientTest, ANonceRaceIsRetriedAndBothLand) {
  Client a(*api_, SignerOf(key_));
  Client b(*api_, SignerOf(key_));
  ASSERT_EQ(*a.NextNonce(), 0u);
  ASSERT_EQ(*b.NextNonce(), 0u);
  auto ra = a.Create(Create(100, {Attribute::Str("by", "a")}));
  ASSERT_TRUE(Landed(ra));
  auto rb = b.Create(Create(100, {Attribute::Str("by", "b")}));
  ASSERT_TRUE(Landed(rb));
  EXPECT_EQ(ra->nonce, 0u);
  EXPECT_EQ(rb->nonce, 1u);
  EXPECT_EQ(api_->Count("by = \"a\"")->count, 1u);
  EXPECT_EQ(api_->Count("by = \"b\"")->count, 1u);
  // At most max_attempts submissions: with one, the lost race is the answer.
  ClientOptions once;
  once.max_attempts = 1;
  Client c(*api_, SignerOf(key_), once);
  c.SetNextNonce(0);
  auto rc = c.Create(Create(100));
  EXPECT_EQ(rc.status().code(), Code::kUnavailable) << rc.status().ToString();
  EXPECT_NE(rc.status().message().find("nonce was taken"), std::string::npos);
  EXPECT_EQ(*c.NextNonce(), 2u);  // re-read: the next one lands
  ASSERT_TRUE(Landed(c.Create(Create(100))));
}

// Two Clients on one key submit the same operations with the same nonce: the same signed bytes,
// one transaction, whose landed receipt both get (as over a node).
TEST_F(ClientTest, TwinTransactionsAreOne) {
  Client a(*api_, SignerOf(key_));
  Client b(*api_, SignerOf(key_));
  ASSERT_EQ(*b.NextNonce(), 0u);
  auto ra = a.Create(Create(100));
  auto rb = b.Create(Create(100));
  ASSERT_TRUE(Landed(ra));
  ASSERT_TRUE(Landed(rb));
  EXPECT_EQ(ra->tx_hash, rb->tx_hash);
  EXPECT_EQ(api_->Count("*")->count, 1u);
  EXPECT_EQ(*b.NextNonce(), 1u);
}

// Two threads, each with its own Client on one key, racing for every nonce: every transaction
// lands exactly once.
TEST_F(ClientTest, ConcurrentClientsOnOneKeyAllLand) {
  constexpr int kPerThread = 15;
  ClientOptions o;
  o.max_attempts = 1000;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      Client c(*api_, SignerOf(key_), o);
      for (int i = 0; i < kPerThread; ++i) {
        auto r = c.Create(Create(100, {Attribute::Num("t", static_cast<std::uint64_t>(t))}));
        EXPECT_TRUE(r.ok() && r->status.ok())
            << (r.ok() ? r->status.ToString() : r.status().ToString());
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(api_->Count("t = 0")->count, std::uint64_t{kPerThread});
  EXPECT_EQ(api_->Count("t = 1")->count, std::uint64_t{kPerThread});
  EXPECT_EQ(AccountNonce(AddressOf(SigScheme::kEd25519, key_.public_key())), 2u * kPerThread);
}

// One Client shared by threads: its mutex keeps the nonces in order, so nothing is retried.
TEST_F(ClientTest, OneClientSharedByThreads) {
  ClientOptions o;
  o.max_attempts = 1;  // a race would fail the test
  Client c(*api_, SignerOf(key_), o);
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        auto r = c.Create(Create(100));
        EXPECT_TRUE(r.ok() && r->status.ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(AccountNonce(c.address()), 30u);
}

// A lifetime becomes an expiry on the chain's clock: an instant chain's slots of its nominal
// block time (2 s), from the slot of `now`, rounded up.
TEST_F(ClientTest, ExpiryForALifetime) {
  expiry_clock_ = ExpiryClock::kAuto;
  Open();
  Client c(*api_, SignerOf(key_));
  const std::chrono::system_clock::time_point now(std::chrono::milliseconds(1'800'000'001'000));
  EXPECT_EQ(*c.ExpiryFor(60s, now), 900'000'000u + 30u);
  EXPECT_EQ(*c.ExpiryFor(61s, now), 900'000'000u + 31u);
  EXPECT_EQ(c.ExpiryFor(0ms, now).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(c.ExpiryFor(-1ms, now).status().code(), Code::kInvalidArgument);
  // From the real now: the entity lands and lives.
  auto expires = c.ExpiryFor(60s);
  ASSERT_TRUE(expires.ok()) << expires.status().ToString();
  auto r = c.Create(Create(*expires));
  ASSERT_TRUE(Landed(r));
  EXPECT_TRUE(api_->Get(r->created.at(0))->has_value());
  // An offline client has no chain to ask.
  Client offline = Client::Offline(SignerOf(key_), kChain);
  EXPECT_EQ(offline.ExpiryFor(60s).status().code(), Code::kFailedPrecondition);
}

TEST_F(ClientTest, TimedLedgerReceiptIsWaitedFor) {
  Open(BlockMode::kTimed);
  StartSealing(30ms);
  const ClientOptions o = Waiting(10s);
  Client c(*api_, SignerOf(key_), o);
  auto r = c.Create(Create(1000, {Attribute::Num("n", 1)}));
  ASSERT_TRUE(Landed(r));
  ASSERT_EQ(r->created.size(), 1u);
  EXPECT_TRUE(api_->Get(r->created[0])->has_value());
  auto again = c.Extend(r->created[0], 2000);
  ASSERT_TRUE(Landed(again));
  EXPECT_GT(again->block, r->block);
  EXPECT_EQ(again->nonce, 1u);
}

// No block is sealed: the wait ends at the deadline with kUnavailable naming the transaction;
// the transaction stays queued, lands with the next block, and the client then goes on from the
// account.
TEST_F(ClientTest, TheWaitTimesOutWhenNoBlockIsSealed) {
  Open(BlockMode::kTimed);
  ClientOptions o = Waiting(150ms);
  o.first_poll = 5ms;
  o.max_poll = 40ms;
  Client c(*api_, SignerOf(key_), o);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = c.Create(Create(1000));
  const auto waited = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kUnavailable);
  EXPECT_NE(r.status().message().find("no receipt for transaction 0x"), std::string::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().message().find("within 150 ms"), std::string::npos);
  EXPECT_GE(waited, 150ms);
  EXPECT_LT(waited, 5s);
  ASSERT_EQ(ledger_->Stats()->queued_txs, 1u);
  ASSERT_TRUE(ledger_->SealBlock().ok());
  EXPECT_EQ(AccountNonce(c.address()), 1u);
  StartSealing(20ms);
  auto next = c.Create(Create(1000));
  ASSERT_TRUE(Landed(next));
  EXPECT_EQ(next->nonce, 1u);
}

// Timed mode, two Clients on one key submit nonce 0 into the same block: one lands, the other
// fails in the block (no receipt is kept in process), and its client sees the account pass its
// nonce, signs again and lands in a later block.
TEST_F(ClientTest, ATimedNonceRaceIsRetried) {
  Open(BlockMode::kTimed);
  const ClientOptions o = Waiting(10s);
  Client a(*api_, SignerOf(key_), o);
  Client b(*api_, SignerOf(key_), o);
  ASSERT_EQ(*a.NextNonce(), 0u);
  ASSERT_EQ(*b.NextNonce(), 0u);
  Result<TxReceipt> ra = Internal("not run"), rb = Internal("not run");
  std::thread ta([&] { ra = a.Create(Create(1000, {Attribute::Str("by", "a")})); });
  std::thread tb([&] { rb = b.Create(Create(1000, {Attribute::Str("by", "b")})); });
  while (ledger_->Stats()->queued_txs < 2) std::this_thread::sleep_for(1ms);
  StartSealing(20ms);
  ta.join();
  tb.join();
  ASSERT_TRUE(Landed(ra));
  ASSERT_TRUE(Landed(rb));
  EXPECT_NE(ra->nonce, rb->nonce);
  EXPECT_NE(ra->block, rb->block);
  EXPECT_EQ(api_->Count("*")->count, 2u);
}

// A failed operation on a timed ledger in process: no receipt is kept, so the wait ends with
// the timeout, and the count is read again afterwards (the nonce was not used).
TEST_F(ClientTest, ATimedFailureInProcessEndsAtTheTimeout) {
  Open(BlockMode::kTimed);
  StartSealing(10ms);
  const ClientOptions o = Waiting(200ms);
  Client c(*api_, SignerOf(key_), o);
  DeleteOp missing;
  missing.key[0] = 1;
  auto r = c.Submit({missing});
  EXPECT_EQ(r.status().code(), Code::kUnavailable) << r.status().ToString();
  auto next = c.Create(Create(1000));
  ASSERT_TRUE(Landed(next));
  EXPECT_EQ(next->nonce, 0u);
}

// Without waiting, a timed ledger's pending receipts come back at once with consecutive nonces,
// and the block takes them all.
TEST_F(ClientTest, WithoutWaitingPendingReceiptsComeAtOnce) {
  Open(BlockMode::kTimed);
  ClientOptions o;
  o.wait_for_receipt = false;
  Client c(*api_, SignerOf(key_), o);
  for (std::uint64_t i = 0; i < 3; ++i) {
    auto r = c.Create(Create(1000));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->pending);
    EXPECT_EQ(r->nonce, i);
  }
  auto sealed = ledger_->SealBlock();
  ASSERT_TRUE(sealed.ok());
  ASSERT_EQ(sealed->receipts.size(), 3u);
  for (const auto& r : sealed->receipts) EXPECT_TRUE(r.status.ok()) << r.status.ToString();
}

// The composite ML-DSA-65 + Ed25519 scheme: its own address, and the same tracking.
TEST_F(ClientTest, CompositeKey) {
  auto key = crypto::CompositeSigningKey::Generate();
  const Address expected =
      AddressOf(SigScheme::kCompositeMlDsa65Ed25519, key.verifying_key().bytes());
  Client c(*api_, Signer(std::move(key)));
  EXPECT_EQ(c.signer().scheme(), SigScheme::kCompositeMlDsa65Ed25519);
  EXPECT_EQ(c.address(), expected);
  auto r = c.Create(Create(100));
  ASSERT_TRUE(Landed(r));
  EXPECT_EQ(r->sender, expected);
  EXPECT_EQ((*api_->Get(r->created.at(0)))->owner, expected);
  ASSERT_TRUE(Landed(c.Delete(r->created[0])));
  EXPECT_EQ(AccountNonce(expected), 2u);
}

// SignNext counts ahead without submitting (a pipeline: the caller submits); Sign takes the
// nonce it is given and counts nothing. An offline client signs only.
TEST_F(ClientTest, SignNextAndSign) {
  Client c(*api_, SignerOf(key_));
  auto t0 = c.SignNext({Create(100)});
  auto t1 = c.SignNext({Create(100)});
  ASSERT_TRUE(t0.ok() && t1.ok());
  EXPECT_EQ(t0->nonce, 0u);
  EXPECT_EQ(t1->nonce, 1u);
  EXPECT_EQ(t1->hash, TxHash(t1->encoded));
  ASSERT_TRUE(api_->Submit(t0->encoded)->status.ok());
  ASSERT_TRUE(api_->Submit(t1->encoded)->status.ok());
  auto replay = c.Sign({Create(100)}, 1);
  ASSERT_TRUE(replay.ok());
  EXPECT_TRUE(IsNonceReplayed(api_->Submit(*replay)->status));
  EXPECT_EQ(*c.NextNonce(), 2u);
  ASSERT_TRUE(Landed(c.Create(Create(100))));

  Client offline = Client::Offline(SignerOf(key_), kChain, 3);
  EXPECT_EQ(*offline.ChainId(), kChain);
  auto p = offline.SignNext({Create(100)});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->nonce, 3u);
  EXPECT_EQ(*offline.NextNonce(), 4u);
  offline.ForgetNonce();  // nothing to read: the count stays
  EXPECT_EQ(*offline.NextNonce(), 4u);
  EXPECT_EQ(offline.Create(Create(100)).status().code(), Code::kFailedPrecondition);
  ASSERT_TRUE(api_->Submit(p->encoded)->status.ok());
  EXPECT_EQ(AccountNonce(c.address()), 4u);
}

}  // namespace
}  // namespace veil::ledger
