// The guardian core through its transport-independent HTTP surface (GuardianService::Handle):
// round trips, every request-level refusal (and that it changes nothing), replay protection
// across a restart, leases, the sweeper, batch atomicity, the per-address and per-owner rate
// limits, the storage quotas, the owner allow list, file modes and secure deletion.
#include "veil/guardian/guardian.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <cctype>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "guardian/guardian_test_util.h"
#include "veil/guardian/receipt.h"
#include "veil/guardian/service.h"
#include "veil/guardian/sweeper.h"

namespace veil::guardian {
namespace {

using testing::Contains;
using testing::MakePut;
using testing::RandomId;
using testing::ReadFile;
using testing::ScratchDir;
using testing::SignedHttp;

constexpr std::int64_t kStart = 1700000000;

Bytes RandomShare(std::size_t n = 200) { return crypto::RandomBytes(n); }

class GuardianTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open() {
    GuardianOptions o;
    o.limits = limits_;
    o.allowed_owners = allowed_owners_;
    o.clock = [this] { return now_.load(); };
    o.rate_clock = [this] { return rate_now_.load(); };
    o.fault_injection_for_testing = [this](std::size_t i) -> Status {
      if (fail_at_ && *fail_at_ == i) return Internal("injected fault");
      return Status::Ok();
    };
    auto g = Guardian::OpenDir(dir_.path(), std::move(o));
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    guardian_ = std::shared_ptr<Guardian>(std::move(*g));
    service_ = std::make_unique<GuardianService>(guardian_);
  }

  void Reopen() {
    service_.reset();
    guardian_.reset();
    Open();
  }

  const PublicIdentity& identity() { return guardian_->public_identity(); }

  net::HttpResponse Send(const OwnerSigner& signer, Request req,
                         std::optional<std::int64_t> timestamp = std::nullopt) {
    net::HttpRequest http =
        SignedHttp(signer, identity(), std::move(req), timestamp.value_or(now_));
    http.remote_addr = remote_addr_;
    return service_->Handle(http);
  }

  net::HttpResponse SendPut(const OwnerSigner& signer, std::vector<PutItem> items) {
    Request req;
    req.route = Route::kPut;
    req.puts = std::move(items);
    return Send(signer, std::move(req));
  }

  Response Decode(Route route, const net::HttpResponse& r, std::size_t n) {
    EXPECT_EQ(r.status, 200) << r.body;
    auto resp = DecodeResponse(route, r.body, n);
    EXPECT_TRUE(resp.ok()) << resp.status().ToString() << " " << r.body;
    return resp.ok() ? std::move(*resp) : Response{};
  }

  Response Put(const OwnerSigner& signer, std::vector<PutItem> items) {
    Request req;
    req.route = Route::kPut;
    req.puts = std::move(items);
    const std::size_t n = req.puts.size();
    return Decode(Route::kPut, Send(signer, std::move(req)), n);
  }

  PutItem Item(const OwnerSigner& signer, const ShareId& id, ByteView share,
               std::int64_t ttl = 3600) {
    return MakePut(identity(), signer.public_key(), id, share, now_ + ttl);
  }

  // Gets and opens shares; a missing one comes back as its status.
  std::vector<Result<Bytes>> Get(const OwnerSigner& signer, std::vector<ShareId> ids) {
    auto reply_key = crypto::XWingDecapsulationKey::Generate();
    Request req;
    req.route = Route::kGet;
    req.ids = ids;
    req.reply_key.assign(reply_key.public_key().begin(), reply_key.public_key().end());
    crypto::RandomBytes(req.nonce);
    const Nonce nonce = req.nonce;
    const Response resp = Decode(Route::kGet, Send(signer, std::move(req)), ids.size());
    std::vector<Result<Bytes>> out;
    const auto priv = crypto::SecretBytes::CopyFrom(reply_key.seed().Expose());
    crypto::hpke::SetupOptions o;
    o.info = AsBytes(kReplyInfo);
    for (const auto& it : resp.items) {
      if (!it.status.ok()) {
        out.emplace_back(it.status);
        continue;
      }
      const ByteView sealed(it.sealed);
      auto share =
          crypto::hpke::Open(kShareSuite, sealed.first(crypto::kXWingCiphertextSize), priv, o,
                             ReplyAad(it.id, nonce), sealed.subspan(crypto::kXWingCiphertextSize));
      if (!share.ok()) {
        out.emplace_back(share.status());
      } else {
        out.emplace_back(Bytes(share->Expose().begin(), share->Expose().end()));
      }
    }
    return out;
  }

  Response Extend(const OwnerSigner& signer, const ShareId& id, std::int64_t expires_at) {
    Request req;
    req.route = Route::kExtend;
    req.extends.push_back(ExtendItem{id, expires_at});
    return Decode(Route::kExtend, Send(signer, std::move(req)), 1);
  }

  Response Destroy(const OwnerSigner& signer, std::vector<ShareId> ids) {
    Request req;
    req.route = Route::kDestroy;
    req.ids = ids;
    return Decode(Route::kDestroy, Send(signer, std::move(req)), ids.size());
  }

  GuardianStats Stats() {
    auto s = guardian_->Stats();
    EXPECT_TRUE(s.ok());
    return s.ok() ? *s : GuardianStats{};
  }

  ScratchDir dir_;
  GuardianLimits limits_;
  std::vector<OwnerKey> allowed_owners_;
  std::string remote_addr_ = "192.0.2.1";
  std::atomic<std::int64_t> now_{kStart};
  std::atomic<double> rate_now_{0};
  std::optional<std::size_t> fail_at_;
  std::shared_ptr<Guardian> guardian_;
  std::unique_ptr<GuardianService> service_;
  OwnerSigner alice_ = OwnerSigner::GenerateEd25519();
  OwnerSigner bob_ = OwnerSigner::GenerateEd25519();
};

TEST_F(GuardianTest, PutGetExtendDestroyRoundTrip) {
  const ShareId a = RandomId(), b = RandomId();
  const Bytes sa = RandomShare(), sb = RandomShare(1024);
  PutItem ib = Item(alice_, b, sb);
  ib.kind = ShareKind::kCollection;
  Response put = Put(alice_, {Item(alice_, a, sa), ib});
  ASSERT_EQ(put.items.size(), 2u);
  for (const auto& it : put.items) {
    EXPECT_TRUE(it.status.ok()) << it.status.ToString();
    EXPECT_TRUE(it.changed);
    EXPECT_EQ(it.expires_at, now_ + 3600);
  }
  auto got = Get(alice_, {a, b});
  ASSERT_TRUE(got[0].ok() && got[1].ok());
  EXPECT_EQ(*got[0], sa);
  EXPECT_EQ(*got[1], sb);

  Response ext = Extend(alice_, a, now_ + 7200);
  EXPECT_TRUE(ext.items[0].status.ok());
  EXPECT_TRUE(ext.items[0].changed);
  EXPECT_EQ(ext.items[0].expires_at, now_ + 7200);
  // Never shortens: a shorter or equal expiry is a no-op that says so.
  for (std::int64_t shorter : {now_ + 60, now_ + 7200}) {
    Response same = Extend(alice_, a, shorter);
    EXPECT_TRUE(same.items[0].status.ok());
    EXPECT_FALSE(same.items[0].changed);
    EXPECT_EQ(same.items[0].expires_at, now_ + 7200);
  }
  // Beyond the lease limit.
  EXPECT_EQ(Extend(alice_, a, now_ + limits_.max_lease_seconds + 1).items[0].status.code(),
            Code::kInvalidArgument);

  Response destroyed = Destroy(alice_, {a});
  ASSERT_TRUE(destroyed.items[0].status.ok());
  ASSERT_TRUE(destroyed.items[0].receipt.has_value());
  const DestroyReceipt& receipt = *destroyed.items[0].receipt;
  EXPECT_TRUE(VerifyDestroyReceipt(identity(), receipt).ok());
  EXPECT_EQ(receipt.share_id, a);
  EXPECT_EQ(receipt.destroyed_at, now_);
  EXPECT_EQ(receipt.commitment_hash, CommitmentHash(ShareCommitment(a, sa)));

  got = Get(alice_, {a, b});
  EXPECT_EQ(got[0].status().code(), Code::kNotFound);
  EXPECT_EQ(got[0].status().message(), "no share");
  EXPECT_TRUE(got[1].ok());
  // Destroying again (a retry whose answer was lost): the same receipt content, freshly signed.
  now_ += 5;
  Response again = Destroy(alice_, {a});
  ASSERT_TRUE(again.items[0].status.ok());
  EXPECT_EQ(again.items[0].receipt->destroyed_at, receipt.destroyed_at);
  EXPECT_EQ(again.items[0].receipt->commitment_hash, receipt.commitment_hash);
  EXPECT_TRUE(VerifyDestroyReceipt(identity(), *again.items[0].receipt).ok());
  // Not to another owner, and not after the retention.
  EXPECT_EQ(Destroy(bob_, {a}).items[0].status, NotFound("no share"));
  now_ += limits_.receipt_retention_seconds;
  ASSERT_TRUE(guardian_->Sweep(now_).ok());
  EXPECT_EQ(Destroy(alice_, {a}).items[0].status, NotFound("no share"));
  EXPECT_EQ(Stats().shares, 0u);  // b expired meanwhile and was swept
}

TEST_F(GuardianTest, CompositeOwner) {
  const OwnerSigner owner = OwnerSigner::GenerateComposite();
  const ShareId id = RandomId();
  const Bytes share = RandomShare(76);
  EXPECT_TRUE(Put(owner, {Item(owner, id, share)}).items[0].status.ok());
  auto got = Get(owner, {id});
  ASSERT_TRUE(got[0].ok());
  EXPECT_EQ(*got[0], share);
  EXPECT_TRUE(Destroy(owner, {id}).items[0].status.ok());
}

TEST_F(GuardianTest, PutIsIdempotentAndConflictsArePerItem) {
  const ShareId id = RandomId();
  const Bytes share = RandomShare();
  EXPECT_TRUE(Put(alice_, {Item(alice_, id, share)}).items[0].changed);
  Response again = Put(alice_, {Item(alice_, id, share, 99999)});
  EXPECT_TRUE(again.items[0].status.ok());
  EXPECT_FALSE(again.items[0].changed);
  EXPECT_EQ(again.items[0].expires_at, now_ + 3600);  // the stored expiry is kept
  // Same id, other share; same id, other owner.
  EXPECT_EQ(Put(alice_, {Item(alice_, id, RandomShare())}).items[0].status.code(),
            Code::kFailedPrecondition);
  EXPECT_EQ(Put(bob_, {Item(bob_, id, share)}).items[0].status.code(), Code::kFailedPrecondition);
  auto got = Get(alice_, {id});
  ASSERT_TRUE(got[0].ok());
  EXPECT_EQ(*got[0], share);
}

TEST_F(GuardianTest, OnlyTheOwnerSeesAShare) {
  const ShareId id = RandomId();
  Put(alice_, {Item(alice_, id, RandomShare())});
  const ShareId missing = RandomId();
  // Bob's properly signed requests: foreign and missing shares answer alike.
  auto got = Get(bob_, {id, missing});
  EXPECT_EQ(got[0].status(), got[1].status());
  EXPECT_EQ(got[0].status().code(), Code::kNotFound);
  EXPECT_EQ(Extend(bob_, id, now_ + 9000).items[0].status, NotFound("no share"));
  EXPECT_EQ(Destroy(bob_, {id}).items[0].status, NotFound("no share"));
  EXPECT_EQ(Stats().shares, 1u);
  EXPECT_TRUE(Get(alice_, {id})[0].ok());
}

TEST_F(GuardianTest, ThirdPartySignatureIsRefusedAndChangesNothing) {
  Request req;
  req.route = Route::kPut;
  req.puts.push_back(Item(alice_, RandomId(), RandomShare()));
  net::HttpRequest http = SignedHttp(alice_, identity(), req, now_);
  // Bob signs Alice's body.
  auto sig = bob_.Sign(SignedMessage(Route::kPut, http.body));
  ASSERT_TRUE(sig.ok());
  http.headers = {{kSignatureHeader, Base64Encode(*sig)}};
  auto r = service_->Handle(http);
  EXPECT_EQ(r.status, 401);
  EXPECT_NE(r.body.find("\"status\":\"unauthenticated\""), std::string::npos) << r.body;
  // A signature over another route, and no signature at all.
  auto wrong_route = alice_.Sign(SignedMessage(Route::kDestroy, http.body));
  http.headers = {{kSignatureHeader, Base64Encode(*wrong_route)}};
  EXPECT_EQ(service_->Handle(http).status, 401);
  http.headers.clear();
  EXPECT_EQ(service_->Handle(http).status, 401);
  // A composite-length signature for an Ed25519 owner.
  http.headers = {{kSignatureHeader, Base64Encode(Bytes(crypto::kCompositeSignatureSize, 1))}};
  EXPECT_EQ(service_->Handle(http).status, 401);
  EXPECT_EQ(Stats().shares, 0u);
  EXPECT_EQ(Stats().nonces, 0u);
}

TEST_F(GuardianTest, SignatureInTheQueryWorksButNotTwice) {
  Request req;
  req.route = Route::kPut;
  req.puts.push_back(Item(alice_, RandomId(), RandomShare()));
  net::HttpRequest http = SignedHttp(alice_, identity(), req, now_);
  auto sig = alice_.Sign(SignedMessage(Route::kPut, http.body));
  http.target = http.path + SignatureQuery(*sig);
  EXPECT_EQ(service_->Handle(http).status, 400);  // header and query both
  http.headers.clear();
  EXPECT_EQ(service_->Handle(http).status, 200);
}

TEST_F(GuardianTest, ReplayIsRefusedAlsoAfterRestart) {
  Request req;
  req.route = Route::kPut;
  req.puts.push_back(Item(alice_, RandomId(), RandomShare()));
  const net::HttpRequest http = SignedHttp(alice_, identity(), req, now_);
  EXPECT_EQ(service_->Handle(http).status, 200);
  auto again = service_->Handle(http);
  EXPECT_EQ(again.status, 401);
  EXPECT_NE(again.body.find("replayed"), std::string::npos);
  Reopen();
  EXPECT_EQ(service_->Handle(http).status, 401);
  // Once the window has passed, the timestamp check refuses it and the nonce row may go.
  now_ += limits_.replay_window_seconds + 1;
  EXPECT_EQ(service_->Handle(http).status, 401);
  ASSERT_TRUE(guardian_->Sweep(now_).ok());
  EXPECT_EQ(Stats().nonces, 0u);
  EXPECT_EQ(Stats().shares, 1u);
}

TEST_F(GuardianTest, StaleAndFutureTimestampsAreRefused) {
  const std::int64_t w = limits_.replay_window_seconds;
  for (std::int64_t ts : {now_ - w - 1, now_ + w + 1, std::int64_t{0}}) {
    Request req;
    req.route = Route::kPut;
    req.puts.push_back(Item(alice_, RandomId(), RandomShare()));
    EXPECT_EQ(Send(alice_, req, ts).status, 401) << ts;
  }
  EXPECT_EQ(Stats().shares, 0u);
  EXPECT_EQ(Stats().nonces, 0u);
  for (std::int64_t ts : {now_ - w, now_ + w}) {
    Request req;
    req.route = Route::kPut;
    req.puts.push_back(Item(alice_, RandomId(), RandomShare()));
    EXPECT_EQ(Send(alice_, req, ts).status, 200) << ts;
  }
}

TEST_F(GuardianTest, WrongGuardianIsRefused) {
  const GuardianIdentity other = GuardianIdentity::Generate();
  Request req;
  req.route = Route::kPut;
  req.puts.push_back(Item(alice_, RandomId(), RandomShare()));
  auto r = service_->Handle(SignedHttp(alice_, other.public_identity(), req, now_));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Stats().nonces, 0u);
}

TEST_F(GuardianTest, TamperedSealedShareAndWrongCommitmentAreRefused) {
  const ShareId a = RandomId(), b = RandomId(), c = RandomId(), d = RandomId();
  PutItem tampered = Item(alice_, a, RandomShare());
  tampered.sealed[tampered.sealed.size() - 3] ^= 1;
  PutItem bad_enc = Item(alice_, b, RandomShare());
  bad_enc.sealed[5] ^= 0x80;
  PutItem wrong_commitment = Item(alice_, c, RandomShare());
  wrong_commitment.commitment[0] ^= 1;
  // Sealed for another owner (the aad binds the owner key).
  PutItem other_owner = MakePut(identity(), bob_.public_key(), d, RandomShare(), now_ + 60);
  Response r = Put(alice_, {tampered, bad_enc, wrong_commitment, other_owner});
  for (const auto& it : r.items) EXPECT_EQ(it.status, VerificationFailed());
  EXPECT_EQ(Stats().shares, 0u);
  // A past expiry.
  EXPECT_EQ(Put(alice_, {Item(alice_, a, RandomShare(), 0)}).items[0].status.code(),
            Code::kInvalidArgument);
  EXPECT_EQ(Stats().shares, 0u);
}

TEST_F(GuardianTest, OversizedRequestsAreRefusedAndChangeNothing) {
  limits_.max_items = 2;
  limits_.max_body_bytes = 16 * 1024;
  Reopen();
  Request req;
  req.route = Route::kPut;
  for (int i = 0; i < 3; ++i) req.puts.push_back(Item(alice_, RandomId(), RandomShare(10)));
  auto r = Send(alice_, req);
  EXPECT_EQ(r.status, 429);
  EXPECT_NE(r.body.find("too many items"), std::string::npos);
  req.puts.pop_back();
  req.puts[0] = Item(alice_, RandomId(), RandomShare(1024));
  req.puts[1] = Item(alice_, RandomId(), RandomShare(1024));
  Request big = req;
  for (int i = 0; i < 4; ++i) big.puts[0].sealed.insert(big.puts[0].sealed.end(), 4000, 0);
  EXPECT_EQ(Send(alice_, big).status, 429);  // body over the limit
  // Malformed JSON is refused too.
  net::HttpRequest http = SignedHttp(alice_, identity(), req, now_);
  http.body += " x";
  EXPECT_EQ(service_->Handle(http).status, 400);
  EXPECT_EQ(Stats().shares, 0u);
  EXPECT_EQ(Stats().nonces, 0u);
}

TEST_F(GuardianTest, RateLimitPerOwner) {
  limits_.rate_per_second = 1;
  limits_.rate_burst = 2;
  Reopen();
  const ShareId id = RandomId();
  EXPECT_EQ(Put(alice_, {Item(alice_, id, RandomShare())}).items.size(), 1u);
  EXPECT_EQ(Get(alice_, {id}).size(), 1u);
  Request req;
  req.route = Route::kDestroy;
  req.ids = {id};
  EXPECT_EQ(Send(alice_, req).status, 429);
  EXPECT_EQ(Stats().shares, 1u);
  EXPECT_EQ(Get(bob_, {id}).size(), 1u);  // another owner has its own bucket
  rate_now_ = 1.0;                        // one token back
  const net::HttpRequest http = SignedHttp(alice_, identity(), req, now_);
  EXPECT_EQ(service_->Handle(http).status, 200);
  // Replays of a captured request do not drain the owner's bucket.
  rate_now_ = 2.0;  // one token back
  for (int i = 0; i < 5; ++i) EXPECT_EQ(service_->Handle(http).status, 401);
  EXPECT_EQ(Get(alice_, {id}).size(), 1u);
}

TEST_F(GuardianTest, ExpiredSharesAreGoneAndSwept) {
  const ShareId id = RandomId();
  Put(alice_, {Item(alice_, id, RandomShare(), 10)});
  now_ += 10;
  EXPECT_EQ(Get(alice_, {id})[0].status().code(), Code::kNotFound);
  EXPECT_EQ(Extend(alice_, id, now_ + 100).items[0].status.code(), Code::kNotFound);
  auto n = guardian_->Sweep(now_);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 1u);
  EXPECT_EQ(Stats().shares, 0u);
  // An expired id may be deposited afresh before a sweep, by anyone.
  const ShareId id2 = RandomId();
  Put(alice_, {Item(alice_, id2, RandomShare(), 5)});
  now_ += 6;
  EXPECT_TRUE(Put(bob_, {Item(bob_, id2, RandomShare())}).items[0].changed);
}

TEST_F(GuardianTest, SweeperThreadDeletesExpiredShares) {
  const ShareId id = RandomId();
  Put(alice_, {Item(alice_, id, RandomShare(), 10)});
  now_ += 11;
  Sweeper sweeper(guardian_, std::chrono::milliseconds(10));
  sweeper.Start();
  for (int i = 0; i < 500 && Stats().shares != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  sweeper.Stop();
  EXPECT_GE(sweeper.runs(), 1u);
  EXPECT_EQ(Stats().shares, 0u);
  EXPECT_EQ(Get(alice_, {id})[0].status().message(), "no share");
}

TEST_F(GuardianTest, FailedBatchAppliesNothingAndKeepsTheNonce) {
  Request req;
  req.route = Route::kPut;
  for (int i = 0; i < 5; ++i) req.puts.push_back(Item(alice_, RandomId(), RandomShare()));
  const net::HttpRequest http = SignedHttp(alice_, identity(), req, now_);
  fail_at_ = 3;  // write 0 is the nonce, 1.. the shares: fail on the third share
  auto r = service_->Handle(http);
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(Stats().shares, 0u);
  EXPECT_EQ(Stats().nonces, 0u);
  // The same signed request applies in full once storage works again.
  fail_at_.reset();
  Response ok = Decode(Route::kPut, service_->Handle(http), 5);
  for (const auto& it : ok.items) EXPECT_TRUE(it.changed);
  EXPECT_EQ(Stats().shares, 5u);
  // A failing destroy batch deletes nothing either.
  std::vector<ShareId> ids;
  for (const auto& p : req.puts) ids.push_back(p.id);
  Request d;
  d.route = Route::kDestroy;
  d.ids = ids;
  fail_at_ = 4;
  EXPECT_EQ(Send(alice_, d).status, 500);
  EXPECT_EQ(Stats().shares, 5u);
}

// Reads the at-rest blob of a share straight from the database file.
Bytes StoredBlob(const std::filesystem::path& db, const ShareId& id) {
  sqlite3* h = nullptr;
  VEIL_CHECK(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  VEIL_CHECK(sqlite3_prepare_v2(h, "SELECT sealed FROM shares WHERE id = ?", -1, &s, nullptr) ==
             SQLITE_OK);
  sqlite3_bind_blob(s, 1, id.data(), static_cast<int>(id.size()), SQLITE_TRANSIENT);
  Bytes out;
  if (sqlite3_step(s) == SQLITE_ROW) {
    const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(s, 0));
    out.assign(p, p + sqlite3_column_bytes(s, 0));
  }
  sqlite3_finalize(s);
  sqlite3_close(h);
  return out;
}

TEST_F(GuardianTest, DestroyRemovesTheBytesFromTheDatabaseAndWal) {
  const auto db = dir_.path() / kDatabaseFileName;
  const auto wal = dir_.path() / (std::string(kDatabaseFileName) + "-wal");
  // Several shares so the destroyed one shares its page with survivors.
  std::vector<PutItem> items;
  std::vector<Bytes> shares;
  for (int i = 0; i < 4; ++i) {
    shares.push_back(RandomShare(300));
    items.push_back(Item(alice_, RandomId(), shares.back()));
  }
  Put(alice_, items);
  const ShareId victim = items[1].id;
  const Bytes blob = StoredBlob(db, victim);
  ASSERT_GT(blob.size(), 300u);
  const std::string before = ReadFile(db) + ReadFile(wal);
  ASSERT_TRUE(Contains(before, blob)) << "the scan must see the stored bytes before destroy";
  for (const auto& s : shares) EXPECT_FALSE(Contains(before, s)) << "plaintext at rest";

  ASSERT_TRUE(Destroy(alice_, {victim}).items[0].status.ok());
  const std::string after_db = ReadFile(db);
  const std::string after_wal = ReadFile(wal);
  EXPECT_EQ(after_wal.size(), 0u) << "wal_checkpoint(TRUNCATE) empties the -wal file";
  for (const std::string* f : {&after_db, &after_wal}) {
    EXPECT_FALSE(Contains(*f, shares[1]));
    // Not even a 16-byte piece of the at-rest ciphertext is left.
    for (std::size_t off = 0; off + 16 <= blob.size(); off += 16) {
      EXPECT_FALSE(Contains(*f, ByteView(blob).subspan(off, 16))) << "offset " << off;
    }
  }
  EXPECT_TRUE(Contains(after_db, StoredBlob(db, items[0].id)));  // the others are still there

  // The sweeper's deletions are scrubbed the same way.
  const ShareId short_lived = RandomId();
  Put(alice_, {Item(alice_, short_lived, RandomShare(), 5)});
  const Bytes blob2 = StoredBlob(db, short_lived);
  now_ += 6;
  ASSERT_TRUE(guardian_->Sweep(now_).ok());
  const std::string swept = ReadFile(db) + ReadFile(wal);
  EXPECT_FALSE(Contains(swept, ByteView(blob2).subspan(0, 32)));
}

TEST_F(GuardianTest, TheDatabaseAloneOpensNothing) {
  const ShareId id = RandomId();
  const Bytes share = RandomShare();
  Put(alice_, {Item(alice_, id, share)});
  Reopen();  // checkpoints on close
  ScratchDir other;
  std::filesystem::copy_file(dir_.path() / kDatabaseFileName, other.path() / kDatabaseFileName);
  EXPECT_FALSE(Contains(ReadFile(other.path() / kDatabaseFileName), share));
  // Without identity.key a fresh identity is made, whose storage key opens nothing: the store
  // refuses to run on another guardian's database at all.
  auto g = Guardian::OpenDir(other.path());
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), Code::kFailedPrecondition);
}

TEST_F(GuardianTest, ConcurrentOwners) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 8;
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      const OwnerSigner owner = OwnerSigner::GenerateEd25519();
      for (int i = 0; i < kRounds; ++i) {
        const ShareId id = RandomId();
        const Bytes share = RandomShare(64);
        Request put;
        put.route = Route::kPut;
        put.puts.push_back(MakePut(identity(), owner.public_key(), id, share, now_ + 600));
        if (service_->Handle(SignedHttp(owner, identity(), put, now_)).status != 200) ++errors;
        Request ext;
        ext.route = Route::kExtend;
        ext.extends.push_back(ExtendItem{id, now_ + 1200});
        auto r = service_->Handle(SignedHttp(owner, identity(), ext, now_));
        auto resp = DecodeResponse(Route::kExtend, r.body, 1);
        if (!resp.ok() || !resp->items[0].changed) ++errors;
        if (i % 2 == 0) {
          Request d;
          d.route = Route::kDestroy;
          d.ids = {id};
          if (service_->Handle(SignedHttp(owner, identity(), d, now_)).status != 200) ++errors;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(Stats().shares, static_cast<std::uint64_t>(kThreads * kRounds / 2));
}

TEST_F(GuardianTest, HealthAndIdentityRoutes) {
  net::HttpRequest http;
  http.method = "GET";
  http.path = kIdentityPath;
  http.target = http.path;
  auto r = service_->Handle(http);
  ASSERT_EQ(r.status, 200);
  auto id = DecodeIdentityBody(r.body);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->FingerprintHex(), identity().FingerprintHex());
  http.method = "POST";
  EXPECT_EQ(service_->Handle(http).status, 405);
  http.method = "GET";
  http.path = "/v1/get";
  EXPECT_EQ(service_->Handle(http).status, 405);
  http.path = "/v1/nothing";
  EXPECT_EQ(service_->Handle(http).status, 404);
}

// Everything the store holds, as text, read through a second connection: shares, tombstones,
// usage counters, and (with_nonces) the remembered nonces.
std::string DumpState(const std::filesystem::path& db, bool with_nonces) {
  sqlite3* h = nullptr;
  VEIL_CHECK(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  std::string out;
  std::vector<const char*> queries = {
      "SELECT hex(id), hex(owner), kind, expires_at, hex(commitment), hex(sealed), created_at "
      "FROM shares ORDER BY id",
      "SELECT hex(id), hex(owner), hex(commitment), destroyed_at, keep_until FROM destroyed "
      "ORDER BY id",
      "SELECT hex(owner), share_count, byte_count FROM usage ORDER BY owner",
      "SELECT share_count, byte_count FROM usage_total"};
  if (with_nonces) {
    queries.push_back("SELECT hex(owner_hash), hex(nonce), expires_at FROM nonces ORDER BY 1, 2");
  }
  for (const char* q : queries) {
    sqlite3_stmt* st = nullptr;
    VEIL_CHECK(sqlite3_prepare_v2(h, q, -1, &st, nullptr) == SQLITE_OK);
    out += std::string(q) + "\n";
    while (sqlite3_step(st) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const auto* t = sqlite3_column_text(st, c);
        out += t != nullptr ? reinterpret_cast<const char*>(t) : "NULL";
        out += '|';
      }
      out += '\n';
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return out;
}

// What the quota counters should say, recounted from the rows: {shares, bytes}.
std::pair<std::uint64_t, std::uint64_t> RecountUsage(const std::filesystem::path& db) {
  sqlite3* h = nullptr;
  VEIL_CHECK(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  VEIL_CHECK(sqlite3_prepare_v2(h,
                                "SELECT COUNT(*), COALESCE(SUM(length(id) + length(owner) + "
                                "length(commitment) + length(sealed)), 0) FROM shares",
                                -1, &st, nullptr) == SQLITE_OK);
  VEIL_CHECK(sqlite3_step(st) == SQLITE_ROW);
  const auto out = std::make_pair(static_cast<std::uint64_t>(sqlite3_column_int64(st, 0)),
                                  static_cast<std::uint64_t>(sqlite3_column_int64(st, 1)));
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

Status ErrorOf(const net::HttpResponse& r) { return DecodeErrorBody(r.status, r.body); }

bool Says(const net::HttpResponse& r, std::string_view text) {
  return ErrorOf(r).message().find(text) != std::string::npos;
}

// Fresh owner keys cost nothing to make, so the per-owner bucket alone bounds nothing: the
// client address's bucket does.
TEST_F(GuardianTest, FreshOwnersFromOneAddressAreRefusedAfterTheAddressLimit) {
  limits_.address_rate_per_second = 1;
  limits_.address_rate_burst = 5;
  Reopen();
  for (int i = 0; i < 8; ++i) {
    const OwnerSigner fresh = OwnerSigner::GenerateEd25519();
    auto r = SendPut(fresh, {Item(fresh, RandomId(), RandomShare())});
    if (i < 5) {
      EXPECT_EQ(r.status, 200) << i << " " << r.body;
    } else {
      EXPECT_EQ(r.status, 429) << i;
      EXPECT_EQ(ErrorOf(r).code(), Code::kResourceExhausted);
      EXPECT_TRUE(Says(r, "too many requests from this client address: retry later")) << r.body;
    }
  }
  EXPECT_EQ(Stats().shares, 5u);
  EXPECT_EQ(Stats().nonces, 5u);
  // The same address written IPv4-mapped is the same client; another address is another.
  remote_addr_ = "::ffff:192.0.2.1";
  EXPECT_EQ(SendPut(alice_, {Item(alice_, RandomId(), RandomShare())}).status, 429);
  remote_addr_ = "192.0.2.2";
  EXPECT_EQ(SendPut(alice_, {Item(alice_, RandomId(), RandomShare())}).status, 200);
  // IPv6: one /64 is one client, whatever interface ids it uses.
  for (int i = 0; i < 6; ++i) {
    remote_addr_ = "2001:db8:7:1::" + std::to_string(i + 1);
    const OwnerSigner fresh = OwnerSigner::GenerateEd25519();
    EXPECT_EQ(SendPut(fresh, {Item(fresh, RandomId(), RandomShare())}).status, i < 5 ? 200 : 429)
        << i;
  }
  remote_addr_ = "2001:db8:7:2::1";
  EXPECT_EQ(SendPut(alice_, {Item(alice_, RandomId(), RandomShare())}).status, 200);
  // Requests that fail to decode cost their address too: the bucket comes before any parsing.
  remote_addr_ = "192.0.2.3";
  for (int i = 0; i < 5; ++i) {
    Request req;
    req.route = Route::kPut;
    req.puts.push_back(Item(alice_, RandomId(), RandomShare()));
    net::HttpRequest http = SignedHttp(alice_, identity(), req, now_);
    http.remote_addr = remote_addr_;
    http.body += " x";
    EXPECT_EQ(service_->Handle(http).status, 400);
  }
  EXPECT_EQ(SendPut(alice_, {Item(alice_, RandomId(), RandomShare())}).status, 429);
  // Refilled at one request per second.
  rate_now_ = 1.0;
  EXPECT_EQ(SendPut(alice_, {Item(alice_, RandomId(), RandomShare())}).status, 200);
  EXPECT_EQ(Stats().shares, 13u);
}

TEST_F(GuardianTest, AddressItemBudgetCountsItems) {
  limits_.max_items = 10;
  limits_.address_items_per_second = 2;
  limits_.address_items_burst = 10;
  Reopen();
  std::vector<PutItem> batch;
  for (int i = 0; i < 10; ++i) batch.push_back(Item(alice_, RandomId(), RandomShare(16)));
  EXPECT_EQ(SendPut(alice_, batch).status, 200);
  auto r = SendPut(bob_, {Item(bob_, RandomId(), RandomShare(16))});
  EXPECT_EQ(r.status, 429);
  EXPECT_TRUE(Says(r, "too many items from this client address: retry later")) << r.body;
  EXPECT_EQ(Stats().shares, 10u);
  EXPECT_EQ(Stats().nonces, 1u);
  rate_now_ = 1.0;  // two items back
  EXPECT_EQ(SendPut(bob_, {Item(bob_, RandomId(), RandomShare(16))}).status, 200);
  EXPECT_EQ(Stats().shares, 11u);
}

TEST_F(GuardianTest, OwnerShareQuotaRefusesTheWholeBatchAndChangesNothing) {
  limits_.max_shares_per_owner = 3;
  Reopen();
  const auto db = dir_.path() / kDatabaseFileName;
  const ShareId a = RandomId();
  const Bytes sa = RandomShare();
  Put(alice_, {Item(alice_, a, sa), Item(alice_, RandomId(), RandomShare())});
  const std::string before = DumpState(db, /*with_nonces=*/true);
  // Two more would make four: the batch is refused whole, and not even its nonce is spent.
  Request req;
  req.route = Route::kPut;
  req.puts = {Item(alice_, RandomId(), RandomShare()), Item(alice_, RandomId(), RandomShare())};
  const net::HttpRequest http = SignedHttp(alice_, identity(), req, now_);
  auto r = service_->Handle(http);
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(ErrorOf(r).code(), Code::kResourceExhausted);
  EXPECT_TRUE(Says(r, "storage quota of this owner exceeded")) << r.body;
  EXPECT_EQ(DumpState(db, true), before);
  // One fits. At the quota, a repeat of a held share (no growth) still answers ok.
  EXPECT_TRUE(Put(alice_, {Item(alice_, RandomId(), RandomShare())}).items[0].changed);
  Response again = Put(alice_, {Item(alice_, a, sa)});
  EXPECT_TRUE(again.items[0].status.ok());
  EXPECT_FALSE(again.items[0].changed);
  EXPECT_EQ(SendPut(alice_, {Item(alice_, RandomId(), RandomShare())}).status, 429);
  // Another owner has its own quota.
  EXPECT_TRUE(Put(bob_, {Item(bob_, RandomId(), RandomShare())}).items[0].changed);
  // Destroying makes room; so does a lease that ends once the sweeper has removed the share.
  EXPECT_TRUE(Destroy(alice_, {a}).items[0].status.ok());
  const ShareId short_lived = RandomId();
  EXPECT_TRUE(Put(alice_, {Item(alice_, short_lived, RandomShare(), 5)}).items[0].changed);
  EXPECT_EQ(SendPut(alice_, {Item(alice_, RandomId(), RandomShare())}).status, 429);
  now_ += 6;
  ASSERT_TRUE(guardian_->Sweep(now_).ok());
  EXPECT_TRUE(Put(alice_, {Item(alice_, RandomId(), RandomShare())}).items[0].changed);
  EXPECT_EQ(Stats().shares, 4u);  // alice 3, bob 1
}

TEST_F(GuardianTest, OwnerByteQuota) {
  // A 200-byte share of an Ed25519 owner counts id 32 + owner 33 + commitment 32 + at-rest blob
  // (24-byte nonce, the share, 16-byte tag) = 337 bytes.
  constexpr std::uint64_t kRow = 32 + 33 + 32 + 24 + 200 + 16;
  limits_.max_bytes_per_owner = 2 * kRow + 140;
  Reopen();
  Put(alice_,
      {Item(alice_, RandomId(), RandomShare(200)), Item(alice_, RandomId(), RandomShare())});
  EXPECT_EQ(Stats().bytes, 2 * kRow);
  auto r = SendPut(alice_, {Item(alice_, RandomId(), RandomShare(200))});
  EXPECT_EQ(r.status, 429);
  EXPECT_TRUE(Says(r, "storage quota of this owner exceeded")) << r.body;
  // A 1-byte share (138 bytes) still fits: 140 are left.
  EXPECT_TRUE(Put(alice_, {Item(alice_, RandomId(), RandomShare(1))}).items[0].changed);
  EXPECT_EQ(Stats().bytes, 2 * kRow + kRow - 199);
}

TEST_F(GuardianTest, TotalQuotaIsARetryLaterError) {
  limits_.max_shares_total = 3;
  Reopen();
  const auto db = dir_.path() / kDatabaseFileName;
  const ShareId soon = RandomId();
  Put(alice_, {Item(alice_, soon, RandomShare(), 5), Item(alice_, RandomId(), RandomShare())});
  const std::string before = DumpState(db, true);
  auto r =
      SendPut(bob_, {Item(bob_, RandomId(), RandomShare()), Item(bob_, RandomId(), RandomShare())});
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(ErrorOf(r).code(), Code::kResourceExhausted);
  EXPECT_TRUE(Says(r, "guardian storage is full: retry later")) << r.body;
  EXPECT_EQ(DumpState(db, true), before);
  EXPECT_TRUE(Put(bob_, {Item(bob_, RandomId(), RandomShare())}).items[0].changed);
  EXPECT_EQ(SendPut(bob_, {Item(bob_, RandomId(), RandomShare())}).status, 429);
  // A put over an expired share (not swept yet) replaces its row: no growth, so it fits.
  now_ += 6;
  EXPECT_TRUE(Put(bob_, {Item(bob_, soon, RandomShare())}).items[0].changed);
  EXPECT_EQ(Stats().shares, 3u);

  limits_ = GuardianLimits{};
  limits_.max_bytes_total = Stats().bytes + 100;
  Reopen();
  r = SendPut(bob_, {Item(bob_, RandomId(), RandomShare())});
  EXPECT_EQ(r.status, 429);
  EXPECT_TRUE(Says(r, "guardian storage is full: retry later")) << r.body;
}

// The quotas are read inside the transaction but before its first write: a put over a quota is
// refused as such even when that first write (the nonce row) would fail.
TEST_F(GuardianTest, QuotasAreCountedBeforeAnyWrite) {
  limits_.max_shares_per_owner = 1;
  Reopen();
  Put(alice_, {Item(alice_, RandomId(), RandomShare())});
  fail_at_ = 0;
  auto r = SendPut(alice_, {Item(alice_, RandomId(), RandomShare())});
  EXPECT_EQ(r.status, 429) << r.body;
  EXPECT_TRUE(Says(r, "storage quota of this owner exceeded")) << r.body;
  // Within the quota, the same fault is a storage failure.
  EXPECT_EQ(SendPut(bob_, {Item(bob_, RandomId(), RandomShare())}).status, 500);
  fail_at_.reset();
  EXPECT_EQ(Stats().shares, 1u);
  EXPECT_EQ(Stats().nonces, 1u);
}

// The counters the quotas read are moved by triggers: put, put over an expired row of another
// owner, destroy, sweep; and a database whose counters are missing or stale (made before they
// existed) is recounted on open.
TEST_F(GuardianTest, UsageCountersFollowEveryPathAndAreRecountedOnOpen) {
  const auto db = dir_.path() / kDatabaseFileName;
  auto expect_exact = [&](const char* step) {
    const auto [shares, bytes] = RecountUsage(db);
    EXPECT_EQ(Stats().shares, shares) << step;
    EXPECT_EQ(Stats().bytes, bytes) << step;
    EXPECT_GT(bytes, 0u) << step;
  };
  const ShareId a = RandomId(), b = RandomId();
  const OwnerSigner carol = OwnerSigner::GenerateComposite();
  Put(alice_, {Item(alice_, a, RandomShare(10), 5), Item(alice_, b, RandomShare(1000))});
  Put(carol, {Item(carol, RandomId(), RandomShare(500))});
  expect_exact("put");
  now_ += 6;
  EXPECT_TRUE(Put(carol, {Item(carol, a, RandomShare(700))}).items[0].changed);
  expect_exact("put over an expired row");
  EXPECT_TRUE(Destroy(alice_, {b}).items[0].status.ok());
  expect_exact("destroy");
  Put(bob_, {Item(bob_, RandomId(), RandomShare(), 5)});
  now_ += 6;
  ASSERT_TRUE(guardian_->Sweep(now_).ok());
  expect_exact("sweep");
  const std::uint64_t bytes = Stats().bytes;
  service_.reset();
  guardian_.reset();
  {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h,
                           "DELETE FROM meta WHERE name = 'usage'; DELETE FROM usage; "
                           "UPDATE usage_total SET share_count = 999, byte_count = 999;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(h);
  }
  Open();
  EXPECT_EQ(Stats().bytes, bytes);
  expect_exact("recounted");
}

TEST_F(GuardianTest, OwnersNotOnTheAllowListArePermissionDenied) {
  allowed_owners_ = {alice_.public_key()};
  Reopen();
  const ShareId id = RandomId();
  EXPECT_TRUE(Put(alice_, {Item(alice_, id, RandomShare())}).items[0].changed);
  const auto db = dir_.path() / kDatabaseFileName;
  const std::string before = DumpState(db, true);
  auto r = SendPut(bob_, {Item(bob_, RandomId(), RandomShare())});
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(ErrorOf(r).code(), Code::kPermissionDenied);
  EXPECT_TRUE(Says(r, "not allowed on this guardian")) << r.body;
  for (Route route : {Route::kGet, Route::kExtend, Route::kDestroy}) {
    Request req;
    req.route = route;
    if (route == Route::kExtend) {
      req.extends.push_back(ExtendItem{id, now_ + 60});
    } else {
      req.ids = {id};
    }
    if (route == Route::kGet) req.reply_key.assign(crypto::kXWingPublicKeySize, 0);
    EXPECT_EQ(Send(bob_, req).status, 403) << RouteName(route);
  }
  // The signature is checked first: a body naming a listed owner but signed by another key is
  // unauthenticated, and a listed owner learns the same about a stranger's key as anyone.
  Request req;
  req.route = Route::kPut;
  req.puts.push_back(Item(alice_, RandomId(), RandomShare()));
  net::HttpRequest http = SignedHttp(alice_, identity(), req, now_);
  http.headers = {
      {kSignatureHeader, Base64Encode(*bob_.Sign(SignedMessage(Route::kPut, http.body)))}};
  EXPECT_EQ(service_->Handle(http).status, 401);
  EXPECT_EQ(DumpState(db, true), before);
  EXPECT_TRUE(Get(alice_, {id})[0].ok());
}

// A pre-existing directory that others may read, and the usual umask: the database and its -wal
// and -shm files are still 0600, also when an older version left them looser.
TEST(GuardianFiles, DatabaseWalAndShmAre0600WhateverTheDirectoryAndUmask) {
  ScratchDir tmp;
  const auto dir = tmp.path() / "data";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  struct UmaskScope {
    mode_t old = ::umask(022);
    ~UmaskScope() { ::umask(old); }
  } umask_scope;
  const auto db = dir / kDatabaseFileName;
  auto mode_of = [](const std::filesystem::path& p) -> int {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return -1;
    return static_cast<int>(st.st_mode & 07777);
  };
  auto check_open_files = [&](const char* step) {
    auto g = Guardian::OpenDir(dir);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    std::shared_ptr<Guardian> guardian(std::move(*g));
    GuardianService service(guardian);
    const OwnerSigner owner = OwnerSigner::GenerateEd25519();
    Request req;
    req.route = Route::kPut;
    req.puts.push_back(MakePut(guardian->public_identity(), owner.public_key(), RandomId(),
                               RandomShare(), guardian->Now() + 600));
    ASSERT_EQ(
        service.Handle(SignedHttp(owner, guardian->public_identity(), req, guardian->Now())).status,
        200);
    for (const char* suffix : {"", "-wal", "-shm"}) {
      EXPECT_EQ(mode_of(db.string() + suffix), 0600) << step << " " << suffix;
    }
  };
  check_open_files("created");
  ASSERT_EQ(::chmod(db.c_str(), 0644), 0);
  check_open_files("reopened after chmod 0644");
}

TEST_F(GuardianTest, PutOverAnExpiredUnsweptShareScrubsTheOldBytes) {
  const auto db = dir_.path() / kDatabaseFileName;
  const auto wal = dir_.path() / (std::string(kDatabaseFileName) + "-wal");
  const ShareId id = RandomId();
  const Bytes old_share = RandomShare(300);
  // Neighbours, so that the old row shares its page with rows that stay.
  std::vector<PutItem> items = {Item(alice_, id, old_share, 5)};
  for (int i = 0; i < 3; ++i) items.push_back(Item(alice_, RandomId(), RandomShare(300)));
  Put(alice_, items);
  const Bytes old_blob = StoredBlob(db, id);
  ASSERT_GT(old_blob.size(), 300u);
  ASSERT_TRUE(Contains(ReadFile(db) + ReadFile(wal), old_blob));
  now_ += 6;  // expired; the sweeper has not run
  EXPECT_TRUE(Put(bob_, {Item(bob_, id, RandomShare(300))}).items[0].changed);
  const Bytes new_blob = StoredBlob(db, id);
  const std::string after = ReadFile(db) + ReadFile(wal);
  EXPECT_TRUE(Contains(after, new_blob));
  for (std::size_t off = 0; off + 16 <= old_blob.size(); off += 16) {
    EXPECT_FALSE(Contains(after, ByteView(old_blob).subspan(off, 16))) << "offset " << off;
  }
}

// Refused requests leave every table as it was (the nonce too); accepted requests whose items
// are all refused spend their nonce and change nothing else.
TEST_F(GuardianTest, BadInputChangesNothing) {
  limits_.max_items = 4;
  limits_.max_shares_per_owner = 3;
  const OwnerSigner carol = OwnerSigner::GenerateEd25519();
  allowed_owners_ = {alice_.public_key(), bob_.public_key()};
  Reopen();
  const auto db = dir_.path() / kDatabaseFileName;
  const ShareId held = RandomId(), expired = RandomId(), bobs = RandomId(), gone = RandomId();
  Put(alice_, {Item(alice_, held, RandomShare()), Item(alice_, expired, RandomShare(), 5),
               Item(alice_, gone, RandomShare())});
  Put(bob_, {Item(bob_, bobs, RandomShare())});
  Destroy(alice_, {gone});
  now_ += 6;  // `expired` is expired and not swept

  const std::string state = DumpState(db, /*with_nonces=*/true);
  auto refused = [&](const net::HttpResponse& r, int status, const char* what) {
    EXPECT_EQ(r.status, status) << what << ": " << r.body;
    EXPECT_EQ(DumpState(db, true), state) << what;
  };
  auto put = [](std::vector<PutItem> items) {
    Request req;
    req.route = Route::kPut;
    req.puts = std::move(items);
    return req;
  };
  // Request-level refusals, one per check.
  {
    net::HttpRequest http =
        SignedHttp(alice_, identity(), put({Item(alice_, RandomId(), RandomShare())}), now_);
    http.body.insert(http.body.size() - 1, ",\"extra\":1");
    refused(service_->Handle(http), 400, "unknown member");
  }
  {
    std::vector<PutItem> many;
    for (int i = 0; i < 5; ++i) many.push_back(Item(alice_, RandomId(), RandomShare()));
    refused(Send(alice_, put(many)), 429, "too many items");
  }
  refused(service_->Handle(SignedHttp(alice_, GuardianIdentity::Generate().public_identity(),
                                      put({Item(alice_, RandomId(), RandomShare())}), now_)),
          400, "another guardian");
  refused(Send(alice_, put({Item(alice_, RandomId(), RandomShare())}), now_ - 1000), 401,
          "stale timestamp");
  {
    net::HttpRequest http =
        SignedHttp(alice_, identity(), put({Item(alice_, expired, RandomShare())}), now_);
    http.headers = {
        {kSignatureHeader, Base64Encode(*bob_.Sign(SignedMessage(Route::kPut, http.body)))}};
    refused(service_->Handle(http), 401, "signature by another key");
  }
  refused(Send(carol, put({Item(carol, RandomId(), RandomShare())})), 403, "not allowed");
  refused(SendPut(alice_,
                  {Item(alice_, RandomId(), RandomShare()), Item(alice_, expired, RandomShare()),
                   Item(alice_, RandomId(), RandomShare())}),
          429, "over the owner's quota");
  {
    Request ext;
    ext.route = Route::kExtend;
    ext.extends.push_back(ExtendItem{held, now_ + 60});
    net::HttpRequest http = SignedHttp(alice_, identity(), ext, now_);
    const std::string at = "\"expires_at\":" + std::to_string(now_ + 60);
    http.body.replace(http.body.find(at), at.size(), "\"expires_at\":-1");
    http.headers = {
        {kSignatureHeader, Base64Encode(*alice_.Sign(SignedMessage(Route::kExtend, http.body)))}};
    refused(service_->Handle(http), 400, "negative expiry");
  }
  {
    Request d;
    d.route = Route::kDestroy;
    d.ids = {held};
    net::HttpRequest http = SignedHttp(alice_, identity(), d, now_);
    const std::string hex = HexEncode(held);
    std::string upper = hex;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    http.body.replace(http.body.find(hex), hex.size(), upper);
    http.headers = {
        {kSignatureHeader, Base64Encode(*alice_.Sign(SignedMessage(Route::kDestroy, http.body)))}};
    refused(service_->Handle(http), 400, "upper-case hex id");
  }

  // Accepted requests whose every item is refused: only the nonce is new.
  const std::string rows = DumpState(db, /*with_nonces=*/false);
  PutItem tampered = Item(alice_, RandomId(), RandomShare());
  tampered.sealed[40] ^= 1;
  Response r =
      Put(alice_,
          {tampered, Item(alice_, RandomId(), RandomShare(), 0), Item(alice_, bobs, RandomShare()),
           Item(alice_, RandomId(), RandomShare(), limits_.max_lease_seconds + 1)});
  for (const auto& it : r.items) EXPECT_FALSE(it.status.ok());
  Request ext;
  ext.route = Route::kExtend;
  ext.extends = {{bobs, now_ + 60},
                 {RandomId(), now_ + 60},
                 {expired, now_ + 60},
                 {held, now_ + limits_.max_lease_seconds + 1}};
  Response re = Decode(Route::kExtend, Send(alice_, ext), 4);
  for (const auto& it : re.items) EXPECT_FALSE(it.status.ok());
  Response rd = Destroy(alice_, {bobs, RandomId()});
  for (const auto& it : rd.items) EXPECT_FALSE(it.status.ok());
  EXPECT_EQ(DumpState(db, false), rows);
}

}  // namespace
}  // namespace veil::guardian
