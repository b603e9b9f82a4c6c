// Metrics registry: values, label handling, thread safety and the Prometheus text format.
#include "veil/net/metrics.h"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>
#include <vector>

#include "net/net_test_util.h"

namespace veil::net {
namespace {

TEST(Metrics, CounterGaugeHistogram) {
  MetricsRegistry r;
  Counter& c = r.GetCounter("jobs_total", "Jobs", {{"kind", "a"}});
  c.Inc();
  c.Inc(2);
  EXPECT_EQ(c.Value(), 3);
  EXPECT_EQ(&r.GetCounter("jobs_total", "Jobs", {{"kind", "a"}}), &c);
  EXPECT_NE(&r.GetCounter("jobs_total", "Jobs", {{"kind", "b"}}), &c);
  Gauge& g = r.GetGauge("depth", "Depth");
  g.Set(5);
  g.Dec(2);
  EXPECT_EQ(g.Value(), 3);
  Histogram& h = r.GetHistogram("lat_seconds", "Latency", {}, {0.1, 1});
  h.Observe(0.05);
  h.Observe(0.1);  // le is inclusive
  h.Observe(0.5);
  h.Observe(7);
  EXPECT_EQ(h.BucketCount(0), 2u);
  EXPECT_EQ(h.BucketCount(1), 1u);
  EXPECT_EQ(h.BucketCount(2), 1u);
  EXPECT_EQ(h.Count(), 4u);
  EXPECT_DOUBLE_EQ(h.Sum(), 7.65);
}

TEST(Metrics, LabelOrderDoesNotMatter) {
  MetricsRegistry r;
  Counter& a = r.GetCounter("x_total", "X", {{"a", "1"}, {"b", "2"}});
  Counter& b = r.GetCounter("x_total", "X", {{"b", "2"}, {"a", "1"}});
  EXPECT_EQ(&a, &b);
}

TEST(Metrics, RenderPrometheus) {
  MetricsRegistry r;
  r.GetCounter("req_total", "Requests \\ with\nnewline", {{"path", "/a\"b\\c\nd"}}).Inc(4);
  r.GetGauge("temp", "Temperature").Set(-1.5);
  Histogram& h = r.GetHistogram("lat_seconds", "Latency", {{"m", "x"}}, {0.5, 1});
  h.Observe(0.25);
  h.Observe(2);
  const std::string text = r.RenderPrometheus();
  EXPECT_NE(text.find("# HELP req_total Requests \\\\ with\\nnewline\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE req_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("req_total{path=\"/a\\\"b\\\\c\\nd\"} 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("temp -1.5\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE lat_seconds histogram\n"), std::string::npos);
  EXPECT_NE(text.find("lat_seconds_bucket{m=\"x\",le=\"0.5\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("lat_seconds_bucket{m=\"x\",le=\"1\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("lat_seconds_bucket{m=\"x\",le=\"+Inf\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("lat_seconds_sum{m=\"x\"} 2.25\n"), std::string::npos);
  EXPECT_NE(text.find("lat_seconds_count{m=\"x\"} 2\n"), std::string::npos);
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("# ", 0) == 0) continue;
    EXPECT_TRUE(IsPrometheusSample(line)) << line;
  }
}

// Collectors run before each rendering, so the series they set show the state of the moment.
TEST(Metrics, CollectorsRunBeforeEachRendering) {
  MetricsRegistry r;
  Gauge& g = r.GetGauge("queue_length", "items waiting");
  int length = 3, runs = 0;
  r.AddCollector([&] {
    ++runs;
    g.Set(length);
  });
  EXPECT_NE(r.RenderPrometheus().find("queue_length 3\n"), std::string::npos);
  length = 7;
  EXPECT_NE(r.RenderPrometheus().find("queue_length 7\n"), std::string::npos);
  EXPECT_EQ(runs, 2);
}

TEST(Metrics, ConcurrentUpdates) {
  MetricsRegistry r;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&r, t] {
      for (int i = 0; i < 2000; ++i) {
        r.GetCounter("c_total", "C", {{"t", std::to_string(t % 2)}}).Inc();
        r.GetHistogram("h_seconds", "H").Observe(0.001);
        if (i % 100 == 0) (void)r.RenderPrometheus();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(r.GetCounter("c_total", "C", {{"t", "0"}}).Value() +
                r.GetCounter("c_total", "C", {{"t", "1"}}).Value(),
            16000);
  EXPECT_EQ(r.GetHistogram("h_seconds", "H").Count(), 16000u);
}

TEST(MetricsDeathTest, MisuseAborts) {
  MetricsRegistry r;
  r.GetCounter("a_total", "A");
  EXPECT_DEATH(r.GetGauge("a_total", "A"), "another type");
  EXPECT_DEATH(r.GetCounter("bad name", "A"), "invalid metric name");
  EXPECT_DEATH(r.GetCounter("b_total", "B", {{"le", "1"}}), "invalid label name");
}

}  // namespace
}  // namespace veil::net
