// End to end against the real `kalypso-guardian` binary (fork/exec, 127.0.0.1, port 0): two
// guardians through GuardianClient and TwoGuardianCustody; refusals (a third party's signature, a
// replay, an expired timestamp, a tampered sealed share, an oversized body) that change nothing;
// TLS with certificate pinning and a self-signed certificate kept across restarts; SIGKILL during
// a stream of batched puts; the sweeper; the raw database after a destroy; a bounded concurrent
// load with throughput and p50/p99; the per-address rate limit against fresh owner keys and the
// owner allow list; the identity verb; a graceful SIGTERM stop.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "apps/guardian_process.h"
#include "guardian/guardian_test_util.h"
#include "net/net_test_util.h"
#include "veil/guardian/client.h"
#include "veil/guardian/custody.h"
#include "veil/net/http_client.h"

namespace veil::guardian {
namespace {

using Json = nlohmann::json;
using testing::RandomId;
using testing::ScratchDir;
using Clock = std::chrono::steady_clock;
using testing::GuardianProcess;

crypto::SecretBytes RandomShare(std::size_t n = 33) { return crypto::RandomSecret(n); }

std::int64_t Now() { return SystemUnixSeconds(); }

class GuardianE2e : public ::testing::Test {
 protected:
  ScratchDir tmp_;
  std::filesystem::path Dir(const std::string& name) {
    auto d = tmp_.path() / name;
    std::filesystem::create_directories(d);
    return d;
  }
};

TEST_F(GuardianE2e, TwoGuardiansPutGetExtendDestroyThroughTheClientAndCustody) {
  GuardianProcess ga(Dir("a")), gb(Dir("b"));
  ASSERT_TRUE(ga.Start()) << ga.Log();
  ASSERT_TRUE(gb.Start()) << gb.Log();
  ASSERT_EQ(ga.fingerprint().size(), 64u) << ga.Log();
  ASSERT_NE(ga.fingerprint(), gb.fingerprint());
  GuardianClient a = ga.Connect();
  GuardianClient b = gb.Connect();
  const OwnerSigner owner = OwnerSigner::GenerateEd25519();

  // Batched put, get, extend, destroy at one guardian.
  std::vector<crypto::SecretBytes> shares;
  std::vector<ShareToPut> puts;
  std::vector<ShareId> ids;
  for (std::size_t i = 0; i < 5; ++i) shares.push_back(RandomShare(33 + i));
  for (std::size_t i = 0; i < 5; ++i) {
    ids.push_back(RandomId());
    puts.push_back(ShareToPut{ids.back(), ShareKind::kRecord, Now() + 600, &shares[i]});
  }
  auto put = a.Put(owner, puts);
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  for (const auto& it : *put) EXPECT_TRUE(it.status.ok() && it.changed) << it.status.ToString();
  auto got = a.Get(owner, ids);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ASSERT_TRUE((*got)[i].status.ok());
    EXPECT_TRUE((*got)[i].share.ConstantTimeEquals(shares[i]));
  }
  std::vector<ExtendRequest> ext = {{ids[0], Now() + 1200}, {ids[1], Now() + 60}};
  auto extended = a.Extend(owner, ext);
  ASSERT_TRUE(extended.ok());
  EXPECT_TRUE((*extended)[0].changed);
  EXPECT_FALSE((*extended)[1].changed);  // never shortens
  EXPECT_GE((*extended)[1].expires_at, Now() + 590);
  auto destroyed = a.Destroy(owner, std::span<const ShareId>(ids).first(2));
  ASSERT_TRUE(destroyed.ok());
  for (const auto& it : *destroyed) {
    ASSERT_TRUE(it.status.ok()) << it.status.ToString();
    EXPECT_TRUE(VerifyDestroyReceipt(a.identity(), *it.receipt).ok());
  }
  got = a.Get(owner, ids);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)[0].status.code(), Code::kNotFound);
  EXPECT_EQ((*got)[1].status.code(), Code::kNotFound);
  EXPECT_TRUE((*got)[2].status.ok());

  // 2-of-3 custody across the two processes.
  TwoGuardianCustody custody(a, b);
  const RecordKey key = crypto::RandomSecret<kRecordKeySize>();
  auto prot = custody.Protect(owner, key, Now() + 600);
  ASSERT_TRUE(prot.ok()) << prot.status().ToString();
  const auto sent_a = a.requests_sent(), sent_b = b.requests_sent();
  auto rec = custody.Recover(owner, prot->id, &prot->device_share);
  ASSERT_TRUE(rec.ok()) << rec.status().ToString();
  EXPECT_TRUE(rec->ConstantTimeEquals(key));
  EXPECT_EQ(a.requests_sent() + b.requests_sent(), sent_a + sent_b + 1);  // one guardian
  rec = custody.Recover(owner, prot->id, nullptr);
  ASSERT_TRUE(rec.ok());
  EXPECT_TRUE(rec->ConstantTimeEquals(key));
  EXPECT_TRUE(custody.Extend(owner, prot->id, Now() + 3600).ok());
  auto receipts = custody.Destroy(owner, prot->id);
  ASSERT_TRUE(receipts.ok()) << receipts.status().ToString();
  EXPECT_TRUE(VerifyDestroyReceipt(a.identity(), (*receipts)[0]).ok());
  EXPECT_TRUE(VerifyDestroyReceipt(b.identity(), (*receipts)[1]).ok());
  EXPECT_FALSE(custody.Recover(owner, prot->id, &prot->device_share).ok());

  EXPECT_EQ(ga.Signal(SIGTERM), 0) << ga.Log();
  EXPECT_EQ(gb.Signal(SIGINT), 0) << gb.Log();
  EXPECT_NE(ga.Log().find("\"stopped\""), std::string::npos);
}

TEST_F(GuardianE2e, RefusalsAreClearAndChangeNothing) {
  GuardianProcess gp(Dir("g"));
  ASSERT_TRUE(gp.Start({"--max-body-bytes", "65536"})) << gp.Log();
  GuardianClient client = gp.Connect();
  const PublicIdentity& gid = client.identity();
  const OwnerSigner owner = OwnerSigner::GenerateEd25519();
  const OwnerSigner stranger = OwnerSigner::GenerateEd25519();
  net::HttpClient http = gp.Http();

  // One share held by `owner`, used to see that nothing changed.
  const auto held_share = RandomShare();
  const ShareId held = RandomId();
  const ShareToPut held_put{held, ShareKind::kRecord, Now() + 600, &held_share};
  ASSERT_TRUE(client.Put(owner, std::span<const ShareToPut>(&held_put, 1)).ok());
  auto send = [&](const net::HttpRequest& req) {
    net::HttpHeaders headers(req.headers.begin(), req.headers.end());
    auto r = http.Post(req.target, req.body, "application/json", net::Idempotency::kNotIdempotent,
                       headers);
    VEIL_CHECK(r.ok());
    return *r;
  };
  auto put_request = [&](const ShareId& id, ByteView share) {
    Request r;
    r.route = Route::kPut;
    r.puts.push_back(testing::MakePut(gid, owner.public_key(), id, share, Now() + 600));
    return r;
  };
  auto status_of = [](const net::HttpReply& r) { return DecodeErrorBody(r.status, r.body); };
  auto held_unchanged = [&] {
    auto g = client.Get(owner, std::span<const ShareId>(&held, 1));
    return g.ok() && (*g)[0].status.ok() && (*g)[0].share.ConstantTimeEquals(held_share) &&
           (*g)[0].expires_at == held_put.expires_at;
  };
  const Bytes share(33, 7);

  // A third party's signature over the owner's request.
  const ShareId id1 = RandomId();
  {
    auto req = testing::SignedHttp(stranger, gid, put_request(id1, share), Now());
    // Claim to be `owner` but keep the stranger's signature: re-sign nothing, swap the owner.
    Request forged = put_request(id1, share);
    forged.owner = owner.public_key();
    forged.guardian = gid.fingerprint();
    forged.timestamp = Now();
    crypto::RandomBytes(forged.nonce);
    req.body = EncodeRequest(forged);
    auto sig = stranger.Sign(SignedMessage(Route::kPut, req.body));
    ASSERT_TRUE(sig.ok());
    req.headers = {{kSignatureHeader, SignatureHeader(*sig)}};
    auto r = send(req);
    EXPECT_EQ(r.status, 401) << r.body;
    EXPECT_EQ(status_of(r).code(), Code::kUnauthenticated);
  }
  // The stranger, signing as itself, cannot read, extend or destroy the owner's share.
  {
    auto g = client.Get(stranger, std::span<const ShareId>(&held, 1));
    ASSERT_TRUE(g.ok());
    EXPECT_EQ((*g)[0].status.code(), Code::kNotFound);
    EXPECT_EQ((*g)[0].status.message(), "no share");
    auto d = client.Destroy(stranger, std::span<const ShareId>(&held, 1));
    ASSERT_TRUE(d.ok());
    EXPECT_EQ((*d)[0].status.code(), Code::kNotFound);
  }
  // A replay: the same signed request twice; the second is refused and changes nothing.
  const ShareId id2 = RandomId();
  {
    const auto req = testing::SignedHttp(owner, gid, put_request(id2, share), Now());
    auto first = send(req);
    EXPECT_EQ(first.status, 200) << first.body;
    // Destroy it, then replay the put: the replay must not bring it back.
    auto d = client.Destroy(owner, std::span<const ShareId>(&id2, 1));
    ASSERT_TRUE(d.ok() && (*d)[0].status.ok());
    auto again = send(req);
    EXPECT_EQ(again.status, 401) << again.body;
    EXPECT_NE(status_of(again).message().find("replay"), std::string::npos)
        << status_of(again).ToString();
    auto g = client.Get(owner, std::span<const ShareId>(&id2, 1));
    ASSERT_TRUE(g.ok());
    EXPECT_EQ((*g)[0].status.code(), Code::kNotFound);
  }
  // An expired timestamp (older than the 120 s window), and one from the future.
  const ShareId id3 = RandomId();
  for (std::int64_t skew : {-1000, +1000}) {
    auto r = send(testing::SignedHttp(owner, gid, put_request(id3, share), Now() + skew));
    EXPECT_EQ(r.status, 401) << r.body;
    EXPECT_EQ(status_of(r).code(), Code::kUnauthenticated);
  }
  // A tampered sealed share: the request is accepted, that item refused, nothing stored.
  const ShareId id4 = RandomId();
  {
    Request r = put_request(id4, share);
    r.puts[0].sealed[r.puts[0].sealed.size() / 2] ^= 1;
    auto reply = send(testing::SignedHttp(owner, gid, r, Now()));
    ASSERT_EQ(reply.status, 200) << reply.body;
    auto decoded = DecodeResponse(Route::kPut, reply.body, 1);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(decoded->items[0].status.code(), Code::kVerificationFailed);
  }
  // An oversized request: refused by the server (413) before it is buffered.
  {
    net::HttpRequest big = testing::SignedHttp(owner, gid, put_request(RandomId(), share), Now());
    big.body.append(70000, ' ');
    auto r = send(big);
    EXPECT_EQ(r.status, 413) << r.body;
  }
  // A request without any signature.
  {
    auto req = testing::SignedHttp(owner, gid, put_request(RandomId(), share), Now());
    req.headers.clear();
    auto r = send(req);
    EXPECT_EQ(r.status, 401) << r.body;
  }
  // The query form is still accepted.
  const ShareId id5 = RandomId();
  {
    auto req = testing::SignedHttp(owner, gid, put_request(id5, share), Now());
    auto sig = DecodeSignatureHeader(req.headers[0].second);
    ASSERT_TRUE(sig.ok());
    req.headers.clear();
    req.target = req.path + SignatureQuery(*sig);
    auto r = send(req);
    EXPECT_EQ(r.status, 200) << r.body;
  }

  // Nothing changed: the held share is as it was, and none of the refused ids exists.
  EXPECT_TRUE(held_unchanged());
  std::vector<ShareId> refused = {id1, id2, id3, id4};
  auto g = client.Get(owner, refused);
  ASSERT_TRUE(g.ok());
  for (const auto& it : *g) EXPECT_EQ(it.status.code(), Code::kNotFound);
  // Refusals are counted by reason; no log line holds a signature or a body.
  EXPECT_GE(gp.Metric("veil_guardian_requests_total{outcome=\"unauthenticated\",route=\"put\"}"),
            4);
  const std::string log = gp.Log();
  EXPECT_EQ(log.find(std::string(AsChars(ByteView(held_put.share->Expose())))), std::string::npos);
  EXPECT_EQ(log.find("veil-signature="), std::string::npos);
  EXPECT_EQ(gp.Signal(SIGTERM), 0);
}

TEST_F(GuardianE2e, TlsWithPinningAndTheSelfSignedCertificateSurvivesRestart) {
  GuardianProcess gp(Dir("tls"));
  ASSERT_TRUE(gp.Start({"--tls-self-signed"})) << gp.Log();
  const std::string pin = gp.tls_sha256();
  ASSERT_EQ(pin.size(), 64u) << gp.Log();
  ASSERT_EQ(gp.url().rfind("https://", 0), 0u);
  struct stat st {};
  ASSERT_EQ(::stat((gp.dir() / "tls.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  const OwnerSigner owner = OwnerSigner::GenerateComposite();
  const auto share = RandomShare();
  const ShareId id = RandomId();
  {
    GuardianClient c = gp.Connect();
    const ShareToPut p{id, ShareKind::kCollection, Now() + 600, &share};
    auto put = c.Put(owner, std::span<const ShareToPut>(&p, 1));
    ASSERT_TRUE(put.ok()) << put.status().ToString();
    ASSERT_TRUE((*put)[0].status.ok());
  }
  // A wrong certificate pin fails the handshake; plain HTTP gets nothing.
  {
    auto o = gp.ClientOptions();
    o.http.pinned_sha256 = std::string(64, 'a');
    auto c = GuardianClient::Connect(o);
    EXPECT_EQ(c.status().code(), Code::kUnauthenticated) << c.status().ToString();
    o = gp.ClientOptions();
    o.http.base_url = "http://127.0.0.1:" + std::to_string(gp.port());
    o.http.pinned_sha256.clear();
    o.max_attempts = 1;
    EXPECT_FALSE(GuardianClient::Connect(o).ok());
  }
  // A wrong identity pin is refused even over the right TLS.
  {
    auto o = gp.ClientOptions();
    o.pinned_fingerprint = std::string(64, '0');
    EXPECT_EQ(GuardianClient::Connect(o).status().code(), Code::kUnauthenticated);
  }
  // Restart: the same certificate, so the same pin; the share is still there.
  ASSERT_EQ(gp.Signal(SIGTERM), 0) << gp.Log();
  ASSERT_TRUE(gp.Restart()) << gp.Log();
  EXPECT_EQ(gp.tls_sha256(), pin);
  GuardianClient c = gp.Connect();
  auto got = c.Get(owner, std::span<const ShareId>(&id, 1));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE((*got)[0].status.ok());
  EXPECT_TRUE((*got)[0].share.ConstantTimeEquals(share));
  EXPECT_EQ((*got)[0].kind, ShareKind::kCollection);
  EXPECT_EQ(gp.Signal(SIGTERM), 0);
}

TEST_F(GuardianE2e, SigkillDuringBatchedPutsLosesNoAcknowledgedShareAndCorruptsNone) {
  GuardianProcess gp(Dir("kill"));
  ASSERT_TRUE(gp.Start()) << gp.Log();
  const OwnerSigner owner = OwnerSigner::GenerateEd25519();
  constexpr std::size_t kBatch = 40;
  struct Batch {
    std::vector<ShareId> ids;
    std::vector<crypto::SecretBytes> shares;
    bool acked = false;
  };
  std::vector<Batch> batches;
  std::mutex mu;
  std::atomic<bool> stop{false};
  std::atomic<int> acked{0};
  std::thread writer([&] {
    auto o = gp.ClientOptions();
    o.max_attempts = 1;
    auto c = GuardianClient::Connect(o);
    if (!c.ok()) return;
    while (!stop.load()) {
      Batch b;
      std::vector<ShareToPut> puts;
      for (std::size_t i = 0; i < kBatch; ++i) {
        b.ids.push_back(RandomId());
        b.shares.push_back(RandomShare());
      }
      for (std::size_t i = 0; i < kBatch; ++i) {
        puts.push_back(ShareToPut{b.ids[i], ShareKind::kRecord, Now() + 600, &b.shares[i]});
      }
      std::size_t index;
      {
        std::lock_guard<std::mutex> lock(mu);
        index = batches.size();
        batches.push_back(std::move(b));
      }
      auto r = c->Put(owner, puts);
      if (!r.ok()) break;  // the guardian died under this batch
      bool all =
          std::all_of(r->begin(), r->end(), [](const ItemResult& it) { return it.status.ok(); });
      std::lock_guard<std::mutex> lock(mu);
      batches[index].acked = all;
      if (all) ++acked;
    }
  });
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while (acked.load() < 4 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Kill at a random point of the next batch (sealing, sending, the guardian's transaction, the
  // answer): a batch takes some tens of milliseconds here.
  std::uint8_t jitter = 0;
  crypto::RandomBytes(MutableByteView(&jitter, 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(jitter % 80));
  EXPECT_EQ(gp.Signal(SIGKILL), 128 + SIGKILL);
  stop = true;
  writer.join();
  ASSERT_GE(acked.load(), 4);

  ASSERT_TRUE(gp.Restart()) << gp.Log();
  GuardianClient c = gp.Connect();
  std::size_t stored = 0, absent = 0;
  for (const auto& b : batches) {
    auto got = c.Get(owner, b.ids);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    std::size_t ok_here = 0;
    for (std::size_t i = 0; i < b.ids.size(); ++i) {
      const auto& it = (*got)[i];
      if (it.status.ok()) {
        EXPECT_TRUE(it.share.ConstantTimeEquals(b.shares[i])) << "corrupt share";
        ++ok_here;
      } else {
        EXPECT_EQ(it.status.code(), Code::kNotFound) << it.status.ToString();
        EXPECT_FALSE(b.acked) << "an acknowledged share was lost";
      }
    }
    // One transaction per request: a batch is stored whole or not at all.
    EXPECT_TRUE(ok_here == 0 || ok_here == b.ids.size()) << ok_here;
    stored += ok_here;
    absent += b.ids.size() - ok_here;
  }
  std::printf("[ guardian ] SIGKILL after %d acknowledged batches: %zu shares stored, %zu absent\n",
              acked.load(), stored, absent);
  EXPECT_EQ(gp.Signal(SIGTERM), 0);
}

TEST_F(GuardianE2e, SweeperRemovesAnExpiredShare) {
  GuardianProcess gp(Dir("sweep"));
  ASSERT_TRUE(gp.Start({"--sweep-interval", "0.2"})) << gp.Log();
  GuardianClient c = gp.Connect();
  const OwnerSigner owner = OwnerSigner::GenerateEd25519();
  const auto s1 = RandomShare(), s2 = RandomShare();
  const ShareId short_id = RandomId(), long_id = RandomId();
  const std::vector<ShareToPut> puts = {{short_id, ShareKind::kRecord, Now() + 2, &s1},
                                        {long_id, ShareKind::kRecord, Now() + 600, &s2}};
  ASSERT_TRUE(c.Put(owner, puts).ok());
  const auto deadline = Clock::now() + std::chrono::seconds(8);
  while (gp.Metric("veil_guardian_swept_shares_total") < 1 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(gp.Metric("veil_guardian_swept_shares_total"), 1) << gp.Log();
  EXPECT_GE(gp.Metric("veil_guardian_sweeps_total"), 1);
  EXPECT_EQ(gp.Metric("veil_guardian_shares"), 1);
  const std::vector<ShareId> ids = {short_id, long_id};
  auto got = c.Get(owner, ids);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)[0].status.code(), Code::kNotFound);
  EXPECT_EQ((*got)[0].status.message(), "no share");
  EXPECT_TRUE((*got)[1].status.ok());
  EXPECT_EQ(gp.Signal(SIGTERM), 0);
}

// The at-rest blob of `id`, read through a second (read-only) connection, which is closed again.
Bytes SealedAtRest(const std::filesystem::path& db, const ShareId& id) {
  sqlite3* h = nullptr;
  Bytes out;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, "SELECT sealed FROM shares WHERE id = ?", -1, &st, nullptr) ==
        SQLITE_OK) {
      sqlite3_bind_blob(st, 1, id.data(), static_cast<int>(id.size()), SQLITE_STATIC);
      if (sqlite3_step(st) == SQLITE_ROW) {
        const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(st, 0));
        out.assign(p, p + sqlite3_column_bytes(st, 0));
      }
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return out;
}

bool AnyPieceIn(const std::string& file, ByteView blob) {
  for (std::size_t at = 0; at + 16 <= blob.size(); at += 16) {
    if (testing::Contains(file, blob.subspan(at, 16))) return true;
  }
  return false;
}

TEST_F(GuardianE2e, AfterDestroyTheRawDatabaseAndWalHoldNoneOfTheShare) {
  GuardianProcess gp(Dir("scrub"));
  ASSERT_TRUE(gp.Start()) << gp.Log();
  GuardianClient c = gp.Connect();
  const OwnerSigner owner = OwnerSigner::GenerateEd25519();
  std::vector<crypto::SecretBytes> shares;
  std::vector<ShareId> ids;
  std::vector<ShareToPut> puts;
  for (std::size_t i = 0; i < 4; ++i) {
    shares.push_back(RandomShare(64));
    ids.push_back(RandomId());
  }
  for (std::size_t i = 0; i < 4; ++i) {
    puts.push_back(ShareToPut{ids[i], ShareKind::kRecord, Now() + 600, &shares[i]});
  }
  ASSERT_TRUE(c.Put(owner, puts).ok());
  const auto db = gp.dir() / kDatabaseFileName;
  auto raw = [&] { return testing::ReadFile(db) + testing::ReadFile(db.string() + "-wal"); };
  const Bytes victim = SealedAtRest(db, ids[0]);
  const Bytes survivor = SealedAtRest(db, ids[1]);
  ASSERT_GT(victim.size(), 64u);
  ASSERT_TRUE(AnyPieceIn(raw(), victim));
  auto d = c.Destroy(owner, std::span<const ShareId>(ids).first(1));
  ASSERT_TRUE(d.ok() && (*d)[0].status.ok());
  const std::string after = raw();
  EXPECT_FALSE(AnyPieceIn(after, victim));
  EXPECT_FALSE(testing::Contains(after, shares[0].Expose()));
  EXPECT_TRUE(AnyPieceIn(after, survivor));
  auto got = c.Get(owner, std::span<const ShareId>(ids).first(1));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)[0].status.message(), "no share");
  EXPECT_EQ(gp.Signal(SIGTERM), 0);
}

TEST_F(GuardianE2e, BoundedConcurrentLoadHasNoErrorsAndLosesNoShare) {
  GuardianProcess gp(Dir("load"));
  // 4 clients on one address move 8000 items: the per-address item budget (2000/s, burst 5000)
  // would make the result depend on the machine's speed. This test measures the service.
  ASSERT_TRUE(gp.Start({"--address-item-rate", "0"})) << gp.Log();
  constexpr int kClients = 4;
  constexpr std::size_t kShares = 500, kBatch = 50;
  std::atomic<int> errors{0}, lost{0};
  std::mutex mu;
  std::vector<double> latencies_ms;
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&] {
      auto c = GuardianClient::Connect(gp.ClientOptions());
      if (!c.ok()) {
        ++errors;
        return;
      }
      const OwnerSigner owner = OwnerSigner::GenerateEd25519();
      std::vector<double> mine;
      auto timed = [&](auto&& call) {
        const auto t0 = Clock::now();
        auto r = call();
        mine.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        return r;
      };
      for (std::size_t done = 0; done < kShares; done += kBatch) {
        std::vector<crypto::SecretBytes> shares;
        std::vector<ShareId> ids;
        std::vector<ShareToPut> puts;
        for (std::size_t i = 0; i < kBatch; ++i) {
          shares.push_back(RandomShare());
          ids.push_back(RandomId());
        }
        for (std::size_t i = 0; i < kBatch; ++i) {
          puts.push_back(ShareToPut{ids[i], ShareKind::kRecord, Now() + 600, &shares[i]});
        }
        auto put = timed([&] { return c->Put(owner, puts); });
        if (!put.ok()) {
          ++errors;
          continue;
        }
        for (const auto& it : *put) errors += it.status.ok() ? 0 : 1;
        auto got = timed([&] { return c->Get(owner, ids); });
        if (!got.ok()) {
          ++errors;
          continue;
        }
        for (std::size_t i = 0; i < kBatch; ++i) {
          if (!(*got)[i].status.ok() || !(*got)[i].share.ConstantTimeEquals(shares[i])) ++lost;
        }
      }
      std::lock_guard<std::mutex> lock(mu);
      latencies_ms.insert(latencies_ms.end(), mine.begin(), mine.end());
    });
  }
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(lost.load(), 0);
  ASSERT_FALSE(latencies_ms.empty());
  std::sort(latencies_ms.begin(), latencies_ms.end());
  auto pct = [&](double p) {
    return latencies_ms[std::min(
        latencies_ms.size() - 1,
        static_cast<std::size_t>(p * static_cast<double>(latencies_ms.size())))];
  };
  const double shares_total = static_cast<double>(kClients) * static_cast<double>(kShares);
  std::printf(
      "[ guardian ] load: %d clients x %zu shares (batches of %zu), put+get in %.2f s: %.0f "
      "shares/s round trip; per batch request p50 %.1f ms, p99 %.1f ms (%zu requests; debug "
      "build with sanitizers)\n",
      kClients, kShares, kBatch, seconds, shares_total / seconds, pct(0.5), pct(0.99),
      latencies_ms.size());
  EXPECT_EQ(gp.Metric("veil_guardian_items_total{outcome=\"ok\",route=\"put\"}"), shares_total);
  EXPECT_EQ(gp.Signal(SIGTERM), 0);
}

// Shares held, counted through a second (read-only) connection.
std::int64_t CountShares(const std::filesystem::path& db) {
  sqlite3* h = nullptr;
  std::int64_t n = -1;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, "SELECT COUNT(*) FROM shares", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return n;
}

// Every owner key is fresh, so only the per-address bucket can refuse: 6 requests pass, the rest
// of the flood from 127.0.0.1 is told to retry later and stores nothing.
TEST_F(GuardianE2e, AFloodOfFreshOwnerKeysFromOneAddressIsRefusedAfterTheAddressLimit) {
  GuardianProcess gp(Dir("address"));
  ASSERT_TRUE(gp.Start({"--address-rate", "0.01", "--address-burst", "6"})) << gp.Log();
  GuardianClient c = gp.Connect();
  int ok = 0, refused = 0;
  for (int i = 0; i < 10; ++i) {
    const OwnerSigner fresh = OwnerSigner::GenerateEd25519();
    const auto share = RandomShare();
    const ShareToPut p{RandomId(), ShareKind::kRecord, Now() + 600, &share};
    auto r = c.Put(fresh, std::span<const ShareToPut>(&p, 1));
    if (r.ok()) {
      EXPECT_TRUE((*r)[0].status.ok()) << (*r)[0].status.ToString();
      ++ok;
    } else {
      EXPECT_EQ(r.status().code(), Code::kResourceExhausted) << r.status().ToString();
      EXPECT_NE(r.status().message().find("client address: retry later"), std::string::npos)
          << r.status().ToString();
      ++refused;
    }
  }
  EXPECT_EQ(ok, 6);
  EXPECT_EQ(refused, 4);
  EXPECT_EQ(CountShares(gp.dir() / kDatabaseFileName), 6);
  EXPECT_EQ(gp.Metric("veil_guardian_requests_total{outcome=\"resource exhausted\",route=\"put\"}"),
            4);
  EXPECT_EQ(gp.Signal(SIGTERM), 0);
}

TEST_F(GuardianE2e, OwnersOutsideTheAllowListArePermissionDenied) {
  const OwnerSigner listed = OwnerSigner::GenerateEd25519();
  const OwnerSigner listed_composite = OwnerSigner::GenerateComposite();
  const OwnerSigner by_flag = OwnerSigner::GenerateEd25519();
  const OwnerSigner stranger = OwnerSigner::GenerateEd25519();
  const auto dir = Dir("allow");
  const auto list = tmp_.path() / "owners.txt";
  {
    std::ofstream f(list);
    f << "# owners allowed on this guardian\n"
      << OwnerKeyText(listed.public_key()) << "\n\n  "
      << OwnerKeyText(listed_composite.public_key()) << "  \n";
  }
  GuardianProcess gp(dir);
  ASSERT_TRUE(gp.Start(
      {"--allow-owners", list.string(), "--allow-owner", OwnerKeyText(by_flag.public_key())}))
      << gp.Log();
  EXPECT_NE(gp.Log().find("\"allowed_owners\":3"), std::string::npos) << gp.Log();
  GuardianClient c = gp.Connect();
  auto put = [&](const OwnerSigner& owner, const ShareId& id) {
    const auto share = RandomShare();
    const ShareToPut p{id, ShareKind::kRecord, Now() + 600, &share};
    return c.Put(owner, std::span<const ShareToPut>(&p, 1));
  };
  const ShareId id = RandomId();
  for (const OwnerSigner* owner : {&listed, &listed_composite, &by_flag}) {
    auto r = put(*owner, owner == &listed ? id : RandomId());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE((*r)[0].status.ok());
  }
  auto refused = put(stranger, RandomId());
  EXPECT_EQ(refused.status().code(), Code::kPermissionDenied) << refused.status().ToString();
  auto got = c.Get(stranger, std::span<const ShareId>(&id, 1));
  EXPECT_EQ(got.status().code(), Code::kPermissionDenied);
  auto destroyed = c.Destroy(stranger, std::span<const ShareId>(&id, 1));
  EXPECT_EQ(destroyed.status().code(), Code::kPermissionDenied);
  EXPECT_EQ(CountShares(dir / kDatabaseFileName), 3);
  got = c.Get(listed, std::span<const ShareId>(&id, 1));
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE((*got)[0].status.ok());
  EXPECT_EQ(gp.Metric("veil_guardian_requests_total{outcome=\"permission denied\",route=\"put\"}"),
            1);
  EXPECT_EQ(gp.Signal(SIGTERM), 0);

  // A list that does not parse, or lists nobody, stops the daemon from starting (exit 1): an
  // operator's mistake never opens a guardian meant to be closed.
  const std::string start = "timeout 60 " + testing::GuardianBinaryPath() + " --data '" +
                            dir.string() + "' --listen 127.0.0.1:0 --allow-owners '" +
                            list.string() + "' 2>/dev/null";
  for (const std::string& content : {std::string("ed25519:not-base64\n"), std::string("# nobody\n"),
                                     OwnerKeyText(listed.public_key()) + "x\n"}) {
    std::ofstream(list, std::ios::trunc) << content;
    EXPECT_EQ(::system(start.c_str()) >> 8, 1) << content;
  }
  EXPECT_EQ(::system(("timeout 60 " + testing::GuardianBinaryPath() + " --data '" + dir.string() +
                      "' --listen 127.0.0.1:0 --allow-owners '" +
                      (tmp_.path() / "absent").string() + "' 2>/dev/null")
                         .c_str()) >>
                8,
            1);
}

TEST_F(GuardianE2e, IdentityVerbPrintsTheFingerprintTheDaemonUses) {
  const auto dir = Dir("id");
  const std::string cmd =
      testing::GuardianBinaryPath() + " identity --data '" + dir.string() + "' 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[512] = {};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, p);
  ASSERT_EQ(::pclose(p), 0);
  const Json j = Json::parse(std::string(buf, n), nullptr, false);
  ASSERT_TRUE(j.is_object()) << buf;
  const std::string fp = j.value("fingerprint", "");
  ASSERT_EQ(fp.size(), 64u);
  GuardianProcess gp(dir);
  ASSERT_TRUE(gp.Start()) << gp.Log();
  EXPECT_EQ(gp.fingerprint(), fp);
  auto h = gp.Http().Get("/health");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->status, 200);
  EXPECT_EQ(gp.Signal(SIGTERM), 0);
  // Bad flags are usage errors (exit 2); a missing --data is an error (exit 1).
  EXPECT_EQ(::system((testing::GuardianBinaryPath() + " --no-such-flag 2>/dev/null").c_str()) >> 8,
            2);
  EXPECT_EQ(
      ::system((testing::GuardianBinaryPath() + " --listen 127.0.0.1:0 2>/dev/null").c_str()) >> 8,
      1);
}

}  // namespace
}  // namespace veil::guardian
