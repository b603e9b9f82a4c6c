// The ledger test suite, parameterised over a backend factory so the same tests run against every
// Store (SQLite now; PostgreSQL adds one INSTANTIATE line).
#include "veil/ledger/ledger.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <thread>

namespace veil::ledger {
namespace {

struct Backend {
  std::string name;
  bool file_backed = false;  // supports reopen and tampering through a second connection
  // `path` is a fresh per-test location (ignored by backends that need none).
  std::function<Result<std::unique_ptr<Store>>(const std::string& path)> open;
};

void PrintTo(const Backend& b, std::ostream* os) { *os << b.name; }

struct Wallet {
  crypto::Ed25519SigningKey key = crypto::Ed25519SigningKey::Generate();
  std::uint64_t nonce = 0;
  Address address() const { return AddressOf(SigScheme::kEd25519, key.public_key()); }
};

CreateOp Create(std::uint64_t expires, std::vector<Attribute> attrs = {}, Bytes payload = {1}) {
  CreateOp c;
  c.expires_block = expires;
  c.content_type = "application/octet-stream";
  c.payload = std::move(payload);
  c.attributes = std::move(attrs);
  return c;
}

class LedgerTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '_');
    path_ = (std::filesystem::temp_directory_path() /
             ("veil-ledger-" + std::to_string(::getpid()) + "-" + name + ".db"))
                .string();
    RemoveFiles();
    limits_ = Limits::Arkiv();
    limits_.query.cursor_lifetime_blocks = 5;
  }
  void TearDown() override {
    ledger_.reset();
    RemoveFiles();
  }
  void RemoveFiles() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }

  void Open(BlockMode mode = BlockMode::kInstant) {
    ledger_.reset();
    auto store = GetParam().open(path_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    LedgerOptions o;
    o.chain_id = 42;
    o.limits = limits_;
    o.mode = mode;
    o.clock_ms = [this] { return ++clock_; };
    auto l = Ledger::Open(std::move(store).value(), o);
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    ledger_ = std::move(l).value();
  }

  Bytes Sign(Wallet& w, std::vector<Operation> ops, std::uint64_t nonce) {
    Transaction tx;
    tx.chain_id = 42;
    tx.nonce = nonce;
    tx.ops = std::move(ops);
    auto enc = SignEd25519(tx, w.key, limits_);
    EXPECT_TRUE(enc.ok()) << enc.status().ToString();
    return enc.ok() ? std::move(enc).value() : Bytes{};
  }

  // Signs with the wallet's next nonce and submits; advances the nonce on success.
  TxReceipt Submit(Wallet& w, std::vector<Operation> ops) {
    auto r = ledger_->Submit(Sign(w, std::move(ops), w.nonce));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {};
    if (r->status.ok() || r->pending) ++w.nonce;
    return std::move(r).value();
  }

  EntityKey MustCreate(Wallet& w, CreateOp c) {
    auto r = Submit(w, {std::move(c)});
    EXPECT_TRUE(r.status.ok()) << r.status.ToString();
    return r.created.empty() ? EntityKey{} : r.created[0];
  }

  std::uint64_t Head() { return ledger_->Head().number; }
  void Advance(std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) ASSERT_TRUE(ledger_->SealBlock().ok());
  }
  std::optional<Entity> Get(const EntityKey& k) {
    auto r = ledger_->Get(k);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::nullopt;
  }
  std::uint64_t CountOf(const std::string& q) {
    auto r = ledger_->Count(q);
    EXPECT_TRUE(r.ok()) << q << ": " << r.status().ToString();
    return r.ok() ? r->count : 0;
  }
  std::set<EntityKey> Keys(const std::string& q) {
    std::set<EntityKey> out;
    QueryOptions o;
    o.projection = Projection::KeysOnly();
    while (true) {
      auto r = ledger_->Query(q, o);
      EXPECT_TRUE(r.ok()) << q << ": " << r.status().ToString();
      if (!r.ok()) break;
      for (const auto& e : r->entities) out.insert(e.key);
      if (r->cursor.empty()) break;
      o.cursor = r->cursor;
    }
    return out;
  }

  std::string path_;
  Limits limits_;
  std::uint64_t clock_ = 1000;
  std::unique_ptr<Ledger> ledger_;
};

std::string Hex(ByteView b) { return "0x" + ToHex(b); }

TEST_P(LedgerTest, CreateGetAndPredictableKey) {
  Open();
  Wallet alice;
  const EntityKey predicted = ledger_->PredictKey(alice.address(), 0);
  auto r = Submit(
      alice, {Create(100, {Attribute::Num("n", 7), Attribute::Str("type", "note")}, {1, 2, 3})});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.created.size(), 1u);
  EXPECT_EQ(r.created[0], predicted);
  EXPECT_EQ(r.block, 1u);
  EXPECT_EQ(Head(), 1u);
  auto e = Get(predicted);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->owner, alice.address());
  EXPECT_EQ(e->creator, alice.address());
  EXPECT_EQ(e->payload, (Bytes{1, 2, 3}));
  EXPECT_EQ(e->content_type, "application/octet-stream");
  EXPECT_EQ(e->created_block, 1u);
  EXPECT_EQ(e->updated_block, 1u);
  EXPECT_EQ(e->expires_block, 100u);
  ASSERT_EQ(e->attributes.size(), 2u);
  EXPECT_EQ(e->attributes[0], Attribute::Num("n", 7));
  EXPECT_EQ(e->attributes[1], Attribute::Str("type", "note"));
  // Projection.
  auto k = ledger_->Get(predicted, Projection::KeysOnly());
  ASSERT_TRUE(k.ok() && k->has_value());
  EXPECT_TRUE((*k)->payload.empty());
  EXPECT_TRUE((*k)->attributes.empty());
  auto acct = ledger_->GetAccount(alice.address());
  ASSERT_TRUE(acct.ok());
  EXPECT_EQ(acct->tx_nonce, 1u);
  EXPECT_EQ(acct->create_nonce, 1u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

TEST_P(LedgerTest, UpdateExtendTransferDelete) {
  Open();
  Wallet alice, bob;
  const EntityKey k =
      MustCreate(alice, Create(50, {Attribute::Num("a", 1), Attribute::Num("b", 2)}));
  UpdateOp u;
  u.key = k;
  u.set = {Attribute::Str("b", "two"), Attribute::Num("c", 3)};
  u.unset = {"a"};
  u.replace_payload = true;
  u.content_type = "text/plain";
  u.payload = {7};
  ASSERT_TRUE(Submit(alice, {u}).status.ok());
  auto e = Get(k);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->attributes,
            (std::vector<Attribute>{Attribute::Str("b", "two"), Attribute::Num("c", 3)}));
  EXPECT_EQ(e->payload, Bytes{7});
  EXPECT_EQ(e->updated_block, 2u);
  ASSERT_TRUE(Submit(alice, {ExtendOp{k, 60}}).status.ok());
  EXPECT_EQ(Get(k)->expires_block, 60u);
  TransferOp t;
  t.key = k;
  t.new_owner = bob.address();
  ASSERT_TRUE(Submit(alice, {t}).status.ok());
  EXPECT_EQ(Get(k)->owner, bob.address());
  EXPECT_EQ(Get(k)->creator, alice.address());
  // The old owner may no longer mutate; the new one may.
  auto denied = Submit(alice, {DeleteOp{k}});
  EXPECT_EQ(denied.status.code(), Code::kPermissionDenied);
  EXPECT_EQ(denied.failed_op, std::optional<std::size_t>(0));
  ASSERT_TRUE(Submit(bob, {DeleteOp{k}}).status.ok());
  EXPECT_FALSE(Get(k).has_value());
  EXPECT_EQ(CountOf("*"), 0u);
  auto again = Submit(bob, {DeleteOp{k}});
  EXPECT_EQ(again.status.code(), Code::kNotFound);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

TEST_P(LedgerTest, NonOwnerExpiredAndExtendRules) {
  Open();
  Wallet alice, mallory;
  const EntityKey k = MustCreate(alice, Create(Head() + 4));
  UpdateOp u;
  u.key = k;
  u.set = {Attribute::Num("x", 1)};
  auto r = Submit(mallory, {u});
  EXPECT_EQ(r.status.code(), Code::kPermissionDenied);
  EXPECT_EQ(r.failed_op, std::optional<std::size_t>(0));
  auto same = Submit(alice, {ExtendOp{k, 4}});
  EXPECT_EQ(same.status.code(), Code::kFailedPrecondition);
  EXPECT_NE(same.status.message().find("not extended"), std::string::npos);
  auto lower = Submit(alice, {ExtendOp{k, 3}});
  EXPECT_EQ(lower.status.code(), Code::kFailedPrecondition);
  // Expiry in the past on create.
  auto past = Submit(alice, {Create(Head())});
  EXPECT_EQ(past.status.code(), Code::kInvalidArgument);
  Advance(3);  // head 4 == expiry: gone
  EXPECT_FALSE(Get(k).has_value());
  auto expired = Submit(alice, {u});
  EXPECT_EQ(expired.status.code(), Code::kFailedPrecondition);
  EXPECT_NE(expired.status.message().find("expired"), std::string::npos);
  auto ext = Submit(alice, {ExtendOp{k, 100}});
  EXPECT_EQ(ext.status.code(), Code::kFailedPrecondition);
}

TEST_P(LedgerTest, MaxLifetime) {
  limits_.max_lifetime_blocks = 10;
  Open();
  Wallet a;
  EXPECT_TRUE(Submit(a, {Create(Head() + 11)}).status.ok());
  EXPECT_EQ(Submit(a, {Create(Head() + 12)}).status.code(), Code::kResourceExhausted);
}

TEST_P(LedgerTest, ReplayAndBadSignatureAndChain) {
  Open();
  Wallet alice;
  const Bytes tx = Sign(alice, {Create(100)}, 0);
  auto first = ledger_->Submit(tx);
  ASSERT_TRUE(first.ok() && first->status.ok());
  auto replay = ledger_->Submit(tx);
  ASSERT_TRUE(replay.ok());
  EXPECT_EQ(replay->status.code(), Code::kFailedPrecondition);
  EXPECT_FALSE(replay->failed_op.has_value());
  EXPECT_NE(replay->status.message().find("replay"), std::string::npos);
  auto gap = ledger_->Submit(Sign(alice, {Create(100)}, 5));
  ASSERT_TRUE(gap.ok());
  EXPECT_FALSE(gap->status.ok());
  EXPECT_EQ(Head(), 1u);

  Bytes forged = Sign(alice, {Create(100)}, 1);
  forged[forged.size() - 1] ^= 0x40;
  auto bad = ledger_->Submit(forged);
  EXPECT_EQ(bad.status().code(), Code::kVerificationFailed);
  Transaction other;
  other.chain_id = 43;
  other.nonce = 1;
  other.ops = {Create(100)};
  auto wrong_chain = ledger_->Submit(*SignEd25519(other, alice.key, limits_));
  EXPECT_EQ(wrong_chain.status().code(), Code::kInvalidArgument);
  auto garbage = ledger_->Submit(Bytes{1, 2, 3});
  EXPECT_EQ(garbage.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ledger_->GetAccount(alice.address())->tx_nonce, 1u);
  EXPECT_EQ(Head(), 1u);
}

TEST_P(LedgerTest, FailedThirdOperationLeavesNoTrace) {
  Open();
  Wallet alice;
  const EntityKey a = MustCreate(alice, Create(100, {Attribute::Num("v", 1)}));
  const auto head_before = ledger_->Head();
  const auto stats_before = *ledger_->Stats();
  const auto entity_before = Get(a);
  UpdateOp u;
  u.key = a;
  u.set = {Attribute::Num("v", 2)};
  EntityKey missing{};
  missing[0] = 0xee;
  auto r = Submit(alice, {Create(100, {Attribute::Num("v", 9)}), u, DeleteOp{missing}});
  EXPECT_EQ(r.status.code(), Code::kNotFound);
  EXPECT_EQ(r.failed_op, std::optional<std::size_t>(2));
  EXPECT_NE(r.status.message().find("operation 2"), std::string::npos);
  EXPECT_EQ(r.block, 0u);
  EXPECT_TRUE(r.created.empty());
  // Nothing changed: entities, counters, nonces, blocks.
  EXPECT_EQ(Get(a), entity_before);
  EXPECT_FALSE(Get(ledger_->PredictKey(alice.address(), 1)).has_value());
  EXPECT_EQ(ledger_->Head(), head_before);
  const auto stats_after = *ledger_->Stats();
  EXPECT_EQ(stats_after.live_entities, stats_before.live_entities);
  EXPECT_EQ(stats_after.stored_entities, stats_before.stored_entities);
  EXPECT_EQ(CountOf("v = 9"), 0u);
  EXPECT_EQ(CountOf("v = 1"), 1u);
  const auto acct = *ledger_->GetAccount(alice.address());
  EXPECT_EQ(acct.tx_nonce, 1u);
  EXPECT_EQ(acct.create_nonce, 1u);
  // The same nonce then succeeds, and the key it predicted is used.
  auto ok = Submit(alice, {Create(100)});
  ASSERT_TRUE(ok.status.ok());
  EXPECT_EQ(ok.created[0], ledger_->PredictKey(alice.address(), 1));
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

TEST_P(LedgerTest, CreateThenUpdateInOneTransaction) {
  Open();
  Wallet alice;
  UpdateOp u;
  u.key = ledger_->PredictKey(alice.address(), 0);
  u.set = {Attribute::Str("s", "later")};
  auto r = Submit(alice, {Create(100), u, ExtendOp{u.key, 200}});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  auto e = Get(u.key);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->attributes, std::vector<Attribute>{Attribute::Str("s", "later")});
  EXPECT_EQ(e->expires_block, 200u);
  auto created_deleted =
      Submit(alice, {Create(100), DeleteOp{ledger_->PredictKey(alice.address(), 1)}});
  ASSERT_TRUE(created_deleted.status.ok());
  EXPECT_EQ(CountOf("*"), 1u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

TEST_P(LedgerTest, PatchOverAttributeLimit) {
  Open();
  Wallet a;
  std::vector<Attribute> attrs;
  for (int i = 0; i < 30; ++i) attrs.push_back(Attribute::Num("a" + std::to_string(10 + i), 1));
  const EntityKey k = MustCreate(a, Create(100, attrs));
  UpdateOp u;
  u.key = k;
  u.set = {Attribute::Num("z", 1)};
  auto r = Submit(a, {u});
  EXPECT_EQ(r.status.code(), Code::kResourceExhausted);
  u.unset = {"a10"};
  EXPECT_TRUE(Submit(a, {u}).status.ok());
}

TEST_P(LedgerTest, ExpiryHidesAtOnceAndSweeperRemoves) {
  Open();
  Wallet a;
  const EntityKey short_lived = MustCreate(a, Create(Head() + 3, {Attribute::Str("t", "x")}));
  const EntityKey long_lived = MustCreate(a, Create(Head() + 100, {Attribute::Str("t", "x")}));
  EXPECT_EQ(CountOf("*"), 2u);
  EXPECT_EQ(CountOf("t = \"x\""), 2u);
  Advance(2);  // head 4 == short_lived's expiry
  EXPECT_FALSE(Get(short_lived).has_value());
  EXPECT_TRUE(Get(long_lived).has_value());
  EXPECT_EQ(CountOf("*"), 1u);
  EXPECT_EQ(CountOf("t = \"x\""), 1u);
  EXPECT_EQ(Keys("t = \"x\""), std::set<EntityKey>{long_lived});
  // Kept for the cursor lifetime (5 blocks), then swept.
  EXPECT_EQ(*ledger_->Sweep(100), 0u);
  EXPECT_EQ(ledger_->Stats()->stored_entities, 2u);
  Advance(5);
  EXPECT_EQ(*ledger_->Sweep(100), 1u);
  const auto st = *ledger_->Stats();
  EXPECT_EQ(st.stored_entities, 1u);
  EXPECT_EQ(st.live_entities, 1u);
  EXPECT_EQ(*ledger_->Sweep(100), 0u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

TEST_P(LedgerTest, CursorPagesStayStableWhileEntitiesExpire) {
  Open();
  Wallet a;
  std::vector<EntityKey> keys;
  std::vector<Operation> ops;
  for (int i = 0; i < 25; ++i)
    ops.push_back(Create(Head() + 2 + static_cast<std::uint64_t>(i % 3), {Attribute::Num("g", 1)}));
  auto r = Submit(a, ops);
  ASSERT_TRUE(r.status.ok());
  keys = r.created;
  QueryOptions o;
  o.limit = 10;
  auto p1 = ledger_->Query("g = 1", o);
  ASSERT_TRUE(p1.ok()) << p1.status().ToString();
  ASSERT_EQ(p1->entities.size(), 10u);
  ASSERT_FALSE(p1->cursor.empty());
  EXPECT_EQ(p1->block, 1u);
  Advance(3);  // every entity has now expired at head
  EXPECT_EQ(CountOf("g = 1"), 0u);
  o.cursor = p1->cursor;
  auto p2 = ledger_->Query("g = 1", o);
  ASSERT_TRUE(p2.ok()) << p2.status().ToString();
  ASSERT_EQ(p2->entities.size(), 10u);
  o.cursor = p2->cursor;
  auto p3 = ledger_->Query("g = 1", o);
  ASSERT_TRUE(p3.ok());
  ASSERT_EQ(p3->entities.size(), 5u);
  EXPECT_TRUE(p3->cursor.empty());
  std::set<EntityKey> seen;
  std::int64_t last = INT64_MAX;
  for (const auto* p : {&*p1, &*p2, &*p3}) {
    for (const auto& e : p->entities) {
      EXPECT_LT(e.id, last);  // descending ids, no repeats
      last = e.id;
      seen.insert(e.key);
    }
  }
  EXPECT_EQ(seen, std::set<EntityKey>(keys.begin(), keys.end()));
  // A cursor for another query is refused; an old cursor expires.
  o.cursor = p1->cursor;
  EXPECT_EQ(ledger_->Query("g = 2", o).status().code(), Code::kInvalidArgument);
  o.cursor = "zz";
  EXPECT_FALSE(ledger_->Query("g = 1", o).ok());
  Advance(5);
  o.cursor = p1->cursor;
  EXPECT_EQ(ledger_->Query("g = 1", o).status().code(), Code::kFailedPrecondition);
  o.cursor.clear();
  o.limit = 201;
  EXPECT_EQ(ledger_->Query("*", o).status().code(), Code::kInvalidArgument);
}

TEST_P(LedgerTest, EveryOperatorAndMetaField) {
  Open();
  Wallet a, b;
  // Entities i = 0..9: n = i, s = "item-i", parity string; created in blocks 1..10.
  std::vector<EntityKey> k;
  for (std::uint64_t i = 0; i < 10; ++i) {
    Wallet& w = i < 6 ? a : b;
    k.push_back(MustCreate(w, Create(100 + i, {Attribute::Num("n", i),
                                               Attribute::Str("parity", i % 2 ? "odd" : "even"),
                                               Attribute::Str("s", "item-" + std::to_string(i))})));
  }
  EXPECT_EQ(CountOf("*"), 10u);
  EXPECT_EQ(CountOf("$all"), 10u);
  EXPECT_EQ(CountOf("n = 3"), 1u);
  EXPECT_EQ(CountOf("n < 3"), 3u);
  EXPECT_EQ(CountOf("n <= 3"), 4u);
  EXPECT_EQ(CountOf("n > 3"), 6u);
  EXPECT_EQ(CountOf("n >= 3"), 7u);
  EXPECT_EQ(CountOf("n IN (1, 2, 99)"), 2u);
  EXPECT_EQ(CountOf("n NOT IN (1, 2)"), 8u);
  EXPECT_EQ(CountOf("s = \"item-4\""), 1u);
  EXPECT_EQ(CountOf("s IN (\"item-4\", \"item-5\")"), 2u);
  EXPECT_EQ(CountOf("s > \"item-7\""), 2u);
  EXPECT_EQ(CountOf("s ~ \"item-*\""), 10u);
  EXPECT_EQ(CountOf("s ~ \"item-[1-3]\""), 3u);
  EXPECT_EQ(CountOf("s ~ \"*-9\""), 1u);
  EXPECT_EQ(CountOf("s GLOB \"item-?\""), 10u);
  EXPECT_EQ(CountOf("s !~ \"item-1*\""), 9u);
  EXPECT_EQ(CountOf("parity = \"odd\" && n > 4"), 3u);
  EXPECT_EQ(CountOf("parity = \"odd\" || n = 0"), 6u);
  EXPECT_EQ(CountOf("NOT (parity = \"odd\")"), 5u);
  EXPECT_EQ(CountOf("!(n < 5) && (parity = \"even\" || n = 9)"), 3u);
  EXPECT_EQ(CountOf("n = \"3\""), 0u);  // types must match
  EXPECT_EQ(CountOf("missing = 1"), 0u);
  EXPECT_EQ(CountOf("NOT (missing = 1)"), 10u);  // matches entities lacking it
  EXPECT_EQ(CountOf("$key = " + Hex(k[2])), 1u);
  EXPECT_EQ(CountOf("$key IN (" + Hex(k[2]) + ", " + Hex(k[3]) + ")"), 2u);
  EXPECT_EQ(CountOf("$owner = " + Hex(a.address())), 6u);
  EXPECT_EQ(CountOf("$owner = " + Hex(b.address())), 4u);
  EXPECT_EQ(CountOf("$creator = " + Hex(b.address()) + " && n = 9"), 1u);
  EXPECT_EQ(CountOf("$expiresAt < 103"), 3u);
  EXPECT_EQ(CountOf("$expiresAt >= 108"), 2u);
  EXPECT_EQ(CountOf("$createdAtBlock <= 2"), 2u);
  EXPECT_EQ(CountOf("$createdAtBlock = 10"), 1u);
  // Projections on a query.
  QueryOptions o;
  o.projection = Projection::KeysOnly();
  o.projection.attributes = true;
  auto page = ledger_->Query("n = 3", o);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->entities.size(), 1u);
  EXPECT_EQ(page->entities[0].key, k[3]);
  EXPECT_TRUE(page->entities[0].payload.empty());
  EXPECT_EQ(page->entities[0].attributes.size(), 3u);
  EXPECT_EQ(page->cost.rows_returned, 1u);
  EXPECT_GE(page->cost.query_units, 3u);
  // Parse errors surface with their position.
  auto bad = ledger_->Query("n = 1 && (", {});
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("at byte 10"), std::string::npos);
}

TEST_P(LedgerTest, InWithTwentyKeys) {
  Open();
  Wallet a;
  std::vector<Operation> ops;
  for (int i = 0; i < 30; ++i)
    ops.push_back(Create(100, {}, Bytes(1000, static_cast<std::uint8_t>(i))));
  auto r = Submit(a, ops);
  ASSERT_TRUE(r.status.ok());
  std::string q = "$key IN (";
  for (int i = 0; i < 20; ++i)
    q += (i ? ", " : "") + Hex(r.created[static_cast<std::size_t>(i) * 3 / 2]);
  q += ")";
  auto page = ledger_->Query(q);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->entities.size(), 20u);
  EXPECT_EQ(page->entities[0].payload.size(), 1000u);
  auto plan = ledger_->Explain(q);
  ASSERT_TRUE(plan.ok());
  EXPECT_NE(plan->find("INDEX sqlite_autoindex_entities_1 (key=?)"), std::string::npos) << *plan;
}

TEST_P(LedgerTest, ExplainUsesIndexes) {
  Open();
  Wallet a;
  for (int i = 0; i < 5; ++i)
    MustCreate(a, Create(100, {Attribute::Num("n", 1), Attribute::Str("s", "x")}));
  for (const std::string& q :
       {std::string("s = \"x\""), std::string("n > 3"), std::string("n IN (1, 2)"),
        std::string("s ~ \"ab*\""), std::string("n = 1 && s = \"x\""),
        "$owner = " + Hex(a.address()), "$creator = " + Hex(a.address()),
        std::string("$expiresAt < 50"), std::string("$createdAtBlock = 3"),
        "$key = " + Hex(ledger_->PredictKey(a.address(), 0))}) {
    auto plan = ledger_->Explain(q);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    EXPECT_NE(plan->find("compiled: "), std::string::npos);
    EXPECT_NE(plan->find("plan:"), std::string::npos);
    EXPECT_EQ(plan->find("SCAN e\n"), std::string::npos) << q << "\n" << *plan;
    EXPECT_EQ(plan->find("SCAN e USING"), std::string::npos) << q << "\n" << *plan;
    EXPECT_NE(plan->find("INDEX"), std::string::npos) << q << "\n" << *plan;
    EXPECT_EQ(plan->find(ToHex(a.address()) + "'\n"),
              std::string::npos);  // params are listed apart
  }
}

TEST_P(LedgerTest, CountCap) {
  limits_.query.count_cap = 5;
  Open();
  Wallet a;
  std::vector<Operation> ops;
  for (int i = 0; i < 8; ++i) ops.push_back(Create(100, {Attribute::Num("k", 1)}));
  ASSERT_TRUE(Submit(a, ops).status.ok());
  auto c = ledger_->Count("k = 1");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->count, 5u);
  EXPECT_TRUE(c->capped);
  auto all = ledger_->Count("*");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->count, 8u);  // from the counters: exact
  EXPECT_FALSE(all->capped);
  auto few = ledger_->Count("k = 2");
  EXPECT_EQ(few->count, 0u);
  EXPECT_FALSE(few->capped);
}

TEST_P(LedgerTest, CostsReported) {
  Open();
  Wallet a;
  auto r = Submit(a, {Create(100, {Attribute::Str("s", "abc")}, Bytes(100, 1))});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.cost.operations, 1u);
  EXPECT_GT(r.cost.calldata_bytes, 100u);
  EXPECT_EQ(r.cost.bytes_written, 100u + 24 + 1 + 3);
  const GasSchedule g;
  EXPECT_GT(r.cost.gas, g.tx_base + g.op_create + g.stored_byte * r.cost.bytes_written);
  EXPECT_EQ(ledger_->Head().gas_used, r.cost.gas);
  auto q = ledger_->Query("s = \"abc\"");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->cost.rows_returned, 1u);
  EXPECT_GE(q->cost.bytes_returned, 100u);
  EXPECT_GE(q->cost.rows_scanned, 1u);
  EXPECT_GE(q->cost.query_units, 3u);
}

TEST_P(LedgerTest, GasLimitRejectsAndSplits) {
  Wallet a;
  Transaction one;
  one.chain_id = 42;
  one.ops = {Create(100)};
  const Bytes enc = *SignEd25519(one, a.key, limits_);
  const std::uint64_t single = TxGas(one, enc, limits_.gas);
  limits_.gas.block_gas_limit = single * 5 / 2;  // two single-create txs per block
  Open(BlockMode::kTimed);
  auto big = ledger_->Submit(
      Sign(a, {Create(100), Create(100), Create(100), Create(100), Create(100), Create(100)}, 0));
  EXPECT_EQ(big.status().code(), Code::kResourceExhausted);
  for (int i = 0; i < 5; ++i) {
    auto r = Submit(a, {Create(100)});
    EXPECT_TRUE(r.pending);
  }
  EXPECT_EQ(ledger_->Stats()->queued_txs, 5u);
  auto s1 = ledger_->SealBlock();
  ASSERT_TRUE(s1.ok()) << s1.status().ToString();
  EXPECT_EQ(s1->receipts.size(), 2u);
  EXPECT_EQ(s1->still_queued, 3u);
  EXPECT_EQ(s1->header.tx_count, 2u);
  auto s2 = ledger_->SealBlock();
  auto s3 = ledger_->SealBlock();
  ASSERT_TRUE(s2.ok() && s3.ok());
  EXPECT_EQ(s3->still_queued, 0u);
  EXPECT_EQ(CountOf("*"), 5u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

TEST_P(LedgerTest, TimedModeQueuesAndReportsFailures) {
  Open(BlockMode::kTimed);
  Wallet a, b;
  auto r1 = Submit(a, {Create(100)});
  ASSERT_TRUE(r1.pending);
  EXPECT_FALSE(Get(ledger_->PredictKey(a.address(), 0)).has_value());  // not yet sealed
  UpdateOp u;
  u.key = ledger_->PredictKey(a.address(), 0);
  u.set = {Attribute::Num("x", 1)};
  Submit(b, {u});  // fails: b is not the owner
  Submit(a, {u});  // applies after r1 in the same block
  auto sealed = ledger_->SealBlock();
  ASSERT_TRUE(sealed.ok());
  ASSERT_EQ(sealed->receipts.size(), 3u);
  EXPECT_TRUE(sealed->receipts[0].status.ok());
  EXPECT_EQ(sealed->receipts[0].created.size(), 1u);
  EXPECT_EQ(sealed->receipts[1].status.code(), Code::kPermissionDenied);
  EXPECT_TRUE(sealed->receipts[2].status.ok());
  EXPECT_EQ(sealed->header.tx_count, 2u);
  EXPECT_EQ(sealed->header.number, 1u);
  EXPECT_EQ(Get(u.key)->attributes, std::vector<Attribute>{Attribute::Num("x", 1)});
  EXPECT_EQ(ledger_->GetAccount(b.address())->tx_nonce, 0u);
  auto empty = ledger_->SealBlock();
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->header.tx_count, 0u);
  EXPECT_EQ(Head(), 2u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

TEST_P(LedgerTest, ConcurrentSubmitters) {
  Open();
  Wallet w[2];
  std::thread t[2];
  for (int i = 0; i < 2; ++i) {
    t[i] = std::thread([&, i] {
      for (int j = 0; j < 10; ++j) {
        Transaction tx;
        tx.chain_id = 42;
        tx.nonce = static_cast<std::uint64_t>(j);
        tx.ops = {Create(1000)};
        auto r = ledger_->Submit(*SignEd25519(tx, w[i].key, limits_));
        EXPECT_TRUE(r.ok() && r->status.ok());
        auto q = ledger_->Count("*");
        EXPECT_TRUE(q.ok());
      }
    });
  }
  for (auto& th : t) th.join();
  EXPECT_EQ(CountOf("*"), 20u);
  EXPECT_EQ(Head(), 20u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// Opens the database file through a second connection and runs `sql`.
void Tamper(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  EXPECT_EQ(sqlite3_changes(db), 1) << sql;
  sqlite3_free(err);
  sqlite3_close(db);
}

TEST_P(LedgerTest, VerifyChainDetectsTampering) {
  if (!GetParam().file_backed) GTEST_SKIP() << "tampering needs a file";
  struct Case {
    const char* sql;
    const char* expect;
  };
  const Case cases[] = {
      {"UPDATE entities SET payload = x'ff' WHERE id = 1", "block 1: entity"},
      {"UPDATE attr_num SET value = value + 1 WHERE entity_id = 2", "block 2: entity"},
      {"UPDATE changes SET entity_hash = zeroblob(32) WHERE seq = 2", "block 2: change-set"},
      {"UPDATE txs SET gas = gas + 1 WHERE block = 3", "block 3: transaction root"},
      {"UPDATE txs SET body = x'00' || body WHERE block = 2", "block 2: transaction 0"},
      {"UPDATE blocks SET timestamp_ms = 5 WHERE number = 2", "block 2: header hash"},
  };
  for (const auto& c : cases) {
    RemoveFiles();
    Open();
    Wallet a;
    for (int i = 0; i < 3; ++i) MustCreate(a, Create(100, {Attribute::Num("n", 1)}));
    ASSERT_TRUE(ledger_->VerifyChain().ok());
    Tamper(path_, c.sql);
    const Status s = ledger_->VerifyChain();
    EXPECT_EQ(s.code(), Code::kDataLoss) << c.sql;
    EXPECT_NE(s.message().find(c.expect), std::string::npos) << c.sql << ": " << s.ToString();
    ledger_.reset();
  }
}

TEST_P(LedgerTest, ReopenContinuesTheChain) {
  if (!GetParam().file_backed) GTEST_SKIP() << "reopen needs a file";
  Open();
  Wallet a;
  const EntityKey k = MustCreate(a, Create(100, {Attribute::Str("s", "x")}));
  MustCreate(a, Create(100));
  const auto head = ledger_->Head();
  Open();  // closes and reopens the file
  EXPECT_EQ(ledger_->Head(), head);
  EXPECT_TRUE(Get(k).has_value());
  EXPECT_TRUE(ledger_->VerifyChain().ok());
  auto r = Submit(a, {Create(100)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.created[0], ledger_->PredictKey(a.address(), 2));
  EXPECT_EQ(ledger_->Head().number, head.number + 1);
  EXPECT_EQ(ledger_->Head().parent, head.hash);
  EXPECT_EQ(CountOf("*"), 3u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
  // Another chain id may not open it.
  ledger_.reset();
  auto store = GetParam().open(path_);
  ASSERT_TRUE(store.ok());
  LedgerOptions o;
  o.chain_id = 7;
  EXPECT_EQ(Ledger::Open(std::move(store).value(), o).status().code(), Code::kFailedPrecondition);
}

const Backend kSqliteFile{"SqliteFile", true, [](const std::string& path) {
                            SqliteOptions o;
                            o.path = path;
                            return OpenSqliteStore(o);
                          }};
const Backend kSqliteMemory{"SqliteMemory", false,
                            [](const std::string&) { return OpenSqliteStore(SqliteOptions{}); }};

INSTANTIATE_TEST_SUITE_P(Backends, LedgerTest, ::testing::Values(kSqliteFile, kSqliteMemory),
                         [](const ::testing::TestParamInfo<Backend>& p) { return p.param.name; });

}  // namespace
}  // namespace veil::ledger
