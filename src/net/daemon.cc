// The daemon lifecycle (daemon.h).
#include "veil/net/daemon.h"

#include <charconv>
#include <iostream>
#include <nlohmann/json.hpp>

#include "veil/base/file.h"
#include "veil/net/log.h"
#include "veil/net/signals.h"

namespace veil::net {

Result<ListenAddress> ParseListenAddress(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return InvalidArgument("--listen: expected HOST:PORT");
  ListenAddress out;
  std::string_view host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  out.host = std::string(host);
  const std::string_view port = text.substr(colon + 1);
  unsigned long value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    return InvalidArgument("--listen: bad port");
  }
  out.port = static_cast<std::uint16_t>(value);
  return out;
}

Status WritePortFile(const std::filesystem::path& path, std::uint16_t port) {
  if (path.empty()) return Status::Ok();
  Status s = WriteFileAtomically(path, std::to_string(port) + "\n", 0644, ReplacePolicy::kReplace);
  if (!s.ok()) return Unavailable("cannot write the port file: " + s.message());
  return Status::Ok();
}

int PrintError(const Status& s) {
  const nlohmann::json j = {
      {"error", {{"code", std::string(CodeName(s.code()))}, {"message", s.message()}}}};
  std::cerr << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return 1;
}

int WaitForShutdownAndStop(const std::function<Status()>& stop) {
  const int sig = WaitForShutdownSignal();
  log::Info("stopping", {{"signal", sig}});
  const Status s = stop();
  if (!s.ok()) {
    log::Warn("stopped with an error", {{"error", s.ToString()}});
    return 1;
  }
  log::Info("stopped");
  return 0;
}

}  // namespace veil::net
