// Crash safety in the manner of the SIGKILL test, with a forked child instead of the
// binary: the child stores batches of shares and reports each acknowledged batch on a pipe; the
// parent kills it with SIGKILL in the middle of a later batch, reopens the store and checks that
// every acknowledged share is there and readable, and that the interrupted batch is all or nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "guardian/guardian_test_util.h"
#include "veil/crypto/hash.h"

namespace veil::guardian {
namespace {

using testing::MakePut;
using testing::ScratchDir;
using testing::SignedHttp;

constexpr int kBatch = 20;

ShareId IdOf(std::uint32_t batch, std::uint32_t i) {
  const std::uint8_t in[8] = {
      static_cast<std::uint8_t>(batch >> 24), static_cast<std::uint8_t>(batch >> 16),
      static_cast<std::uint8_t>(batch >> 8),  static_cast<std::uint8_t>(batch),
      static_cast<std::uint8_t>(i >> 24),     static_cast<std::uint8_t>(i >> 16),
      static_cast<std::uint8_t>(i >> 8),      static_cast<std::uint8_t>(i)};
  return crypto::Sha256(ByteView(in, sizeof in));
}

Bytes ShareOf(const ShareId& id) {
  const auto d = crypto::Sha512(id);
  return Bytes(d.begin(), d.end());
}

OwnerSigner Owner() {
  crypto::Secret<crypto::kEd25519SeedSize> seed;
  seed.ExposeMutable()[0] = 42;
  return OwnerSigner::FromEd25519(crypto::Ed25519SigningKey::FromSeed(seed));
}

[[noreturn]] void Child(const std::filesystem::path& dir, int fd) {
  auto g = Guardian::OpenDir(dir);
  if (!g.ok()) ::_exit(2);
  GuardianService service(std::shared_ptr<Guardian>(std::move(*g)));
  const OwnerSigner owner = Owner();
  const PublicIdentity& id = service.guardian().public_identity();
  for (std::uint32_t b = 0;; ++b) {
    Request req;
    req.route = Route::kPut;
    for (std::uint32_t i = 0; i < kBatch; ++i) {
      const ShareId sid = IdOf(b, i);
      req.puts.push_back(
          MakePut(id, owner.public_key(), sid, ShareOf(sid), SystemUnixSeconds() + 3600));
    }
    auto r = service.Handle(SignedHttp(owner, id, std::move(req), SystemUnixSeconds()));
    if (r.status != 200) ::_exit(3);
    if (::write(fd, &b, sizeof b) != sizeof b) ::_exit(4);
  }
}

TEST(GuardianCrash, SigkillDuringABatchLosesNoAcknowledgedShare) {
  ScratchDir dir;
  // Create the identity first so that parent and child agree on it.
  ASSERT_TRUE(GuardianIdentity::LoadOrCreate(dir.path()).ok());
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    Child(dir.path(), fds[1]);
  }
  ::close(fds[1]);
  std::uint32_t last = 0;
  int acked = 0;
  while (acked < 3) {
    ASSERT_EQ(::read(fds[0], &last, sizeof last), static_cast<ssize_t>(sizeof last));
    ++acked;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(crypto::RandomUniform(30)));
  ::kill(pid, SIGKILL);
  // Acknowledgements written before the kill still count.
  std::uint32_t b = 0;
  while (::read(fds[0], &b, sizeof b) == static_cast<ssize_t>(sizeof b)) last = b;
  ::close(fds[0]);
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  ASSERT_TRUE(WIFSIGNALED(wstatus)) << "child exited early with " << WEXITSTATUS(wstatus);

  auto g = Guardian::OpenDir(dir.path());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  GuardianService service(std::shared_ptr<Guardian>(std::move(*g)));
  const OwnerSigner owner = Owner();
  const PublicIdentity& id = service.guardian().public_identity();
  auto reply_key = crypto::XWingDecapsulationKey::Generate();
  const auto priv = crypto::SecretBytes::CopyFrom(reply_key.seed().Expose());
  // Every batch up to the acknowledged one, the interrupted one, and one past it.
  for (std::uint32_t batch = 0; batch <= last + 2; ++batch) {
    Request req;
    req.route = Route::kGet;
    for (std::uint32_t i = 0; i < kBatch; ++i) req.ids.push_back(IdOf(batch, i));
    req.reply_key.assign(reply_key.public_key().begin(), reply_key.public_key().end());
    crypto::RandomBytes(req.nonce);
    const Nonce nonce = req.nonce;
    auto http = service.Handle(SignedHttp(owner, id, std::move(req), SystemUnixSeconds()));
    ASSERT_EQ(http.status, 200);
    auto resp = DecodeResponse(Route::kGet, http.body, kBatch);
    ASSERT_TRUE(resp.ok());
    int present = 0;
    for (const auto& it : resp->items) {
      if (!it.status.ok()) {
        EXPECT_EQ(it.status.code(), Code::kNotFound);
        continue;
      }
      ++present;
      crypto::hpke::SetupOptions o;
      o.info = AsBytes(kReplyInfo);
      const ByteView sealed(it.sealed);
      auto share =
          crypto::hpke::Open(kShareSuite, sealed.first(crypto::kXWingCiphertextSize), priv, o,
                             ReplyAad(it.id, nonce), sealed.subspan(crypto::kXWingCiphertextSize));
      ASSERT_TRUE(share.ok());
      const Bytes want = ShareOf(it.id);
      EXPECT_TRUE(
          std::equal(want.begin(), want.end(), share->Expose().begin(), share->Expose().end()))
          << "corrupt share";
    }
    if (batch <= last) {
      EXPECT_EQ(present, kBatch) << "acknowledged batch " << batch << " lost shares";
    } else {
      EXPECT_TRUE(present == 0 || present == kBatch) << "batch " << batch << ": " << present;
    }
  }
}

}  // namespace
}  // namespace veil::guardian
