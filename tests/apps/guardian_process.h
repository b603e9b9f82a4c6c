// A `kalypso-guardian` child process on a data directory, started on 127.0.0.1 with port 0, and
// what its "listening" log line says (url, fingerprints): shared by the guardian's end-to-end
// tests and the hostile-client suite.
//
// Thread safety: one thread per object.
#pragma once

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "apps/daemon_process.h"
#include "net/net_test_util.h"
#include "veil/guardian/client.h"
#include "veil/net/http_client.h"

namespace veil::guardian::testing {

inline std::string GuardianBinaryPath() {
  return std::string(VEIL_BUILD_DIR) + "/apps/kalypso-guardian";
}

// A `kalypso-guardian` child process on DIR, and what its "listening" log line says.
class GuardianProcess {
  using Json = nlohmann::json;
  using Clock = std::chrono::steady_clock;

 public:
  explicit GuardianProcess(std::filesystem::path dir) : dir_(std::move(dir)) {}

  bool Start(std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {
        GuardianBinaryPath(), "--data",      dir_.string(),           "--listen",
        "127.0.0.1:0",        "--port-file", (dir_ / "port").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    extra_ = extra;
    if (!process_.Start(argv, dir_ / "port", dir_ / "guardian.log")) return false;
    // The "listening" line is written right after the port file; read the last one, and only
    // once it names this run's port (the log is appended to across restarts, and the port file
    // can appear before this run's line does).
    const std::string port_suffix = ":" + std::to_string(process_.port());
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    while (Clock::now() < deadline) {
      const std::string log = process_.Log();
      const auto at = log.rfind("\"listening\"");
      if (at != std::string::npos) {
        const auto begin = log.rfind('\n', at);
        const auto end = log.find('\n', at);
        if (end != std::string::npos) {
          listening_ = Json::parse(log.substr(begin == std::string::npos ? 0 : begin + 1,
                                              end - (begin == std::string::npos ? 0 : begin + 1)),
                                   nullptr, false);
          const std::string url = listening_.is_object() ? Field("url") : "";
          if (url.size() > port_suffix.size() &&
              url.compare(url.size() - port_suffix.size(), port_suffix.size(), port_suffix) == 0) {
            return true;
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  bool Restart() { return Start(extra_); }
  int Signal(int sig) { return process_.Signal(sig); }

  std::string Field(const char* name) const {
    // net/log.h puts fields at the top level of the line.
    auto it = listening_.find(name);
    return it != listening_.end() && it->is_string() ? it->get<std::string>() : "";
  }
  std::string fingerprint() const { return Field("fingerprint"); }
  std::string tls_sha256() const { return Field("tls_sha256"); }
  std::string url() const { return Field("url"); }
  int port() const { return process_.port(); }
  const veil::testing::DaemonProcess& process() const { return process_; }
  std::string Log() const { return process_.Log(); }
  const std::filesystem::path& dir() const { return dir_; }

  GuardianClientOptions ClientOptions() const {
    GuardianClientOptions o;
    o.http.base_url = url();
    o.http.pinned_sha256 = tls_sha256();
    o.pinned_fingerprint = fingerprint();
    o.initial_backoff = std::chrono::milliseconds(5);
    return o;
  }
  GuardianClient Connect() const {
    auto c = GuardianClient::Connect(ClientOptions());
    VEIL_CHECK_MSG(c.ok(), c.status().ToString().c_str());
    return std::move(*c);
  }
  net::HttpClient Http() const {
    net::HttpClientOptions o;
    o.base_url = url();
    o.pinned_sha256 = tls_sha256();
    auto c = net::HttpClient::Create(o);
    VEIL_CHECK(c.ok());
    return std::move(*c);
  }
  // The value of the Prometheus sample `series` (name plus labels, as printed), or -1.
  double Metric(const std::string& series) const {
    auto r = Http().Get("/metrics");
    if (!r.ok() || r->status != 200) return -1;
    return net::MetricSample(r->body, series);
  }

 private:
  std::filesystem::path dir_;
  std::vector<std::string> extra_;
  veil::testing::DaemonProcess process_;
  Json listening_;
};

}  // namespace veil::guardian::testing
