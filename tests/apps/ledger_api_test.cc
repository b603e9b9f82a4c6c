// One behaviour suite for LedgerApi, run against the in-process ledger (LocalLedger) and against
// a node over HTTP (RemoteLedger -> in-process Node on 127.0.0.1, SQLite in memory): create,
// update, extend, transfer, delete, queries with cursors (as text and built in code), counts,
// receipts, blocks, the chain's description in instant and timed mode, failures; the operator's
// calls (LedgerAdmin) beside them.
// NodeLimits: what one client address may take of a node (ClientLimits), from two source
// addresses on the loopback.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <nlohmann/json.hpp>
#include <set>

#include "apps_test_util.h"
#include "net/raw_connection.h"
#include "support/scratch_dir.h"
#include "veil/ledger/admin.h"
#include "veil/ledger/api.h"
#include "veil/ledger/json.h"
#include "veil/ledger/local.h"
#include "veil/net/error_map.h"

namespace veil::ledger_node::testing {
namespace {

using ledger::Attribute;
using ledger::Entity;

enum class Mode { kLocal, kRemote };

class LedgerApiTest : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    if (GetParam() == Mode::kLocal) {
      auto store = OpenStore("sqlite::memory:");
      ASSERT_TRUE(store.ok()) << store.status().ToString();
      // These tests give small expiry blocks: a chain that counts expiry in blocks.
      ledger::LedgerOptions lo;
      lo.expiry_clock = ledger::ExpiryClock::kBlocks;
      auto l = ledger::Ledger::Open(std::move(*store), lo);
      ASSERT_TRUE(l.ok()) << l.status().ToString();
      admin_ = std::make_shared<ledger::LocalLedger>(std::move(*l));
    } else {
      NodeOptions o;
      o.store = "sqlite::memory:";
      o.expiry_clock = ledger::ExpiryClock::kBlocks;
      std::unique_ptr<ledger::RemoteLedger> remote;
      ASSERT_NO_FATAL_FAILURE(StartNode(o, &node_, &remote));
      admin_ = std::move(remote);
    }
    api_ = admin_;
  }
  void TearDown() override {
    api_.reset();
    admin_.reset();
    if (node_) {
      EXPECT_TRUE(node_->Stop().ok());
    }
  }

  ledger::TxReceipt SubmitOk(const Bytes& tx) {
    auto r = api_->Submit(tx);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {};
    EXPECT_TRUE(r->status.ok()) << r->status.ToString();
    return *r;
  }
  std::uint64_t HeadNumber() {
    auto h = api_->Head();
    EXPECT_TRUE(h.ok());
    return h.ok() ? h->number : 0;
  }

  std::unique_ptr<Node> node_;
  // The same ledger as products see it, and as its operator does.
  std::shared_ptr<ledger::LedgerApi> api_;
  std::shared_ptr<ledger::LedgerAdmin> admin_;
};

// Entities compared without the store-internal fields, which do not travel.
Entity Wire(Entity e) {
  e.id = 0;
  e.last_change = 0;
  return e;
}

TEST_P(LedgerApiTest, EntityLifecycle) {
  Wallet alice, bob;
  auto chain = api_->ChainId();
  ASSERT_TRUE(chain.ok());
  EXPECT_EQ(*chain, 1u);
  auto predicted = api_->PredictKey(alice.address(), 0);
  ASSERT_TRUE(predicted.ok());

  auto created = SubmitOk(
      Sign(alice, {Create(100, {Attribute::Num("n", 7), Attribute::Str("s", "x")}, {9, 8, 7})}));
  ASSERT_EQ(created.created.size(), 1u);
  const auto key = created.created[0];
  EXPECT_EQ(key, *predicted);
  EXPECT_EQ(created.block, 1u);
  EXPECT_EQ(HeadNumber(), 1u);

  auto got = api_->Get(key);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->owner, alice.address());
  EXPECT_EQ((*got)->payload, (Bytes{9, 8, 7}));
  EXPECT_EQ((*got)->attributes.size(), 2u);
  EXPECT_EQ((*got)->expires_block, 100u);

  auto keys_only = api_->Get(key, ledger::Projection::KeysOnly());
  ASSERT_TRUE(keys_only.ok() && keys_only->has_value());
  EXPECT_EQ((*keys_only)->key, key);
  EXPECT_TRUE((*keys_only)->payload.empty());

  ledger::UpdateOp u;
  u.key = key;
  u.set = {Attribute::Num("n", 8)};
  u.unset = {"s"};
  SubmitOk(Sign(alice, {u}));
  ledger::ExtendOp x;
  x.key = key;
  x.expires_block = 200;
  SubmitOk(Sign(alice, {x}));
  ledger::TransferOp t;
  t.key = key;
  t.new_owner = bob.address();
  SubmitOk(Sign(alice, {t}));
  got = api_->Get(key);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->owner, bob.address());
  EXPECT_EQ((*got)->creator, alice.address());
  EXPECT_EQ((*got)->expires_block, 200u);
  ASSERT_EQ((*got)->attributes.size(), 1u);
  EXPECT_EQ((*got)->attributes[0], Attribute::Num("n", 8));

  // Alice no longer owns it: the delete fails, changes nothing and is not stored.
  const Bytes bad = Sign(alice, {ledger::DeleteOp{key}});
  auto failed = api_->Submit(bad);
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->status.code(), Code::kPermissionDenied);
  EXPECT_EQ(failed->failed_op, std::optional<std::size_t>(0));
  EXPECT_EQ(HeadNumber(), 4u);
  auto none = api_->GetReceipt(failed->tx_hash);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());

  SubmitOk(Sign(bob, {ledger::DeleteOp{key}}));
  got = api_->Get(key);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_value());

  auto acct = api_->GetAccount(alice.address());
  ASSERT_TRUE(acct.ok());
  EXPECT_EQ(acct->tx_nonce, 4u);  // the failed delete did not consume a nonce
  EXPECT_EQ(acct->create_nonce, 1u);
  if (GetParam() == Mode::kLocal) {
    EXPECT_TRUE(admin_->VerifyChain().ok());
  } else {
    // An operator's call, which a node serves only when started with operator_rpc; the
    // operator's own path (the ledger beside the node) verifies.
    const Status refused = admin_->VerifyChain();
    EXPECT_EQ(refused.code(), Code::kPermissionDenied) << refused.ToString();
    EXPECT_NE(refused.message().find("operator"), std::string::npos) << refused.ToString();
    EXPECT_TRUE(node_->ledger().VerifyChain().ok());
  }
}

TEST_P(LedgerApiTest, ReceiptsAndBlocks) {
  Wallet w;
  Wallet other;
  SubmitOk(Sign(other, {Create(50)}));
  auto r = SubmitOk(Sign(w, {Create(50), Create(60, {Attribute::Str("a", "b")})}));
  ASSERT_EQ(r.created.size(), 2u);
  auto landed = api_->GetReceipt(r.tx_hash);
  ASSERT_TRUE(landed.ok() && landed->has_value()) << landed.status().ToString();
  const auto& l = **landed;
  EXPECT_TRUE(l.status.ok());
  EXPECT_EQ(l.block, r.block);
  EXPECT_EQ(l.index, std::optional<std::uint32_t>(0));
  EXPECT_EQ(l.created, r.created);
  EXPECT_EQ(l.sender, w.address());
  EXPECT_EQ(l.cost.gas, r.cost.gas);
  EXPECT_EQ(l.cost.operations, 2u);
  EXPECT_EQ(l.cost.bytes_written, r.cost.bytes_written);
  EXPECT_EQ(l.cost.calldata_bytes, r.cost.calldata_bytes);

  auto b = api_->GetBlock(r.block);
  ASSERT_TRUE(b.ok() && b->has_value());
  EXPECT_EQ((*b)->header.number, r.block);
  ASSERT_EQ((*b)->tx_hashes.size(), 1u);
  EXPECT_EQ((*b)->tx_hashes[0], r.tx_hash);
  auto head = api_->Head();
  ASSERT_TRUE(head.ok());
  EXPECT_EQ((*b)->header, *head);
  auto genesis = api_->GetBlock(0);
  ASSERT_TRUE(genesis.ok() && genesis->has_value());
  EXPECT_TRUE((*genesis)->tx_hashes.empty());
  EXPECT_EQ((*b)->header.parent, (*api_->GetBlock(r.block - 1))->header.hash);
  auto future = api_->GetBlock(r.block + 1);
  ASSERT_TRUE(future.ok());
  EXPECT_FALSE(future->has_value());

  // A replay of the landed transaction: no new block. Remotely the node reports the replay and
  // the client resolves it to the landed receipt (remote.h); locally the failure is returned.
  const Bytes again = Sign(w, {Create(70)});
  SubmitOk(again);
  const auto before = *api_->Head();
  auto replay = api_->Submit(again);
  ASSERT_TRUE(replay.ok());
  if (GetParam() == Mode::kLocal) {
    EXPECT_EQ(replay->status.code(), Code::kFailedPrecondition);
  } else {
    EXPECT_TRUE(replay->status.ok());
    EXPECT_EQ(replay->block, before.number);
  }
  EXPECT_EQ(*api_->Head(), before);
}

TEST_P(LedgerApiTest, QueriesCursorsCountsExplain) {
  Wallet w;
  std::vector<ledger::Operation> ops;
  for (std::uint64_t i = 0; i < 25; ++i) {
    ops.push_back(Create(100, {Attribute::Num("i", i), Attribute::Str("kind", "doc")}));
  }
  SubmitOk(Sign(w, ops));
  SubmitOk(Sign(w, {Create(100, {Attribute::Str("kind", "other")})}));

  ledger::QueryOptions o;
  o.limit = 10;
  std::set<ledger::EntityKey> seen;
  int pages = 0;
  std::uint64_t pinned = 0;
  while (true) {
    auto page = api_->Query("kind = \"doc\"", o);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    if (pages == 0) pinned = page->block;
    EXPECT_EQ(page->block, pinned);
    ++pages;
    for (const auto& e : page->entities) EXPECT_TRUE(seen.insert(e.key).second);
    EXPECT_GT(page->cost.query_units, 0u);
    if (page->cursor.empty()) break;
    o.cursor = page->cursor;
    if (pages == 1) SubmitOk(Sign(w, {Create(100, {Attribute::Str("kind", "doc")})}));
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(seen.size(), 25u);  // pinned: the entity created mid-walk is not in it

  auto count = api_->Count("kind = \"doc\"");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(count->count, 26u);
  EXPECT_FALSE(count->capped);
  auto all = api_->Count("*");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->count, 27u);
  auto ranged = api_->Count("i >= 20 && kind = \"doc\"");
  ASSERT_TRUE(ranged.ok());
  EXPECT_EQ(ranged->count, 5u);

  ledger::QueryOptions keys;
  keys.projection = ledger::Projection::KeysOnly();
  auto page = api_->Query("i < 3", keys);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->entities.size(), 3u);
  for (const auto& e : page->entities) {
    auto full = api_->Get(e.key);
    ASSERT_TRUE(full.ok() && full->has_value());
    EXPECT_EQ((*full)->key, e.key);
    EXPECT_TRUE(e.attributes.empty());
  }
  auto full_page = api_->Query("i = 4");
  ASSERT_TRUE(full_page.ok());
  ASSERT_EQ(full_page->entities.size(), 1u);
  EXPECT_EQ(Wire(full_page->entities[0]), Wire(**api_->Get(full_page->entities[0].key)));

  auto plan = admin_->Explain("kind = \"doc\"", {});
  ASSERT_TRUE(plan.ok());
  EXPECT_NE(plan->find("compiled"), std::string::npos);
  auto count_plan = admin_->ExplainCount("kind = \"doc\"");
  ASSERT_TRUE(count_plan.ok()) << count_plan.status().ToString();
  EXPECT_NE(count_plan->find("attr_str_nv"), std::string::npos) << *count_plan;
  EXPECT_EQ(admin_->ExplainCount("kind = ").status().code(), Code::kInvalidArgument);

  // Bad queries are errors with the same code both ways.
  EXPECT_EQ(api_->Query("kind = ", {}).status().code(), Code::kInvalidArgument);
  ledger::QueryOptions big;
  big.limit = 201;
  EXPECT_EQ(api_->Query("*", big).status().code(), Code::kInvalidArgument);
  ledger::QueryOptions bad_cursor;
  bad_cursor.cursor = "zz";
  EXPECT_EQ(api_->Query("*", bad_cursor).status().code(), Code::kInvalidArgument);
}

TEST_P(LedgerApiTest, RejectedTransactionsAreErrors) {
  Wallet w;
  SubmitOk(Sign(w, {Create(100)}));
  const auto before = *api_->Head();
  Bytes tx = Sign(w, {Create(100)});
  tx[tx.size() - 1] ^= 1;  // the signature's last byte
  EXPECT_EQ(api_->Submit(tx).status().code(), Code::kVerificationFailed);
  EXPECT_EQ(api_->Submit(Bytes{1, 2, 3}).status().code(), Code::kInvalidArgument);
  Wallet other;
  EXPECT_EQ(api_->Submit(Sign(other, {Create(100)}, 2)).status().code(),
            Code::kInvalidArgument);  // wrong chain
  EXPECT_EQ(*api_->Head(), before);
  EXPECT_EQ(api_->Count("*")->count, 1u);
}

// Queries built in code (query.h): values that would change a query pasted together as text
// (quotes, backslashes, operators, parentheses, a glob star, non-ASCII) match as values, both ways.
TEST_P(LedgerApiTest, QueriesBuiltInCode) {
  namespace q = ledger::query;
  Wallet w, other;
  const std::vector<std::string> hostile = {
      "x\"y", "a\\b", "\\\"", "\") || *", "v\" || name = \"w", "caf\xc3\xa9 \xe2\x82\xac",
      "&& (", "it's", "*",    "",         ") OR (n >= 0"};
  std::vector<ledger::Operation> ops;
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    ops.push_back(Create(100, {Attribute::Num("n", i), Attribute::Str("name", hostile[i])}));
  }
  SubmitOk(Sign(w, ops));
  SubmitOk(Sign(other, {Create(100, {Attribute::Num("n", 100), Attribute::Str("name", "x\"y")})}));
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    auto page = api_->Query(q::Attr("name") == hostile[i]);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    ASSERT_EQ(page->entities.size(), i == 0 ? 2u : 1u) << hostile[i];
    for (const auto& e : page->entities) {
      ASSERT_EQ(e.attributes.size(), 2u);
      EXPECT_EQ(e.attributes[1], Attribute::Str("name", hostile[i]));
    }
    auto mine = api_->Count(q::Attr("name") == hostile[i] && q::Owner(w.address()));
    ASSERT_TRUE(mine.ok()) << mine.status().ToString();
    EXPECT_EQ(mine->count, 1u) << hostile[i];
    auto not_mine = api_->Count(q::Attr("name") == hostile[i] && !q::Creator(w.address()));
    ASSERT_TRUE(not_mine.ok()) << not_mine.status().ToString();
    EXPECT_EQ(not_mine->count, i == 0 ? 1u : 0u) << hostile[i];
  }
  auto ranged = api_->Count(q::Attr("n") >= 5u && q::Owner(w.address()));
  ASSERT_TRUE(ranged.ok()) << ranged.status().ToString();
  EXPECT_EQ(ranged->count, hostile.size() - 5);
  auto listed = api_->Count(q::Attr("name").In({"it's", "*", "nothing"}) || q::Attr("n") == 100u);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(listed->count, 3u);
  auto globbed = api_->Count(q::Attr("name").Glob("caf*"));
  ASSERT_TRUE(globbed.ok()) << globbed.status().ToString();
  EXPECT_EQ(globbed->count, 1u);
  EXPECT_EQ(api_->Count(q::All())->count, hostile.size() + 1);

  ledger::QueryOptions keys;
  keys.projection = ledger::Projection::KeysOnly();
  keys.limit = 3;
  auto page =
      api_->Query(q::Attr("n") < 100u && q::ContentType() == "application/octet-stream", keys);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->entities.size(), 3u);
  EXPECT_FALSE(page->cursor.empty());
  EXPECT_TRUE(page->entities[0].attributes.empty());

  // An Expr that no query text has is refused before anything is sent.
  for (const auto& bad : {q::Attr("NOT") == 1u, q::Attr("a b") == 1u, q::Attr("") == 1u,
                          q::ExpiresAt().Glob("1*"), !q::All(), q::Meta(q::Field::kKey) == 1u}) {
    EXPECT_EQ(api_->Count(bad).status().code(), Code::kInvalidArgument) << q::ToString(bad);
    EXPECT_EQ(api_->Query(bad).status().code(), Code::kInvalidArgument) << q::ToString(bad);
  }
}

TEST_P(LedgerApiTest, ChainInfoOfAnInstantLedger) {
  Wallet w;
  SubmitOk(Sign(w, {Create(100)}));
  SubmitOk(Sign(w, {Create(100)}));
  auto info = api_->ChainInfo();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->chain_id, 1u);
  EXPECT_EQ(*api_->ChainId(), 1u);
  EXPECT_EQ(info->limits, ledger::Limits::Arkiv());
  EXPECT_EQ(info->block_time_ms, 0u);
  EXPECT_EQ(info->nominal_block_time_ms, 2000u);  // the default, as Arkiv's blocks
  auto head = api_->Head();
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(info->head_number, 2u);
  EXPECT_EQ(info->head_number, head->number);
  EXPECT_EQ(info->head_timestamp_ms, head->timestamp_ms);
  EXPECT_GT(info->head_timestamp_ms, 0u);
}

INSTANTIATE_TEST_SUITE_P(Apis, LedgerApiTest, ::testing::Values(Mode::kLocal, Mode::kRemote),
                         [](const auto& i) {
                           return i.param == Mode::kLocal ? "Local" : "Remote";
                         });

// ChainInfo of ledgers opened with other block times: a local Ledger with its options, a Node
// with NodeOptions (what `serve --block-time` and `--nominal-block-time` set).
class ChainInfoTest : public ::testing::TestWithParam<Mode> {
 protected:
  // Instant when `block_time` is 0 (declaring `nominal`), else timed. Limits of their own, so
  // that ChainInfo is seen to carry the ledger's, not the defaults.
  Status Open(std::chrono::milliseconds block_time, std::chrono::milliseconds nominal) {
    limits_.max_payload_bytes = 1000;
    limits_.gas.op_create = 12'345;
    limits_.query.max_page = 50;
    limits_.queue.max_sender_bytes = 1 << 20;
    if (GetParam() == Mode::kLocal) {
      VEIL_ASSIGN_OR_RETURN(auto store, OpenStore("sqlite::memory:"));
      ledger::LedgerOptions o;
      o.limits = limits_;
      o.mode = block_time.count() > 0 ? ledger::BlockMode::kTimed : ledger::BlockMode::kInstant;
      o.nominal_block_time_ms =
          static_cast<std::uint64_t>((block_time.count() > 0 ? block_time : nominal).count());
      VEIL_ASSIGN_OR_RETURN(auto l, ledger::Ledger::Open(std::move(store), o));
      ledger_ = std::move(l);
      api_ = std::make_shared<ledger::LocalLedger>(ledger_);
      return Status::Ok();
    }
    NodeOptions o;
    o.store = "sqlite::memory:";
    o.limits = limits_;
    o.block_time = block_time;
    o.nominal_block_time = nominal;
    VEIL_ASSIGN_OR_RETURN(node_, Node::Start(o));
    VEIL_ASSIGN_OR_RETURN(auto r,
                          ConnectRemote("http://127.0.0.1:" + std::to_string(node_->port())));
    api_ = std::move(r);
    return Status::Ok();
  }
  Status Seal() {
    if (node_) return node_->Seal().status();
    return ledger_->SealBlock().status();
  }
  void TearDown() override {
    api_.reset();
    if (node_) {
      EXPECT_TRUE(node_->Stop().ok());
    }
  }

  ledger::Limits limits_ = ledger::Limits::Arkiv();
  std::shared_ptr<ledger::Ledger> ledger_;
  std::unique_ptr<Node> node_;
  std::shared_ptr<ledger::LedgerApi> api_;
};

TEST_P(ChainInfoTest, Timed) {
  // An hour: the test seals the blocks.
  ASSERT_TRUE(Open(std::chrono::hours(1), std::chrono::milliseconds(1500)).ok());
  auto info = api_->ChainInfo();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->block_time_ms, 3'600'000u);
  EXPECT_EQ(info->nominal_block_time_ms, 3'600'000u);  // a timed node's own block time
  EXPECT_EQ(info->limits, limits_);
  EXPECT_EQ(info->head_number, 0u);
  EXPECT_EQ(info->head_timestamp_ms, 0u);  // genesis

  Wallet w;
  auto r = api_->Submit(Sign(w, {Create(100)}));
  ASSERT_TRUE(r.ok() && r->pending) << r.status().ToString();
  ASSERT_TRUE(Seal().ok());
  info = api_->ChainInfo();
  ASSERT_TRUE(info.ok());
  auto head = api_->Head();
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(info->head_number, 1u);
  EXPECT_EQ(info->head_timestamp_ms, head->timestamp_ms);
  EXPECT_GT(info->head_timestamp_ms, 0u);
  // A timed chain counts expiry in its blocks.
  EXPECT_EQ(info->expiry_clock_ms, 0u);
  EXPECT_EQ(info->head_expiry_height, 1u);
  // A lifetime of 2.5 blocks from the head's moment: 3 blocks after the head.
  EXPECT_EQ(info->ExpiryFor(info->head_timestamp_ms, 9'000'000), 1u + 3u);
  // From the head, whatever `now` (a timed node seals a block every block time: its head is
  // less than one old).
  EXPECT_EQ(info->ExpiryFor(info->head_timestamp_ms + 1000, 3'600'000), 1u + 1u);
}

TEST_P(ChainInfoTest, InstantWithADeclaredBlockTime) {
  ASSERT_TRUE(Open(std::chrono::milliseconds(0), std::chrono::milliseconds(1500)).ok());
  auto info = api_->ChainInfo();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->block_time_ms, 0u);
  EXPECT_EQ(info->nominal_block_time_ms, 1500u);
  EXPECT_EQ(info->limits, limits_);
  EXPECT_EQ(info->chain_id, 1u);
  // An instant chain counts expiry in slots of its nominal block time.
  EXPECT_EQ(info->expiry_clock_ms, 1500u);
  EXPECT_EQ(info->head_expiry_height, info->head_timestamp_ms / 1500);
  // The slot of `now`, plus the lifetime in slots rounded up (at least one).
  const std::uint64_t now = 1'800'000'000'000;  // 1,200,000,000 slots
  EXPECT_EQ(info->ExpiryFor(now, 3000), 1'200'000'000u + 2u);
  EXPECT_EQ(info->ExpiryFor(now, 3001), 1'200'000'000u + 3u);
  EXPECT_EQ(info->ExpiryFor(now, 1), 1'200'000'000u + 1u);
  EXPECT_EQ(info->ExpiryFor(now, 0), 1'200'000'000u + 1u);
  EXPECT_EQ(info->ExpiryFor(now + 1499, 3000), 1'200'000'000u + 2u);

  // A transaction's expiry counts against the slot of its block, not the block number: an
  // entity set to expire at a block number that has long passed as a slot is refused.
  Wallet w;
  auto r = api_->Submit(Sign(w, {Create(100)}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->status.ok());
  EXPECT_NE(r->status.message().find("expiry height"), std::string::npos) << r->status.ToString();
  const std::uint64_t expires = info->ExpiryFor(
      static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count()),
      60'000);
  w.client.SetNextNonce(0);  // the refused transaction used no nonce
  r = api_->Submit(Sign(w, {Create(expires)}));
  ASSERT_TRUE(r.ok() && r->status.ok()) << (r.ok() ? r->status : r.status()).ToString();
  auto got = api_->Get(r->created.at(0));
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->expires_block, expires);
}

TEST_P(ChainInfoTest, ANominalBlockTimeOfZeroIsRefused) {
  EXPECT_EQ(Open(std::chrono::milliseconds(0), std::chrono::milliseconds(0)).code(),
            Code::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Apis, ChainInfoTest, ::testing::Values(Mode::kLocal, Mode::kRemote),
                         [](const auto& i) {
                           return i.param == Mode::kLocal ? "Local" : "Remote";
                         });

// `serve --nominal-block-time`: what an instant node declares; refused when not a positive
// duration, or beside a timed --block-time (which is then the block time).
TEST(ServeFlags, NominalBlockTime) {
  veil::testing::ScratchDir scratch("veil-apps-nominal");
  const auto dir = scratch.path();
  ServerProcess server;
  ASSERT_TRUE(server.Start(dir, {"--store", "sqlite::memory:", "--nominal-block-time", "1500ms"}))
      << server.Log();
  auto api = ConnectRemote(server.url());
  ASSERT_TRUE(api.ok());
  auto info = (*api)->ChainInfo();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->block_time_ms, 0u);
  EXPECT_EQ(info->nominal_block_time_ms, 1500u);
  EXPECT_EQ(server.Signal(SIGTERM), 0);

  const std::vector<std::vector<std::string>> refusals = {
      {"--nominal-block-time", "0s"},
      {"--nominal-block-time", "instant"},
      {"--nominal-block-time", "2"},
      {"--nominal-block-time", "2s", "--block-time", "1s"}};
  for (std::size_t i = 0; i < refusals.size(); ++i) {
    std::vector<std::string> args = {"--store", "sqlite::memory:"};
    args.insert(args.end(), refusals[i].begin(), refusals[i].end());
    const auto own = dir / std::to_string(i);  // a log of its own
    std::filesystem::create_directories(own);
    ServerProcess refused;
    EXPECT_FALSE(refused.Start(own, args)) << refusals[i][1];
    EXPECT_NE(refused.Log().find("nominal"), std::string::npos) << refused.Log();
  }
  std::filesystem::remove_all(dir);
}

// POSTs a JSON-RPC body to the node at `port` on 127.0.0.1 from the source address `from` (any
// 127/8 address: the loopback answers from all of them, so one host is several clients) and
// returns the parsed reply body.
nlohmann::json PostFrom(const char* from, int port, const std::string& body) {
  net::RawConnection c(static_cast<std::uint16_t>(port), from);
  c.SetReceiveTimeout(30);
  if (!c.connected() ||
      !c.Send("POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              "Connection: close\r\nContent-Length: " +
              std::to_string(body.size()) + "\r\n\r\n" + body)) {
    ADD_FAILURE() << "cannot send from " << from;
    return nullptr;
  }
  const std::string reply = c.ReadToEnd();
  const auto head_end = reply.find("\r\n\r\n");
  if (head_end == std::string::npos) {
    ADD_FAILURE() << "no HTTP reply";
    return nullptr;
  }
  return nlohmann::json::parse(reply.substr(head_end + 4), nullptr, false);
}

nlohmann::json Request(int id, const std::string& method, const nlohmann::json& params) {
  nlohmann::json r = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) r["params"] = params;
  return r;
}

// A reply's JSON-RPC error code, 0 when it has none.
int ErrorCode(const nlohmann::json& reply) {
  if (!reply.is_object() || !reply.contains("error") || !reply["error"].is_object()) return 0;
  return reply["error"].value("code", 0);
}

// A reply's result, null when it has none.
nlohmann::json ResultOf(const nlohmann::json& reply) {
  if (!reply.is_object() || !reply.contains("result")) return nullptr;
  return reply["result"];
}
bool IsPending(const nlohmann::json& reply) {
  const nlohmann::json r = ResultOf(reply);
  return r.is_object() && r.value("pending", false);
}

// A node holding 4,000 entities, for reads that cost something.
std::unique_ptr<Node> StartFilledNode(NodeOptions o) {
  o.expiry_clock = ledger::ExpiryClock::kBlocks;  // Create(100'000) below
  auto n = Node::Start(std::move(o));
  EXPECT_TRUE(n.ok()) << n.status().ToString();
  if (!n.ok()) return nullptr;
  Wallet w;
  for (int t = 0; t < 20; ++t) {
    std::vector<ledger::Operation> ops;
    for (int i = 0; i < 200; ++i) {
      ops.push_back(Create(100'000, {Attribute::Num("n", static_cast<std::uint64_t>(t * 200 + i)),
                                     Attribute::Str("s", "v" + std::to_string(i))}));
    }
    auto r = (*n)->ledger().Submit(Sign(w, ops));
    EXPECT_TRUE(r.ok() && r->status.ok());
  }
  return std::move(*n);
}

// A batch of expensive reads (filters no index drives, each walking every entity) from one
// address: the first calls spend that client's read budget and most of the batch is
// refused (-32005, retry later), as is its next request; a second address, with a budget of its
// own, is served the same batch meanwhile.
TEST(NodeLimits, ABatchOfExpensiveReadsIsRefusedPerClient) {
  NodeOptions o;
  o.store = "sqlite::memory:";
  // A few milliseconds' burst: each of these reads takes milliseconds (more under sanitizers).
  o.clients.read_ms_per_second = std::chrono::milliseconds(10);
  o.clients.read_burst = std::chrono::milliseconds(20);
  auto node = StartFilledNode(o);
  ASSERT_NE(node, nullptr);
  std::string heavy = "NOT (n >= 0)";
  for (int i = 0; i < 40; ++i) heavy += " && NOT (s ~ \"x" + std::to_string(i) + "*\")";
  nlohmann::json batch = nlohmann::json::array();
  for (int i = 0; i < 100; ++i) {
    batch.push_back(Request(i, i % 2 ? "arkiv_query" : "arkiv_getEntityCount",
                            i % 2 ? nlohmann::json{heavy} : nlohmann::json{{{"query", heavy}}}));
  }
  const auto served_and_refused = [&](const char* from) {
    const nlohmann::json reply = PostFrom(from, node->port(), batch.dump());
    EXPECT_TRUE(reply.is_array()) << reply.dump();
    std::pair<int, int> out{0, 0};
    if (!reply.is_array()) return out;
    for (const auto& r : reply) {
      if (r.contains("result")) {
        ++out.first;
      } else {
        EXPECT_EQ(ErrorCode(r), net::kJsonRpcResourceExhausted) << r.dump();
        EXPECT_NE(r.dump().find("read budget"), std::string::npos) << r.dump();
        ++out.second;
      }
    }
    return out;
  };
  const auto [served1, refused1] = served_and_refused("127.0.0.1");
  EXPECT_GE(served1, 1);
  EXPECT_GE(refused1, 50) << served1 << " served";
  // The same client's next request waits for its budget; another client's does not.
  const nlohmann::json again =
      PostFrom("127.0.0.1", node->port(), Request(1, "arkiv_blockNumber", nullptr).dump());
  EXPECT_EQ(ErrorCode(again), net::kJsonRpcResourceExhausted) << again.dump();
  const nlohmann::json other =
      PostFrom("127.0.0.2", node->port(), Request(1, "arkiv_blockNumber", nullptr).dump());
  EXPECT_EQ(ResultOf(other), 20) << other.dump();
  const auto [served2, refused2] = served_and_refused("127.0.0.2");
  EXPECT_GE(served2, 1);
  EXPECT_GE(refused2, 50) << served2 << " served";
  EXPECT_TRUE(node->Stop().ok());
}

// Timed mode: one address's transactions waiting for a block are bounded in bytes, fresh keys
// or not; another address still queues; after a block the room comes back.
TEST(NodeLimits, QueuedBytesAreBoundedPerClient) {
  Wallet probe_wallet;
  const std::size_t tx_bytes = Sign(probe_wallet, {Create(1000, {}, Bytes(10'000, 1))}).size();
  NodeOptions o;
  o.store = "sqlite::memory:";
  o.block_time = std::chrono::hours(1);  // blocks only when the test seals one
  o.clients.max_queued_bytes = 3 * tx_bytes + tx_bytes / 2;
  auto n = Node::Start(o);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  auto& node = *n;
  const auto send = [&](const char* from) {
    Wallet fresh;  // a new key each time: the sender bound does not apply
    const Bytes tx = Sign(fresh, {Create(1000, {}, Bytes(10'000, 1))});
    EXPECT_EQ(tx.size(), tx_bytes);
    return PostFrom(from, node->port(),
                    Request(1, "arkiv_sendTransaction", {"0x" + ledger::ToHex(tx)}).dump());
  };
  for (int i = 0; i < 3; ++i) {
    const auto r = send("127.0.0.1");
    EXPECT_TRUE(IsPending(r)) << r.dump();
  }
  const auto refused = send("127.0.0.1");
  EXPECT_EQ(ErrorCode(refused), net::kJsonRpcResourceExhausted) << refused.dump();
  EXPECT_TRUE(IsPending(send("127.0.0.2")));
  EXPECT_EQ(node->ledger().Stats()->queued_txs, 4u);
  auto sealed = node->Seal();
  ASSERT_TRUE(sealed.ok()) << sealed.status().ToString();
  EXPECT_EQ(sealed->receipts.size(), 4u);
  EXPECT_TRUE(IsPending(send("127.0.0.1")));
  EXPECT_TRUE(node->Stop().ok());
}

void ExpectSamePage(const ledger::QueryPage& a, const ledger::QueryPage& b) {
  EXPECT_EQ(a.entities, b.entities);
  EXPECT_EQ(a.cursor, b.cursor);
  EXPECT_EQ(a.block, b.block);
  EXPECT_EQ(a.cost.query_units, b.cost.query_units);
  EXPECT_EQ(a.cost.rows_scanned, b.cost.rows_scanned);
  EXPECT_EQ(a.cost.rows_returned, b.cost.rows_returned);
  EXPECT_EQ(a.cost.bytes_returned, b.cost.bytes_returned);
}

// ToJsonText writes a page byte for byte as the DOM's dump does: every projection, empty and
// full pages, cursors, extreme numbers, and strings that need escaping, hold UTF-8, or hold bytes
// that are not UTF-8 (replaced by both). The client's reader without a DOM reads it back as the
// DOM decoder does, and never accepts what that decoder refuses.
TEST(LedgerJson, PageTextMatchesTheDom) {
  namespace lj = ledger::json;
  int fast_mutants = 0;
  const std::vector<std::string> strings = {"",
                                            "plain",
                                            "quote\"back\\slash",
                                            "tab\tnl\nctl\x01\x1f",
                                            "del\x7f",
                                            "caf\xc3\xa9 \xe2\x82\xac",
                                            std::string("nul\0in", 6),
                                            "bad\xff\xc3",
                                            "\xf0\x9f\x98\x80"};
  std::uint64_t seed = 1;
  auto next = [&] {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    return seed >> 11;
  };
  const std::vector<std::uint64_t> numbers = {0, 1, 9, 10, 4294967296u, 18446744073709551615u};
  int pages = 0;
  for (int round = 0; round < 200; ++round) {
    ledger::QueryPage page;
    page.block = numbers[next() % numbers.size()];
    page.cost.query_units = next();
    page.cost.rows_scanned = numbers[next() % numbers.size()];
    page.cost.rows_returned = next() % 201;
    page.cost.bytes_returned = next();
    if (next() % 2) page.cursor = strings[next() % strings.size()];
    const std::size_t n = round == 0 ? 0 : next() % 4;
    for (std::size_t i = 0; i < n; ++i) {
      Entity e;
      for (auto& b : e.key) b = static_cast<std::uint8_t>(next());
      for (auto& b : e.owner) b = static_cast<std::uint8_t>(next());
      for (auto& b : e.creator) b = static_cast<std::uint8_t>(next());
      e.payload.resize(next() % 40);
      for (auto& b : e.payload) b = static_cast<std::uint8_t>(next());
      e.content_type = strings[next() % strings.size()];
      e.flags = static_cast<std::uint8_t>(next() % 4);
      e.created_block = numbers[next() % numbers.size()];
      e.updated_block = next();
      e.expires_block = numbers[next() % numbers.size()];
      const std::size_t attrs = next() % 4;
      for (std::size_t k = 0; k < attrs; ++k) {
        const std::string name = strings[next() % strings.size()];
        if (next() % 2) {
          e.attributes.push_back(Attribute::Num(name, numbers[next() % numbers.size()]));
        } else {
          e.attributes.push_back(Attribute::Str(name, strings[next() % strings.size()]));
        }
      }
      page.entities.push_back(std::move(e));
    }
    // Every projection: each column on or off (at least one on).
    const unsigned mask = round == 1 ? 0xffu : 1u + static_cast<unsigned>(next() % 255);
    ledger::Projection p{(mask & 1) != 0,  (mask & 2) != 0,  (mask & 4) != 0,  (mask & 8) != 0,
                         (mask & 16) != 0, (mask & 32) != 0, (mask & 64) != 0, (mask & 128) != 0};
    const std::string dom =
        lj::ToJson(page, p).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    const std::string text = lj::ToJsonText(page, p);
    ASSERT_EQ(text, dom) << "round " << round;
    ++pages;

    // The client's readers agree on it: the one without a DOM takes the node's text, and gives
    // what the DOM decoder gives.
    const auto decoded = lj::QueryPageFromJson(nlohmann::json::parse(text), p);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    const auto fast = lj::ReadPageWithoutDom(text, p);
    ASSERT_TRUE(fast.has_value()) << "round " << round;
    ExpectSamePage(*fast, *decoded);
    // Mutated texts: whatever the reader without a DOM accepts, the DOM decoder accepts too, with
    // the same value; the combined reader succeeds exactly when the DOM decoder does.
    static constexpr char kAlphabet[] = "{}[],:\"0123456789abcdefx-. \\tnu";
    for (int m = 0; m < 20; ++m) {
      std::string mutated = text;
      mutated[next() % mutated.size()] = kAlphabet[next() % (sizeof kAlphabet - 1)];
      const auto j = nlohmann::json::parse(mutated, nullptr, false);
      const auto dom_page = j.is_discarded()
                                ? Result<ledger::QueryPage>(InvalidArgument("not JSON"))
                                : lj::QueryPageFromJson(j, p);
      const auto fast_page = lj::ReadPageWithoutDom(mutated, p);
      if (fast_page) {
        ASSERT_TRUE(dom_page.ok()) << mutated;
        ExpectSamePage(*fast_page, *dom_page);
        ++fast_mutants;
      }
      EXPECT_EQ(lj::QueryPageFromJsonText(mutated, p).ok(), dom_page.ok()) << mutated;
    }
  }
  EXPECT_EQ(pages, 200);
  EXPECT_GT(fast_mutants, 0);  // some mutations keep a valid page (a digit for a digit)
  // Text the node does not write, still a page: spaces, and attribute members out of order. The
  // reader without a DOM reads the first and declines the second; the combined reader reads both.
  const std::string spaced =
      R"({ "block" : 1, "cost" : {"bytesReturned":0,"queryUnits":1,"rowsReturned":1,)"
      R"("rowsScanned":1}, "entities" : [ {"attributes": [ {"name":"a","type":"u64","value":1} ],)"
      R"( "key":"0x)" +
      std::string(64, '0') + R"("} ] })";
  ledger::Projection ka = ledger::Projection::KeysOnly();
  ka.attributes = true;
  ASSERT_TRUE(lj::ReadPageWithoutDom(spaced, ka).has_value());
  std::string reordered = spaced;
  reordered.replace(reordered.find(R"("type":"u64","value":1)"), 22, R"("value":1,"type":"u64")");
  EXPECT_FALSE(lj::ReadPageWithoutDom(reordered, ka).has_value());
  auto both = lj::QueryPageFromJsonText(reordered, ka);
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  ExpectSamePage(*both, *lj::ReadPageWithoutDom(spaced, ka));
  // An empty attribute type is an error (it once read as a number).
  std::string untyped = spaced;
  untyped.replace(untyped.find(R"("type":"u64","value":1)"), 22, R"("type":"")");
  EXPECT_FALSE(lj::QueryPageFromJsonText(untyped, ka).ok());

  // Edge cases a one-character mutation rarely makes; the DOM decoder decides each, and the
  // reader without a DOM either agrees or declines. Each: what replaces "block" : 1 in `spaced`,
  // or the key's hex.
  const std::string key64 = std::string(64, '0');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("block" : 1)", R"("block" : 2, "block" : 1)"},  // repeated member: the DOM keeps the last
      {R"("block" : 1)", R"("bl\u006fck" : 1)"},          // an escaped name
      {R"("block" : 1)", R"("block" : -0)"},              // an integer the DOM reads as 0
      {R"("block" : 1)", R"("block" : 18446744073709551616)"},
      {R"("block" : 1)", R"("block" : 1.0)"},
      {R"("block" : 1)", R"("block" : 1, "cursor" : "")"},
      // A repeated entity list: the DOM keeps the last one; a reader that appended both would
      // return two entities.
      {R"("block" : 1)",
       R"("block" : 1, "entities" : [ {"attributes": [], "key":"0x)" + key64 + R"("} ])"},
      {key64, "A" + key64.substr(1)},
      {"0x" + key64, "0X" + key64},
      {key64, key64.substr(2)},
      {R"("key":)", R"("owner":"0x)" + std::string(40, '1') + R"(", "key":)"},
      // Text after the page, and a byte order mark before it.
      {R"(} ] })", R"(} ] } x)"},
      {R"(} ] })", R"(} ] }{})"},
      {R"(} ] })", R"(} ] } )"},
      {R"({ "block")", "\xEF\xBB\xBF{ \"block\""},
      // Escapes: lone surrogates (the DOM's parser refuses them), a pair, a NUL, a raw tab.
      {R"("name":"a")", R"("name":"\udc00")"},
      {R"("name":"a")", R"("name":"\ud800")"},
      {R"("name":"a")", R"("name":"\ud800x")"},
      {R"("name":"a")", R"("name":"\ud83d\ude00")"},
      {R"("name":"a")", R"("name":"\ud800\u0041")"},  // a high surrogate, then no low one
      {R"("name":"a")", R"("name":"\ud800\ud800")"},
      {R"("name":"a")", R"("name":"\u0000")"},
      {R"("name":"a")", "\"name\":\"a\tb\""},
      // Values of other types where a number or a string belongs.
      {R"("value":1)", R"("value":"1")"},
      {R"("value":1)", R"("value":null)"},
      {R"("value":1)", R"("value":true)"},
      {R"("value":1)", R"("value":[1])"},
      {R"("value":1)", R"("value":1e0)"},
      {R"("value":1)", R"("value":01)"},
  };
  for (const auto& [from, to] : cases) {
    std::string t = spaced;
    const std::size_t at = t.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    t.replace(at, from.size(), to);
    const auto j = nlohmann::json::parse(t, nullptr, false);
    const auto dom_page = j.is_discarded() ? Result<ledger::QueryPage>(InvalidArgument("not JSON"))
                                           : lj::QueryPageFromJson(j, ka);
    const auto fast_page = lj::ReadPageWithoutDom(t, ka);
    if (fast_page) {
      ASSERT_TRUE(dom_page.ok()) << t;
      ExpectSamePage(*fast_page, *dom_page);
    }
    const auto combined = lj::QueryPageFromJsonText(t, ka);
    ASSERT_EQ(combined.ok(), dom_page.ok()) << t;
    if (combined.ok()) ExpectSamePage(*combined, *dom_page);
  }
}

// Every codec round-trips, and the decoders refuse what they should.
TEST(LedgerJson, StrictDecoders) {
  namespace lj = ledger::json;
  using Json = nlohmann::json;
  ledger::Entity e;
  e.key[0] = 1;
  e.owner[1] = 2;
  e.payload = {0xab};
  e.content_type = "text/plain";
  e.attributes = {Attribute::Num("a", 18446744073709551615u), Attribute::Str("b", "v")};
  e.expires_block = 9;
  auto back = lj::EntityFromJson(lj::ToJson(e));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, e);

  Json j = lj::ToJson(e);
  j["extra"] = 1;
  EXPECT_NE(lj::EntityFromJson(j).status().message().find("unknown member"), std::string::npos);
  j = lj::ToJson(e);
  j.erase("owner");
  EXPECT_NE(lj::EntityFromJson(j).status().message().find("missing member"), std::string::npos);
  j = lj::ToJson(e);
  j["createdAt"] = -1;
  EXPECT_FALSE(lj::EntityFromJson(j).ok());
  j = lj::ToJson(e);
  j["payload"] = "0xAB";
  EXPECT_FALSE(lj::EntityFromJson(j).ok());
  j["payload"] = "ab";
  EXPECT_FALSE(lj::EntityFromJson(j).ok());
  j["payload"] = "0xabc";
  EXPECT_FALSE(lj::EntityFromJson(j).ok());
  j = lj::ToJson(e);
  j["key"] = "0x00";
  EXPECT_FALSE(lj::EntityFromJson(j).ok());
  EXPECT_FALSE(lj::EntityFromJson(Json::array()).ok());

  ledger::TxReceipt r;
  r.status = Status(Code::kPermissionDenied, "nope");
  r.failed_op = 2;
  r.created = {e.key};
  r.cost.gas = 5;
  auto rb = lj::TxReceiptFromJson(lj::ToJson(r));
  ASSERT_TRUE(rb.ok()) << rb.status().ToString();
  EXPECT_EQ(rb->status, r.status);
  EXPECT_EQ(rb->failed_op, r.failed_op);
  EXPECT_EQ(rb->created, r.created);
  EXPECT_EQ(rb->cost.gas, 5u);
  Json rj = lj::ToJson(r);
  rj["status"]["code"] = "bogus";
  EXPECT_FALSE(lj::TxReceiptFromJson(rj).ok());

  ledger::BlockInfo b;
  b.header = ledger::GenesisHeader(7);
  b.tx_hashes = {b.header.hash};
  auto bb = lj::BlockInfoFromJson(lj::ToJson(b));
  ASSERT_TRUE(bb.ok());
  EXPECT_EQ(bb->header, b.header);
  EXPECT_EQ(bb->tx_hashes, b.tx_hashes);
  Json bj = lj::ToJson(b);
  bj["txCount"] = 4294967296u;
  EXPECT_FALSE(lj::BlockInfoFromJson(bj).ok());

  auto opts =
      lj::QueryOptionsFromJson(Json{{"select", Json::array({"key", "payload"})}, {"limit", 5}});
  ASSERT_TRUE(opts.ok());
  EXPECT_TRUE(opts->projection.payload);
  EXPECT_FALSE(opts->projection.owner);
  EXPECT_FALSE(lj::QueryOptionsFromJson(Json{{"select", {"nope"}}}).ok());
  EXPECT_FALSE(lj::QueryOptionsFromJson(Json{{"limit", "5"}}).ok());
  EXPECT_FALSE(lj::QueryOptionsFromJson(Json{{"filter", "x"}}).ok());
}

// ChainInfo and its Limits round-trip member for member, and the decoder refuses a missing,
// unknown or mistyped member at any depth; RemoteLedger reports such a reply as the node's fault.
TEST(LedgerJson, ChainInfo) {
  namespace lj = ledger::json;
  using Json = nlohmann::json;
  ledger::ChainInfo c;
  c.chain_id = 18446744073709551615u;
  c.limits.max_payload_bytes = 1;
  c.limits.max_lifetime_blocks = 77;
  c.limits.gas.block_gas_limit = 5;
  c.limits.gas.stored_byte = 0;
  c.limits.query.max_read_ms = 4294967295u;
  c.limits.query.cursor_lifetime_blocks = 9;
  c.limits.queue.max_bytes = 3;
  c.block_time_ms = 250;
  c.nominal_block_time_ms = 250;
  c.head_number = 12;
  c.head_timestamp_ms = 1'700'000'000'123u;
  const Json j = lj::ToJson(c);
  auto back = lj::ChainInfoFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->chain_id, c.chain_id);
  EXPECT_EQ(back->limits, c.limits);
  EXPECT_EQ(back->block_time_ms, c.block_time_ms);
  EXPECT_EQ(back->nominal_block_time_ms, c.nominal_block_time_ms);
  EXPECT_EQ(back->head_number, c.head_number);
  EXPECT_EQ(back->head_timestamp_ms, c.head_timestamp_ms);
  auto limits = lj::LimitsFromJson(lj::ToJson(ledger::Limits::Arkiv()));
  ASSERT_TRUE(limits.ok()) << limits.status().ToString();
  EXPECT_EQ(*limits, ledger::Limits::Arkiv());

  // Every member, at every depth, is required, typed and alone.
  std::vector<Json::json_pointer> members;
  const Json flat = j.flatten();
  for (const auto& [path, value] : flat.items()) members.emplace_back(path);
  members.emplace_back("/limits/gas");
  members.emplace_back("/limits/query");
  members.emplace_back("/limits/queue");
  members.emplace_back("/limits");
  ASSERT_GT(members.size(), 30u);
  for (const auto& m : members) {
    Json missing = j;
    missing[m.parent_pointer()].erase(m.back());
    const auto r = lj::ChainInfoFromJson(missing);
    EXPECT_NE(r.status().message().find("missing member \"" + m.back() + "\""), std::string::npos)
        << m.to_string() << ": " << r.status().ToString();
    Json mistyped = j;
    mistyped[m] = "1";
    EXPECT_EQ(lj::ChainInfoFromJson(mistyped).status().code(), Code::kInvalidArgument)
        << m.to_string();
    Json extra = j;
    if (extra[m.parent_pointer()].is_object()) {
      extra[m.parent_pointer()]["surplus"] = 1;
      EXPECT_NE(lj::ChainInfoFromJson(extra).status().message().find("unknown member"),
                std::string::npos)
          << m.to_string();
    }
  }
  Json negative = j;
  negative["limits"]["query"]["maxPage"] = -1;
  EXPECT_FALSE(lj::ChainInfoFromJson(negative).ok());
  Json wide = j;
  wide["limits"]["query"]["maxReadMs"] = 4294967296u;
  EXPECT_FALSE(lj::ChainInfoFromJson(wide).ok());
  EXPECT_FALSE(lj::ChainInfoFromJson(Json::array()).ok());

  ledger::RemoteLedger remote([&](std::string_view method, const Json&, bool) -> Result<Json> {
    EXPECT_EQ(method, "arkiv_getChainInfo");
    Json reply = j;
    reply["limits"]["gas"]["surplus"] = 1;
    return reply;
  });
  EXPECT_EQ(remote.ChainInfo().status().code(), Code::kInternal);
}

}  // namespace
}  // namespace veil::ledger_node::testing
