// Sweeper: a background thread that calls Guardian::Sweep every `interval` (by default every 10 s,
// configurable), so expired shares are deleted even when nobody asks for them.
//
// The thread wakes on the interval or on Stop; a failed sweep is logged (net/log.h) and retried
// at the next tick. With a metrics registry it counts veil_guardian_sweeps_total,
// veil_guardian_swept_shares_total and veil_guardian_sweep_failures_total (all present from
// Start on, at zero) and sets the gauge veil_guardian_shares to the number of shares held, at
// Start and after each sweep. Stop waits for a sweep in progress to finish; the destructor stops.
//
// Thread safety: Start and Stop may be called from any thread; the Guardian must outlive the
// sweeper's run.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "veil/guardian/guardian.h"
#include "veil/net/metrics.h"

namespace veil::guardian {

class Sweeper {
 public:
  explicit Sweeper(std::shared_ptr<Guardian> guardian,
                   std::chrono::milliseconds interval = std::chrono::seconds(10),
                   std::shared_ptr<net::MetricsRegistry> metrics = nullptr);
  ~Sweeper();
  Sweeper(const Sweeper&) = delete;
  Sweeper& operator=(const Sweeper&) = delete;

  // Starts the thread; a second Start while running is a no-op.
  void Start();
  // Stops and joins; idempotent.
  void Stop();
  // Sweeps run so far (successful or not), for tests and metrics.
  std::uint64_t runs() const;

 private:
  void Run();
  // Updates the metrics (when there is a registry) after a sweep, or at Start (ran = false).
  void Publish(std::size_t swept, bool ran, bool failed);
  std::shared_ptr<Guardian> guardian_;
  std::chrono::milliseconds interval_;
  std::shared_ptr<net::MetricsRegistry> metrics_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::uint64_t runs_ = 0;
  std::thread thread_;
};

}  // namespace veil::guardian
