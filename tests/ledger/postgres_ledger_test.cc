// PostgresLedgerTest: the ledger on PostgreSQL only (ledger_test_util.h): several nodes on one
// database, the head guard and lost races, a failing pipeline, the statement shapes.
#include "ledger/ledger_test_util.h"

namespace veil::ledger {
namespace {

// A read is one round trip while the head stays where this node last saw it: the database's
// head travels with the read's statement (Store::CarryStateWithNextRead); when another node has
// moved it, the read runs again at the new head, and sees that node's block. The same holds on a
// reader connection.
TEST_P(PostgresLedgerTest, ReadsCarryTheHeadInOneRoundTrip) {
  auto store = OpenStore();
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  Store* writer = store->get();
  LedgerOptions o;
  o.chain_id = 42;
  o.limits = limits_;
  o.clock_ms = [this] { return ++clock_; };
  o.read_connections = 0;  // reads on the writer's connection, whose round trips we count
  auto opened = Ledger::Open(std::move(*store), o);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  ledger_ = std::move(opened).value();
  Wallet a, b;
  const EntityKey k =
      MustCreate(a, Create(100, {Attribute::Num("n", 1), Attribute::Str("s", "x")}));
  auto trips = [&](const std::function<void()>& f) {
    const std::uint64_t before = writer->RoundTrips();
    f();
    return writer->RoundTrips() - before;
  };
  auto reads = [&] {
    EXPECT_TRUE(Get(k).has_value());
    EXPECT_EQ(CountOf("s = \"x\""), 1u);
    EXPECT_EQ(CountOf("*"), 1u);
    auto page = ledger_->Query("n >= 1 && n < 5");  // a range: planned per call
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    EXPECT_EQ(page->entities.size(), 1u);
  };
  reads();  // each shape is prepared on its first use
  EXPECT_EQ(trips([&] { EXPECT_TRUE(Get(k).has_value()); }), 1u);
  EXPECT_EQ(trips([&] { EXPECT_EQ(CountOf("s = \"x\""), 1u); }), 1u);
  EXPECT_EQ(trips([&] { EXPECT_EQ(CountOf("*"), 1u); }), 1u);
  EXPECT_EQ(trips([&] {
              auto page = ledger_->Query("n >= 1 && n < 5");
              ASSERT_TRUE(page.ok());
              EXPECT_EQ(page->entities.size(), 1u);
            }),
            1u);
  EXPECT_EQ(trips(reads), 4u);
  // Another node writes: the next read finds the head moved and reads again (two round trips),
  // seeing the new entity; the one after is back to one.
  auto other = OpenLedger();
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  const auto landed = (*other)->Submit(Sign(b, {Create(100, {Attribute::Num("n", 2)})}, 0));
  ASSERT_TRUE(landed.ok() && landed->status.ok());
  EXPECT_EQ(trips([&] { EXPECT_EQ(CountOf("*"), 2u); }), 2u);
  EXPECT_EQ(ledger_->Head().number, landed->block);
  EXPECT_EQ(trips([&] { EXPECT_EQ(CountOf("*"), 2u); }), 1u);
  const EntityKey k2 = landed->created.at(0);
  auto moved = (*other)->Submit(Sign(b, {ExtendOp{k2, 200}}, 1));
  ASSERT_TRUE(moved.ok() && moved->status.ok());
  EXPECT_EQ(trips([&] { EXPECT_EQ(Get(k2)->expires_block, 200u); }), 2u);

  // A reader connection: the state comes with the read, or alone when no read carried it.
  auto reader = writer->OpenReader();
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  Store& r = **reader;
  ASSERT_TRUE(r.GetEntities({k}).ok());  // prepares the read
  ASSERT_TRUE(r.LoadState().ok());       // prepares the state's statement
  std::uint64_t before = r.RoundTrips();
  r.CarryStateWithNextRead();
  auto got = r.GetEntities({k});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->size(), 1u);
  auto st = r.TakeCarriedState();
  ASSERT_TRUE(st.ok() && st->has_value());
  EXPECT_EQ((*st)->head, (*other)->Head());
  EXPECT_EQ(r.RoundTrips() - before, 1u);
  before = r.RoundTrips();
  r.CarryStateWithNextRead();
  st = r.TakeCarriedState();  // nothing carried it: read now
  ASSERT_TRUE(st.ok() && st->has_value());
  EXPECT_EQ((*st)->head, (*other)->Head());
  EXPECT_EQ(r.RoundTrips() - before, 1u);
  // A read that fails in the database still brings the state, and reports its own error.
  auto bad = query::Parse("s ~ \"[z-a]\"", limits_.query);  // PostgreSQL refuses the range
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  QueryRequest q;
  q.at = {(*st)->head.number, (*st)->head.number};  // a chain on block numbers
  // A glob alone is a prepared statement (the pattern a parameter): the first of its shape
  // prepares it in a round trip of its own, so a good pattern goes first.
  auto good = query::Parse("s ~ \"[a-z]\"", limits_.query);
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  q.filter = &*good;
  ASSERT_TRUE(r.Query(q).ok());
  q.filter = &*bad;
  r.CarryStateWithNextRead();
  before = r.RoundTrips();
  auto failed = r.Query(q);
  EXPECT_EQ(failed.status().code(), Code::kInvalidArgument) << failed.status().ToString();
  auto carried = r.TakeCarriedState();
  ASSERT_TRUE(carried.ok() && carried->has_value());
  EXPECT_EQ((*carried)->head, (*other)->Head());
  EXPECT_EQ(r.RoundTrips() - before, 1u);
}

// A node that has cached nothing reads a transaction's sender and entities in one round trip
// before its write: two round trips for the transaction, not three.
TEST_P(PostgresLedgerTest, AColdNodeReadsASendersStateInOneRoundTrip) {
  Open();
  Wallet v, w;
  const EntityKey kv = MustCreate(v, Create(100));
  const EntityKey kw = MustCreate(w, Create(100));
  auto store = OpenStore();
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  Store* raw = store->get();
  LedgerOptions o;
  o.chain_id = 42;
  o.limits = limits_;
  o.clock_ms = [this] { return ++clock_; };
  auto cold = Ledger::Open(std::move(*store), o);
  ASSERT_TRUE(cold.ok()) << cold.status().ToString();
  auto patch = [](const EntityKey& k) {
    UpdateOp u;
    u.key = k;
    u.set = {Attribute::Num("n", 1)};
    return u;
  };
  // The first prepares the statements; the second, another sender and entity, runs them.
  auto r = (*cold)->Submit(Sign(v, {patch(kv)}, NextNonce(v)));
  ASSERT_TRUE(r.ok() && r->status.ok()) << (r.ok() ? r->status : r.status()).ToString();
  const std::uint64_t before = raw->RoundTrips();
  r = (*cold)->Submit(Sign(w, {patch(kw)}, NextNonce(w)));
  ASSERT_TRUE(r.ok() && r->status.ok()) << (r.ok() ? r->status : r.status()).ToString();
  EXPECT_EQ(raw->RoundTrips() - before, 2u);
  EXPECT_EQ(Get(kw)->attributes, std::vector<Attribute>{Attribute::Num("n", 1)});
}

// Two nodes (two Ledger objects, two connections) on one database, submitting from two threads:
// the database serialises their blocks, the loser of each race executes again on the winner's
// head, and the result is one chain holding every transaction exactly once.
// VerifyChain on one node while another writes to the same chain: an entity the other node
// updated after the check read the head is in a block beyond that head, which the check now
// verifies (it refreshes the head) instead of calling the row "beyond the head".
TEST_P(PostgresLedgerTest, VerifyChainWhileAnotherNodeWrites) {
  Open();
  auto other = OpenLedger();
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  Wallet a;
  std::vector<EntityKey> keys;
  for (int t = 0; t < 3; ++t) {
    std::vector<Operation> ops;
    for (int i = 0; i < 100; ++i) ops.push_back(Create(1000));
    const TxReceipt r = Submit(a, ops);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    keys.insert(keys.end(), r.created.begin(), r.created.end());
  }
  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  const auto other_api = ApiOver(**other);
  Client on_other(*other_api, a.signer());
  // Bounded: each round verifies every block written so far, so an unbounded writer that outruns
  // the verifier (a loaded host) grows the chain as long as the rounds take.
  constexpr std::uint64_t kMaxWrites = 1000;
  std::thread writer([&] {
    for (std::uint64_t j = 0; !stop && j < kMaxWrites; ++j) {
      auto r = on_other.Extend(keys[(j * 37) % keys.size()], 2000 + j);
      ASSERT_TRUE(r.ok() && r->status.ok()) << (r.ok() ? r->status : r.status()).ToString();
      ++writes;
    }
  });
  for (int round = 0; round < 5; ++round) {
    const Status s = ledger_->VerifyChain();
    EXPECT_TRUE(s.ok()) << "round " << round << ": " << s.ToString();
  }
  stop = true;
  writer.join();
  EXPECT_GT(writes.load(), 0);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

TEST_P(PostgresLedgerTest, TwoNodesShareOneChain) {
  Open();
  auto other = OpenLedger();
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  Ledger* nodes[2] = {ledger_.get(), other->get()};
  constexpr int kTxsPerNode = 100;
  Wallet w[2];
  std::vector<Hash32> hashes[2];
  std::vector<std::uint64_t> blocks[2];
  std::thread t[2];
  for (int i = 0; i < 2; ++i) {
    t[i] = std::thread([&, i] {
      for (int j = 0; j < kTxsPerNode; ++j) {
        Transaction tx;
        tx.chain_id = 42;
        tx.nonce = static_cast<std::uint64_t>(j);
        tx.ops = {Create(1000, {Attribute::Num("node", static_cast<std::uint64_t>(i))})};
        auto r = nodes[i]->Submit(*SignEd25519(tx, w[i].key, limits_));
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        ASSERT_TRUE(r->status.ok()) << r->status.ToString();
        hashes[i].push_back(r->tx_hash);
        blocks[i].push_back(r->block);
      }
    });
  }
  for (auto& th : t) th.join();
  ASSERT_EQ(hashes[0].size() + hashes[1].size(), 2u * kTxsPerNode);
  // Reads refresh the head, so both nodes agree on it.
  for (Ledger* n : nodes) ASSERT_TRUE(n->Stats().ok());
  EXPECT_EQ(nodes[0]->Head(), nodes[1]->Head());
  EXPECT_EQ(nodes[0]->Head().number, 2u * kTxsPerNode);  // one block per transaction
  std::set<std::uint64_t> distinct_blocks(blocks[0].begin(), blocks[0].end());
  distinct_blocks.insert(blocks[1].begin(), blocks[1].end());
  EXPECT_EQ(distinct_blocks.size(), 2u * kTxsPerNode);
  for (Ledger* n : nodes) {
    EXPECT_EQ(n->Count("*")->count, 2u * kTxsPerNode);
    EXPECT_EQ(n->Count("node = 0")->count, std::uint64_t{kTxsPerNode});
    EXPECT_EQ(n->Count("node = 1")->count, std::uint64_t{kTxsPerNode});
    for (int i = 0; i < 2; ++i) EXPECT_EQ(n->GetAccount(w[i].address())->tx_nonce, 100u);
    const Status v = n->VerifyChain();
    EXPECT_TRUE(v.ok()) << v.ToString();
  }
  // Every transaction exactly once, in the block its receipt named.
  PgPeek pg(schema_);
  ASSERT_TRUE(pg.ok());
  EXPECT_EQ(pg.Value("SELECT sum(tx_count) FROM blocks"), std::to_string(2 * kTxsPerNode));
  for (int i = 0; i < 2; ++i) {
    for (std::size_t j = 0; j < hashes[i].size(); ++j) {
      const std::string h = "'\\x" + ToHex(hashes[i][j]) + "'";
      EXPECT_EQ(pg.Value("SELECT string_agg(b::text, ',') FROM (SELECT number AS b FROM blocks "
                         "WHERE tx_hash = " +
                         h + " UNION ALL SELECT block FROM tx_index WHERE hash = " + h + ") t"),
                std::to_string(blocks[i][j]));
    }
  }
}

// Another node changes state that this node holds in its cache: this node's next transactions
// on it must see the change (the head guard refuses the block executed over the stale view,
// and the engine executes it again after a refresh).
TEST_P(PostgresLedgerTest, AnotherNodesWritesInvalidateTheCache) {
  Open();
  auto other_l = OpenLedger();
  ASSERT_TRUE(other_l.ok()) << other_l.status().ToString();
  Ledger& other = **other_l;
  Wallet w;
  const EntityKey k = MustCreate(w, Create(1000, {Attribute::Num("v", 1)}));  // cached here
  // The other node takes the next nonce and transfers the entity away.
  Wallet to;
  const auto other_api = ApiOver(other);
  Client on_other(*other_api, w.signer());
  auto r = on_other.Transfer(k, to.address());
  ASSERT_TRUE(r.ok() && r->status.ok()) << (r.ok() ? r->status : r.status()).ToString();
  ASSERT_EQ(r->nonce, 1u);
  // Here: the old owner's update must fail (not the owner any more; this node's client first
  // signs with nonce 1, finds it taken and signs again with 2), a replay of the other node's
  // nonce must fail, and the next nonce must succeed.
  UpdateOp u;
  u.key = k;
  u.set = {Attribute::Num("v", 9)};
  const TxReceipt denied = Submit(w, {u});
  EXPECT_EQ(denied.status.code(), Code::kPermissionDenied) << denied.status.ToString();
  const TxReceipt replay = *ledger_->Submit(Sign(w, {Create(1000)}, 1));
  EXPECT_EQ(replay.status.code(), Code::kFailedPrecondition) << replay.status.ToString();
  EXPECT_TRUE(Submit(w, {Create(1000)}).status.ok());
  EXPECT_EQ(Get(k)->owner, to.address());
  ASSERT_TRUE(other.Stats().ok());  // reads refresh the head
  EXPECT_EQ(ledger_->Head(), other.Head());
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// An empty block 1 on `st`: a second store's state loaded before the ledger wrote its block 1.
BlockWrite BlockAfter(const ChainState& st, std::uint64_t timestamp_ms = 77) {
  BlockWrite w;
  w.header = st.head;
  w.header.number = st.head.number + 1;
  w.header.parent = st.head.hash;
  w.header.timestamp_ms = timestamp_ms;
  w.header.tx_count = w.header.change_count = 0;
  w.header.hash = BlockHash(w.header);
  w.state_after = st;
  w.state_after.head = w.header;
  return w;
}

// `stale`, a second store on the ledger's database that loaded the chain before the ledger
// wrote block 1, has lost the race for it: Apply(w) must report HeadConflict, write nothing and
// leave the ledger's head and chain as they were.
void ExpectLostRace(Ledger& ledger, Store& stale, const BlockWrite& w) {
  const Status s = stale.Apply(w);
  EXPECT_TRUE(IsHeadConflict(s)) << s.ToString();
  auto block1 = stale.GetBlock(1);
  ASSERT_TRUE(block1.ok() && block1->has_value());
  EXPECT_EQ(**block1, ledger.Head());  // the ledger's block, not the stale one
  auto now = stale.LoadState();
  ASSERT_TRUE(now.ok() && now->has_value());
  EXPECT_EQ((*now)->head, ledger.Head());
  EXPECT_TRUE(ledger.VerifyChain().ok());
}

// An empty block; then a block with rows, which a one-entity block writes as one statement (the
// lock, the parent check and the rows: postgres/block_statement.cc, BlockStatement): the stale
// block's entity has the winner's id and key, so were its rows written before the check failed, a
// unique key would fail the statement instead and the node would report an error, not a lost race
// to retry.
TEST_P(PostgresLedgerTest, StaleWriterGetsHeadConflict) {
  for (const bool rows : {false, true}) {
    SCOPED_TRACE(rows ? "with rows" : "empty");
    ResetStorage();
    Open();
    auto stale = OpenStore();
    ASSERT_TRUE(stale.ok());
    auto st = (*stale)->LoadState();
    ASSERT_TRUE(st.ok() && st->has_value());
    Wallet a;
    // Block 1 through the ledger's own connection.
    const EntityKey k =
        MustCreate(a, Create(100, {Attribute::Str("s", "x"), Attribute::Num("v", 1)}));
    const auto won = Get(k);
    ASSERT_TRUE(won.has_value());
    BlockWrite w = BlockAfter(**st);
    if (rows) {
      w.state_after.next_entity_id = won->id + 1;
      w.accounts.push_back(Account{a.address(), 1, 1});
      EntityWrite ew;
      ew.entity = *won;
      w.entities.push_back(ew);
    }
    ExpectLostRace(*ledger_, **stale, w);
    EXPECT_EQ(Get(k), won);
    Close();
  }
}

// A block that does not follow the head (its parent's hash another's, or its number past the
// head's successor) is refused as a lost race and writes nothing, in both forms of the block's
// statement (postgres/block_statement.cc, BlockStatement: an empty block takes the one statement, a
// block of many rows the array form): the primary key of the blocks alone would let both in.
TEST_P(PostgresLedgerTest, BlockThatDoesNotFollowTheHeadIsRefused) {
  Open();
  Wallet a;
  MustCreate(a, Create(100, {Attribute::Num("v", 1)}));
  auto store = OpenStore();
  ASSERT_TRUE(store.ok());
  auto st = (*store)->LoadState();
  ASSERT_TRUE(st.ok() && st->has_value());
  for (const bool many_rows : {false, true}) {
    for (const bool gap : {false, true}) {
      SCOPED_TRACE(std::string(many_rows ? "many rows" : "empty") + (gap ? ", a gap" : ", a fork"));
      BlockWrite w = BlockAfter(**st);
      if (gap) ++w.header.number;
      if (!gap) w.header.parent[0] ^= 1;  // a block that is not the chain's
      w.header.hash = BlockHash(w.header);
      w.state_after.head = w.header;
      if (many_rows) {
        for (int i = 0; i < 24; ++i) {
          EntityWrite ew;
          ew.entity.id = w.state_after.next_entity_id++;
          ew.entity.key[0] = static_cast<std::uint8_t>(i + 1);
          ew.entity.owner = ew.entity.creator = a.address();
          ew.entity.created_block = ew.entity.updated_block = w.header.number;
          ew.entity.expires_block = 1000;
          ew.entity.attributes = {Attribute::Num("a", 1), Attribute::Num("b", 2),
                                  Attribute::Str("c", "x")};
          w.entities.push_back(ew);
        }
      }
      const Status s = (*store)->Apply(w);
      EXPECT_TRUE(IsHeadConflict(s)) << s.ToString();
      auto now = (*store)->LoadState();
      ASSERT_TRUE(now.ok() && now->has_value());
      EXPECT_EQ((*now)->head, ledger_->Head());
      EXPECT_EQ(CountOf("*"), 1u);
      EXPECT_TRUE(ledger_->VerifyChain().ok());
    }
  }
}

// The one-statement form takes the chain's write lock inside the statement, after its snapshot:
// a writer that waited there while another wrote the block it meant to write passes the parent
// check (it cannot see that block) and then meets the block's primary key, which must still be
// reported as a lost race, with nothing of it written. Here a second store holds the lock
// (LockWriters) while the stale write waits in it (pg_locks), writes that block itself, and lets
// go.
TEST_P(PostgresLedgerTest, WriterThatWaitedForTheLockGetsHeadConflict) {
  Open();
  Wallet a;
  MustCreate(a, Create(100, {Attribute::Num("v", 1)}));
  auto stale = OpenStore();
  auto winner = OpenStore();
  ASSERT_TRUE(stale.ok() && winner.ok());
  auto st = (*stale)->LoadState();
  ASSERT_TRUE(st.ok() && st->has_value());
  const BlockWrite late = BlockAfter(**st, 77), won = BlockAfter(**st, 78);
  ASSERT_TRUE((*winner)->LockWriters().ok());
  Status late_status;
  std::thread t([&] { late_status = (*stale)->Apply(late); });
  PgPeek pg(schema_);
  ASSERT_TRUE(pg.ok());
  bool waiting = false;
  for (int i = 0; i < 1000 && !waiting; ++i) {
    waiting = pg.Value(
                  "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT "
                  "granted") == "1";
    if (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(waiting);
  const Status w = (*winner)->Apply(won);  // the session's lock admits its own transaction
  EXPECT_TRUE(w.ok()) << w.ToString();
  ASSERT_TRUE((*winner)->UnlockWriters().ok());
  t.join();
  EXPECT_TRUE(IsHeadConflict(late_status)) << late_status.ToString();
  auto block = (*stale)->GetBlock(won.header.number);
  ASSERT_TRUE(block.ok() && block->has_value());
  EXPECT_EQ((*block)->hash, won.header.hash);
  EXPECT_EQ(pg.Value("SELECT count(*) FROM blocks"), std::to_string(won.header.number + 1));
}

// A node's set-up on a schema of this format makes nothing and takes no table lock (every
// reconnect sets up): it opens while another session holds a writer's lock on every table, which
// a share lock (CREATE INDEX IF NOT EXISTS) or an ALTER would wait for.
TEST_P(PostgresLedgerTest, SetUpOfThisFormatTakesNoTableLock) {
  Open();
  Wallet a;
  MustCreate(a, Create(100));
  Close();
  PgPeek pg(schema_);
  ASSERT_TRUE(pg.ok());
  pg.Exec("BEGIN");
  EXPECT_EQ(pg.Exec("LOCK TABLE blocks, entities, accounts, attr_str, attr_num, expiry, tx_index, "
                    "swept, schema_format IN ROW EXCLUSIVE MODE"),
            0);
  pg_session_options_ = "-c lock_timeout=2000";
  auto store = OpenStore();
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  pg.Exec("ROLLBACK");
  pg_session_options_.clear();
  Open();
  EXPECT_EQ(CountOf("*"), 1u);
}

// A statement late in the block's pipeline fails (a planted row makes the transaction insert
// collide): the whole transaction rolls back, and no table shows any trace of the block.
TEST_P(PostgresLedgerTest, FailedPipelineWritesNothing) {
  Open();
  Wallet a;
  const EntityKey k = MustCreate(a, Create(100, {Attribute::Num("v", 1)}));
  PgPeek pg(schema_);
  ASSERT_TRUE(pg.ok());
  const std::string snapshot_sql =
      "SELECT concat_ws(',', (SELECT concat_ws(':', number, next_entity_id, next_change_seq, "
      "entities_net) FROM blocks ORDER BY number DESC LIMIT 1), (SELECT n FROM swept), (SELECT "
      "count(*) FROM entities), (SELECT count(*) FROM attr_num), (SELECT count(*) FROM "
      "attr_str), (SELECT sum(n) FROM expiry), (SELECT count(*) FROM tx_index), (SELECT count(*) "
      "FROM blocks), (SELECT string_agg(tx_nonce || ':' || create_nonce, ';' ORDER BY id) FROM "
      "accounts), (SELECT count(*) FROM accounts))";
  // The new entity's string attribute row, planted (the entity will take id 2).
  ASSERT_EQ(pg.Exec("INSERT INTO attr_str(entity_id, name, value) VALUES (2, 's', 'planted')"), 1);
  const std::string before = pg.Value(snapshot_sql);
  Wallet b;
  UpdateOp u;
  u.key = k;
  u.set = {Attribute::Str("w", "x")};
  const std::vector<Operation> ops = {Create(100, {Attribute::Str("s", "y")}), u, ExtendOp{k, 200},
                                      TransferOp{k, b.address()}};
  auto r = ClientOf(a).Submit(ops);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInternal);
  EXPECT_NE(r.status().message().find("attr_str_pkey"), std::string::npos) << r.status().ToString();
  EXPECT_EQ(pg.Value(snapshot_sql), before);
  EXPECT_EQ(ledger_->Head().number, 1u);
  EXPECT_EQ(Get(k)->attributes, std::vector<Attribute>{Attribute::Num("v", 1)});
  // Without the planted row the same transaction goes through.
  ASSERT_EQ(pg.Exec("DELETE FROM attr_str WHERE value = 'planted'"), 1);
  auto again = ClientOf(a).Submit(ops);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->status.ok()) << again->status.ToString();
  EXPECT_EQ(Get(k)->owner, b.address());
  EXPECT_EQ(CountOf("*"), 2u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// The batch shape of the targets: one block of 20 entities with 8 attributes each goes through
// the multi-row statements (arrays through unnest) and reads back exactly.
TEST_P(PostgresLedgerTest, BatchOfTwentyEntitiesWithEightAttributes) {
  Open();
  Wallet a;
  std::vector<Operation> ops;
  for (int i = 0; i < 20; ++i) {
    std::vector<Attribute> attrs;
    for (int j = 0; j < 8; ++j) {
      attrs.push_back(j % 2
                          ? Attribute::Str("a" + std::to_string(j), "v" + std::to_string(i))
                          : Attribute::Num("a" + std::to_string(j), static_cast<std::uint64_t>(i)));
    }
    ops.push_back(Create(100, attrs, Bytes(64, static_cast<std::uint8_t>(i))));
  }
  auto r = Submit(a, ops);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(CountOf("a0 = 7"), 1u);
  EXPECT_EQ(CountOf("a1 = \"v7\""), 1u);
  EXPECT_EQ(CountOf("a2 >= 10"), 10u);
  auto e = Get(r.created[3]);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->attributes.size(), 8u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// A connection that keeps two block-statement shapes prepared meets six (a create, an update
// that changes attributes, an extend, a transfer to a new account, a delete, and the create
// again), so it deallocates and prepares again on the way: a name left prepared, reused or
// dropped from the cache but not the server fails a write.
// A small block is one statement whose text has its row counts (BlockStatement's one-statement
// form), and a connection prepares at most 32 such shapes before new shapes take the array form:
// 40 creates of 40 different attribute counts cross that line, and every entity reads back whole.
TEST_P(PostgresLedgerTest, ManyRowCountsCrossIntoTheArrayForm) {
  Open();
  Wallet alice;
  std::vector<std::pair<EntityKey, std::vector<Attribute>>> made;
  for (int i = 0; i < 40; ++i) {
    std::vector<Attribute> attrs;
    for (int n = 0; n < i % 20; ++n) {
      attrs.push_back(Attribute::Num("n" + std::to_string(10 + n), static_cast<std::uint64_t>(n)));
    }
    for (int s = 0; s <= i / 20; ++s) attrs.push_back(Attribute::Str("s" + std::to_string(s), "v"));
    made.emplace_back(MustCreate(alice, Create(500, attrs)), attrs);
  }
  for (const auto& [key, attrs] : made) {
    const auto e = Get(key);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->attributes, attrs);
  }
  EXPECT_EQ(CountOf("s1 = \"v\""), 20u);
  EXPECT_EQ(CountOf("n28 >= 0"), 2u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

TEST_P(PostgresLedgerTest, BlockShapesPastTheCacheArePreparedAgain) {
  KeepBlockShapes(2);
  Open();
  Wallet alice, bob;
  for (int round = 0; round < 2; ++round) {
    const EntityKey k = MustCreate(alice, Create(50, {Attribute::Num("a", 1)}));
    UpdateOp u;
    u.key = k;
    u.set = {Attribute::Str("a", "one"), Attribute::Num("b", 2)};
    ASSERT_TRUE(Submit(alice, {u}).status.ok());
    ASSERT_TRUE(Submit(alice, {ExtendOp{k, 60}}).status.ok());
    TransferOp t;
    t.key = k;
    t.new_owner = bob.address();
    ASSERT_TRUE(Submit(alice, {t}).status.ok());
    const auto e = Get(k);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->owner, bob.address());
    EXPECT_EQ(e->expires_block, 60u);
    EXPECT_EQ(e->attributes,
              (std::vector<Attribute>{Attribute::Str("a", "one"), Attribute::Num("b", 2)}));
    ASSERT_TRUE(Submit(bob, {DeleteOp{k}}).status.ok());
    EXPECT_FALSE(Get(k).has_value());
  }
  EXPECT_EQ(CountOf("*"), 0u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
  // A bound of zero is refused.
  PostgresOptions o;
  o.url = PostgresUrl();
  o.block_shapes = 0;
  EXPECT_EQ(OpenPostgresStore(o).status().code(), Code::kInvalidArgument);
}

// Empty without VEIL_TEST_POSTGRES_URL (the notice above says so).
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PostgresLedgerTest);
INSTANTIATE_TEST_SUITE_P(Backends, PostgresLedgerTest, ::testing::ValuesIn(Backends(true, true)),
                         [](const ::testing::TestParamInfo<Backend>& p) { return p.param.name; });

}  // namespace
}  // namespace veil::ledger
