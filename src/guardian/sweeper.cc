// The background sweeper (sweeper.h).
#include "veil/guardian/sweeper.h"

#include <utility>

#include "veil/net/log.h"

namespace veil::guardian {

Sweeper::Sweeper(std::shared_ptr<Guardian> guardian, std::chrono::milliseconds interval,
                 std::shared_ptr<net::MetricsRegistry> metrics)
    : guardian_(std::move(guardian)), interval_(interval), metrics_(std::move(metrics)) {}

Sweeper::~Sweeper() { Stop(); }

void Sweeper::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  Publish(0, /*ran=*/false, /*failed=*/false);
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void Sweeper::Stop() {
  std::thread t;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    t = std::move(thread_);
  }
  cv_.notify_all();
  if (t.joinable()) t.join();
}

std::uint64_t Sweeper::runs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return runs_;
}

void Sweeper::Publish(std::size_t swept, bool ran, bool failed) {
  if (!metrics_) return;
  // Every series exists from Start on (at zero), so a scrape shows them before the first sweep.
  auto& sweeps = metrics_->GetCounter("veil_guardian_sweeps_total", "Guardian sweeps run.");
  auto& failures =
      metrics_->GetCounter("veil_guardian_sweep_failures_total", "Failed guardian sweeps.");
  auto& deleted = metrics_->GetCounter("veil_guardian_swept_shares_total",
                                       "Expired shares deleted by the guardian sweeper.");
  if (ran) sweeps.Inc();
  if (failed) failures.Inc();
  if (swept > 0) deleted.Inc(static_cast<double>(swept));
  if (auto stats = guardian_->Stats(); stats.ok()) {
    metrics_
        ->GetGauge("veil_guardian_shares",
                   "Shares held, refreshed at start and after each sweep (expired ones are gone "
                   "after the sweep).")
        .Set(static_cast<double>(stats->shares));
  }
}

void Sweeper::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (cv_.wait_for(lock, interval_, [this] { return stop_; })) break;
    lock.unlock();
    auto n = guardian_->Sweep();
    if (!n.ok()) {
      net::log::Warn("guardian sweep failed", {{"error", n.status().ToString()}});
    } else if (*n > 0) {
      net::log::Info("guardian swept expired shares", {{"deleted", *n}});
    }
    Publish(n.ok() ? *n : 0, /*ran=*/true, /*failed=*/!n.ok());
    lock.lock();
    ++runs_;
  }
}

}  // namespace veil::guardian
