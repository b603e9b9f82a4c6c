// Metrics: counters, gauges and histograms with labels, rendered in the Prometheus text
// exposition format 0.0.4 (docs/notes/net.md lists what the server exports).
//
// A MetricsRegistry owns metric families (one name, one help text, one type) and, in each family,
// one series per distinct label set. Get* returns a reference that stays valid for the registry's
// lifetime, so a hot path looks a series up once and then only touches atomics: Inc, Set and
// Observe are lock-free. Lookups take a shared lock (an exclusive one only to create a series).
//
// Names must match [a-zA-Z_:][a-zA-Z0-9_:]* and label names [a-zA-Z_][a-zA-Z0-9_]*; asking for
// an existing name with another type, or a histogram with other buckets, is a programming error
// and aborts. Label values are free text and escaped on output; keep their set small (a label per
// request id or user would grow the registry without bound).
//
// Thread safety: every member of every type here is safe to call from any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace veil::net {

// Sorted by name on the way in; duplicate names are a programming error.
using Labels = std::vector<std::pair<std::string, std::string>>;

// A monotonically increasing value.
class Counter {
 public:
  void Inc(double v = 1.0);  // v must be >= 0
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

// A value that goes up and down.
class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Inc(double v = 1.0);
  void Dec(double v = 1.0) { Inc(-v); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

// Observations counted into fixed upper-bound buckets (le), plus their sum and count.
class Histogram {
 public:
  // Upper bounds, strictly increasing and finite; +Inf is implicit.
  explicit Histogram(std::vector<double> bounds);
  void Observe(double v);

  const std::vector<double>& bounds() const { return bounds_; }
  // Non-cumulative count of bucket i (i == bounds().size() is the +Inf bucket).
  std::uint64_t BucketCount(std::size_t i) const {
    return buckets_[i].load(std::memory_order_relaxed);
  }
  std::uint64_t Count() const { return count_.load(std::memory_order_relaxed); }
  double Sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;
  std::atomic<std::uint64_t> count_{0};
  std::atomic<double> sum_{0.0};
};

// Latency buckets in seconds, 0.5 ms to 10 s.
std::vector<double> DefaultLatencyBuckets();

class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  Counter& GetCounter(std::string_view name, std::string_view help, Labels labels = {});
  Gauge& GetGauge(std::string_view name, std::string_view help, Labels labels = {});
  Histogram& GetHistogram(std::string_view name, std::string_view help, Labels labels = {},
                          std::vector<double> bounds = DefaultLatencyBuckets());

  // A function run at the start of each RenderPrometheus, before anything is rendered, to bring
  // series that mirror another component's state up to date (a queue's length, a count kept
  // elsewhere). It must not call RenderPrometheus or AddCollector.
  void AddCollector(std::function<void()> collect);

  // The whole registry in the text exposition format 0.0.4, families sorted by name (after the
  // collectors have run).
  std::string RenderPrometheus() const;

 private:
  enum class Type { kCounter, kGauge, kHistogram };
  struct Series {
    std::unique_ptr<Counter> counter;
    std::unique_ptr<Gauge> gauge;
    std::unique_ptr<Histogram> histogram;
  };
  struct Family {
    Type type;
    std::string help;
    std::vector<double> bounds;       // histograms only
    std::map<Labels, Series> series;  // node-based: references stay valid
  };
  Series& GetSeries(std::string_view name, std::string_view help, Type type, Labels labels,
                    const std::vector<double>* bounds);

  mutable std::shared_mutex mu_;
  std::map<std::string, Family, std::less<>> families_;
  mutable std::mutex collectors_mu_;
  std::vector<std::function<void()>> collectors_;
};

// Content-Type of RenderPrometheus()'s output.
inline constexpr std::string_view kPrometheusContentType =
    "text/plain; version=0.0.4; charset=utf-8";

}  // namespace veil::net
