// The lease clock end to end (docs/architecture.md, "The lease clock"): a record's data on a
// ledger node and its key share at a real kalypso-guardian, given one lifetime from one moment
// (Client::ExpiryFor for the ledger, now + lifetime for the guardian's lease), expire within one
// block of each other: on an instant node, which counts expiry in slots of its nominal block time
// and seals an empty block when an expiry falls due on an idle chain, and on a timed node, which
// counts its blocks.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <thread>

#include "apps/guardian_process.h"
#include "apps_test_util.h"
#include "guardian/guardian_test_util.h"
#include "support/scratch_dir.h"
#include "veil/crypto/random.h"
#include "veil/guardian/client.h"

namespace veil::ledger_node::testing {
namespace {

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

class LeaseClockTest : public ::testing::TestWithParam<bool> {
 protected:
  bool timed() const { return GetParam(); }
};

TEST_P(LeaseClockTest, DataAndKeyShareExpireWithinOneBlockOfEachOther) {
  constexpr std::chrono::milliseconds kBlock = 1000ms;
  constexpr std::chrono::seconds kLifetime = 3s;
  veil::testing::ScratchDir tmp("veil-apps-lease");
  std::filesystem::create_directories(tmp.path() / "guardian");
  guardian::testing::GuardianProcess g(tmp.path() / "guardian");
  ASSERT_TRUE(g.Start()) << g.Log();
  guardian::GuardianClient custody = g.Connect();
  const guardian::OwnerSigner owner = guardian::OwnerSigner::GenerateEd25519();

  NodeOptions o;
  o.store = "sqlite::memory:";
  if (timed()) {
    o.block_time = kBlock;
  } else {
    o.nominal_block_time = kBlock;  // the default expiry clock: slots of it
  }
  std::unique_ptr<Node> node;
  std::unique_ptr<ledger::RemoteLedger> api;
  ASSERT_NO_FATAL_FAILURE(StartNode(o, &node, &api));
  auto info = api->ChainInfo();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->expiry_clock_ms, timed() ? 0u : 1000u);
  ledger::ClientOptions co;
  co.receipt_timeout = 10s;
  ledger::Client client(*api, ledger::Signer(crypto::Ed25519SigningKey::Generate()), co);

  // One moment, on a whole second (a guardian's leases are whole seconds), and one lifetime.
  const auto now = std::chrono::ceil<std::chrono::seconds>(std::chrono::system_clock::now());
  std::this_thread::sleep_until(now);
  const Steady::time_point start = Steady::now();
  auto expires = client.ExpiryFor(kLifetime, now);
  ASSERT_TRUE(expires.ok()) << expires.status().ToString();
  auto created = client.Create(Create(*expires));
  ASSERT_TRUE(created.ok() && created->status.ok())
      << (created.ok() ? created->status : created.status()).ToString();
  const ledger::EntityKey key = created->created.at(0);
  const guardian::ShareId id = guardian::testing::RandomId();
  const crypto::SecretBytes share = crypto::RandomSecret(32);
  const std::int64_t lease = now.time_since_epoch().count() + kLifetime.count();
  const guardian::ShareToPut put{id, guardian::ShareKind::kRecord, lease, &share};
  auto stored = custody.Put(owner, std::span(&put, 1));
  ASSERT_TRUE(stored.ok() && (*stored)[0].status.ok()) << stored.status().ToString();

  // Both watched until both are gone: at most the lifetime and a few blocks.
  std::optional<Steady::duration> data_gone, share_gone;
  const Steady::time_point deadline = start + kLifetime + 4 * kBlock;
  while ((!data_gone || !share_gone) && Steady::now() < deadline) {
    if (!data_gone) {
      auto e = api->Get(key);
      ASSERT_TRUE(e.ok()) << e.status().ToString();
      if (!e->has_value()) data_gone = Steady::now() - start;
    }
    if (!share_gone) {
      auto got = custody.Get(owner, std::span(&id, 1));
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      if (!(*got)[0].status.ok()) share_gone = Steady::now() - start;
    }
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_TRUE(data_gone.has_value()) << "the data outlived its lifetime by 4 blocks";
  ASSERT_TRUE(share_gone.has_value()) << "the share outlived its lease by 4 blocks";
  const auto ms = [](Steady::duration d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  };
  std::printf("lease clock (%s node): data gone at %lld ms, share at %lld ms\n",
              timed() ? "timed" : "instant", static_cast<long long>(ms(*data_gone)),
              static_cast<long long>(ms(*share_gone)));
  // The share goes at its lease; the data within one block of it (polling and scheduling add a
  // few tens of ms, allowed for).
  constexpr std::chrono::milliseconds kSlack = 300ms;
  EXPECT_GE(*share_gone, kLifetime - kSlack) << ms(*share_gone);
  EXPECT_LE(*share_gone, kLifetime + kSlack) << ms(*share_gone);
  const Steady::duration gap =
      *data_gone > *share_gone ? *data_gone - *share_gone : *share_gone - *data_gone;
  EXPECT_LE(gap, kBlock + kSlack) << "data gone at " << ms(*data_gone) << " ms, share at "
                                  << ms(*share_gone) << " ms";
  api.reset();
  EXPECT_TRUE(node->Stop().ok());
}

INSTANTIATE_TEST_SUITE_P(Nodes, LeaseClockTest, ::testing::Values(false, true),
                         [](const auto& i) { return i.param ? "Timed" : "Instant"; });

}  // namespace
}  // namespace veil::ledger_node::testing
