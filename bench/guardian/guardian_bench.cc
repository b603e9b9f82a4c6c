// Benchmarks of the guardian through its real HTTP surface: an in-process
// GuardianService on a net::HttpServer on 127.0.0.1, called by GuardianClient over loopback, plain
// HTTP or TLS (self-signed certificate, pinned), beside the bare HPKE it is made of, so ratios
// come from one run. `scripts/bench guardian` writes artifacts/bench-guardian.json.
//
// The guardian's store is a SQLite file (WAL, synchronous=FULL) in the scratch directory under
// $TMPDIR (default /tmp; tests/support/scratch_dir.h), removed at exit; every put and destroy
// commits durably, so TMPDIR should be a real disk (a warning says so on tmpfs). The per-owner rate
// limit is lifted for the run (it would otherwise refuse after 100 requests), and info logs (one
// line per destroy) are turned off.
//
// Rows (wall time per call, UseManualTime; p50_us and p99_us are per-call percentiles; items/s
// counts shares):
//   BM_Guardian_HpkeSealOpen33              baseline: HPKE base mode, X-Wing / HKDF-SHA256 /
//                                           AES-256-GCM, Seal of a 33-byte share to a KEM key
//                                           plus Open with its private key (the crypto of one
//                                           share crossing the wire once)
//   BM_Guardian_RoundTrip_Put/{http,tls}    one share: the client seals it to the guardian,
//                                           signs (Ed25519) and sends; the guardian checks,
//                                           opens, re-seals at rest and commits; the answer
//   BM_Guardian_RoundTrip_Get/{http,tls}    one share: the client makes a one-time X-Wing key
//                                           and signs; the guardian opens at rest and seals to
//                                           the reply key; the client opens
//   BM_Guardian_Batch_{Put,Get,Destroy}/N   N = 1, 10, 100 shares in one request, plain HTTP
//                                           (destroy: N signed receipts, the scrub after it)
//   BM_Calibration_Ristretto255ScalarMult   the host's calibration row (calibration.h)
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "calibration.h"
#include "latencies.h"
#include "support/scratch_dir.h"
#include "veil/crypto/hpke.h"
#include "veil/crypto/random.h"
#include "veil/crypto/xwing.h"
#include "veil/guardian/client.h"
#include "veil/guardian/guardian.h"
#include "veil/guardian/service.h"
#include "veil/net/http_server.h"
#include "veil/net/log.h"
#include "veil/net/tls.h"

namespace veil::guardian {
namespace {

using bench::Latencies;

// A guardian on loopback, with its data directory; one per transport, made on first use.
class LocalGuardian {
 public:
  static LocalGuardian& Get(bool tls) {
    static LocalGuardian plain(false);
    static LocalGuardian secure(true);
    return tls ? secure : plain;
  }
  GuardianClient& client() { return *client_; }
  const OwnerSigner& owner() const { return owner_; }

  ~LocalGuardian() {
    client_.reset();
    if (server_) server_->Stop().IgnoreError();
    server_.reset();
    service_.reset();
    guardian_.reset();
  }

 private:
  explicit LocalGuardian(bool tls) {
    // The service logs every destroy; a benchmark's output has no room for that.
    net::log::SetMinLevel(net::log::Level::kWarn);
    // Guardian::OpenDir makes it (mode 0700) and the scratch directory's removal at exit removes
    // it; the scratch directory outlives this object (made during its construction).
    dir_ = testing::ScratchDir::NewFile(tls ? "guardian-tls" : "guardian-http");
    GuardianOptions o;
    // No rate limit or quota may shape the figures: every request comes from 127.0.0.1 and one
    // owner, and long runs hold many shares.
    o.limits.rate_per_second = 0;
    o.limits.address_rate_per_second = 0;
    o.limits.address_items_per_second = 0;
    o.limits.max_shares_per_owner = 0;
    o.limits.max_bytes_per_owner = 0;
    o.limits.max_shares_total = 0;
    o.limits.max_bytes_total = 0;
    auto g = Guardian::OpenDir(dir_, o);
    VEIL_CHECK(g.ok());
    guardian_ = std::shared_ptr<Guardian>(std::move(*g));
    net::HttpServerOptions so;
    so.max_body_bytes = guardian_->limits().max_body_bytes;
    std::string pin;
    if (tls) {
      auto cert = net::GenerateSelfSignedCertificate();
      VEIL_CHECK(cert.ok());
      pin = cert->sha256_fingerprint;
      so.tls = std::move(cert->credentials);
    }
    server_ = std::make_unique<net::HttpServer>(std::move(so));
    service_ = std::make_unique<GuardianService>(guardian_, server_->shared_metrics());
    service_->Register(*server_);
    VEIL_CHECK(server_->Start().ok());
    GuardianClientOptions co;
    co.http.base_url =
        std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(server_->port());
    co.http.pinned_sha256 = pin;
    co.pinned_fingerprint = guardian_->public_identity().FingerprintHex();
    auto c = GuardianClient::Connect(co);
    VEIL_CHECK(c.ok());
    client_ = std::make_unique<GuardianClient>(std::move(*c));
  }

  std::filesystem::path dir_;
  std::shared_ptr<Guardian> guardian_;
  std::unique_ptr<net::HttpServer> server_;
  std::unique_ptr<GuardianService> service_;
  std::unique_ptr<GuardianClient> client_;
  OwnerSigner owner_ = OwnerSigner::GenerateEd25519();
};

crypto::SecretBytes RandomShare() { return crypto::RandomSecret(33); }

ShareId RandomId() {
  ShareId id{};
  crypto::RandomBytes(id);
  return id;
}

// N fresh shares with their put items (expiring in an hour).
struct Shares {
  explicit Shares(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      ids.push_back(RandomId());
      values.push_back(RandomShare());
    }
    for (std::size_t i = 0; i < n; ++i) {
      puts.push_back(
          ShareToPut{ids[i], ShareKind::kRecord, SystemUnixSeconds() + 3600, &values[i]});
    }
  }
  std::vector<ShareId> ids;
  std::vector<crypto::SecretBytes> values;
  std::vector<ShareToPut> puts;
};

bool AllOk(const Result<std::vector<ItemResult>>& r) {
  if (!r.ok()) return false;
  for (const auto& it : *r) {
    if (!it.status.ok()) return false;
  }
  return true;
}

bool AllOk(const Result<std::vector<FetchedShare>>& r) {
  if (!r.ok()) return false;
  for (const auto& it : *r) {
    if (!it.status.ok()) return false;
  }
  return true;
}

void BM_Guardian_HpkeSealOpen33(benchmark::State& state) {
  const auto key = crypto::XWingDecapsulationKey::Generate();
  const auto priv = crypto::SecretBytes::CopyFrom(key.seed().Expose());
  const auto owner = OwnerSigner::GenerateEd25519();
  const ShareId id = RandomId();
  const Bytes aad = ShareAad(id, owner.public_key());
  const auto share = RandomShare();
  crypto::hpke::SetupOptions o;
  o.info = AsBytes(kShareInfo);
  Latencies lat(state);
  for (auto _ : state) {
    const bool ok = lat.Time([&] {
      auto sealed = crypto::hpke::Seal(kShareSuite, key.public_key(), o, aad, share.Expose());
      if (!sealed.ok()) return false;
      auto opened = crypto::hpke::Open(kShareSuite, sealed->enc, priv, o, aad, sealed->ciphertext);
      return opened.ok() && opened->size() == share.size();
    });
    if (!ok) state.SkipWithError("HPKE failed");
  }
  lat.Report();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Guardian_HpkeSealOpen33)->UseManualTime();

void BM_Guardian_RoundTrip_Put(benchmark::State& state, bool tls) {
  auto& g = LocalGuardian::Get(tls);
  Latencies lat(state);
  for (auto _ : state) {
    Shares s(1);
    const bool ok = lat.Time([&] { return AllOk(g.client().Put(g.owner(), s.puts)); });
    if (!ok) state.SkipWithError("put failed");
  }
  lat.Report();
  state.SetItemsProcessed(state.iterations());
}

void BM_Guardian_RoundTrip_Get(benchmark::State& state, bool tls) {
  auto& g = LocalGuardian::Get(tls);
  Shares s(1);
  if (!AllOk(g.client().Put(g.owner(), s.puts))) state.SkipWithError("put failed");
  Latencies lat(state);
  for (auto _ : state) {
    const bool ok = lat.Time([&] { return AllOk(g.client().Get(g.owner(), s.ids)); });
    if (!ok) state.SkipWithError("get failed");
  }
  lat.Report();
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK_CAPTURE(BM_Guardian_RoundTrip_Put, http, false)->UseManualTime();
BENCHMARK_CAPTURE(BM_Guardian_RoundTrip_Put, tls, true)->UseManualTime();
BENCHMARK_CAPTURE(BM_Guardian_RoundTrip_Get, http, false)->UseManualTime();
BENCHMARK_CAPTURE(BM_Guardian_RoundTrip_Get, tls, true)->UseManualTime();

void BM_Guardian_Batch_Put(benchmark::State& state) {
  auto& g = LocalGuardian::Get(false);
  const auto n = static_cast<std::size_t>(state.range(0));
  Latencies lat(state);
  for (auto _ : state) {
    Shares s(n);
    if (!lat.Time([&] { return AllOk(g.client().Put(g.owner(), s.puts)); })) {
      state.SkipWithError("put failed");
    }
  }
  lat.Report();
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Guardian_Batch_Put)->Arg(1)->Arg(10)->Arg(100)->UseManualTime();

void BM_Guardian_Batch_Get(benchmark::State& state) {
  auto& g = LocalGuardian::Get(false);
  const auto n = static_cast<std::size_t>(state.range(0));
  Shares s(n);
  if (!AllOk(g.client().Put(g.owner(), s.puts))) state.SkipWithError("put failed");
  Latencies lat(state);
  for (auto _ : state) {
    if (!lat.Time([&] { return AllOk(g.client().Get(g.owner(), s.ids)); })) {
      state.SkipWithError("get failed");
    }
  }
  lat.Report();
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Guardian_Batch_Get)->Arg(1)->Arg(10)->Arg(100)->UseManualTime();

void BM_Guardian_Batch_Destroy(benchmark::State& state) {
  auto& g = LocalGuardian::Get(false);
  const auto n = static_cast<std::size_t>(state.range(0));
  Latencies lat(state);
  for (auto _ : state) {
    Shares s(n);  // deposited outside the timed call
    if (!AllOk(g.client().Put(g.owner(), s.puts))) state.SkipWithError("put failed");
    if (!lat.Time([&] { return AllOk(g.client().Destroy(g.owner(), s.ids)); })) {
      state.SkipWithError("destroy failed");
    }
  }
  lat.Report();
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Guardian_Batch_Destroy)->Arg(1)->Arg(10)->Arg(100)->UseManualTime();

}  // namespace
}  // namespace veil::guardian
