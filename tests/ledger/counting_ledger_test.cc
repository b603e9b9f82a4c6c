// CountingLedgerTest: the ledger over a CountingStore (ledger_test_util.h), on every backend: the
// write-through cache, group commit (transactions sharing one durable write), and where the
// signature is checked.
#include "ledger/ledger_test_util.h"

namespace veil::ledger {
namespace {

// A ledger over a CountingStore, and submissions from threads of their own (group commit).
class CountingLedgerTest : public LedgerTest {
 protected:
  // A ledger over a CountingStore.
  CountingStore* OpenCounting(SignatureCheck check = SignatureCheck::kDeferWhenIdle) {
    auto store = OpenStore();
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!store.ok()) return nullptr;
    auto counting = std::make_unique<CountingStore>(std::move(store).value());
    CountingStore* c = counting.get();
    LedgerOptions o;
    o.chain_id = 42;
    o.limits = limits_;
    o.clock_ms = [this] { return ++clock_; };
    o.expiry_clock = expiry_clock_;
    o.signature_check = check;
    auto l = Ledger::Open(std::move(counting), o);
    EXPECT_TRUE(l.ok()) << l.status().ToString();
    if (!l.ok()) return nullptr;
    Close();
    ledger_ = std::move(l).value();
    return c;
  }

  // Holds the store's next write at its gate: submits a transaction of `w`'s (nonce 0) on a
  // thread of its own and returns it once its write (a group of one) waits there.
  Bytes HoldAWrite(CountingStore* c, Wallet& w) {
    c->Hold();
    Bytes first = Sign(w, {Create(1000)}, 0);
    SubmitAsync(first);
    c->WaitAtGate();
    return first;
  }

  // Submits `tx` on a thread of its own.
  void SubmitAsync(const Bytes& tx) {
    submitters_.emplace_back([this, tx] {
      auto r = ledger_->Submit(tx);
      std::lock_guard<std::mutex> lock(results_mu_);
      results_.insert_or_assign(TxHash(tx), std::move(r));
    });
  }
  // The same while a write is held at the gate, returning once `tx` waits behind the ones
  // queued before it: the queue's order is the order of these calls.
  void SubmitQueued(const Bytes& tx) {
    const std::size_t before = ledger_->WaitingTxs();
    SubmitAsync(tx);
    while (ledger_->WaitingTxs() == before) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  void JoinAll() {
    for (auto& t : submitters_) t.join();
    submitters_.clear();
  }

  Result<TxReceipt> ResultOf(const Bytes& tx) {
    std::lock_guard<std::mutex> lock(results_mu_);
    auto it = results_.find(TxHash(tx));
    if (it == results_.end()) return Internal("no result");
    return it->second;
  }

  std::vector<std::thread> submitters_;
  std::mutex results_mu_;
  std::map<Hash32, Result<TxReceipt>> results_;
};

// The node's write-through cache: once a sender's account and an entity have been written by
// this node, the next transactions on them reach the store with the block write alone (on
// PostgreSQL: one round trip a transaction), and what they do is the same as with reads.
TEST_P(CountingLedgerTest, TransactionsOnCachedStateNeedNoReads) {
  CountingStore* c = OpenCounting();
  ASSERT_NE(c, nullptr);
  Wallet w;
  const EntityKey k = MustCreate(w, Create(1000, {Attribute::Num("v", 1)}));
  EXPECT_EQ(c->reads, 1);  // the new sender's account
  const int reads = c->reads, writes = c->writes;
  MustCreate(w, Create(1000, {Attribute::Num("v", 2)}));
  UpdateOp u;
  u.key = k;
  u.set = {Attribute::Num("v", 3)};
  ASSERT_TRUE(Submit(w, {u}).status.ok());
  ExtendOp e;
  e.key = k;
  e.expires_block = 2000;
  ASSERT_TRUE(Submit(w, {e}).status.ok());
  EXPECT_EQ(c->reads, reads);        // no validation read
  EXPECT_EQ(c->writes, writes + 3);  // one block write each
  // A replay and an update of a deleted entity are still refused from the cache.
  const TxReceipt replay = *ledger_->Submit(Sign(w, {Create(1000)}, 0));
  EXPECT_EQ(replay.status.code(), Code::kFailedPrecondition) << replay.status.ToString();
  ASSERT_TRUE(Submit(w, {DeleteOp{k}}).status.ok());
  const TxReceipt gone = Submit(w, {u});
  EXPECT_EQ(gone.status.code(), Code::kNotFound) << gone.status.ToString();
  EXPECT_EQ(c->reads, reads);
  EXPECT_EQ(Get(k), std::nullopt);
  EXPECT_EQ(CountOf("v = 2"), 1u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// A group's validation reads go to the store in one call: the accounts of its new senders and
// the entities it names that the cache lacks (PrefetchLocked), however many transactions need
// them; the transactions then execute without reading.
// VerifyChain reads the chain a block (or a batch of entities) at a time and holds the writer's
// mutex (here: no reader connections) for one step at most: over a slow store (20 ms a block
// read, 21 blocks), a transaction submitted once the verify has begun lands while the verify is
// still running, and the verify then finishes over a chain that grew under it.
TEST_P(CountingLedgerTest, WritesProceedWhileTheChainIsVerified) {
  CountingStore* c = OpenCounting();
  ASSERT_NE(c, nullptr);
  Wallet w;
  for (std::uint64_t i = 0; i < 20; ++i) MustCreate(w, Create(1000, {Attribute::Num("i", i)}));
  c->block_read_delay_ms = 20;
  std::atomic<bool> verify_done{false};
  Status verified = Internal("not run");
  std::thread verify([&] {
    verified = ledger_->VerifyChain();
    verify_done = true;
  });
  while (c->block_reads.load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto r = ClientOf(w).Submit({Create(1000)});
  const bool landed_during_verify = !verify_done.load();
  verify.join();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->status.ok()) << r->status.ToString();
  EXPECT_TRUE(landed_during_verify) << "the write waited for the whole verify";
  EXPECT_TRUE(verified.ok()) << verified.ToString();
  EXPECT_EQ(Head(), 21u);
  c->block_read_delay_ms = 0;
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

TEST_P(CountingLedgerTest, AGroupReadsWhatItLacksInOneCall) {
  CountingStore* c = OpenCounting();
  ASSERT_NE(c, nullptr);
  Wallet a, x, y, z;
  const Bytes first = HoldAWrite(c, a);
  const int reads = c->reads;
  const EntityKey xk = ledger_->PredictKey(x.address(), 0);
  UpdateOp u;
  u.key = xk;
  u.set = {Attribute::Num("v", 2)};
  const Bytes x0 = Sign(x, {Create(1000, {Attribute::Num("v", 1)})}, 0);
  const Bytes x1 = Sign(x, {u}, 1);
  const Bytes y0 = Sign(y, {Create(1000)}, 0);
  const Bytes z0 = Sign(z, {Create(1000)}, 0);
  for (const Bytes* tx : {&x0, &x1, &y0, &z0}) SubmitQueued(*tx);
  c->Release();
  JoinAll();
  EXPECT_EQ(c->reads, reads + 1);  // three new senders and xk, in one call
  for (const Bytes* tx : {&first, &x0, &x1, &y0, &z0}) {
    auto r = ResultOf(*tx);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->status.ok()) << r->status.ToString();
  }
  EXPECT_EQ(Get(xk)->attributes, std::vector<Attribute>{Attribute::Num("v", 2)});
  EXPECT_EQ(ledger_->GetAccount(y.address())->tx_nonce, 1u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// Transactions that arrive while a block write is on its way to the disk gather and go into the
// next write together, each in a block of its own: a later one sees an earlier one's entity and
// nonce, a failed one takes no block and changes nothing, and the chain verifies.
TEST_P(CountingLedgerTest, ConcurrentSubmitsShareOneDurableWrite) {
  CountingStore* c = OpenCounting();
  ASSERT_NE(c, nullptr);
  Wallet a, x, y;
  const std::uint64_t h = Head();
  const std::size_t writes_before = c->group_sizes.size();
  const Bytes first = HoldAWrite(c, a);  // the first transaction's write (a group of one) is held
  const EntityKey xk = ledger_->PredictKey(x.address(), 0);
  UpdateOp u;
  u.key = xk;
  u.set = {Attribute::Num("v", 2)};
  const Bytes x0 = Sign(x, {Create(1000, {Attribute::Num("v", 1)})}, 0);
  const Bytes x1 = Sign(x, {u}, 1);
  const Bytes x0_again = Sign(x, {Create(1000)}, 0);  // a replay inside the group
  const Bytes y0 = Sign(y, {Create(1000)}, 0);
  for (const Bytes* tx : {&x0, &x1, &x0_again, &y0}) SubmitQueued(*tx);
  EXPECT_EQ(ledger_->WaitingTxs(), 4u);
  c->Release();
  JoinAll();
  EXPECT_EQ(
      std::vector<std::size_t>(c->group_sizes.begin() + static_cast<std::ptrdiff_t>(writes_before),
                               c->group_sizes.end()),
      (std::vector<std::size_t>{1, 3}));
  const std::vector<std::pair<const Bytes*, std::uint64_t>> landed = {
      {&first, h + 1}, {&x0, h + 2}, {&x1, h + 3}, {&y0, h + 4}};
  for (const auto& [tx, block] : landed) {
    auto r = ResultOf(*tx);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->status.ok()) << r->status.ToString();
    EXPECT_EQ(r->block, block);
    auto again = ledger_->GetReceipt(TxHash(*tx));
    ASSERT_TRUE(again.ok() && again->has_value());
    EXPECT_EQ((*again)->block, block);
  }
  auto replay = ResultOf(x0_again);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(replay->status.code(), Code::kFailedPrecondition) << replay->status.ToString();
  EXPECT_EQ(*ledger_->GetReceipt(TxHash(x0_again)), std::nullopt);
  EXPECT_EQ(Head(), h + 4);
  auto e = Get(xk);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->attributes, std::vector<Attribute>{Attribute::Num("v", 2)});
  EXPECT_EQ(e->created_block, h + 2);
  EXPECT_EQ(e->updated_block, h + 3);
  EXPECT_EQ(ledger_->GetAccount(x.address())->tx_nonce, 2u);
  for (std::uint64_t n = h + 1; n <= h + 4; ++n) {
    auto b = ledger_->GetBlock(n);
    ASSERT_TRUE(b.ok() && b->has_value()) << n;
    EXPECT_EQ((*b)->header.tx_count, 1u) << n;
  }
  EXPECT_TRUE(ledger_->VerifyChain().ok());
  // The cache holds the group's writes: the next transactions on them need no read.
  const int reads = c->reads;
  ClientOf(x).SetNextNonce(2);  // their transactions so far went around their clients
  ClientOf(y).SetNextNonce(1);
  ASSERT_TRUE(Submit(x, {ExtendOp{xk, 2000}}).status.ok());
  ASSERT_TRUE(Submit(y, {Create(1000)}).status.ok());
  EXPECT_EQ(c->reads, reads);
}

// A group is written as its net effect on the rows (one statement set for all its blocks): an
// entity updated twice, extended, transferred to a new account, one deleted, and one created and
// deleted inside the group all end as the blocks one by one would leave them, down to the expiry
// buckets behind the live count.
TEST_P(CountingLedgerTest, AGroupIsWrittenAsItsNetEffect) {
  CountingStore* c = OpenCounting();
  ASSERT_NE(c, nullptr);
  Wallet a, x, to;
  const EntityKey k1 =
      MustCreate(x, Create(50, {Attribute::Str("s", "a"), Attribute::Num("v", 1)}));
  const EntityKey k2 = MustCreate(x, Create(50, {Attribute::Num("v", 2)}));
  const std::uint64_t h = Head();
  const Bytes first = HoldAWrite(c, a);
  UpdateOp u1;
  u1.key = k1;
  u1.set = {Attribute::Num("v", 10)};
  u1.unset = {"s"};
  UpdateOp u2;
  u2.key = k1;
  u2.set = {Attribute::Str("t", "b")};
  const EntityKey k3 = ledger_->PredictKey(x.address(), 2);  // x's third create
  // k1: extended first (its attribute rows untouched), then changed twice; k2: extended, then
  // deleted (its bucket is the one before the group); k3: created and deleted.
  std::vector<Bytes> group = {
      Sign(x, {ExtendOp{k1, 80}}, 2),
      Sign(x, {u1}, 3),
      Sign(x, {ExtendOp{k2, 70}}, 4),
      Sign(x, {DeleteOp{k2}}, 5),
      Sign(x, {Create(60, {Attribute::Num("v", 3)})}, 6),
      Sign(x, {u2}, 7),
      Sign(x, {DeleteOp{k3}}, 8),
      Sign(x, {TransferOp{k1, to.address()}}, 9),
  };
  for (const Bytes& tx : group) SubmitQueued(tx);
  c->Release();
  JoinAll();
  EXPECT_EQ(c->group_sizes.back(), group.size());
  for (std::size_t i = 0; i < group.size(); ++i) {
    auto r = ResultOf(group[i]);
    ASSERT_TRUE(r.ok() && r->status.ok())
        << i << ": " << (r.ok() ? r->status : r.status()).ToString();
    EXPECT_EQ(r->block, h + 2 + i);
  }
  auto e1 = Get(k1);
  ASSERT_TRUE(e1);
  EXPECT_EQ(e1->attributes,
            (std::vector<Attribute>{Attribute::Str("t", "b"), Attribute::Num("v", 10)}));
  EXPECT_EQ(e1->expires_block, 80u);
  EXPECT_EQ(e1->owner, to.address());
  EXPECT_EQ(e1->updated_block, h + 9);
  EXPECT_EQ(Get(k2), std::nullopt);
  EXPECT_EQ(Get(k3), std::nullopt);
  EXPECT_EQ(CountOf("v = 10"), 1u);
  EXPECT_EQ(CountOf("s = \"a\""), 0u);
  EXPECT_EQ(CountOf("t = \"b\""), 1u);
  EXPECT_EQ(CountOf("v = 3"), 0u);
  EXPECT_EQ(CountOf("$owner = " + Hex(to.address())), 1u);
  EXPECT_EQ(CountOf("*"), 2u);  // k1 and the first transaction's entity
  EXPECT_EQ(ledger_->GetAccount(x.address())->tx_nonce, 10u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
  // Every block of the group keeps the stored rows after it in its row (entities_net; nothing
  // swept yet), not only the group's last (the head, whose counters the reads use).
  const std::string range = " FROM blocks WHERE number BETWEEN " + std::to_string(h + 2) + " AND " +
                            std::to_string(h + 9);
  std::string nets;
  if (IsPostgres()) {
    nets =
        PgPeek(schema_).Value("SELECT string_agg(entities_net::text, ',' ORDER BY number)" + range);
  } else if (GetParam().kind == BackendKind::kSqliteFile) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    const std::string sql = "SELECT group_concat(entities_net, ',') FROM (SELECT entities_net" +
                            range + " ORDER BY number)";
    ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW) {
      nets = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
  }
  if (GetParam().kind != BackendKind::kSqliteMemory) {
    EXPECT_EQ(nets, "3,3,3,2,3,3,2,2");
  }
  // Past block 50, and past 70, the old expiry buckets must hold nothing of k1 or k2 (k1 moved
  // to 80; k2 was taken from bucket 50).
  while (Head() < 75) ASSERT_TRUE(ledger_->SealBlock().ok());
  EXPECT_EQ(CountOf("*"), 2u);
  while (Head() < 85) ASSERT_TRUE(ledger_->SealBlock().ok());
  EXPECT_EQ(CountOf("*"), 1u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// More transactions wait than one group takes: the first kMaxGroupBlocks go together, the rest in
// the next group, and every Submit returns with its own block (one sender, so each block builds
// on the one before it, across the two groups too).
TEST_P(CountingLedgerTest, GroupsAreCappedAndTheRestFollow) {
  CountingStore* c = OpenCounting();
  ASSERT_NE(c, nullptr);
  Wallet a, x;
  const std::uint64_t h = Head();
  HoldAWrite(c, a);
  const std::size_t n = Ledger::kMaxGroupBlocks + 6;
  std::vector<Bytes> txs;
  for (std::size_t i = 0; i < n; ++i) txs.push_back(Sign(x, {Create(1000)}, i));
  for (const Bytes& tx : txs) SubmitQueued(tx);
  c->Release();
  JoinAll();
  EXPECT_EQ(std::vector<std::size_t>(c->group_sizes.end() - 3, c->group_sizes.end()),
            (std::vector<std::size_t>{1, Ledger::kMaxGroupBlocks, 6}));
  for (std::size_t i = 0; i < n; ++i) {
    auto r = ResultOf(txs[i]);
    ASSERT_TRUE(r.ok() && r->status.ok()) << i;
    EXPECT_EQ(r->block, h + 2 + i);
  }
  EXPECT_EQ(CountOf("*"), n + 1);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// A group write that fails for a reason other than a lost race may be one block's fault: the
// blocks are then written one by one, and only the transaction whose block fails reports it.
TEST_P(CountingLedgerTest, AFailedGroupWriteFailsOnlyItsOwnTransaction) {
  CountingStore* c = OpenCounting();
  ASSERT_NE(c, nullptr);
  Wallet a, x, y, z;
  const std::uint64_t h = Head();
  HoldAWrite(c, a);
  // y1 follows y0 from the same sender: once y0's block fails alone, y1 must be judged without
  // it (nonce too high), not over the failed group's view.
  const Bytes x0 = Sign(x, {Create(1000)}, 0), y0 = Sign(y, {Create(1000)}, 0),
              y1 = Sign(y, {Create(1000)}, 1), z0 = Sign(z, {Create(1000)}, 0);
  for (const Bytes* tx : {&x0, &y0, &y1, &z0}) SubmitQueued(*tx);
  c->fail_tx = TxHash(y0);
  c->Release();
  JoinAll();
  // The held write, the group (3 blocks), then x0, y0 and z0 alone; y1 takes no block.
  EXPECT_EQ(std::vector<std::size_t>(c->group_sizes.end() - 5, c->group_sizes.end()),
            (std::vector<std::size_t>{1, 4, 1, 1, 1}));
  auto ry1 = ResultOf(y1);
  ASSERT_TRUE(ry1.ok()) << ry1.status().ToString();
  EXPECT_EQ(ry1->status.code(), Code::kFailedPrecondition) << ry1->status.ToString();
  EXPECT_NE(ry1->status.message().find("nonce too high"), std::string::npos);
  auto rx = ResultOf(x0), ry = ResultOf(y0), rz = ResultOf(z0);
  ASSERT_TRUE(rx.ok() && rz.ok());
  EXPECT_EQ(rx->block, h + 2);
  EXPECT_EQ(rz->block, h + 3);
  ASSERT_FALSE(ry.ok());
  EXPECT_EQ(ry.status().code(), Code::kInternal);
  EXPECT_NE(ry.status().message().find("planted"), std::string::npos) << ry.status().ToString();
  EXPECT_EQ(*ledger_->GetReceipt(TxHash(y0)), std::nullopt);
  EXPECT_EQ(ledger_->GetAccount(y.address())->tx_nonce, 0u);
  EXPECT_EQ(Head(), h + 3);
  EXPECT_EQ(CountOf("*"), 3u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
  // Nothing of it stays behind: the same transaction lands once the store accepts it.
  c->fail_tx.reset();
  auto again = ledger_->Submit(y0);
  ASSERT_TRUE(again.ok() && again->status.ok());
  EXPECT_EQ(again->block, h + 4);
}

// A lone transaction's signature is checked at its write's commit gate where the gate overlaps
// the database's work (SignatureCheck::kDeferWhenIdle: PostgreSQL), first elsewhere (SQLite). A
// forged transaction at the gate executes like any other and is refused there with the
// signature's error, writing nothing: not its block, not its sender's nonce. One whose
// execution fails too reports the signature.
TEST_P(CountingLedgerTest, ALoneTransactionsSignatureIsCheckedAtTheCommitGate) {
  CountingStore* c = OpenCounting();
  ASSERT_NE(c, nullptr);
  Wallet a;
  const std::uint64_t h = Head();
  const int deferred = IsPostgres() ? 1 : 0;
  ASSERT_TRUE(ledger_->Submit(Sign(a, {Create(1000)}, 0))->status.ok());
  EXPECT_EQ(c->gated_writes, deferred);
  const int writes = c->writes;
  Bytes forged = Sign(a, {Create(1000)}, 1);
  forged[forged.size() - 1] ^= 0x40;
  auto bad = ledger_->Submit(forged);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kVerificationFailed) << bad.status().ToString();
  EXPECT_EQ(c->writes, writes + deferred);  // the write refused at its gate
  EXPECT_EQ(Head(), h + 1);
  EXPECT_EQ(ledger_->GetAccount(a.address())->tx_nonce, 1u);
  EXPECT_EQ(*ledger_->GetReceipt(TxHash(forged)), std::nullopt);
  EXPECT_EQ(CountOf("*"), 1u);
  // Forged and with a nonce from the future: no block to gate, and the signature is what it
  // reports.
  Bytes forged_gap = Sign(a, {Create(1000)}, 7);
  forged_gap[forged_gap.size() - 1] ^= 0x40;
  auto bad_gap = ledger_->Submit(forged_gap);
  ASSERT_FALSE(bad_gap.ok());
  EXPECT_EQ(bad_gap.status().code(), Code::kVerificationFailed) << bad_gap.status().ToString();
  // Nothing of the refused write stays behind: the genuine transaction with that nonce lands.
  auto good = ledger_->Submit(Sign(a, {Create(1000)}, 1));
  ASSERT_TRUE(good.ok() && good->status.ok()) << good.status().ToString();
  EXPECT_EQ(good->block, h + 2);
  EXPECT_EQ(CountOf("*"), 2u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// Only a transaction sealed alone has its check at the commit gate: with every check deferred
// (kDeferAlways), transactions that end up in a group are checked before it executes, so a
// forged one among them is refused without costing the others a write, and they land together.
TEST_P(CountingLedgerTest, DeferredChecksInAGroupAreMadeBeforeItExecutes) {
  CountingStore* c = OpenCounting(SignatureCheck::kDeferAlways);
  ASSERT_NE(c, nullptr);
  Wallet a, x, y, z;
  const std::uint64_t h = Head();
  HoldAWrite(c, a);
  const Bytes x0 = Sign(x, {Create(1000)}, 0), z0 = Sign(z, {Create(1000)}, 0);
  Bytes y0 = Sign(y, {Create(1000)}, 0);
  y0[y0.size() - 1] ^= 0x40;
  // y1 and y2 are forged as well, from one sender with one nonce: none may take a block.
  Bytes y0b = Sign(y, {Create(2000)}, 0);
  y0b[y0b.size() - 1] ^= 0x40;
  for (const Bytes* tx : std::vector<const Bytes*>{&x0, &y0, &y0b, &z0}) SubmitQueued(*tx);
  c->Release();
  JoinAll();
  // The held write (alone, gated), then the two genuine ones in one write with no gate.
  EXPECT_EQ(std::vector<std::size_t>(c->group_sizes.end() - 2, c->group_sizes.end()),
            (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(c->gated_writes, 1);
  for (const Bytes* forged : std::vector<const Bytes*>{&y0, &y0b}) {
    auto r = ResultOf(*forged);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kVerificationFailed) << r.status().ToString();
  }
  auto rx = ResultOf(x0), rz = ResultOf(z0);
  ASSERT_TRUE(rx.ok() && rz.ok());
  EXPECT_EQ(rx->block, h + 2);
  EXPECT_EQ(rz->block, h + 3);
  EXPECT_EQ(ledger_->GetAccount(y.address())->tx_nonce, 0u);
  EXPECT_EQ(Head(), h + 3);
  EXPECT_EQ(CountOf("*"), 3u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// kFirst checks every signature before the transaction joins a block: a forged one never
// reaches the store, and no write carries a gate.
TEST_P(CountingLedgerTest, SignaturesCheckedFirstNeverReachTheStore) {
  CountingStore* c = OpenCounting(SignatureCheck::kFirst);
  ASSERT_NE(c, nullptr);
  Wallet a;
  const int writes = c->writes;
  Bytes forged = Sign(a, {Create(1000)}, 0);
  forged[forged.size() - 1] ^= 0x40;
  EXPECT_EQ(ledger_->Submit(forged).status().code(), Code::kVerificationFailed);
  EXPECT_EQ(c->writes, writes);
  ASSERT_TRUE(ledger_->Submit(Sign(a, {Create(1000)}, 0))->status.ok());
  EXPECT_EQ(c->gated_writes, 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, CountingLedgerTest, ::testing::ValuesIn(Backends(false, false)),
                         [](const ::testing::TestParamInfo<Backend>& p) { return p.param.name; });

}  // namespace
}  // namespace veil::ledger
