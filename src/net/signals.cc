// SIGINT/SIGTERM blocking and synchronous waiting (see signals.h).
#include "veil/net/signals.h"

#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <string>

namespace veil::net {
namespace {

sigset_t ShutdownSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

Status BlockShutdownSignals() {
  sigset_t set = ShutdownSet();
  int rc = pthread_sigmask(SIG_BLOCK, &set, nullptr);
  if (rc != 0) return Internal(std::string("pthread_sigmask: ") + std::strerror(rc));
  return Status::Ok();
}

int WaitForShutdownSignal() {
  sigset_t set = ShutdownSet();
  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) == 0) return sig;
  }
}

std::optional<int> WaitForShutdownSignal(std::chrono::milliseconds timeout) {
  sigset_t set = ShutdownSet();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() < 0) left = std::chrono::nanoseconds(0);
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(left.count() / 1000000000);
    ts.tv_nsec = static_cast<long>(left.count() % 1000000000);
    int sig = sigtimedwait(&set, nullptr, &ts);
    if (sig > 0) return sig;
    if (errno == EAGAIN) return std::nullopt;
    // EINTR: another signal interrupted the wait; go on until the deadline.
  }
}

}  // namespace veil::net
