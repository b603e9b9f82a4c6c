// GuardianClient and TwoGuardianCustody against real HttpServers on 127.0.0.1 (in-process):
// identity pinning, batched calls, receipts, and the device-share-first read.
#include "veil/guardian/client.h"

#include <gtest/gtest.h>

#include "guardian/guardian_test_util.h"
#include "veil/guardian/custody.h"
#include "veil/guardian/service.h"
#include "veil/net/tls.h"

namespace veil::guardian {
namespace {

using testing::RandomId;
using testing::ScratchDir;

struct RunningGuardian {
  ScratchDir dir;
  std::shared_ptr<Guardian> guardian;
  std::shared_ptr<net::MetricsRegistry> metrics = std::make_shared<net::MetricsRegistry>();
  std::unique_ptr<GuardianService> service;
  std::unique_ptr<net::HttpServer> server;
  std::string pin;  // TLS certificate pin, when TLS is on

  explicit RunningGuardian(bool tls = false) {
    auto g = Guardian::OpenDir(dir.path());
    VEIL_CHECK(g.ok());
    guardian = std::shared_ptr<Guardian>(std::move(*g));
    net::HttpServerOptions o;
    o.max_body_bytes = guardian->limits().max_body_bytes;
    if (tls) {
      auto cert = net::GenerateSelfSignedCertificate();
      VEIL_CHECK(cert.ok());
      pin = cert->sha256_fingerprint;
      o.tls = std::move(cert->credentials);
    }
    server = std::make_unique<net::HttpServer>(std::move(o), metrics);
    service = std::make_unique<GuardianService>(guardian, metrics);
    service->Register(*server);
    VEIL_CHECK(server->Start().ok());
  }
  ~RunningGuardian() { server->Stop().IgnoreError(); }

  GuardianClientOptions ClientOptions() const {
    GuardianClientOptions o;
    o.http.base_url = std::string(pin.empty() ? "http" : "https") +
                      "://127.0.0.1:" + std::to_string(server->port());
    o.http.pinned_sha256 = pin;
    o.pinned_fingerprint = guardian->public_identity().FingerprintHex();
    o.initial_backoff = std::chrono::milliseconds(1);
    return o;
  }
  GuardianClient Connect() const {
    auto c = GuardianClient::Connect(ClientOptions());
    VEIL_CHECK(c.ok());
    return std::move(*c);
  }
  double Requests(const std::string& route) {
    return metrics
        ->GetCounter("veil_guardian_requests_total", "Guardian requests by route and outcome.",
                     {{"outcome", "ok"}, {"route", route}})
        .Value();
  }
};

crypto::SecretBytes Share(std::size_t n) { return crypto::RandomSecret(n); }

TEST(GuardianClient, RefusesAnUnpinnedGuardian) {
  RunningGuardian g;
  GuardianClientOptions o = g.ClientOptions();
  o.pinned_fingerprint = GuardianIdentity::Generate().public_identity().FingerprintHex();
  EXPECT_EQ(GuardianClient::Connect(o).status().code(), Code::kUnauthenticated);
  o.pinned_fingerprint = "ABC";
  EXPECT_EQ(GuardianClient::Connect(o).status().code(), Code::kInvalidArgument);
}

TEST(GuardianClient, BatchedRoundTrip) {
  RunningGuardian g;
  GuardianClient c = g.Connect();
  const OwnerSigner owner = OwnerSigner::GenerateEd25519();
  const std::int64_t now = SystemUnixSeconds();
  std::vector<crypto::SecretBytes> shares;
  std::vector<ShareToPut> items;
  std::vector<ShareId> ids;
  for (std::size_t i = 0; i < 10; ++i) shares.push_back(Share(32 + i));
  for (std::size_t i = 0; i < 10; ++i) {
    ids.push_back(RandomId());
    items.push_back(ShareToPut{ids.back(), ShareKind::kRecord, now + 600, &shares[i]});
  }
  auto put = c.Put(owner, items);
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  for (const auto& it : *put) EXPECT_TRUE(it.status.ok() && it.changed);
  EXPECT_EQ(c.requests_sent(), 1u);  // one round trip for the batch

  auto got = c.Get(owner, ids);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ASSERT_TRUE((*got)[i].status.ok());
    EXPECT_TRUE((*got)[i].share.ConstantTimeEquals(shares[i]));
  }

  std::vector<ExtendRequest> ext;
  for (const auto& id : ids) ext.push_back(ExtendRequest{id, now + 1200});
  auto extended = c.Extend(owner, ext);
  ASSERT_TRUE(extended.ok());
  for (const auto& it : *extended) EXPECT_TRUE(it.changed);

  auto destroyed = c.Destroy(owner, std::span<const ShareId>(ids).first(5));
  ASSERT_TRUE(destroyed.ok());
  for (const auto& it : *destroyed) {
    ASSERT_TRUE(it.status.ok());
    EXPECT_TRUE(VerifyDestroyReceipt(c.identity(), *it.receipt).ok());
  }
  got = c.Get(owner, ids);
  ASSERT_TRUE(got.ok());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ((*got)[i].status.code(), i < 5 ? Code::kNotFound : Code::kOk);
  }
  // A request-level refusal comes back as a Status with its code.
  const OwnerSigner other = OwnerSigner::GenerateComposite();
  std::vector<ShareId> many(g.guardian->limits().max_items + 1);
  for (auto& id : many) id = RandomId();
  EXPECT_EQ(c.Get(other, many).status().code(), Code::kResourceExhausted);
}

TEST(GuardianClient, OverTlsWithBothPins) {
  RunningGuardian g(/*tls=*/true);
  GuardianClient c = g.Connect();
  const OwnerSigner owner = OwnerSigner::GenerateComposite();
  const crypto::SecretBytes share = Share(100);
  const ShareId id = RandomId();
  ShareToPut item{id, ShareKind::kCollection, SystemUnixSeconds() + 60, &share};
  ASSERT_TRUE(c.Put(owner, std::span<const ShareToPut>(&item, 1)).ok());
  auto got = c.Get(owner, std::span<const ShareId>(&id, 1));
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE((*got)[0].share.ConstantTimeEquals(share));
  EXPECT_EQ((*got)[0].kind, ShareKind::kCollection);
}

TEST(GuardianClient, RetriesAreSignedAfresh) {
  RunningGuardian g;
  GuardianClient c = g.Connect();
  ASSERT_TRUE(g.server->Stop().ok());
  const OwnerSigner owner = OwnerSigner::GenerateEd25519();
  const ShareId id = RandomId();
  auto r = c.Get(owner, std::span<const ShareId>(&id, 1));
  EXPECT_EQ(r.status().code(), Code::kUnavailable);
  EXPECT_EQ(c.requests_sent(), 3u);  // max_attempts
}

TEST(GuardianService, OverHttpLimitsHealthAndMetrics) {
  RunningGuardian g;
  auto http = net::HttpClient::Create(g.ClientOptions().http);
  ASSERT_TRUE(http.ok());
  auto health = http->Get("/health");
  ASSERT_TRUE(health.ok());
  EXPECT_EQ(health->status, 200);
  // A body over the limit is refused by the server before it reaches the guardian.
  const std::string huge(g.guardian->limits().max_body_bytes + 1, ' ');
  auto big = http->Post("/v1/put", huge, "application/json", net::Idempotency::kNotIdempotent);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->status, 413);
  // Unsigned: 401 with the protocol's error body.
  auto unsigned_put =
      http->Post("/v1/put", "{}", "application/json", net::Idempotency::kNotIdempotent);
  ASSERT_TRUE(unsigned_put.ok());
  EXPECT_EQ(unsigned_put->status, 401);
  EXPECT_EQ(DecodeErrorBody(unsigned_put->status, unsigned_put->body).code(),
            Code::kUnauthenticated);
  auto metrics = http->Get("/metrics");
  ASSERT_TRUE(metrics.ok());
  EXPECT_NE(metrics->body.find("veil_guardian_requests_total"), std::string::npos);
}

class CustodyTest : public ::testing::Test {
 protected:
  RunningGuardian ga_, gb_;
  GuardianClient a_ = ga_.Connect();
  GuardianClient b_ = gb_.Connect();
  TwoGuardianCustody custody_{a_, b_};
  OwnerSigner owner_ = OwnerSigner::GenerateEd25519();
};

TEST_F(CustodyTest, DeviceShareFirstContactsOneGuardian) {
  const RecordKey key = crypto::RandomSecret<kRecordKeySize>();
  auto p = custody_.Protect(owner_, key, SystemUnixSeconds() + 600);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(ga_.Requests("put"), 1);
  EXPECT_EQ(gb_.Requests("put"), 1);

  auto k = custody_.Recover(owner_, p->id, &p->device_share);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_TRUE(k->ConstantTimeEquals(key));
  EXPECT_EQ(ga_.Requests("get"), 1);
  EXPECT_EQ(gb_.Requests("get"), 0);  // at most one guardian with the device share

  // Without the device share: both guardians.
  k = custody_.Recover(owner_, p->id, nullptr);
  ASSERT_TRUE(k.ok());
  EXPECT_TRUE(k->ConstantTimeEquals(key));
  EXPECT_EQ(ga_.Requests("get"), 2);
  EXPECT_EQ(gb_.Requests("get"), 1);

  // Guardian A down: the device-share read falls back to B.
  ASSERT_TRUE(ga_.server->Stop().ok());
  k = custody_.Recover(owner_, p->id, &p->device_share);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_TRUE(k->ConstantTimeEquals(key));
  EXPECT_EQ(gb_.Requests("get"), 2);
  // Without the device share one guardian is not enough.
  EXPECT_FALSE(custody_.Recover(owner_, p->id, nullptr).ok());
}

TEST_F(CustodyTest, DestroyAtBothWithReceipts) {
  const RecordKey key = crypto::RandomSecret<kRecordKeySize>();
  auto p = custody_.Protect(owner_, key, SystemUnixSeconds() + 600, ShareKind::kCollection);
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(custody_.Extend(owner_, p->id, SystemUnixSeconds() + 1200).ok());
  auto receipts = custody_.Destroy(owner_, p->id);
  ASSERT_TRUE(receipts.ok()) << receipts.status().ToString();
  EXPECT_TRUE(VerifyDestroyReceipt(a_.identity(), (*receipts)[0]).ok());
  EXPECT_TRUE(VerifyDestroyReceipt(b_.identity(), (*receipts)[1]).ok());
  EXPECT_EQ((*receipts)[0].commitment_hash == (*receipts)[1].commitment_hash, false);
  // The key is gone for good: even the device share cannot recover it.
  auto k = custody_.Recover(owner_, p->id, &p->device_share);
  EXPECT_EQ(k.status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace veil::guardian
