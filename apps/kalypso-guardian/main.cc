// kalypso-guardian: the key-share custody daemon (docs/notes/kalypso-guardian.md, the
// protocol in docs/notes/guardian.md).
//
//   kalypso-guardian --data DIR --listen 127.0.0.1:PORT
//                    [--tls-cert FILE --tls-key FILE | --tls-self-signed]
//                    [--sweep-interval SECONDS] [--max-body-bytes N] [--max-items N]
//                    [--rate PER_SECOND --burst N]
//                    [--address-rate PER_SECOND --address-burst N]
//                    [--address-item-rate PER_SECOND --address-item-burst N] [--ipv6-prefix BITS]
//                    [--rate-table-keys N]
//                    [--max-shares-per-owner N] [--max-bytes-per-owner N]
//                    [--max-shares N] [--max-bytes N]
//                    [--allow-owners FILE] [--allow-owner ALG:BASE64]...
//                    [--threads N] [--max-connections N] [--max-connections-per-client N]
//                    [--port-file FILE]
//   kalypso-guardian identity --data DIR
//
// Every limit and its default is in guardian::GuardianLimits (docs/notes/kalypso-guardian.md says
// what each protects); a rate or quota of 0 turns that limit off. --allow-owners and
// --allow-owner together make the allow list of owner keys (empty: any owner may deposit).
//
// The daemon opens (or creates) DIR/identity.key and DIR/guardian.db, serves the guardian routes,
// /health and /metrics, runs the sweeper, and logs JSON lines on stderr; the "listening" line
// holds the URL, the bound port, the guardian fingerprint and (with TLS) the certificate's
// SHA-256, the two values a client pins. Logs never contain a share, key, token or signature.
// SIGINT or SIGTERM stops it gracefully (server, then sweeper, then the store) and it exits 0.
// `identity` prints {"fingerprint":HEX,"data":DIR} on stdout (creating the identity if absent).
//
// Errors go to stderr as {"error":{"code":NAME,"message":TEXT}} with exit 1; usage errors exit 2.
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "veil/base/file.h"
#include "veil/guardian/guardian.h"
#include "veil/guardian/identity.h"
#include "veil/guardian/owner.h"
#include "veil/guardian/service.h"
#include "veil/guardian/sweeper.h"
#include "veil/net/daemon.h"
#include "veil/net/http_server.h"
#include "veil/net/log.h"
#include "veil/net/signals.h"
#include "veil/net/tls.h"

namespace {

using veil::Result;
using veil::Status;
using Json = nlohmann::json;
namespace fs = std::filesystem;
namespace guardian = veil::guardian;
namespace net = veil::net;
namespace vlog = veil::net::log;

constexpr char kSelfSignedCert[] = "tls.crt";
constexpr char kSelfSignedKey[] = "tls.key";
constexpr int kSelfSignedValidDays = 825;

using net::PrintError;

struct ServeArgs {
  std::string data;
  std::string listen = "127.0.0.1:7300";
  std::string tls_cert;
  std::string tls_key;
  bool tls_self_signed = false;
  double sweep_interval_seconds = 10;
  std::size_t max_body_bytes = guardian::GuardianLimits{}.max_body_bytes;
  std::size_t max_items = guardian::GuardianLimits{}.max_items;
  double rate = guardian::GuardianLimits{}.rate_per_second;
  double burst = guardian::GuardianLimits{}.rate_burst;
  double address_rate = guardian::GuardianLimits{}.address_rate_per_second;
  double address_burst = guardian::GuardianLimits{}.address_rate_burst;
  double address_item_rate = guardian::GuardianLimits{}.address_items_per_second;
  double address_item_burst = guardian::GuardianLimits{}.address_items_burst;
  int ipv6_prefix = guardian::GuardianLimits{}.address_ipv6_prefix_bits;
  std::size_t rate_table_keys = guardian::GuardianLimits{}.rate_table_max_keys;
  std::uint64_t max_shares_per_owner = guardian::GuardianLimits{}.max_shares_per_owner;
  std::uint64_t max_bytes_per_owner = guardian::GuardianLimits{}.max_bytes_per_owner;
  std::uint64_t max_shares = guardian::GuardianLimits{}.max_shares_total;
  std::uint64_t max_bytes = guardian::GuardianLimits{}.max_bytes_total;
  std::string allow_owners_file;
  std::vector<std::string> allow_owners;
  std::size_t threads = 8;
  std::size_t max_connections = 1024;
  std::size_t max_connections_per_client = 64;
  std::string port_file;
};

// --tls-self-signed: DIR/tls.crt and DIR/tls.key (0600), generated once and reused, so the pin a
// client took stays valid across restarts.
Result<net::TlsCredentials> SelfSignedCredentials(const fs::path& dir, const std::string& host) {
  const fs::path cert = dir / kSelfSignedCert;
  const fs::path key = dir / kSelfSignedKey;
  std::error_code ec;
  if (fs::exists(cert, ec) && fs::exists(key, ec)) {
    struct stat st {};
    if (::stat(key.c_str(), &st) != 0 || (st.st_mode & 077) != 0) {
      return veil::FailedPrecondition(key.string() + " must not be readable by group or others");
    }
    return net::LoadTlsCredentials(cert.string(), key.string());
  }
  VEIL_ASSIGN_OR_RETURN(
      auto generated,
      net::GenerateSelfSignedCertificate(
          "kalypso-guardian", {"localhost", "127.0.0.1", "::1", host}, kSelfSignedValidDays));
  // The key first: a certificate without its key is never left behind as a reusable pair.
  VEIL_RETURN_IF_ERROR(veil::WriteFileAtomically(key, generated.credentials.key_pem.Expose(), 0600,
                                                 veil::ReplacePolicy::kReplace));
  VEIL_RETURN_IF_ERROR(veil::WriteFileAtomically(cert, generated.credentials.cert_pem, 0644,
                                                 veil::ReplacePolicy::kReplace));
  return std::move(generated.credentials);
}

// The allow list: the keys of --allow-owners FILE, then each --allow-owner.
Result<std::vector<guardian::OwnerKey>> AllowedOwners(const ServeArgs& a) {
  std::vector<guardian::OwnerKey> keys;
  if (!a.allow_owners_file.empty()) {
    std::ifstream in(a.allow_owners_file, std::ios::binary);
    std::string text;
    if (in) text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in || in.bad()) {
      return veil::Unavailable("cannot read --allow-owners " + a.allow_owners_file);
    }
    auto listed = guardian::ParseOwnerKeyList(text);
    if (!listed.ok()) {
      return veil::InvalidArgument("--allow-owners " + a.allow_owners_file + ": " +
                                   listed.status().message());
    }
    // An empty list would mean "any owner": never the reading of a file meant to restrict.
    if (listed->empty()) {
      return veil::InvalidArgument("--allow-owners " + a.allow_owners_file +
                                   " lists no owner key (leave the flag out to allow any owner)");
    }
    keys = std::move(*listed);
  }
  for (const std::string& text : a.allow_owners) {
    auto key = guardian::ParseOwnerKeyText(text);
    if (!key.ok()) return veil::InvalidArgument("--allow-owner: " + key.status().message());
    keys.push_back(std::move(*key));
  }
  return keys;
}

int Identity(const std::string& data) {
  if (data.empty()) return PrintError(veil::InvalidArgument("--data is required"));
  auto id = guardian::GuardianIdentity::LoadOrCreate(data);
  if (!id.ok()) return PrintError(id.status());
  std::cout << Json{{"fingerprint", id->public_identity().FingerprintHex()}, {"data", data}}.dump()
            << "\n";
  return 0;
}

int Serve(const ServeArgs& a) {
  // First, before any thread: every later thread inherits the blocked signals.
  if (Status s = net::BlockShutdownSignals(); !s.ok()) return PrintError(s);
  if (a.data.empty()) return PrintError(veil::InvalidArgument("--data is required"));
  if (!a.tls_cert.empty() != !a.tls_key.empty()) {
    return PrintError(veil::InvalidArgument("--tls-cert and --tls-key go together"));
  }
  if (a.tls_self_signed && !a.tls_cert.empty()) {
    return PrintError(
        veil::InvalidArgument("give --tls-cert/--tls-key or --tls-self-signed, not both"));
  }
  if (!(a.sweep_interval_seconds > 0) || !std::isfinite(a.sweep_interval_seconds)) {
    return PrintError(
        veil::InvalidArgument("--sweep-interval must be a positive number of seconds"));
  }
  if (!(a.rate > 0) || !(a.burst >= 1) || !std::isfinite(a.rate) || !std::isfinite(a.burst)) {
    return PrintError(veil::InvalidArgument("--rate must be positive and --burst at least 1"));
  }
  if (a.max_body_bytes < 1024 || a.max_items == 0 || a.threads == 0) {
    return PrintError(veil::InvalidArgument(
        "--max-body-bytes must be at least 1024, --max-items and --threads positive"));
  }
  if (!(a.address_rate >= 0) || !std::isfinite(a.address_rate) || !(a.address_burst >= 1) ||
      !std::isfinite(a.address_burst)) {
    return PrintError(veil::InvalidArgument(
        "--address-rate must be at least 0 (0: off) and --address-burst at least 1"));
  }
  // A burst below --max-items would refuse every full batch forever.
  if (!(a.address_item_rate >= 0) || !std::isfinite(a.address_item_rate) ||
      (a.address_item_rate > 0 && !(a.address_item_burst >= static_cast<double>(a.max_items))) ||
      !std::isfinite(a.address_item_burst)) {
    return PrintError(veil::InvalidArgument(
        "--address-item-rate must be at least 0 (0: off) and --address-item-burst at least "
        "--max-items"));
  }
  if (a.ipv6_prefix < 0 || a.ipv6_prefix > 128 || a.rate_table_keys == 0) {
    return PrintError(
        veil::InvalidArgument("--ipv6-prefix must be 0 to 128 and --rate-table-keys positive"));
  }
  auto allowed = AllowedOwners(a);
  if (!allowed.ok()) return PrintError(allowed.status());

  auto listen = net::ParseListenAddress(a.listen);
  if (!listen.ok()) return PrintError(listen.status());
  net::HttpServerOptions so;
  so.host = listen->host;
  so.port = listen->port;
  so.worker_threads = a.threads;
  so.max_connections = a.max_connections;
  so.max_connections_per_client = a.max_connections_per_client;
  so.max_body_bytes = a.max_body_bytes;

  guardian::GuardianOptions go;
  go.limits.max_body_bytes = a.max_body_bytes;
  go.limits.max_items = a.max_items;
  go.limits.rate_per_second = a.rate;
  go.limits.rate_burst = a.burst;
  go.limits.address_rate_per_second = a.address_rate;
  go.limits.address_rate_burst = a.address_burst;
  go.limits.address_items_per_second = a.address_item_rate;
  go.limits.address_items_burst = a.address_item_burst;
  go.limits.address_ipv6_prefix_bits = a.ipv6_prefix;
  go.limits.rate_table_max_keys = a.rate_table_keys;
  go.limits.max_shares_per_owner = a.max_shares_per_owner;
  go.limits.max_bytes_per_owner = a.max_bytes_per_owner;
  go.limits.max_shares_total = a.max_shares;
  go.limits.max_bytes_total = a.max_bytes;
  const std::size_t allowed_count = allowed->size();
  go.allowed_owners = std::move(*allowed);
  auto opened = guardian::Guardian::OpenDir(a.data, std::move(go));
  if (!opened.ok()) return PrintError(opened.status());
  std::shared_ptr<guardian::Guardian> g(std::move(*opened));

  std::string tls_sha256;
  if (a.tls_self_signed || !a.tls_cert.empty()) {
    auto creds = a.tls_self_signed ? SelfSignedCredentials(a.data, so.host)
                                   : net::LoadTlsCredentials(a.tls_cert, a.tls_key);
    if (!creds.ok()) return PrintError(creds.status());
    auto fp = net::CertificateSha256Fingerprint(creds->cert_pem);
    if (!fp.ok()) return PrintError(fp.status());
    tls_sha256 = *fp;
    so.tls = std::move(*creds);
  }

  auto server = std::make_unique<net::HttpServer>(std::move(so));
  guardian::GuardianService service(g, server->shared_metrics());
  service.Register(*server);
  const auto interval = std::chrono::milliseconds(
      static_cast<std::int64_t>(std::llround(a.sweep_interval_seconds * 1000)));
  guardian::Sweeper sweeper(g, std::max(interval, std::chrono::milliseconds(1)),
                            server->shared_metrics());
  if (Status s = server->Start(); !s.ok()) return PrintError(s);
  sweeper.Start();

  const std::uint16_t port = server->port();
  std::string host_for_url = a.listen.substr(0, a.listen.rfind(':'));
  const std::string url = std::string(tls_sha256.empty() ? "http" : "https") + "://" +
                          host_for_url + ":" + std::to_string(port);
  if (Status s = net::WritePortFile(a.port_file, port); !s.ok()) {
    sweeper.Stop();
    server->Stop().IgnoreError();
    return PrintError(s);
  }
  auto stats = g->Stats();
  vlog::Info("listening", {{"url", url},
                           {"port", port},
                           {"fingerprint", g->public_identity().FingerprintHex()},
                           {"tls_sha256", tls_sha256},
                           {"shares", stats.ok() ? stats->shares : 0},
                           {"sweep_interval_ms", static_cast<std::int64_t>(interval.count())},
                           {"max_body_bytes", a.max_body_bytes},
                           {"allowed_owners", allowed_count}});

  return net::WaitForShutdownAndStop([&] {
    Status s = server->Stop();
    sweeper.Stop();
    server.reset();
    g.reset();  // the last reference: closes the store
    return s;
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kalypso-guardian: the key-share custody service"};
  app.require_subcommand(0, 1);

  ServeArgs serve;
  app.add_option("--data", serve.data, "data directory (identity.key, guardian.db)");
  app.add_option("--listen", serve.listen, "HOST:PORT (port 0: any free port)");
  app.add_option("--tls-cert", serve.tls_cert, "TLS certificate chain (PEM)");
  app.add_option("--tls-key", serve.tls_key, "TLS private key (PEM)");
  app.add_flag("--tls-self-signed", serve.tls_self_signed,
               "TLS with a self-signed certificate kept in DIR (made once, then reused)");
  app.add_option("--sweep-interval", serve.sweep_interval_seconds,
                 "seconds between sweeps of expired shares");
  app.add_option("--max-body-bytes", serve.max_body_bytes, "largest request body in bytes");
  app.add_option("--max-items", serve.max_items, "most items in one request");
  app.add_option("--rate", serve.rate, "requests per second per owner");
  app.add_option("--burst", serve.burst, "burst of requests per owner");
  app.add_option("--address-rate", serve.address_rate,
                 "requests per second per client address (IPv6: per prefix; 0: off)");
  app.add_option("--address-burst", serve.address_burst, "burst of requests per client address");
  app.add_option("--address-item-rate", serve.address_item_rate,
                 "request items per second per client address (0: off)");
  app.add_option("--address-item-burst", serve.address_item_burst,
                 "burst of items per client address (at least --max-items)");
  app.add_option("--ipv6-prefix", serve.ipv6_prefix,
                 "IPv6 clients are limited per prefix of this many bits");
  app.add_option("--rate-table-keys", serve.rate_table_keys,
                 "owners and addresses each rate table remembers (least recently used go)");
  app.add_option("--max-shares-per-owner", serve.max_shares_per_owner,
                 "shares one owner may hold (0: no limit)");
  app.add_option("--max-bytes-per-owner", serve.max_bytes_per_owner,
                 "bytes one owner's shares may take (0: no limit)");
  app.add_option("--max-shares", serve.max_shares,
                 "shares the guardian holds at most (0: no limit)");
  app.add_option("--max-bytes", serve.max_bytes, "bytes all shares may take at most (0: no limit)");
  app.add_option("--allow-owners", serve.allow_owners_file,
                 "file of owner keys allowed to use the guardian, one ALG:BASE64 per line");
  app.add_option("--allow-owner", serve.allow_owners,
                 "an owner key allowed to use the guardian (ALG:BASE64; repeatable)");
  app.add_option("--threads", serve.threads, "HTTP worker threads");
  app.add_option("--max-connections", serve.max_connections,
                 "HTTP connections in all (the longest idle one makes room)");
  app.add_option("--max-connections-per-client", serve.max_connections_per_client,
                 "HTTP connections from one client address (IPv6: one /64)");
  app.add_option("--port-file", serve.port_file, "write the bound port to FILE");

  std::string identity_data;
  auto* identity_cmd =
      app.add_subcommand("identity", "print the guardian fingerprint (creating the identity)");
  identity_cmd->add_option("--data", identity_data, "data directory");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (identity_cmd->parsed()) return Identity(identity_data.empty() ? serve.data : identity_data);
  return Serve(serve);
}
