// The guardian core through its transport-independent HTTP surface (GuardianService::Handle):
// round trips, every request-level refusal (and that it changes nothing), replay protection
// across a restart, leases, the sweeper, batch atomicity and secure deletion.
#include "veil/guardian/guardian.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <optional>
#include <thread>

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
using testing::SignedHttp;
using testing::TempDir;

constexpr std::int64_t kStart = 1700000000;

Bytes RandomShare(std::size_t n = 200) { return crypto::RandomBytes(n); }

class GuardianTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open() {
    GuardianOptions o;
    o.limits = limits_;
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
    return service_->Handle(
        SignedHttp(signer, identity(), std::move(req), timestamp.value_or(now_)));
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

  TempDir dir_;
  GuardianLimits limits_;
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
  TempDir other;
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

// A pre-existing directory that others may read, and the usual umask: the database and its -wal
// and -shm files are still 0600, also when an older version left them looser.
TEST(GuardianFiles, DatabaseWalAndShmAre0600WhateverTheDirectoryAndUmask) {
  TempDir tmp;
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

}  // namespace
}  // namespace veil::guardian
