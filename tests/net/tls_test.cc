// TLS: self-signed certificates, a TLS server, and clients pinning its leaf certificate.
#include "veil/net/tls.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "net/net_test_util.h"
#include "support/scratch_dir.h"
#include "veil/net/http_client.h"
#include "veil/net/http_server.h"
#include "veil/net/json_rpc.h"

namespace veil::net {
namespace {

using nlohmann::json;

std::string PemKey(const TlsCredentials& c) {
  return std::string(reinterpret_cast<const char*>(c.key_pem.Expose().data()), c.key_pem.size());
}

TEST(Tls, SelfSignedCertificate) {
  auto cert = GenerateSelfSignedCertificate();
  ASSERT_TRUE(cert.ok()) << cert.status().ToString();
  EXPECT_EQ(cert->credentials.cert_pem.rfind("-----BEGIN CERTIFICATE-----", 0), 0u);
  EXPECT_NE(PemKey(cert->credentials).find("PRIVATE KEY"), std::string::npos);
  EXPECT_EQ(cert->sha256_fingerprint.size(), 64u);
  EXPECT_EQ(*CertificateSha256Fingerprint(cert->credentials.cert_pem), cert->sha256_fingerprint);
  EXPECT_TRUE(ValidateTlsCredentials(cert->credentials).ok());
  // A key from another certificate does not match.
  auto other = GenerateSelfSignedCertificate();
  TlsCredentials mixed{cert->credentials.cert_pem, other->credentials.key_pem.Clone()};
  EXPECT_EQ(ValidateTlsCredentials(mixed).code(), Code::kInvalidArgument);
  EXPECT_NE(other->sha256_fingerprint, cert->sha256_fingerprint);
}

TEST(Tls, LoadFromFiles) {
  auto cert = GenerateSelfSignedCertificate();
  ASSERT_TRUE(cert.ok());
  const veil::testing::ScratchDir scratch("veil-tls");
  const std::string dir = scratch.path().string();
  const std::string cert_path = dir + "/veil_net_cert.pem", key_path = dir + "/veil_net_key.pem";
  std::ofstream(cert_path) << cert->credentials.cert_pem;
  std::ofstream(key_path) << PemKey(cert->credentials);
  auto loaded = LoadTlsCredentials(cert_path, key_path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->cert_pem, cert->credentials.cert_pem);
  EXPECT_EQ(LoadTlsCredentials(dir + "/absent.pem", key_path).status().code(), Code::kNotFound);
  std::ofstream(key_path) << "not a key";
  auto bad = LoadTlsCredentials(cert_path, key_path);
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(bad.status().message().find("not a key"), std::string::npos);
}

TEST(Tls, Fingerprints) {
  std::string hex(64, 'a');
  EXPECT_EQ(*NormalizeFingerprint(hex), hex);
  std::string colons, expected;
  for (int i = 0; i < 32; ++i) {
    colons += std::string(i ? ":" : "") + "AB";
    expected += "ab";
  }
  EXPECT_EQ(*NormalizeFingerprint(colons), expected);
  EXPECT_FALSE(NormalizeFingerprint("abc").ok());
  EXPECT_FALSE(NormalizeFingerprint(std::string(64, 'g')).ok());
}

class TlsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cert = GenerateSelfSignedCertificate();
    ASSERT_TRUE(cert.ok());
    fingerprint_ = cert->sha256_fingerprint;
    ASSERT_TRUE(dispatcher_
                    .Register("add",
                              [](const json& p) -> Result<json> {
                                return json(p[0].get<int>() + p[1].get<int>());
                              })
                    .ok());
    HttpServerOptions o;
    o.tls = std::move(cert->credentials);
    server_ = std::make_unique<HttpServer>(std::move(o));
    dispatcher_.Mount(*server_);
    ASSERT_TRUE(server_->Start().ok());
    url_ = "https://127.0.0.1:" + std::to_string(server_->port());
  }

  JsonRpcDispatcher dispatcher_;
  std::unique_ptr<HttpServer> server_;
  std::string fingerprint_;
  std::string url_;
};

TEST_F(TlsServerTest, PinnedClientRoundTrip) {
  EXPECT_TRUE(server_->tls());
  auto client = JsonRpcClient::Create(
      Opts(url_, [&](HttpClientOptions& o) { o.pinned_sha256 = fingerprint_; }));
  ASSERT_TRUE(client.ok());
  for (int i = 0; i < 5; ++i) {
    auto r = client->Call("add", json::array({i, 1}));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(*r, i + 1);
  }
  auto health = client->http().Get("/health");
  ASSERT_TRUE(health.ok());
  EXPECT_EQ(health->status, 200);
}

TEST_F(TlsServerTest, WrongPinIsRefused) {
  std::string wrong = fingerprint_;
  wrong[0] = wrong[0] == '0' ? '1' : '0';
  auto client =
      JsonRpcClient::Create(Opts(url_, [&](HttpClientOptions& o) { o.pinned_sha256 = wrong; }));
  ASSERT_TRUE(client.ok());
  auto r = client->Call("add", json::array({1, 1}), Idempotency::kIdempotent);
  EXPECT_EQ(r.status().code(), Code::kUnauthenticated) << r.status().ToString();
  EXPECT_EQ(HttpClient::LastAttempts(), 1);  // a pin mismatch is not retried
}

TEST_F(TlsServerTest, UnpinnedClientRejectsSelfSignedCertificate) {
  auto client =
      JsonRpcClient::Create(Opts(url_, [](HttpClientOptions& o) { o.retry.max_attempts = 1; }));
  ASSERT_TRUE(client.ok());
  EXPECT_FALSE(client->Call("add", json::array({1, 1})).ok());
}

TEST_F(TlsServerTest, PlainHttpToTlsServerFails) {
  auto client = JsonRpcClient::Create(
      Opts("http://127.0.0.1:" + std::to_string(server_->port()), [](HttpClientOptions& o) {
        o.read_timeout = std::chrono::milliseconds(500);
        o.retry.max_attempts = 1;
      }));
  EXPECT_FALSE(client->Call("add", json::array({1, 1})).ok());
}

TEST(TlsClient, PinNeedsHttps) {
  EXPECT_EQ(
      HttpClient::Create(Opts("http://127.0.0.1:1",
                              [](HttpClientOptions& o) { o.pinned_sha256 = std::string(64, 'a'); }))
          .status()
          .code(),
      Code::kInvalidArgument);
  EXPECT_EQ(HttpClient::Create(
                Opts("https://127.0.0.1:1", [](HttpClientOptions& o) { o.pinned_sha256 = "zz"; }))
                .status()
                .code(),
            Code::kInvalidArgument);
  EXPECT_EQ(HttpClient::Create(Opts("ftp://x")).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(HttpClient::Create(Opts("http://h:99999")).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(HttpClient::Create(Opts("http://h/path")).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(HttpClient::Create(Opts("http://[::1]:8080")).ok());
}

TEST(TlsServer, BadCredentialsFailStart) {
  auto a = GenerateSelfSignedCertificate();
  auto b = GenerateSelfSignedCertificate();
  HttpServerOptions o;
  o.tls = TlsCredentials{a->credentials.cert_pem, b->credentials.key_pem.Clone()};
  HttpServer s(std::move(o));
  EXPECT_EQ(s.Start().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace veil::net
