// Metrics registry and its Prometheus text rendering (format 0.0.4).
#include "veil/net/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <mutex>

#include "veil/base/status.h"

namespace veil::net {
namespace {

void AtomicAdd(std::atomic<double>& a, double v) {
  double old = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(old, old + v, std::memory_order_relaxed)) {
  }
}

bool ValidName(std::string_view s, bool allow_colon) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (allow_colon && c == ':') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

// Prometheus floats: shortest round-trip form, "+Inf", "-Inf", "NaN".
std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  VEIL_CHECK(ec == std::errc());
  return std::string(buf, end);
}

void AppendEscaped(std::string& out, std::string_view s, bool quote) {
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

void AppendLabels(std::string& out, const Labels& labels, std::string_view extra_name = {},
                  std::string_view extra_value = {}) {
  if (labels.empty() && extra_name.empty()) return;
  out += '{';
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) out += ',';
    first = false;
    out += k;
    out += "=\"";
    AppendEscaped(out, v, true);
    out += '"';
  }
  if (!extra_name.empty()) {
    if (!first) out += ',';
    out += extra_name;
    out += "=\"";
    out += extra_value;
    out += '"';
  }
  out += '}';
}

}  // namespace

void Counter::Inc(double v) {
  VEIL_CHECK_MSG(v >= 0, "a counter only goes up");
  AtomicAdd(value_, v);
}

void Gauge::Inc(double v) { AtomicAdd(value_, v); }

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      buckets_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds_.size() + 1)) {
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    VEIL_CHECK_MSG(std::isfinite(bounds_[i]), "histogram bounds must be finite");
    VEIL_CHECK_MSG(i == 0 || bounds_[i - 1] < bounds_[i], "histogram bounds must increase");
  }
}

void Histogram::Observe(double v) {
  // First bucket whose upper bound is >= v; NaN lands in +Inf.
  auto it = std::lower_bound(bounds_.begin(), bounds_.end(), v);
  auto i = static_cast<std::size_t>(it - bounds_.begin());
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  AtomicAdd(sum_, v);
  count_.fetch_add(1, std::memory_order_relaxed);
}

std::vector<double> DefaultLatencyBuckets() {
  return {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

MetricsRegistry::Series& MetricsRegistry::GetSeries(std::string_view name, std::string_view help,
                                                    Type type, Labels labels,
                                                    const std::vector<double>* bounds) {
  VEIL_CHECK_MSG(ValidName(name, true), "invalid metric name");
  std::sort(labels.begin(), labels.end());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    VEIL_CHECK_MSG(ValidName(labels[i].first, false) && labels[i].first != "le",
                   "invalid label name");
    VEIL_CHECK_MSG(i == 0 || labels[i - 1].first != labels[i].first, "duplicate label name");
  }
  {
    std::shared_lock lock(mu_);
    auto f = families_.find(name);
    if (f != families_.end()) {
      VEIL_CHECK_MSG(f->second.type == type, "metric registered with another type");
      auto s = f->second.series.find(labels);
      if (s != f->second.series.end()) return s->second;
    }
  }
  std::unique_lock lock(mu_);
  auto f = families_.find(name);
  if (f == families_.end()) {
    Family fam{type, std::string(help), bounds ? *bounds : std::vector<double>{}, {}};
    f = families_.emplace(std::string(name), std::move(fam)).first;
  }
  Family& fam = f->second;
  VEIL_CHECK_MSG(fam.type == type, "metric registered with another type");
  if (bounds) VEIL_CHECK_MSG(fam.bounds == *bounds, "histogram registered with other buckets");
  auto [s, inserted] = fam.series.try_emplace(std::move(labels));
  if (inserted) {
    switch (type) {
      case Type::kCounter:
        s->second.counter = std::make_unique<Counter>();
        break;
      case Type::kGauge:
        s->second.gauge = std::make_unique<Gauge>();
        break;
      case Type::kHistogram:
        s->second.histogram = std::make_unique<Histogram>(fam.bounds);
        break;
    }
  }
  return s->second;
}

Counter& MetricsRegistry::GetCounter(std::string_view name, std::string_view help, Labels labels) {
  return *GetSeries(name, help, Type::kCounter, std::move(labels), nullptr).counter;
}

Gauge& MetricsRegistry::GetGauge(std::string_view name, std::string_view help, Labels labels) {
  return *GetSeries(name, help, Type::kGauge, std::move(labels), nullptr).gauge;
}

Histogram& MetricsRegistry::GetHistogram(std::string_view name, std::string_view help,
                                         Labels labels, std::vector<double> bounds) {
  return *GetSeries(name, help, Type::kHistogram, std::move(labels), &bounds).histogram;
}

void MetricsRegistry::AddCollector(std::function<void()> collect) {
  std::lock_guard<std::mutex> lock(collectors_mu_);
  collectors_.push_back(std::move(collect));
}

std::string MetricsRegistry::RenderPrometheus() const {
  std::vector<std::function<void()>> collectors;
  {
    std::lock_guard<std::mutex> lock(collectors_mu_);
    collectors = collectors_;
  }
  for (const auto& collect : collectors) collect();
  std::shared_lock lock(mu_);
  std::string out;
  for (const auto& [name, fam] : families_) {
    out += "# HELP ";
    out += name;
    out += ' ';
    AppendEscaped(out, fam.help, false);
    out += "\n# TYPE ";
    out += name;
    out += fam.type == Type::kCounter ? " counter\n"
           : fam.type == Type::kGauge ? " gauge\n"
                                      : " histogram\n";
    for (const auto& [labels, series] : fam.series) {
      if (fam.type == Type::kHistogram) {
        const Histogram& h = *series.histogram;
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i <= h.bounds().size(); ++i) {
          cumulative += h.BucketCount(i);
          out += name;
          out += "_bucket";
          AppendLabels(out, labels, "le",
                       i < h.bounds().size() ? FormatValue(h.bounds()[i]) : "+Inf");
          out += ' ';
          out += std::to_string(cumulative);
          out += '\n';
        }
        out += name;
        out += "_sum";
        AppendLabels(out, labels);
        out += ' ';
        out += FormatValue(h.Sum());
        out += '\n';
        out += name;
        out += "_count";
        AppendLabels(out, labels);
        out += ' ';
        out += std::to_string(cumulative);
        out += '\n';
      } else {
        out += name;
        AppendLabels(out, labels);
        out += ' ';
        out += FormatValue(fam.type == Type::kCounter ? series.counter->Value()
                                                      : series.gauge->Value());
        out += '\n';
      }
    }
  }
  return out;
}

}  // namespace veil::net
