// The lifecycle every daemon shares (veil-ledger serve, kalypso-guardian, the daemons to come),
// around signals.h:
//
//   int Serve(const Args& a) {
//     // First, before any thread: every later thread inherits the blocked signals.
//     if (Status s = net::BlockShutdownSignals(); !s.ok()) return net::PrintError(s);
//     auto listen = net::ParseListenAddress(a.listen);
//     if (!listen.ok()) return net::PrintError(listen.status());
//     ... start the server on listen->host, listen->port ...
//     if (Status s = net::WritePortFile(a.port_file, server.port()); !s.ok()) {
//       server.Stop().IgnoreError();
//       return net::PrintError(s);
//     }
//     net::log::Info("listening", {...});
//     return net::WaitForShutdownAndStop([&] { return server.Stop(); });
//   }
//
// A daemon stops gracefully on SIGINT or SIGTERM: it logs "stopping" with the signal, runs its
// stop (finish in-flight requests, stop timers, close stores), logs "stopped" (or "stopped with
// an error") and exits 0 (1 when the stop failed). Errors before that go to stderr as one JSON
// line, {"error":{"code":NAME,"message":TEXT}}, with exit code 1.
//
// Thread safety: call these from the daemon's main thread (see signals.h for the mask).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "veil/base/result.h"

namespace veil::net {

struct ListenAddress {
  std::string host;        // an IPv6 address without its brackets
  std::uint16_t port = 0;  // 0: any free port
};

// "HOST:PORT" or "[IPV6]:PORT", the port a decimal number up to 65535; kInvalidArgument
// ("--listen: ...") otherwise.
Result<ListenAddress> ParseListenAddress(std::string_view text);

// Writes "PORT\n" to `path` (mode 0644), atomically replacing an earlier file, so a reader
// waiting for it never sees a partial one (base/file.h). An empty path writes nothing.
// kUnavailable when the write fails.
Status WritePortFile(const std::filesystem::path& path, std::uint16_t port);

// Writes `s` to stderr as {"error":{"code":NAME,"message":TEXT}}; returns 1, the exit code.
int PrintError(const Status& s);

// Waits for SIGINT or SIGTERM (blocked by BlockShutdownSignals), then stops as described above;
// returns the exit code.
int WaitForShutdownAndStop(const std::function<Status()>& stop);

}  // namespace veil::net
