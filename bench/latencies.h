// Per-iteration latency percentiles for Google Benchmark rows that time themselves
// (UseManualTime): each iteration's wall time becomes the row's time and a sample, and Report()
// adds the counters p50_us and p99_us (nearest rank). Shared by the bench binaries.
//
// Thread safety: one object per benchmark run, used from the benchmark's thread.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace veil::bench {

class Latencies {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Latencies(benchmark::State& state) : state_(state) {
    samples_.reserve(static_cast<std::size_t>(std::min<benchmark::IterationCount>(
        state.max_iterations, benchmark::IterationCount{1} << 20)));
  }
  // Runs f() and records its wall time as this iteration's time; returns what f returns.
  template <class F>
  auto Time(F&& f) {
    const auto t0 = Clock::now();
    auto result = f();
    Record(std::chrono::duration<double>(Clock::now() - t0).count());
    return result;
  }
  void Record(double seconds) {
    state_.SetIterationTime(seconds);
    samples_.push_back(seconds * 1e6);
    total_seconds_ += seconds;
  }
  // A latency measured elsewhere (another thread), for the percentiles only: the iteration's
  // time is set by the caller.
  void Add(double microseconds) { samples_.push_back(microseconds); }
  double total_seconds() const { return total_seconds_; }
  void Report() {
    if (samples_.empty()) return;
    std::sort(samples_.begin(), samples_.end());
    state_.counters["p50_us"] = Percentile(0.50);
    state_.counters["p99_us"] = Percentile(0.99);
  }

 private:
  double Percentile(double q) const {
    const auto i = static_cast<std::size_t>(q * static_cast<double>(samples_.size() - 1) + 0.5);
    return samples_[std::min(i, samples_.size() - 1)];
  }
  benchmark::State& state_;
  std::vector<double> samples_;
  double total_seconds_ = 0;
};

}  // namespace veil::bench
