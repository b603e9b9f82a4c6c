// LedgerTest: the ledger on every backend (ledger_test_util.h): entities and their operations,
// queries, counts and cursors, expiry and the sweeper, receipts and blocks, limits and costs, the
// timed mode and its queue, signatures and replays.
#include "ledger/ledger_test_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define VEIL_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VEIL_TEST_ASAN 1
#endif
#endif
#ifdef VEIL_TEST_ASAN
// The sanitizer runtime's count (sanitizer/allocator_interface.h, which g++ 12 does not ship).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#else
#include <malloc.h>
#endif

namespace veil::ledger {
namespace {

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

// One transaction that hands 20 entities to 20 accounts the chain has never seen: on PostgreSQL a
// block of more than 16 accounts writes them in statements of their own before its block
// statement (AppendBlockSteps), a block of fewer inside it; both must give every entity its owner.
TEST_P(LedgerTest, TransfersToManyNewOwnersInOneTransaction) {
  Open();
  Wallet alice;
  std::vector<Operation> creates;
  for (std::size_t i = 0; i < 20; ++i) creates.push_back(Create(100, {Attribute::Num("i", i)}));
  const TxReceipt made = Submit(alice, creates);
  ASSERT_TRUE(made.status.ok()) << made.status.ToString();
  ASSERT_EQ(made.created.size(), 20u);
  std::vector<Wallet> owners(20);
  std::vector<Operation> transfers;
  for (std::size_t i = 0; i < 20; ++i)
    transfers.push_back(TransferOp{made.created[i], owners[i].address()});
  const TxReceipt moved = Submit(alice, transfers);
  ASSERT_TRUE(moved.status.ok()) << moved.status.ToString();
  for (std::size_t i = 0; i < 20; ++i) {
    const auto e = Get(made.created[i]);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->owner, owners[i].address());
    EXPECT_EQ(e->creator, alice.address());
  }
  // The new owners' accounts exist: each can act on its entity, and their first transactions
  // (17 senders in one block when the ledger seals them together) land.
  for (std::size_t i = 0; i < 3; ++i) {
    UpdateOp u;
    u.key = made.created[i];
    u.set = {Attribute::Num("i", 100 + i)};
    EXPECT_TRUE(Submit(owners[i], {u}).status.ok());
  }
  EXPECT_EQ(CountOf("i >= 100"), 3u);
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

// Creation flags (Arkiv 0.8.1): readonly refuses every update, by the owner too, and leaves
// extend, transfer and delete to the owner; permissionlessExtension lets anyone extend, and
// nothing else. Flags are fixed at creation: they survive extend and transfer, they are read
// back on every path (get, query, projection) and they are part of the entity hash.
TEST_P(LedgerTest, CreationFlags) {
  Open();
  Wallet alice, bob, carol;
  CreateOp ro = Create(Head() + 50, {Attribute::Num("n", 1)});
  ro.flags = kFlagReadonly;
  CreateOp open = Create(Head() + 50, {Attribute::Num("n", 2)});
  open.flags = kFlagPermissionlessExtension;
  CreateOp both = Create(Head() + 50, {Attribute::Num("n", 3)});
  both.flags = kFlagReadonly | kFlagPermissionlessExtension;
  const EntityKey k_ro = MustCreate(alice, ro);
  const EntityKey k_open = MustCreate(alice, open);
  const EntityKey k_both = MustCreate(alice, both);
  const EntityKey k_plain = MustCreate(alice, Create(Head() + 50));
  EXPECT_EQ(Get(k_ro)->flags, kFlagReadonly);
  EXPECT_EQ(Get(k_open)->flags, kFlagPermissionlessExtension);
  EXPECT_EQ(Get(k_both)->flags, kFlagReadonly | kFlagPermissionlessExtension);
  EXPECT_EQ(Get(k_plain)->flags, 0u);

  auto patch = [](const EntityKey& k) {
    UpdateOp u;
    u.key = k;
    u.set = {Attribute::Num("n", 9)};
    return u;
  };
  // Readonly: the owner's update fails and changes nothing; a non-owner's fails on ownership.
  const std::uint64_t before = Head();
  auto r = Submit(alice, {patch(k_ro)});
  EXPECT_EQ(r.status.code(), Code::kFailedPrecondition);
  EXPECT_NE(r.status.message().find("read-only"), std::string::npos) << r.status.ToString();
  EXPECT_EQ(r.failed_op, std::optional<std::size_t>(0));
  EXPECT_EQ(Submit(bob, {patch(k_ro)}).status.code(), Code::kPermissionDenied);
  EXPECT_EQ(Submit(alice, {patch(k_both)}).status.code(), Code::kFailedPrecondition);
  EXPECT_EQ(Head(), before);
  EXPECT_EQ(Get(k_ro)->attributes, (std::vector<Attribute>{Attribute::Num("n", 1)}));
  // A transaction that updates a readonly entity after a valid operation leaves no trace.
  auto mixed = Submit(alice, {patch(k_plain), patch(k_ro)});
  EXPECT_EQ(mixed.failed_op, std::optional<std::size_t>(1));
  EXPECT_TRUE(Get(k_plain)->attributes.empty());
  // The owner may still extend a readonly entity; others may not (no permissionless flag).
  EXPECT_TRUE(Submit(alice, {ExtendOp{k_ro, Head() + 60}}).status.ok());
  EXPECT_EQ(Submit(bob, {ExtendOp{k_ro, Head() + 70}}).status.code(), Code::kPermissionDenied);
  EXPECT_EQ(Submit(bob, {ExtendOp{k_plain, Head() + 70}}).status.code(), Code::kPermissionDenied);

  // Permissionless extension: anyone extends; the owner stays; the expiry rules still hold.
  auto ext = Submit(bob, {ExtendOp{k_open, Head() + 80}});
  ASSERT_TRUE(ext.status.ok()) << ext.status.ToString();
  EXPECT_EQ(Get(k_open)->expires_block, Head() + 79);  // one block sealed since
  EXPECT_EQ(Get(k_open)->owner, alice.address());
  EXPECT_EQ(Submit(carol, {ExtendOp{k_open, Head() + 5}}).status.code(),
            Code::kFailedPrecondition);  // not greater than the current expiry
  EXPECT_TRUE(Submit(carol, {ExtendOp{k_both, Head() + 90}}).status.ok());
  // ...and nothing else: update, transfer and delete stay the owner's.
  EXPECT_EQ(Submit(bob, {patch(k_open)}).status.code(), Code::kPermissionDenied);
  TransferOp steal;
  steal.key = k_open;
  steal.new_owner = bob.address();
  EXPECT_EQ(Submit(bob, {steal}).status.code(), Code::kPermissionDenied);
  EXPECT_EQ(Submit(bob, {DeleteOp{k_open}}).status.code(), Code::kPermissionDenied);
  EXPECT_TRUE(Submit(alice, {patch(k_open)}).status.ok());

  // Flags survive transfer; the new owner of a readonly entity cannot update it either, and
  // may delete it.
  TransferOp give;
  give.key = k_ro;
  give.new_owner = bob.address();
  ASSERT_TRUE(Submit(alice, {give}).status.ok());
  EXPECT_EQ(Get(k_ro)->flags, kFlagReadonly);
  EXPECT_EQ(Submit(bob, {patch(k_ro)}).status.code(), Code::kFailedPrecondition);
  EXPECT_TRUE(Submit(bob, {DeleteOp{k_ro}}).status.ok());
  EXPECT_FALSE(Get(k_ro).has_value());

  // Read back through a query and a projection; left out, the flags read as 0.
  QueryOptions o;
  o.projection = Projection::KeysOnly();
  o.projection.flags = true;
  auto page = ledger_->Query("n = 3", o);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->entities.size(), 1u);
  EXPECT_EQ(page->entities[0].flags, kFlagReadonly | kFlagPermissionlessExtension);
  o.projection.flags = false;
  page = ledger_->Query("n = 3", o);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->entities[0].flags, 0u);
  // Unknown flag bits are refused before anything runs.
  CreateOp bad = Create(Head() + 10);
  bad.flags = 4;
  Transaction tx;
  tx.chain_id = 42;
  tx.nonce = NextNonce(alice);
  tx.ops = {bad};
  EXPECT_EQ(SignEd25519(tx, alice.key, limits_).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// $contentType filters on the entity's content type: =, IN, NOT IN and glob; alone it scans,
// beside an attribute equality it filters what the index finds.
TEST_P(LedgerTest, ContentTypeFilter) {
  Open();
  Wallet a;
  const char* types[] = {"application/json", "image/png", "image/jpeg", "text/plain"};
  for (std::uint64_t i = 0; i < 8; ++i) {
    CreateOp c = Create(Head() + 100, {Attribute::Num("n", i % 2)});
    c.content_type = types[i % 4];
    MustCreate(a, c);
  }
  EXPECT_EQ(CountOf("$contentType = \"image/png\""), 2u);
  EXPECT_EQ(CountOf("$contentType IN (\"image/png\", \"text/plain\")"), 4u);
  EXPECT_EQ(CountOf("$contentType NOT IN (\"image/png\")"), 6u);
  EXPECT_EQ(CountOf("$contentType ~ \"image/*\""), 4u);
  EXPECT_EQ(CountOf("$contentType !~ \"image/*\""), 4u);
  EXPECT_EQ(CountOf("$contentType ~ \"*/j*\""), 4u);  // json and jpeg
  EXPECT_EQ(CountOf("n = 1 && $contentType ~ \"image/*\""), 2u);
  EXPECT_EQ(CountOf("NOT ($contentType = \"image/jpeg\") && n = 0"), 2u);
  EXPECT_EQ(Keys("$contentType = \"application/json\"").size(), 2u);
  // Beside an attribute equality the index drives and each of its rows is probed by id; alone,
  // the filter scans (and says so in rows_scanned).
  auto plan = ledger_->Explain("n = 1 && $contentType ~ \"image/*\"");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  if (!IsPostgres()) {
    EXPECT_EQ(plan->find("SCAN entities"), std::string::npos) << *plan;
    EXPECT_NE(plan->find("attr_num_nv"), std::string::npos) << *plan;
    auto alone = ledger_->Count("$contentType = \"image/png\"");
    ASSERT_TRUE(alone.ok());
    EXPECT_GE(alone->cost.rows_scanned, 7u);
  }
  // Strings only, and no ranges.
  EXPECT_EQ(ledger_->Count("$contentType = 3").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ledger_->Count("$contentType > \"a\"").status().code(), Code::kInvalidArgument);
}

// Arkiv 0.8.1's typed literals find what the plain forms find, on every backend (the parser
// gives both the same values; this checks the path through the compiled SQL too).
TEST_P(LedgerTest, TypedLiteralsMatchThePlainForms) {
  Open();
  Wallet a, b;
  // (Attributes in ascending order of name, as transactions must carry them.)
  MustCreate(a, Create(Head() + 100, {Attribute::Num("n", 5), Attribute::Str("name", "it's")}));
  MustCreate(a, Create(Head() + 100, {Attribute::Num("n", 6), Attribute::Str("name", "other")}));
  const EntityKey theirs =
      MustCreate(b, Create(Head() + 100, {Attribute::Num("n", 5), Attribute::Str("name", "it's")}));
  EXPECT_EQ(Keys("name = str('it''s')"), Keys("name = \"it's\""));
  EXPECT_EQ(CountOf("name = str('it''s') && n = u64(5)"), 2u);
  EXPECT_EQ(CountOf("n IN (u64(5), u64(6))"), 3u);
  EXPECT_EQ(CountOf("name ~ str('it*')"), 2u);
  EXPECT_EQ(CountOf("$owner = addr(" + Hex(a.address()) + ")"), 2u);
  EXPECT_EQ(Keys("$key = key(" + Hex(theirs) + ")"), std::set<EntityKey>{theirs});
  // A string literal does not match a numeric attribute of the same digits.
  EXPECT_EQ(CountOf("n = str('5')"), 0u);
  EXPECT_EQ(ledger_->Count("n = i32(5)").status().code(), Code::kInvalidArgument);
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

// A sender with a composite ML-DSA-65 + Ed25519 key: its transactions land, it owns what it
// creates, its nonces count like any other, and a forged or replayed one is refused.
TEST_P(LedgerTest, CompositeSignedTransactions) {
  Open();
  const auto key = crypto::CompositeSigningKey::Generate();
  const Address sender =
      AddressOf(SigScheme::kCompositeMlDsa65Ed25519, key.verifying_key().bytes());
  auto sign = [&](std::vector<Operation> ops, std::uint64_t nonce) {
    Transaction tx;
    tx.chain_id = 42;
    tx.nonce = nonce;
    tx.ops = std::move(ops);
    return *SignComposite(tx, key, limits_);
  };
  const Bytes first = sign({Create(100, {Attribute::Num("v", 1)})}, 0);
  auto r = ledger_->Submit(first);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->status.ok()) << r->status.ToString();
  ASSERT_EQ(r->created.size(), 1u);
  const EntityKey k = r->created[0];
  EXPECT_EQ(k, DeriveEntityKey(42, sender, 0));
  ASSERT_TRUE(Get(k).has_value());
  EXPECT_EQ(Get(k)->owner, sender);
  EXPECT_EQ(Get(k)->creator, sender);

  UpdateOp u;
  u.key = k;
  u.set = {Attribute::Num("v", 2)};
  auto upd = ledger_->Submit(sign({u}, 1));
  ASSERT_TRUE(upd.ok() && upd->status.ok());
  EXPECT_EQ(ledger_->GetAccount(sender)->tx_nonce, 2u);
  const std::uint64_t head = Head();

  auto replay = ledger_->Submit(first);
  ASSERT_TRUE(replay.ok());
  EXPECT_EQ(replay->status.code(), Code::kFailedPrecondition);
  Bytes forged = sign({DeleteOp{k}}, 2);
  forged[forged.size() - crypto::kCompositeSignatureSize + 7] ^= 1;  // in the ML-DSA part
  EXPECT_EQ(ledger_->Submit(forged).status().code(), Code::kVerificationFailed);
  // An Ed25519 wallet cannot touch the composite sender's entity.
  Wallet other;
  EXPECT_EQ(Submit(other, {DeleteOp{k}}).status.code(), Code::kPermissionDenied);
  EXPECT_EQ(Head(), head);
  EXPECT_EQ(ledger_->GetAccount(sender)->tx_nonce, 2u);
  ASSERT_TRUE(Get(k).has_value());
  EXPECT_EQ(Get(k)->attributes, std::vector<Attribute>{Attribute::Num("v", 2)});
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

// The lease clock on an instant chain (ExpiryClock::kSlots): expiry counts 1 s slots of the block
// timestamps, not blocks. Blocks sealed within one slot leave an entity live however many there
// are; an empty block sealed once its slot has come (SealIfExpiryDue) hides it from every read,
// and the sweeper keeps it for the cursor lifetime counted in slots.
TEST_P(LedgerTest, SlotClockCountsTimeNotBlocks) {
  expiry_clock_ = ExpiryClock::kSlots;
  nominal_block_time_ms_ = 1000;
  clock_ = 5'000'000;  // slot 5000 (each read of the clock adds 1 ms)
  Open();
  EXPECT_EQ(ledger_->expiry_clock_ms(), 1000u);
  EXPECT_FALSE(*ledger_->SealIfExpiryDue());  // nothing to expire
  Wallet a;
  // An expiry at or before the slot of the block is refused, whatever the block number.
  auto refused = Submit(a, {Create(5000)});
  EXPECT_EQ(refused.status.code(), Code::kInvalidArgument) << refused.status.ToString();
  const EntityKey short_lived = MustCreate(a, Create(5003, {Attribute::Str("t", "x")}));
  const EntityKey long_lived = MustCreate(a, Create(5100, {Attribute::Str("t", "x")}));
  // Many blocks in one slot: still live (on block numbers it would have expired at block 5003).
  for (int i = 0; i < 20; ++i) MustCreate(a, Create(5100));
  EXPECT_TRUE(Get(short_lived).has_value());
  EXPECT_EQ(CountOf("t = \"x\""), 2u);
  EXPECT_EQ(CountOf("*"), 22u);
  EXPECT_FALSE(*ledger_->SealIfExpiryDue());  // its slot has not come
  // Its slot comes: the next block (an empty one, sealed because the expiry fell due) hides it.
  clock_ = 5'003'000;
  const std::uint64_t head = Head();
  EXPECT_TRUE(Get(short_lived).has_value());  // the head is still in slot 5000
  EXPECT_TRUE(*ledger_->SealIfExpiryDue());
  EXPECT_EQ(Head(), head + 1);
  EXPECT_FALSE(*ledger_->SealIfExpiryDue());  // once
  EXPECT_FALSE(Get(short_lived).has_value());
  EXPECT_TRUE(Get(long_lived).has_value());
  EXPECT_EQ(CountOf("t = \"x\""), 1u);
  EXPECT_EQ(CountOf("*"), 21u);
  EXPECT_EQ(Keys("t = \"x\""), std::set<EntityKey>{long_lived});
  EXPECT_EQ(ledger_->Stats()->live_entities, 21u);
  // An update or extend of the expired entity is refused; an extension counts in slots.
  EXPECT_EQ(Submit(a, {ExtendOp{short_lived, 6000}}).status.code(), Code::kFailedPrecondition);
  EXPECT_TRUE(Submit(a, {ExtendOp{long_lived, 5200}}).status.ok());
  EXPECT_EQ(Get(long_lived)->expires_block, 5200u);
  // Kept for the cursor lifetime (5 slots after its expiry), then swept, however many blocks.
  EXPECT_EQ(*ledger_->Sweep(100), 0u);
  for (int i = 0; i < 10; ++i) MustCreate(a, Create(5100));
  EXPECT_EQ(*ledger_->Sweep(100), 0u);
  clock_ = 5'008'000;
  MustCreate(a, Create(5100));
  EXPECT_EQ(*ledger_->Sweep(100), 1u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// A cursor names its block, never its expiry height: the height comes from the block's own
// timestamp, and a page pinned further back than the cursor lifetime in slots is refused, however
// few blocks ago it was.
TEST_P(LedgerTest, SlotClockCursorsArePinnedToTheirBlocksSlot) {
  expiry_clock_ = ExpiryClock::kSlots;
  nominal_block_time_ms_ = 1000;
  clock_ = 7'000'000;
  Open();
  Wallet a;
  for (int i = 0; i < 6; ++i) MustCreate(a, Create(7002, {Attribute::Num("n", 1)}));
  QueryOptions o;
  o.limit = 2;
  auto first = ledger_->Query("n = 1", o);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->entities.size(), 2u);
  ASSERT_FALSE(first->cursor.empty());
  // Their slot comes and goes: a page from the cursor still sees them, as of its block.
  clock_ = 7'002'000;
  ASSERT_TRUE(*ledger_->SealIfExpiryDue());
  EXPECT_EQ(CountOf("n = 1"), 0u);
  o.cursor = first->cursor;
  auto second = ledger_->Query("n = 1", o);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->entities.size(), 2u);
  // Past the cursor lifetime in slots (5), one block later: refused.
  clock_ = 7'010'000;
  Advance(1);
  auto stale = ledger_->Query("n = 1", o);
  EXPECT_EQ(stale.status().code(), Code::kFailedPrecondition) << stale.status().ToString();
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
  // Blocks after a sweep keep the counts (a SQLite file's head row counts creates and deletes,
  // its meta the swept rows), and so does a reopened store.
  MustCreate(a, Create(Head() + 100));
  EXPECT_EQ(CountOf("*"), 2u);
  EXPECT_EQ(ledger_->Stats()->stored_entities, 2u);
  if (GetParam().persistent) {
    Open();
    EXPECT_EQ(CountOf("*"), 2u);
    EXPECT_EQ(ledger_->Stats()->stored_entities, 2u);
    EXPECT_TRUE(ledger_->VerifyChain().ok());
  }
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
  PlansPreferIndexes();
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
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  if (IsPostgres()) {
    // One statement: the keys are one array parameter, one index search.
    EXPECT_NE(plan->find("entities_key_key "), std::string::npos) << *plan;
    EXPECT_NE(plan->find("Index Cond: (key = ANY"), std::string::npos) << *plan;
    EXPECT_EQ(plan->find("Seq Scan"), std::string::npos) << *plan;
  } else {
    EXPECT_NE(plan->find("INDEX sqlite_autoindex_entities_1 (key=?)"), std::string::npos) << *plan;
  }
}

TEST_P(LedgerTest, ExplainUsesIndexes) {
  PlansPreferIndexes();
  Open();
  Wallet a;
  for (int i = 0; i < 5; ++i)
    MustCreate(a, Create(100, {Attribute::Num("n", 1), Attribute::Str("s", "x")}));
  struct Case {
    std::string query;
    const char* pg_index;  // the index PostgreSQL must search
  };
  const Case cases[] = {
      {"s = \"x\"", "attr_str_nv"},
      {"n > 3", "attr_num_nv"},
      {"n IN (1, 2)", "attr_num_nv"},
      {"s ~ \"ab*\"", "attr_str_nv"},
      {"n = 1 && s = \"x\"", "attr_num_nv"},
      {"$owner = " + Hex(a.address()), "entities_owner"},
      {"$creator = " + Hex(a.address()), "entities_creator"},
      {"$expiresAt < 50", "entities_expires"},
      {"$createdAtBlock = 3", "entities_created"},
      {"$key = " + Hex(ledger_->PredictKey(a.address(), 0)), "entities_key_key"},
  };
  for (const auto& [q, pg_index] : cases) {
    // The page's statements, then the count's (by the same index).
    for (const bool count : {false, true}) {
      auto plan = count ? ledger_->ExplainCount(q) : ledger_->Explain(q);
      ASSERT_TRUE(plan.ok()) << plan.status().ToString();
      EXPECT_NE(plan->find("compiled: "), std::string::npos);
      EXPECT_NE(plan->find("plan:"), std::string::npos);
      if (count) {  // a driven count's statement (CompileDrivenCount), not the page's
        EXPECT_NE(plan->find("sql: WITH "), std::string::npos) << q << "\n" << *plan;
      }
      if (IsPostgres()) {
        EXPECT_EQ(plan->find("Seq Scan"), std::string::npos) << q << "\n" << *plan;
        EXPECT_NE(plan->find(std::string(pg_index) + " "), std::string::npos) << q << "\n" << *plan;
      } else {
        EXPECT_EQ(plan->find("SCAN e\n"), std::string::npos) << q << "\n" << *plan;
        EXPECT_EQ(plan->find("SCAN e USING"), std::string::npos) << q << "\n" << *plan;
        // The entity rows of a driven count's matches, read by id (CompileDrivenCount's n).
        EXPECT_EQ(plan->find("SCAN x"), std::string::npos) << q << "\n" << *plan;
        EXPECT_NE(plan->find("INDEX"), std::string::npos) << q << "\n" << *plan;
      }
      // Values are parameters, listed apart, never spliced into the SQL.
      const auto sql = plan->find("sql: ");
      ASSERT_NE(sql, std::string::npos) << *plan;
      EXPECT_EQ(plan->substr(sql, plan->find('\n', sql) - sql).find(ToHex(a.address())),
                std::string::npos)
          << *plan;
    }
  }
  // A count of everything comes from the counters; a count without a driver scans the live
  // entities, capped; a bad query is the parser's error.
  auto all = ledger_->ExplainCount("*");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_NE(all->find("counters: "), std::string::npos) << *all;
  EXPECT_EQ(all->find("sql: "), std::string::npos) << *all;
  auto undriven = ledger_->ExplainCount("NOT (n = 1)");
  ASSERT_TRUE(undriven.ok()) << undriven.status().ToString();
  EXPECT_NE(undriven->find("count cap: " + std::to_string(limits_.query.count_cap)),
            std::string::npos)
      << *undriven;
  EXPECT_NE(undriven->find(IsPostgres() ? "Limit" : "SCAN e"), std::string::npos) << *undriven;
  auto bad = ledger_->ExplainCount("n = ");
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("at byte "), std::string::npos) << bad.status().ToString();
}

// A range with two bounds on one attribute (or meta field) is one index range, not two
// half-ranges intersected: the compiled SQL names the attribute index once, the plan bounds it
// on both sides, and the rows scanned follow the matches, not the entities.
TEST_P(LedgerTest, TwoSidedRangeIsOneIndexRange) {
  PlansPreferIndexes();
  Open();
  Wallet a;
  std::vector<Operation> ops;
  for (int i = 0; i < 60; ++i) {
    ops.push_back(Create(100 + static_cast<std::uint64_t>(i),
                         {Attribute::Num("n", static_cast<std::uint64_t>(i)),
                          Attribute::Str("s", i % 2 ? "odd" : "even")}));
  }
  ASSERT_TRUE(Submit(a, ops).status.ok());
  EXPECT_EQ(CountOf("n >= 10 && n < 20"), 10u);
  EXPECT_EQ(CountOf("n > 10 && s = \"odd\" && n <= 20"), 5u);  // 11, 13, ..., 19
  EXPECT_EQ(CountOf("n >= 10 && n < 20 && n = 15"), 1u);
  EXPECT_EQ(CountOf("n >= 20 && n < 10"), 0u);
  EXPECT_EQ(CountOf("$expiresAt >= 110 && $expiresAt < 115"), 5u);
  // Block numbers at and above 2^63 (stored signed, so every block is below them).
  EXPECT_EQ(CountOf("$expiresAt < 18446744073709551615"), 60u);
  EXPECT_EQ(CountOf("$expiresAt <= 9223372036854775808 && $createdAtBlock < 9223372036854775807"),
            60u);
  EXPECT_EQ(CountOf("$expiresAt >= 9223372036854775808 || $createdAtBlock > 18446744073709551615"),
            0u);
  EXPECT_EQ(CountOf("$expiresAt IN (9223372036854775808, 105)"), 1u);
  EXPECT_EQ(Keys("$createdAtBlock < 18446744073709551615").size(), 60u);
  EXPECT_EQ(CountOf("NOT (n >= 10 && n < 20)"), 50u);
  auto page = ledger_->Query("n >= 40 && n < 45");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->entities.size(), 5u);
  EXPECT_LE(page->cost.rows_scanned, 12u);  // was 60 + 45 with one half-range per bound
  for (const std::string q : {"n >= 10 && n < 20", "$expiresAt >= 110 && $expiresAt < 115"}) {
    auto plan = ledger_->Explain(q);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    const std::string sql = plan->substr(0, plan->find("\nparams:"));
    // PostgreSQL drives a range alone from its index rows (alias a), joining each match's row.
    const char* table = q[0] != 'n'    ? "FROM entities WHERE"
                        : IsPostgres() ? "FROM attr_num a WHERE a.name"
                                       : "FROM attr_num WHERE name";
    if (!IsPostgres() || q[0] == 'n') {  // PostgreSQL compares meta fields on e. directly
      const auto first = sql.find(table);
      ASSERT_NE(first, std::string::npos) << *plan;
      EXPECT_EQ(sql.find(table, first + 1), std::string::npos) << *plan;
    }
    if (IsPostgres()) {
      EXPECT_EQ(plan->find("Seq Scan"), std::string::npos) << *plan;
      EXPECT_EQ(plan->find("BitmapAnd"), std::string::npos) << *plan;
      if (q[0] == 'n') {
        // The fixed shape: the range's index rows, then each match's row by its id.
        EXPECT_NE(plan->find("Nested Loop"), std::string::npos) << *plan;
        EXPECT_NE(plan->find("using attr_num_nv"), std::string::npos) << *plan;
        EXPECT_NE(plan->find("using entities_pkey"), std::string::npos) << *plan;
      }
    } else if (q[0] == 'n') {
      EXPECT_NE(plan->find("attr_num_nv (name=? AND value>? AND value<?)"), std::string::npos)
          << *plan;
    } else {
      EXPECT_NE(plan->find("entities_expires (expires_block>? AND expires_block<?)"),
                std::string::npos)
          << *plan;
    }
  }
}

// A filter that is one attribute's range alone (PostgreSQL drives it from the range's index rows
// with a plan it keeps): pages in descending id order through cursors, entities that expire
// between pages, owners of several accounts resolved (PostgreSQL's account cache), projections,
// string ranges, one- and two-sided bounds, and an empty range.
TEST_P(LedgerTest, AttributeRangePagesMatchTheFilter) {
  Open();
  Wallet a, b;
  std::vector<Operation> ops;
  for (int i = 0; i < 30; ++i) {
    const auto n = static_cast<std::uint64_t>(i);
    // Every third entity expires at block 4; the rest live long.
    ops.push_back(
        Create(i % 3 == 0 ? 4 : 500,
               {Attribute::Num("n", n), Attribute::Str("s", std::string(1, char('a' + i % 26)))}));
  }
  auto made = Submit(a, ops);
  ASSERT_TRUE(made.status.ok()) << made.status.ToString();
  // Half of them change owner: a page then names two accounts besides the creator.
  std::vector<Operation> gives;
  for (int i = 1; i < 30; i += 2)
    gives.push_back(TransferOp{made.created[static_cast<std::size_t>(i)], b.address()});
  ASSERT_TRUE(Submit(a, gives).status.ok());
  const auto expect = [&](const std::string& q, auto pred, bool after_expiry) {
    std::set<EntityKey> want;
    for (int i = 0; i < 30; ++i) {
      if (pred(i) && !(after_expiry && i % 3 == 0))
        want.insert(made.created[static_cast<std::size_t>(i)]);
    }
    const auto seen = PageThrough(q, 4, 20, [&](const Entity& e) {
      const auto i = static_cast<int>(std::find(made.created.begin(), made.created.end(), e.key) -
                                      made.created.begin());
      ASSERT_LT(i, 30) << q;
      EXPECT_EQ(e.owner, i % 2 ? b.address() : a.address()) << q << " entity " << i;
      EXPECT_EQ(e.creator, a.address()) << q;
      EXPECT_EQ(e.attributes.size(), 2u) << q;
    });
    EXPECT_EQ(seen, want) << q;
  };
  for (bool after : {false, true}) {
    if (after) {
      ASSERT_LT(Head(), 4u);
      Advance(4 - Head());  // head 4, their expiry: every third entity is gone at once
    }
    expect(
        "n >= 5 && n < 25", [](int i) { return i >= 5 && i < 25; }, after);
    expect(
        "n > 5 && n <= 25", [](int i) { return i > 5 && i <= 25; }, after);
    expect(
        "n < 7", [](int i) { return i < 7; }, after);
    expect(
        "n >= 20", [](int i) { return i >= 20; }, after);
    expect(
        "n >= 20 && n < 10", [](int) { return false; }, after);
    expect(
        "s >= \"c\" && s < \"f\"", [](int i) { return i % 26 >= 2 && i % 26 < 5; }, after);
  }
  // A projection without the accounts reads none; the keys alone come back.
  QueryOptions keys;
  keys.projection = Projection::KeysOnly();
  auto page = ledger_->Query("n >= 0", keys);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->entities.size(), 20u);
  for (const auto& e : page->entities) EXPECT_EQ(e.owner, Address{});
  // A pinned read at block 3 still sees the entities that expired at 4.
  QueryOptions pinned;
  pinned.at_block = 3;
  page = ledger_->Query("n >= 0 && n < 30", pinned);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->entities.size(), 30u);
}

// A range (or a glob) that matches most entities is paged by walking the entities down from the
// cursor (src/ledger/sql_filter.h, kRangeProbeLimit and RangeWalkWindow), not by collecting its
// matches: pages of a broad range, of a range whose matches are all older than the walk's window
// (the walk finds no page and the collection serves it), and of a narrow one all match the filter,
// in descending ids, across entities that expire between pages, and so do their counts; Explain
// shows the walk's plan. (The pages cannot tell which plan served them: that is the benchmark's
// BroadRangePage200.)
TEST_P(LedgerTest, BroadRangePagesWalkTheEntities) {
  Open();
  Wallet a;
  constexpr int kEntities = 1500;  // over the probe's limit of 1,000 (sql_filter.h) by a margin
  std::vector<EntityKey> keys;
  for (int first = 0; first < kEntities; first += 150) {
    std::vector<Operation> ops;
    for (int i = first; i < first + 150; ++i) {
      char s[8];
      std::snprintf(s, sizeof s, "%04d", i);
      // Every seventh entity expires at block 20; the rest live long.
      ops.push_back(
          Create(i % 7 == 0 ? 20 : 5000,
                 {Attribute::Num("n", static_cast<std::uint64_t>(i)), Attribute::Str("s", s)}));
    }
    auto made = Submit(a, ops);
    ASSERT_TRUE(made.status.ok()) << made.status.ToString();
    keys.insert(keys.end(), made.created.begin(), made.created.end());
  }
  const auto expect = [&](const std::string& q, auto pred, bool after_expiry) {
    std::set<EntityKey> want;
    for (int i = 0; i < kEntities; ++i) {
      if (pred(i) && !(after_expiry && i % 7 == 0)) want.insert(keys[static_cast<std::size_t>(i)]);
    }
    // Pages of 20: a window of 178 entities below a cursor (RangeWalkWindow(1501, 21)).
    const auto seen =
        PageThrough(q, 20, 200, [&](const Entity& e) { EXPECT_EQ(e.attributes.size(), 2u) << q; });
    EXPECT_EQ(seen.size(), want.size()) << q;
    EXPECT_EQ(seen, want) << q;
    // The count, from the range's index entries less the matches that are not live.
    EXPECT_EQ(CountOf(q), want.size()) << q;
  };
  for (bool after : {false, true}) {
    if (after) {
      ASSERT_LT(Head(), 20u);
      Advance(20 - Head());  // every seventh entity is gone at once
    }
    expect(
        "n >= 100", [](int i) { return i >= 100; }, after);
    expect(
        "n > 50 && n < 1300", [](int i) { return i > 50 && i < 1300; }, after);
    expect(
        "n < 1200", [](int i) { return i < 1200; }, after);  // none in the first window
    expect(
        "n >= 1450", [](int i) { return i >= 1450; }, after);  // narrow: collected
    expect(
        "s >= \"0100\"", [](int i) { return i >= 100; }, after);
    // Globs: all of them (no literal prefix), the oldest 1,000 (the first window holds none),
    // and a narrow one.
    expect(
        "s ~ \"?*\"", [](int) { return true; }, after);
    expect(
        "s ~ \"0*\"", [](int i) { return i < 1000; }, after);
    expect(
        "s ~ \"14*\"", [](int i) { return i >= 1400; }, after);
  }
  auto page = ledger_->Query("n >= 100");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->entities.size(), 200u);
  EXPECT_EQ(page->entities.front().id, ledger_->Query("n >= 0")->entities.front().id);
  // Explain shows the plan a broad range takes (the pages above are the same whichever serves
  // them). A numeric bound of 0 (stored biased, as -2^63) explains too.
  ASSERT_TRUE(ledger_->Explain("n >= 0").ok());
  if (!IsPostgres()) {
    auto plan = ledger_->Explain("n >= 100");
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    EXPECT_NE(plan->find("walk of ids"), std::string::npos) << *plan;
    EXPECT_NE(plan->find("PRIMARY KEY"), std::string::npos)
        << *plan;  // the probe by (entity_id, name)
  } else {
    auto plan = ledger_->Explain("n >= 100");
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    const std::size_t walk = plan->find("walk:");
    ASSERT_NE(walk, std::string::npos) << *plan;
    const std::string w = plan->substr(walk, plan->find("collection:") - walk);
    EXPECT_NE(w.find("Index Scan Backward using entities_pkey"), std::string::npos) << *plan;
    EXPECT_NE(w.find("using attr_num_pkey"), std::string::npos) << *plan;
    EXPECT_EQ(w.find("attr_num_nv"), std::string::npos) << *plan;
  }
}

// Filters of several conjuncts with no narrow one to drive them (two broad ranges, a range with
// a broad equality, a meta field, a NOT or an OR beside it): each page walks the entities and
// probes the whole filter on each one, and when its window holds no page, the driver with the
// fewest index entries collects (sql_filter.h, Drivers). Every page and count matches a scan.
TEST_P(LedgerTest, BroadConjunctionsPageThroughTheirMatches) {
  Open();
  Wallet a;
  constexpr int kEntities = 1500;
  std::vector<EntityKey> keys;
  std::vector<std::uint64_t> blocks;
  for (int first = 0; first < kEntities; first += 150) {
    std::vector<Operation> ops;
    for (int i = first; i < first + 150; ++i) {
      char s[8];
      std::snprintf(s, sizeof s, "%04d", i);
      const auto u = [](int v) { return static_cast<std::uint64_t>(v); };
      // n rises with the id and m falls, so a bound on each is broad and their overlap is not.
      CreateOp c = Create(
          i % 7 == 0 ? 20 : 5000,
          {Attribute::Str("k", "doc"), Attribute::Num("m", u(kEntities - i)),
           Attribute::Num("n", u(i)), Attribute::Num("p", u(i % 3)), Attribute::Str("s", s)});
      if (i % 5 == 0) c.content_type = "text/plain";
      ops.push_back(std::move(c));
    }
    auto made = Submit(a, ops);
    ASSERT_TRUE(made.status.ok()) << made.status.ToString();
    keys.insert(keys.end(), made.created.begin(), made.created.end());
    blocks.push_back(made.block);  // entity i was created in blocks[i / 150]
  }
  const auto expect = [&](const std::string& q, auto pred, bool after_expiry) {
    std::set<EntityKey> want;
    for (int i = 0; i < kEntities; ++i) {
      const bool live = !(after_expiry && i % 7 == 0);
      if (live && pred(i, i % 7 == 0 ? 20 : 5000)) want.insert(keys[static_cast<std::size_t>(i)]);
    }
    const auto seen =
        PageThrough(q, 20, 200, [&](const Entity& e) { EXPECT_EQ(e.attributes.size(), 5u) << q; });
    EXPECT_EQ(seen.size(), want.size()) << q;
    EXPECT_EQ(seen, want) << q;
    EXPECT_EQ(CountOf(q), want.size()) << q;
  };
  const std::string b2 = std::to_string(blocks[1]), b9 = std::to_string(blocks[8]);
  const auto created = [&](int i) { return blocks[static_cast<std::size_t>(i / 150)]; };
  for (bool after : {false, true}) {
    if (after) {
      ASSERT_LT(Head(), 20u);
      Advance(20 - Head());
    }
    // Two broad ranges: broad together, narrow together at the oldest ids (the walk's first
    // window holds none), and one narrow range that drives.
    expect(
        "n >= 100 && m >= 100", [](int i, int) { return i >= 100 && i <= 1400; }, after);
    expect(
        "n >= 450 && m >= 450", [](int i, int) { return i >= 450 && i <= 1050; }, after);
    expect(
        "m >= 450 && n >= 450", [](int i, int) { return i >= 450 && i <= 1050; }, after);
    expect(
        "n >= 100 && m > 1300", [](int i, int) { return i >= 100 && i < 200; }, after);
    expect(
        "n >= 100 && n < 1400 && m >= 300",
        [](int i, int) { return i >= 100 && i < 1400 && i <= 1200; }, after);
    // With a broad equality, a narrow one, an IN list and a glob.
    expect(
        "k = \"doc\" && n >= 100", [](int i, int) { return i >= 100; }, after);
    expect(
        "k = \"doc\" && n >= 1400", [](int i, int) { return i >= 1400; }, after);
    expect(
        "p = 1 && n >= 100", [](int i, int) { return i % 3 == 1 && i >= 100; }, after);
    expect(
        "p IN (0, 2) && m >= 100", [](int i, int) { return i % 3 != 1 && i <= 1400; }, after);
    expect(
        "s ~ \"1*\" && n < 1400", [](int i, int) { return i >= 1000 && i < 1400; }, after);
    // A meta field, a NOT and an OR beside a broad range.
    expect(
        "n >= 100 && $expiresAt > 30", [](int i, int expires) { return i >= 100 && expires > 30; },
        after);
    // A narrow meta field beside a broad range: after the expiry none is live, the walk's window
    // holds no page, and the filter's own collection serves it (now by its driver: the meta field
    // counts as one).
    expect(
        "n >= 100 && $expiresAt < 30", [](int i, int expires) { return i >= 100 && expires < 30; },
        after);
    expect(
        "n >= 100 && NOT (p = 1)", [](int i, int) { return i >= 100 && i % 3 != 1; }, after);
    expect(
        "n >= 100 && (p = 1 || s = \"0007\")", [](int i, int) { return i >= 100 && i % 3 == 1; },
        after);
    // Meta fields drive as their indexes allow: a narrow creation range beside broad ranges
    // (the walk's window holds none of its old matches), a narrow expiry, $key's unique index,
    // and broad meta fields alone or together, which walk.
    expect(
        "n >= 100 && $createdAtBlock <= " + b2 + " && m >= 100",
        [&](int i, int) { return i >= 100 && created(i) <= blocks[1]; }, after);
    expect(
        "$createdAtBlock > " + b9 + " && p = 2",
        [&](int i, int) { return created(i) > blocks[8] && i % 3 == 2; }, after);
    expect(
        "$expiresAt <= 20 && n >= 1000", [](int i, int e) { return e <= 20 && i >= 1000; }, after);
    expect(
        "$owner = " + Hex(a.address()) + " && n >= 100", [](int i, int) { return i >= 100; },
        after);
    expect(
        "$expiresAt > 30", [](int, int e) { return e > 30; }, after);
    expect(
        "$creator = " + Hex(a.address()) + " && $expiresAt > 30 && $createdAtBlock >= " + b2,
        [&](int i, int e) { return e > 30 && created(i) >= blocks[1]; }, after);
    expect(
        "$key IN (" + Hex(keys[7]) + ", " + Hex(keys[8]) + ", " + Hex(keys[1400]) + ") && n >= 8",
        [](int i, int) { return i == 8 || i == 1400; }, after);
    // Filters without any driver, walked: a NOT, a meta field without an index and an OR of
    // such branches, broad; narrow at the oldest ids and at the newest, where the walk's window
    // holds no page and the planner's collection serves it.
    expect(
        "NOT (p = 1)", [](int i, int) { return i % 3 != 1; }, after);
    expect(
        "$contentType = \"text/plain\"", [](int i, int) { return i % 5 == 0; }, after);
    expect(
        "$contentType = \"application/octet-stream\"", [](int i, int) { return i % 5 != 0; },
        after);
    expect(
        "NOT (p = 1) || $contentType = \"text/plain\"",
        [](int i, int) { return i % 3 != 1 || i % 5 == 0; }, after);
    expect(
        "NOT (n >= 3)", [](int i, int) { return i < 3; }, after);
    expect(
        "NOT (n >= 5) || NOT (m >= 3)", [](int i, int) { return i < 5 || i > kEntities - 3; },
        after);
  }
  // ORs whose branches each have a driver: broad (walked), narrow (collected), broad in their
  // counts but all old (the walk's window holds none, the planner collects), a branch that is a
  // conjunction, a meta field's branch, and a branch without a driver (the planner's).
  ASSERT_GE(Head(), 20u);  // the entities created to expire at 20 are gone
  expect(
      "n >= 100 || m >= 100", [](int, int) { return true; }, true);
  expect(
      "n < 50 || m < 50", [](int i, int) { return i < 50 || i > 1450; }, true);
  expect(
      "n < 600 || m < 600", [](int i, int) { return i < 600 || i > 900; }, true);
  expect(
      "n < 900 || m > 1000", [](int i, int) { return i < 900; }, true);
  expect(
      "(n >= 100 && p = 1) || s = \"0007\" || $createdAtBlock <= " + b2,
      [&](int i, int) { return (i >= 100 && i % 3 == 1) || i == 7 || created(i) <= blocks[1]; },
      true);
  expect(
      "NOT (p = 1) || n >= 1400", [](int i, int) { return i % 3 != 1 || i >= 1400; }, true);
  for (const auto& [q, walks] :
       {std::pair<std::string, bool>{"n >= 100 || m >= 100", true}, {"n < 50 || m < 50", false}}) {
    auto plan = ledger_->Explain(q);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    if (!IsPostgres()) {
      EXPECT_EQ(plan->find("walk of ids") != std::string::npos, walks) << q << "\n" << *plan;
    } else {
      EXPECT_NE(plan->find("walk:"), std::string::npos) << q << "\n" << *plan;
    }
  }
  for (const char* q : {"NOT (p = 1)", "$contentType = \"text/plain\"", "NOT (n >= 3)"}) {
    auto walked = ledger_->Explain(q);
    ASSERT_TRUE(walked.ok()) << walked.status().ToString();
    EXPECT_NE(walked->find(IsPostgres() ? "walk:" : "walk of ids"), std::string::npos) << q << "\n"
                                                                                       << *walked;
  }
  // A narrow meta conjunct drives (counted under the probe's limit: no walk), from its index.
  auto narrow = ledger_->Explain("$createdAtBlock <= " + b2 + " && n >= 100 && m >= 100");
  ASSERT_TRUE(narrow.ok()) << narrow.status().ToString();
  if (!IsPostgres()) {  // PostgreSQL's Explain shows every statement a range may run
    EXPECT_NE(narrow->find("entities_created"), std::string::npos) << *narrow;
    EXPECT_EQ(narrow->find("walk of ids"), std::string::npos) << *narrow;
  }
  // The plan a broad conjunction takes: the walk, each entity probed by its primary keys.
  auto plan = ledger_->Explain("n >= 100 && m >= 100");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  if (!IsPostgres()) {
    EXPECT_NE(plan->find("walk of ids"), std::string::npos) << *plan;
  } else {
    const std::size_t walk = plan->find("walk:");
    ASSERT_NE(walk, std::string::npos) << *plan;
    const std::string w = plan->substr(walk, plan->find("collection:") - walk);
    EXPECT_NE(w.find("Index Scan Backward using entities_pkey"), std::string::npos) << *plan;
    EXPECT_EQ(w.find("attr_num_nv"), std::string::npos) << *plan;
  }
}

// An account that owns few entities among many others' drives a filter beside a broad equality
// or range: its index entries are counted under the probe's limit, so the page is collected from
// them, not found by walking the broad conjunct's index down past every other owner's entities.
TEST_P(LedgerTest, NarrowOwnerDrivesBesideBroadConjuncts) {
  PlansPreferIndexes();
  Open();
  Wallet a, b;
  std::set<EntityKey> bs;
  for (int i = 0; i < 7; ++i) {
    bs.insert(MustCreate(b, Create(5000, {Attribute::Str("k", "doc"), Attribute::Num("n", 1)})));
  }
  for (int first = 0; first < 1200; first += 200) {
    std::vector<Operation> ops;
    for (int i = 0; i < 200; ++i) {
      ops.push_back(Create(5000, {Attribute::Str("k", "doc"), Attribute::Num("n", 1)}));
    }
    ASSERT_TRUE(Submit(a, ops).status.ok());
  }
  const std::string owner = "$owner = " + Hex(b.address());
  for (const std::string& q :
       {"k = \"doc\" && " + owner, owner + " && n >= 1", "k = \"doc\" && n >= 1 && " + owner}) {
    EXPECT_EQ(PageThrough(q, 3, 10, [](const Entity&) {}), bs) << q;
    EXPECT_EQ(CountOf(q), bs.size()) << q;
    auto plan = ledger_->Explain(q);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    if (!IsPostgres()) {
      // Collected through the owner's index: no walk, and not the equality's index walked down.
      EXPECT_NE(plan->find("entities_owner"), std::string::npos) << q << "\n" << *plan;
      EXPECT_EQ(plan->find("walk of ids"), std::string::npos) << q << "\n" << *plan;
      EXPECT_EQ(plan->find("CROSS JOIN"), std::string::npos) << q << "\n" << *plan;
    }
  }
  // Broad, the owner is counted and walked like a range.
  EXPECT_EQ(CountOf("$owner = " + Hex(a.address())), 1200u);
  EXPECT_EQ(Keys("$owner = " + Hex(a.address()) + " && k = \"doc\"").size(), 1200u);
}

// An owner's or creator's equality negated, alone or merged, matches the complement of what it
// matches, also when it names an account that has no row or two different accounts (no account
// then: a driver's rows compare the id with a scalar subquery, which is NULL there, and a NOT of
// NULL would drop every row).
TEST_P(LedgerTest, NegatedAccountEqualitiesMatchTheirComplement) {
  Open();
  Wallet a, b, stranger;
  std::set<EntityKey> as, bs;
  for (int i = 0; i < 3; ++i) as.insert(MustCreate(a, Create(5000, {Attribute::Num("n", 1)})));
  for (int i = 0; i < 2; ++i) bs.insert(MustCreate(b, Create(5000, {Attribute::Num("n", 1)})));
  std::set<EntityKey> all = as;
  all.insert(bs.begin(), bs.end());
  const std::string ha = Hex(a.address()), hb = Hex(b.address()), hs = Hex(stranger.address());
  const std::pair<std::string, std::set<EntityKey>> cases[] = {
      {"NOT ($owner = " + hs + ")", all},
      {"NOT ($creator = " + hs + ")", all},
      {"NOT ($owner = " + ha + " && $owner = " + hb + ")", all},
      {"NOT ($owner = " + ha + ")", bs},
      {"$owner = " + hs, {}},
      {"$owner = " + ha + " && $owner = " + hb, {}},
      {"$owner = " + ha + " && $owner = " + ha, as},
      {"n = 1 && NOT ($owner = " + hs + ")", all},
      {"$owner = " + ha + " || NOT ($creator = " + hs + ")", all},
      {"NOT ($owner = " + ha + ") && n = 1", bs},
  };
  for (const auto& [q, want] : cases) {
    EXPECT_EQ(PageThrough(q, 2, 10, [](const Entity&) {}), want) << q;
    EXPECT_EQ(CountOf(q), want.size()) << q;
  }
}

// Random filters against a reference evaluator: every plan the stores choose (an equality's
// index walked down, a driver counted and collected, a broad range, meta field or OR walked, the
// collection after a window that held no page, $key's bounded driver, the planner's own) must
// page through exactly the live entities the filter matches, and count them. The population is
// above the drivers' probe limit (1,000 entries), with three owners (one narrow and old, one
// narrow and new), attributes that some entities lack, values that repeat and values that do
// not, and entities that expire between the two rounds.
TEST_P(LedgerTest, RandomFiltersMatchAReferenceEvaluator) {
  Open();
  struct Model {
    EntityKey key{};
    int owner = 0;
    std::uint64_t created = 0, expires = 0;
    std::optional<std::uint64_t> a, b, e;
    std::optional<std::string> c, d;
  };
  std::vector<Model> model;
  Wallet w[3];
  const auto make = [&](int owner, int first, int count) {
    std::vector<Operation> ops;
    std::vector<Model> made;
    for (int i = first; i < first + count; ++i) {
      Model m;
      m.owner = owner;
      m.expires = i % 5 == 0 ? 30 : 4000 + static_cast<std::uint64_t>(i % 50);
      const auto u = static_cast<std::uint64_t>(i);
      if (i % 11 != 0) m.a = u % 20;
      m.b = u;
      m.e = 1300 - u;
      if (i % 13 != 0) m.c = std::vector<std::string>{"x", "y", "zz", "zy"}[u % 4];
      if (i % 2 == 0) {
        char d[16];
        std::snprintf(d, sizeof d, "k%04d", i);
        m.d = d;
      }
      std::vector<Attribute> attrs;
      if (m.a) attrs.push_back(Attribute::Num("a", *m.a));
      attrs.push_back(Attribute::Num("b", *m.b));
      if (m.c) attrs.push_back(Attribute::Str("c", *m.c));
      if (m.d) attrs.push_back(Attribute::Str("d", *m.d));
      attrs.push_back(Attribute::Num("e", *m.e));
      ops.push_back(Create(m.expires, std::move(attrs)));
      made.push_back(std::move(m));
    }
    auto r = Submit(w[owner], std::move(ops));
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ASSERT_EQ(r.created.size(), made.size());
    for (std::size_t k = 0; k < made.size(); ++k) {
      made[k].key = r.created[k];
      made[k].created = r.block;
      model.push_back(std::move(made[k]));
    }
  };
  make(2, 0, 40);
  for (int t = 0; t < 6; ++t) make(0, 40 + 200 * t, 200);
  make(1, 1240, 15);
  ASSERT_EQ(model.size(), 1255u);
  const std::uint64_t first_block = model.front().created, last_block = model.back().created;

  // A filter: its text and its meaning.
  struct Filter {
    std::string text;
    std::function<bool(const Model&)> match;
  };
  std::mt19937_64 rng(20261205);
  const auto pick = [&](std::uint64_t n) { return n == 0 ? 0 : rng() % n; };
  const char* ops[] = {"=", "<", "<=", ">", ">="};
  const auto compare = [](int op, const auto& x, const auto& y) {
    switch (op) {
      case 0:
        return x == y;
      case 1:
        return x < y;
      case 2:
        return x <= y;
      case 3:
        return x > y;
      default:
        return x >= y;
    }
  };
  // Glob with `*` and `?` only (the patterns generated here).
  std::function<bool(std::string_view, std::string_view)> glob = [&](std::string_view p,
                                                                     std::string_view t) {
    if (p.empty()) return t.empty();
    if (p[0] == '*') return glob(p.substr(1), t) || (!t.empty() && glob(p, t.substr(1)));
    return !t.empty() && (p[0] == '?' || p[0] == t[0]) && glob(p.substr(1), t.substr(1));
  };
  const auto quote = [](const std::string& v) { return "\"" + v + "\""; };
  const auto leaf = [&]() -> Filter {
    const int op = static_cast<int>(pick(5));
    switch (pick(13)) {
      case 0: {
        const std::uint64_t v = pick(22);
        return {std::string("a ") + ops[op] + " " + std::to_string(v),
                [=](const Model& m) { return m.a && compare(op, *m.a, v); }};
      }
      case 1: {
        const std::uint64_t v = pick(1300);
        return {std::string("b ") + ops[op] + " " + std::to_string(v),
                [=](const Model& m) { return m.b && compare(op, *m.b, v); }};
      }
      case 2: {  // a two-sided range on b
        const std::uint64_t lo = pick(1300), hi = lo + pick(600);
        return {"b >= " + std::to_string(lo) + " && b < " + std::to_string(hi),
                [=](const Model& m) { return m.b && *m.b >= lo && *m.b < hi; }};
      }
      case 3: {
        const std::uint64_t x = pick(20), y = pick(20), z = pick(25);
        return {"a IN (" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) +
                    ")",
                [=](const Model& m) { return m.a && (*m.a == x || *m.a == y || *m.a == z); }};
      }
      case 4: {
        const std::string v = std::vector<std::string>{"x", "y", "zz", "zy", "z", "w"}[pick(6)];
        return {"c " + std::string(ops[op]) + " " + quote(v),
                [=](const Model& m) { return m.c && compare(op, *m.c, v); }};
      }
      case 5: {
        const std::string p =
            std::vector<std::string>{"z*", "*y", "?", "x*", "k0*", "k1?0*"}[pick(6)];
        const char* field = p[0] == 'k' ? "d" : "c";
        return {std::string(field) + " ~ " + quote(p), [=](const Model& m) {
                  const auto& v = p[0] == 'k' ? m.d : m.c;
                  return v && glob(p, *v);
                }};
      }
      case 6: {
        char d[8];
        std::snprintf(d, sizeof d, "k%04d", static_cast<int>(pick(1300)));
        const std::string v = d;
        return {"d " + std::string(ops[op]) + " " + quote(v),
                [=](const Model& m) { return m.d && compare(op, *m.d, v); }};
      }
      case 7: {
        const int owner = static_cast<int>(pick(3));
        if (pick(2) == 0) {
          return {"$owner = " + Hex(w[owner].address()),
                  [=](const Model& m) { return m.owner == owner; }};
        }
        // An IN list: two owners (maybe the same one twice), or one and an address that has no
        // account.
        const int other = static_cast<int>(pick(4));
        const std::string second =
            other == 3 ? "0x" + std::string(40, '7') : Hex(w[other].address());
        return {"$owner IN (" + Hex(w[owner].address()) + ", " + second + ")",
                [=](const Model& m) { return m.owner == owner || m.owner == other; }};
      }
      case 8: {
        const std::uint64_t v = first_block + pick(last_block - first_block + 2);
        return {std::string("$createdAtBlock ") + ops[op] + " " + std::to_string(v),
                [=](const Model& m) { return compare(op, m.created, v); }};
      }
      case 9: {
        const std::uint64_t v = pick(3) == 0 ? 30 : 4000 + pick(55);
        return {std::string("$expiresAt ") + ops[op] + " " + std::to_string(v),
                [=](const Model& m) { return compare(op, m.expires, v); }};
      }
      case 10: {
        const std::size_t x = pick(model.size()), y = pick(model.size());
        const EntityKey kx = model[x].key, ky = model[y].key;
        return {"$key IN (" + Hex(kx) + ", " + Hex(ky) + ")",
                [=](const Model& m) { return m.key == kx || m.key == ky; }};
      }
      case 11: {  // b rises with the id and e falls: two broad ranges whose overlap is old
        const std::uint64_t x = 1000 + pick(300), y = 45 + pick(300);
        return {"b <= " + std::to_string(x) + " && e >= " + std::to_string(y),
                [=](const Model& m) { return *m.b <= x && *m.e >= y; }};
      }
      default:  // a type no entity has for this attribute
        return {"a = \"x\"", [](const Model&) { return false; }};
    }
  };
  std::function<Filter(int)> filter = [&](int depth) -> Filter {
    const std::uint64_t kind = depth == 0 ? 0 : pick(4);
    if (kind == 0) return leaf();
    if (kind == 3) {
      Filter f = filter(depth - 1);
      return {"NOT (" + f.text + ")", [m = f.match](const Model& e) { return !m(e); }};
    }
    const bool conj = kind == 1;
    std::vector<Filter> parts;
    for (std::uint64_t n = 2 + pick(2); n > 0; --n) parts.push_back(filter(depth - 1));
    Filter out;
    for (const auto& p : parts) {
      out.text += (out.text.empty() ? "(" : conj ? " && " : " || ") + p.text;
    }
    out.text += ")";
    out.match = [=](const Model& e) {
      for (const auto& p : parts) {
        if (p.match(e) != conj) return !conj;
      }
      return conj;
    };
    return out;
  };

  for (int round = 0; round < 2; ++round) {
    if (round == 1) {
      ASSERT_LT(Head(), 30u);
      Advance(30 - Head());  // the entities that expire at 30 are gone
    }
    const std::uint64_t head = Head();
    for (int q = 0; q < 60; ++q) {
      const Filter f = filter(static_cast<int>(pick(3)));
      std::set<EntityKey> want;
      for (const auto& m : model) {
        if (m.expires > head && f.match(m)) want.insert(m.key);
      }
      // Small pages walk small windows (RangeWalkWindow), which a broad filter's old matches
      // miss, so the collection after the walk runs too.
      const std::size_t limit = pick(2) == 0 ? 3 + pick(18) : 40 + pick(161);
      const auto seen = PageThrough(f.text, limit, static_cast<int>(want.size() / limit) + 2,
                                    [](const Entity&) {});
      std::size_t missing = 0, extra = 0;
      for (const auto& k : want) missing += seen.count(k) == 0 ? 1u : 0u;
      for (const auto& k : seen) extra += want.count(k) == 0 ? 1u : 0u;
      ASSERT_TRUE(missing == 0 && extra == 0)
          << f.text << " (limit " << limit << ", head " << head << "): " << want.size()
          << " matches, " << missing << " missing, " << extra << " extra";
      ASSERT_EQ(CountOf(f.text), want.size()) << f.text;
    }
  }
}

// u64 attribute values across the whole range, including both sides of 2^63 (where a plain
// signed column would wrap) and 2^64-1: stored, read back and compared exactly.
TEST_P(LedgerTest, U64ExtremesInAttributesAndRanges) {
  Open();
  Wallet a;
  const std::uint64_t top = ~std::uint64_t{0};
  const std::uint64_t half = std::uint64_t{1} << 63;
  const std::vector<std::uint64_t> values = {0,    1,        half - 2, half - 1,
                                             half, half + 1, top - 1,  top};
  std::vector<Operation> ops;
  for (std::uint64_t v : values) ops.push_back(Create(100, {Attribute::Num("u", v)}));
  auto r = Submit(a, ops);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  for (std::size_t i = 0; i < values.size(); ++i) {
    auto e = Get(r.created[i]);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->attributes, std::vector<Attribute>{Attribute::Num("u", values[i])});
  }
  const std::string h = std::to_string(half), t = std::to_string(top);
  EXPECT_EQ(CountOf("u = " + t), 1u);
  EXPECT_EQ(CountOf("u = " + h), 1u);
  EXPECT_EQ(CountOf("u = 0"), 1u);
  EXPECT_EQ(CountOf("u > " + h), 3u);
  EXPECT_EQ(CountOf("u >= " + h), 4u);
  EXPECT_EQ(CountOf("u < " + h), 4u);
  EXPECT_EQ(CountOf("u <= " + std::to_string(half - 1)), 4u);
  EXPECT_EQ(CountOf("u > " + std::to_string(top - 1)), 1u);
  EXPECT_EQ(CountOf("u >= " + std::to_string(half - 1) + " && u <= " + std::to_string(half + 1)),
            3u);
  EXPECT_EQ(CountOf("u IN (0, " + t + ", " + h + ")"), 3u);
  EXPECT_EQ(CountOf("u NOT IN (0, " + t + ")"), 6u);
  EXPECT_EQ(Keys("u > " + h), (std::set<EntityKey>{r.created[5], r.created[6], r.created[7]}));
  EXPECT_TRUE(ledger_->VerifyChain().ok());
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

// A count driven by an attribute's index alone subtracts the matches that are not live (expired,
// not yet swept): exact below the cap, capped exactly when the live matches exceed it.
TEST_P(LedgerTest, DrivenCountSubtractsExpiredMatches) {
  limits_.query.count_cap = 5;
  Open();
  Wallet a;
  std::vector<Operation> ops;
  for (int i = 0; i < 3; ++i) ops.push_back(Create(Head() + 3, {Attribute::Num("k", 1)}));
  for (int i = 0; i < 5; ++i) ops.push_back(Create(Head() + 100, {Attribute::Num("k", 1)}));
  ASSERT_TRUE(Submit(a, ops).status.ok());
  Advance(3);  // the first three expire; the sweeper keeps them for the cursor lifetime
  ASSERT_EQ(ledger_->Stats()->stored_entities, 8u);
  for (const char* q : {"k = 1", "k = 1 && $expiresAt > 50", "$expiresAt > 50 && k = 1"}) {
    auto c = ledger_->Count(q);
    ASSERT_TRUE(c.ok()) << q << ": " << c.status().ToString();
    EXPECT_EQ(c->count, 5u) << q;
    EXPECT_FALSE(c->capped) << q;
  }
  MustCreate(a, Create(Head() + 100, {Attribute::Num("k", 1)}));
  auto c = ledger_->Count("k = 1");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->count, 5u);
  EXPECT_TRUE(c->capped);
  // The form each store compiles now (ExplainCount compiles as Count does): SQLite always the one
  // that can read its matches' rows (its CTE n); PostgreSQL, having read a backlog of 3 at this
  // head, the walk alone.
  const auto reads_rows = [&](const char* q) {
    auto plan = ledger_->ExplainCount(q);
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    return plan.ok() && plan->find("n(c) AS MATERIALIZED") != std::string::npos;
  };
  EXPECT_EQ(reads_rows("k = 1"), !IsPostgres());
  // Above, the driver's 8 and 9 matches outnumber the 3 expired entities, so the count walked the
  // expired ones. Below, 143 expired entities (above sql::kCountRowsBacklog) outnumber the
  // driver's matches (142 for j, 9 for k): the count reads each match's entity row instead (on
  // PostgreSQL from the second count at a head, once the store has read the backlog). The same
  // counts.
  ops.clear();
  for (int i = 0; i < 140; ++i) ops.push_back(Create(Head() + 2, {Attribute::Num("j", 1)}));
  for (int i = 0; i < 2; ++i) ops.push_back(Create(Head() + 100, {Attribute::Num("j", 1)}));
  ASSERT_TRUE(Submit(a, ops).status.ok());
  Advance(2);
  ASSERT_EQ(ledger_->Stats()->stored_entities, 151u);
  for (int round = 0; round < 2; ++round) {
    auto j = ledger_->Count("j = 1");
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    EXPECT_EQ(j->count, 2u) << round;
    EXPECT_FALSE(j->capped) << round;
  }
  EXPECT_TRUE(reads_rows("j = 1"));  // PostgreSQL too, beside this backlog
  c = ledger_->Count("k = 1");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->count, 5u);
  EXPECT_TRUE(c->capped);
  EXPECT_EQ(ledger_->Count("j = 1 && $expiresAt > 50")->count, 2u);
  // A rest that accepts the expired matches: D = 140 from their rows (on PostgreSQL through the
  // join to the entity row that the meta field's test reads).
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(CountOf("j = 1 && $owner = " + Hex(a.address())), 2u) << round;
  }
}

// A driven count beside a backlog switches between reading its matches' rows (driver entries <=
// the backlog) and walking the backlog (one entry more) at the boundary, and both sides count
// exactly: 130 expired entities (a backlog above sql::kCountRowsBacklog, so PostgreSQL compiles
// the switch too), then entries equal to it and one more. (Which side runs is a matter of cost
// alone: each is exact whatever the test chooses, so no count here can tell them apart.)
TEST_P(LedgerTest, DrivenCountAtTheBacklogBoundary) {
  Open();
  Wallet a;
  std::vector<Operation> ops;
  for (int i = 0; i < 130; ++i) {
    ops.push_back(Create(Head() + 2, {Attribute::Num("p", 1), Attribute::Num("q", 1)}));
  }
  ASSERT_TRUE(Submit(a, ops).status.ok());
  Advance(2);
  // Every p match is expired (entries = backlog = 130): their rows (n), none live.
  for (int round = 0; round < 2; ++round) EXPECT_EQ(CountOf("p = 1"), 0u) << round;
  // One live q match (131 entries, one more than the backlog): the walk.
  MustCreate(a, Create(Head() + 100, {Attribute::Num("q", 1)}));
  for (int round = 0; round < 2; ++round) EXPECT_EQ(CountOf("q = 1"), 1u) << round;
  // Then one live p match: 131 entries, one more than the backlog: the walk, 1 live.
  MustCreate(a, Create(Head() + 100, {Attribute::Num("p", 1)}));
  for (int round = 0; round < 2; ++round) EXPECT_EQ(CountOf("p = 1"), 1u) << round;
  // A driver with no match at all, and a rest that rejects every expired match.
  EXPECT_EQ(CountOf("p = 2"), 0u);
  EXPECT_EQ(CountOf("p = 1 && $expiresAt > 50"), 1u);
}

// A driven count whose driver has more entries than the backlog, beside a backlog of at least the
// cap + 1, first reads the live matches among its newest entries: cap + 1 of them prove the count
// capped without walking the backlog; fewer, and the walk counts exactly. 140 expired entities
// (a backlog above sql::kCountRowsBacklog, so PostgreSQL compiles this form too) and a cap of 5.
TEST_P(LedgerTest, DrivenCountCappedFromItsNewestMatches) {
  limits_.query.count_cap = 5;
  Open();
  Wallet a;
  ExpireGOnes(a);
  std::vector<Operation> ops;
  for (int i = 0; i < 4; ++i) ops.push_back(Create(Head() + 100, {Attribute::Num("g", 1)}));
  ASSERT_TRUE(Submit(a, ops).status.ok());
  // 144 entries, 4 live (fewer than cap + 1): n finds too few, and the walk counts exactly; the
  // range is not read newest first, so it walks at once. The conjunction is driven by
  // `$expiresAt > 50` (the fewest entries: the live ones), whose matches n counts exactly.
  for (const char* q : {"g = 1", "g >= 1", "g = 1 && $expiresAt > 50"}) {
    ExpectCountTwice(q, 4, false);
  }
  // One live match more at a time: 5 live (the cap, not above it) and 6 (cap + 1: capped, from
  // the newest entries, or for the range from the walk).
  for (const std::uint64_t live : {5u, 6u}) {
    MustCreate(a, Create(Head() + 100, {Attribute::Num("g", 1)}));
    for (const char* q : {"g = 1", "g >= 1", "g = 1 && $expiresAt > 50"}) {
      SCOPED_TRACE(live);
      ExpectCountTwice(q, 5, live == 6);
    }
  }
}

// The newest matches prove a count capped only through the whole filter: a rest that rejects some
// live entries among the newest (NOT: never a driver) keeps them out of n. 140 expired entities,
// then 8 live g = 1 entities of which 3 pass the rest, then 3 more that pass it.
TEST_P(LedgerTest, DrivenCountCappedFromItsNewestMatchesTestsTheRest) {
  limits_.query.count_cap = 5;
  Open();
  Wallet a;
  ExpireGOnes(a);
  std::vector<Operation> ops;
  for (int i = 0; i < 8; ++i) {
    ops.push_back(
        Create(Head() + 100, {Attribute::Num("g", 1), Attribute::Num("h", i < 3 ? 1 : 2)}));
  }
  ASSERT_TRUE(Submit(a, ops).status.ok());
  const char* q = "g = 1 && NOT (h = 2)";
  ExpectCountTwice(q, 3, false);
  ops.clear();
  for (int i = 0; i < 3; ++i) {
    ops.push_back(Create(Head() + 100, {Attribute::Num("g", 1), Attribute::Num("h", 1)}));
  }
  ASSERT_TRUE(Submit(a, ops).status.ok());
  ExpectCountTwice(q, 5, true);
}

// Pages driven by an attribute equality walk its index in id order: cursors, several equalities
// (the fewest matches drive on SQLite) and other conjuncts give the same sets as the filter's
// meaning; the SQLite plan reads the driver's index and sorts nothing.
TEST_P(LedgerTest, DrivenPagesMatchTheFilter) {
  PlansPreferIndexes();
  Open();
  Wallet a;
  constexpr int kN = 450;
  std::vector<EntityKey> keys;
  for (int b = 0; b < kN; b += 50) {
    std::vector<Operation> ops;
    for (int i = b; i < b + 50; ++i) {
      const auto u = static_cast<std::uint64_t>(i);
      ops.push_back(Create(Head() + 100,
                           {Attribute::Str("kind", i % 10 == 9 ? "other" : "doc"),
                            Attribute::Num("n", u), Attribute::Str("p", i % 2 ? "odd" : "even")}));
    }
    auto r = Submit(a, ops);
    ASSERT_TRUE(r.status.ok());
    keys.insert(keys.end(), r.created.begin(), r.created.end());
  }
  auto expect = [&](auto pred) {
    std::set<EntityKey> out;
    for (int i = 0; i < kN; ++i) {
      if (pred(i)) out.insert(keys[static_cast<std::size_t>(i)]);
    }
    return out;
  };
  EXPECT_EQ(Keys("kind = \"doc\""), expect([](int i) { return i % 10 != 9; }));
  EXPECT_EQ(Keys("kind = \"doc\" && n >= 100"),
            expect([](int i) { return i % 10 != 9 && i >= 100; }));
  EXPECT_EQ(Keys("n < 300 && kind = \"doc\" && p = \"odd\""),
            expect([](int i) { return i < 300 && i % 10 != 9 && i % 2 == 1; }));
  EXPECT_EQ(Keys("p = \"even\" && kind = \"other\""), std::set<EntityKey>{});
  EXPECT_EQ(Keys("kind = \"other\" && (n = 9 || n = 19)"),
            expect([](int i) { return i == 9 || i == 19; }));
  EXPECT_EQ(CountOf("kind = \"doc\" && p = \"odd\""), 180u);
  EXPECT_EQ(CountOf("kind = \"other\" && n IN (9, 19, 20)"), 2u);
  if (!IsPostgres()) {
    auto plan = ledger_->Explain("kind = \"doc\"");
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    EXPECT_NE(plan->find("SEARCH a USING COVERING INDEX attr_str_nv (name=? AND value=?)"),
              std::string::npos)
        << *plan;
    EXPECT_EQ(plan->find("TEMP B-TREE"), std::string::npos) << *plan;
  }
}

// Prewarm reads the store's tables and indexes into its own cache and changes nothing.
TEST_P(LedgerTest, PrewarmLoadsTheStoreAndChangesNothing) {
  Open();
  Wallet a;
  const EntityKey k = MustCreate(a, Create(100, {Attribute::Str("t", "x")}, Bytes(5000, 7)));
  const auto before = ledger_->Head();
  auto warm = ledger_->Prewarm();
  ASSERT_TRUE(warm.ok()) << warm.status().ToString();
  EXPECT_GT(*warm, 5000u);  // at least the payload's pages
  EXPECT_EQ(ledger_->Head(), before);
  ASSERT_TRUE(Get(k).has_value());
  EXPECT_EQ(CountOf("t = \"x\""), 1u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
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

// A filter no index can drive (a NOT at the top, an OR with a branch no index serves,
// `$contentType` alone) walks every entity, and each of its predicates probes each row: with a
// small work budget such reads are stopped with WorkBudgetExceeded (kResourceExhausted) on every
// backend, Query, Count and ExplainCount alike, and the same reads pass within the default
// budget (the budget stopped them, not the filter).
TEST_P(LedgerTest, UndrivenReadsStopAtTheWorkBudget) {
  limits_.query.max_read_steps = 5'000;
  limits_.query.max_read_ms = 1;
  Open();
  Wallet w;
  for (int t = 0; t < 20; ++t) {
    std::vector<Operation> ops;
    for (int i = 0; i < 200; ++i) {
      ops.push_back(Create(100'000, {Attribute::Num("n", static_cast<std::uint64_t>(t * 200 + i)),
                                     Attribute::Str("s", "v" + std::to_string(i))}));
    }
    ASSERT_TRUE(Submit(w, ops).status.ok());
  }
  std::string heavy = "NOT (n >= 0)";
  for (int i = 0; i < 40; ++i) heavy += " && NOT (s ~ \"x" + std::to_string(i) + "*\")";
  // PostgreSQL bounds time, so its cases are the ones that take many milliseconds at 4,000
  // entities (a probe a row and predicate); SQLite counts steps and stops every walk.
  std::vector<std::string> undriven = {heavy, "NOT (n >= 0)"};
  if (!IsPostgres()) {
    undriven.push_back("n = 7 || $contentType = \"text/none\"");
    undriven.push_back("$contentType = \"text/none\"");
  }
  for (const std::string& q : undriven) {
    auto page = ledger_->Query(q);
    ASSERT_FALSE(page.ok()) << q;
    EXPECT_EQ(page.status().code(), Code::kResourceExhausted) << page.status().ToString();
    EXPECT_TRUE(IsWorkBudgetExceeded(page.status())) << page.status().ToString();
    auto count = ledger_->Count(q);
    ASSERT_FALSE(count.ok()) << q;
    EXPECT_TRUE(IsWorkBudgetExceeded(count.status())) << count.status().ToString();
  }
  // SQLite counts steps, so a read an index serves passes the same small budget.
  if (!IsPostgres()) {
    EXPECT_EQ(CountOf("n = 7"), 1u);
    EXPECT_EQ(Keys("n = 7").size(), 1u);
  }
  // The ledger goes on: the budget is per read, and writes have none.
  MustCreate(w, Create(100'000, {Attribute::Num("n", 4000)}));
  if (!GetParam().persistent) return;  // (reopening an in-memory store starts a new chain)
  // The same on the writer's connection (no readers): the budget stops the read there too, and
  // the session's writes and unbudgeted reads go on after it.
  read_connections_ = 0;
  Open();
  auto stopped = ledger_->Count(heavy);
  EXPECT_TRUE(IsWorkBudgetExceeded(stopped.status())) << stopped.status().ToString();
  const EntityKey after_stop = MustCreate(w, Create(100'000, {Attribute::Num("n", 4001)}));
  EXPECT_TRUE(Get(after_stop).has_value());
  EXPECT_TRUE(ledger_->VerifyChain().ok());  // statements of many milliseconds, unbudgeted
  read_connections_.reset();
  limits_.query.max_read_steps = QueryLimits{}.max_read_steps;
  limits_.query.max_read_ms = QueryLimits{}.max_read_ms;
  Open();
  for (const std::string& q : undriven) {
    const std::uint64_t matches = q.rfind("n = 7", 0) == 0 ? 1 : 0;
    auto page = ledger_->Query(q);
    ASSERT_TRUE(page.ok()) << q << ": " << page.status().ToString();
    EXPECT_EQ(page->entities.size(), matches) << q;
    EXPECT_EQ(CountOf(q), matches) << q;
  }
  EXPECT_EQ(CountOf("n = 7 || $contentType = \"application/octet-stream\""), 4002u);
}

// The timed mode's queue is bounded by the memory its transactions hold, per sender and in
// all: a transaction past either bound is refused whole (kUnavailable, nothing of it queued),
// fresh keys do not get past the total, and once a block takes the queue the room comes back.
TEST_P(LedgerTest, TimedQueueIsBoundedInBytesPerSenderAndInAll) {
  Wallet a, b, c;
  // Transactions of one shape: each holds the same memory.
  const auto tx_of = [&](Wallet& w, std::uint64_t nonce) {
    return Sign(w, {Create(1000, {Attribute::Str("s", "x")}, Bytes(20'000, 7))}, nonce);
  };
  const Bytes probe = tx_of(a, 0);
  auto decoded = Decode(probe, limits_);
  ASSERT_TRUE(decoded.ok());
  const std::size_t one = QueuedTxBytes(*decoded, Bytes(probe.begin(), probe.end()));
  EXPECT_GT(one, 2 * 20'000u);  // the encoding and the decoded payload
  limits_.queue.max_sender_bytes = 3 * one + one / 2;
  limits_.queue.max_bytes = 5 * one + one / 2;
  Open(BlockMode::kTimed);
  const auto expect_refused = [&](const Bytes& tx, const std::string& why) {
    auto r = ledger_->Submit(tx);
    ASSERT_FALSE(r.ok()) << why;
    EXPECT_EQ(r.status().code(), Code::kUnavailable) << r.status().ToString();
    EXPECT_NE(r.status().message().find(why), std::string::npos) << r.status().ToString();
  };
  for (std::uint64_t n = 0; n < 3; ++n) {
    auto r = ledger_->Submit(tx_of(a, n));
    ASSERT_TRUE(r.ok() && r->pending) << r.status().ToString();
  }
  expect_refused(tx_of(a, 3), "for this sender");
  EXPECT_EQ(ledger_->Stats()->queued_bytes, 3 * one);
  for (std::uint64_t n = 0; n < 2; ++n) {
    auto r = ledger_->Submit(tx_of(b, n));
    ASSERT_TRUE(r.ok() && r->pending) << r.status().ToString();
  }
  expect_refused(tx_of(c, 0), "transaction queue full");  // a fresh key: the total holds
  auto stats = ledger_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->queued_txs, 5u);
  EXPECT_EQ(stats->queued_bytes, 5 * one);
  auto sealed = ledger_->SealBlock();
  ASSERT_TRUE(sealed.ok());
  EXPECT_EQ(sealed->receipts.size(), 5u);
  for (const auto& r : sealed->receipts) EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(ledger_->Stats()->queued_bytes, 0u);
  // The room is back: the refused transactions go in now, and land.
  for (const Bytes& tx : {tx_of(c, 0), tx_of(a, 3)}) {
    auto r = ledger_->Submit(tx);
    ASSERT_TRUE(r.ok() && r->pending) << r.status().ToString();
  }
  EXPECT_EQ(ledger_->Stats()->queued_bytes, 2 * one);
  sealed = ledger_->SealBlock();
  ASSERT_TRUE(sealed.ok());
  ASSERT_EQ(sealed->receipts.size(), 2u);
  for (const auto& r : sealed->receipts) EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(ledger_->Stats()->queued_bytes, 0u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// The heap a queued transaction holds, as the allocator counts it (ASan's allocator, or glibc's
// mallinfo2): its decoded form and its encoding, made as the ledger makes them.
std::size_t HeapInUse() {
#ifdef VEIL_TEST_ASAN
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}

// QueuedTxBytes against the allocator's own count of what a queued transaction holds, for the
// shapes at both ends: payloads (held twice, encoded and decoded) and many small operations
// with many attributes (the decoded form's arrays and strings). It must never count less.
TEST(QueuedTxBytes, CountsAtLeastWhatTheAllocatorHolds) {
  const Limits limits = Limits::Arkiv();
  const auto key = crypto::Ed25519SigningKey::Generate();
  std::vector<Transaction> shapes(3);
  for (int i = 0; i < 30; ++i) {
    shapes[0].ops.push_back(Create(1000, {}, Bytes(limits.max_payload_bytes, 1)));
  }
  for (int i = 0; i < 200; ++i) {
    std::vector<Attribute> attrs;
    for (int a = 0; a < 30; ++a) {
      attrs.push_back(Attribute::Str("attribute_name_number_" + std::to_string(100 + a),
                                     std::string(100, 'v')));
    }
    shapes[1].ops.push_back(Create(1000, attrs, Bytes(10, 1)));
  }
  for (int i = 0; i < 200; ++i) {
    DeleteOp d;
    d.key[0] = static_cast<std::uint8_t>(i);
    shapes[2].ops.push_back(d);
  }
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    shapes[k].chain_id = 42;
    auto encoded = SignEd25519(shapes[k], key, limits);
    ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
    const std::size_t before = HeapInUse();
    auto decoded = Decode(*encoded, limits);
    ASSERT_TRUE(decoded.ok());
    auto held = std::make_unique<std::pair<SignedTransaction, Bytes>>(
        std::move(*decoded), Bytes(encoded->begin(), encoded->end()));
    const std::size_t measured = HeapInUse() - before;
    const std::size_t counted = QueuedTxBytes(held->first, held->second);
    EXPECT_GE(counted, measured) << "shape " << k;
    // Conservative, not wildly so.
    EXPECT_LE(counted, 2 * measured + 4096) << "shape " << k;
    std::printf(
        "queued transaction shape %zu: %zu encoded bytes, %zu held (allocator), %zu "
        "counted\n",
        k, encoded->size(), measured, counted);
  }
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

// A node whose head is stale gets HeadConflict from the store and writes nothing.
// Receipts by transaction hash (the stores' indexed FindTx) and blocks with their hashes.
TEST_P(LedgerTest, ReceiptsAndBlocksByHash) {
  Open();
  Wallet w;
  std::vector<TxReceipt> landed;
  for (int i = 0; i < 3; ++i) landed.push_back(Submit(w, {Create(1000), Create(1000)}));
  const TxReceipt failed = *ledger_->Submit(Sign(w, {Create(1000)}, 0));  // a replay
  ASSERT_FALSE(failed.status.ok());
  for (const TxReceipt& r : landed) {
    ASSERT_TRUE(r.status.ok());
    auto got = ledger_->GetReceipt(r.tx_hash);
    ASSERT_TRUE(got.ok() && got->has_value()) << got.status().ToString();
    EXPECT_EQ((*got)->block, r.block);
    EXPECT_EQ((*got)->index, std::optional<std::uint32_t>(0));
    EXPECT_EQ((*got)->created, r.created);
    auto block = ledger_->GetBlock(r.block);
    ASSERT_TRUE(block.ok() && block->has_value());
    EXPECT_EQ((*block)->tx_hashes, std::vector<Hash32>{r.tx_hash});
  }
  // A failed transaction changed nothing and is not stored; nor is an unknown hash.
  EXPECT_EQ(*ledger_->GetReceipt(failed.tx_hash), std::nullopt);
  EXPECT_EQ(*ledger_->GetReceipt(Hash32{}), std::nullopt);
  EXPECT_EQ(*ledger_->GetBlock(Head() + 1), std::nullopt);
}

// A timed block of several transactions: each one's receipt by its hash names the block and its
// position (a SQLite file finds the first through its block row and the others through
// tx_index), and the block lists them in order.
TEST_P(LedgerTest, ReceiptsOfEveryTransactionOfABlock) {
  Open(BlockMode::kTimed);
  Wallet w[3];
  std::vector<Hash32> hashes;
  for (auto& x : w) hashes.push_back(Submit(x, {Create(1000), Create(1000)}).tx_hash);
  auto sealed = ledger_->SealBlock();
  ASSERT_TRUE(sealed.ok() && sealed->receipts.size() == 3) << sealed.status().ToString();
  for (std::uint32_t i = 0; i < 3; ++i) {
    auto got = ledger_->GetReceipt(hashes[i]);
    ASSERT_TRUE(got.ok() && got->has_value()) << i << ": " << got.status().ToString();
    EXPECT_EQ((*got)->block, sealed->header.number);
    EXPECT_EQ((*got)->index, std::optional<std::uint32_t>(i));
    EXPECT_EQ((*got)->created, sealed->receipts[i].created);
    EXPECT_EQ((*got)->created.size(), 2u);
  }
  auto block = ledger_->GetBlock(sealed->header.number);
  ASSERT_TRUE(block.ok() && block->has_value());
  EXPECT_EQ((*block)->tx_hashes, hashes);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, LedgerTest, ::testing::ValuesIn(Backends(false, false)),
                         [](const ::testing::TestParamInfo<Backend>& p) { return p.param.name; });

}  // namespace
}  // namespace veil::ledger
