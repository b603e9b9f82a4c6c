// Shutdown signals for daemons: block SIGINT and SIGTERM, then wait for one synchronously.
//
// A daemon's main calls BlockShutdownSignals() first, before it starts any thread, so every
// thread inherits the mask and no handler ever runs asynchronously; it then starts its servers
// and calls WaitForShutdownSignal(), which returns the signal number once SIGINT or SIGTERM
// arrives, and stops the servers gracefully:
//
//   int main() {
//     veil::net::BlockShutdownSignals();
//     veil::net::HttpServer server(options);
//     ... server.Start() ...
//     int sig = veil::net::WaitForShutdownSignal();
//     server.Stop();
//   }
//
// Thread safety: BlockShutdownSignals changes the calling thread's mask only (hence "first, on
// the main thread"). WaitForShutdownSignal may be called from any thread that has the signals
// blocked; with several waiters, each signal wakes one of them.
#pragma once

#include <chrono>
#include <optional>

#include "veil/base/status.h"

namespace veil::net {

// Blocks SIGINT and SIGTERM in the calling thread.
Status BlockShutdownSignals();

// Waits until SIGINT or SIGTERM is pending for this thread or process and consumes it; returns
// the signal number. With a timeout, returns nullopt when none arrived in time.
int WaitForShutdownSignal();
std::optional<int> WaitForShutdownSignal(std::chrono::milliseconds timeout);

}  // namespace veil::net
