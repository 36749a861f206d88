#include "master/metric_series.h"

#include <gtest/gtest.h>

namespace det::master {
namespace {

using nlohmann::json;

TEST(DownsampleIndicesTest, KeepsEverythingThatFits) {
  EXPECT_EQ(DownsampleIndices(0, 10), std::vector<size_t>{});
  EXPECT_EQ(DownsampleIndices(3, 3), (std::vector<size_t>{0, 1, 2}));
}

TEST(DownsampleIndicesTest, KeepsTheEndsAndSpreadsTheRestEvenly) {
  std::vector<size_t> keep = DownsampleIndices(1000, 5);
  EXPECT_EQ(keep, (std::vector<size_t>{0, 1, 333, 666, 999}));
  keep = DownsampleIndices(1000, 200);
  ASSERT_EQ(keep.size(), 200u);
  EXPECT_EQ(keep.front(), 0u);
  EXPECT_EQ(keep.back(), 999u);
  EXPECT_TRUE(std::is_sorted(keep.begin(), keep.end()));
  EXPECT_EQ(std::adjacent_find(keep.begin(), keep.end()), keep.end()) << "an index kept twice";
  // Never fewer than the two ends.
  EXPECT_EQ(DownsampleIndices(10, 0), (std::vector<size_t>{0, 9}));
}

api::MetricsReport Report(int64_t batches, const json& metrics) {
  api::MetricsReport r;
  r.total_batches = batches;
  r.metrics_json = metrics.dump();
  return r;
}

TEST(DownsampledMetricsJsonTest, PicksTheNamedValuesOfTheKeptPoints) {
  std::vector<api::MetricsReport> reports;
  for (int i = 1; i <= 100; ++i) reports.push_back(Report(i * 10, {{"loss", 1.0 / i}, {"lr", 0.1}, {"epoch", i / 10}}));
  json series = DownsampledMetricsJson(reports, "training", {"loss"}, 10);
  EXPECT_EQ(series["type"], "METRIC_TYPE_TRAINING");
  EXPECT_EQ(series["group"], "training");
  ASSERT_EQ(series["data"].size(), 10u);
  EXPECT_EQ(series["data"][0]["batches"], 10);
  EXPECT_EQ(series["data"][9]["batches"], 1000);
  EXPECT_EQ(series["data"][9]["values"], (json{{"loss", 0.01}}));
  EXPECT_EQ(series["data"][9]["epoch"], 10);
  EXPECT_TRUE(series["data"][0]["time"].is_string());
}

TEST(DownsampledMetricsJsonTest, ReportsWithoutTheNamesAreNotPoints) {
  // A metric reported every 10th step only: its series has just those points.
  std::vector<api::MetricsReport> reports;
  for (int i = 1; i <= 100; ++i) {
    json m = {{"loss", 1.0}};
    if (i % 10 == 0) m["accuracy"] = i / 100.0;
    reports.push_back(Report(i, m));
  }
  reports.push_back(Report(101, {{"note", "\"accuracy\":1"}}));  // the name only inside a string
  json series = DownsampledMetricsJson(reports, "validation", {"accuracy"}, 1000);
  EXPECT_EQ(series["type"], "METRIC_TYPE_VALIDATION");
  ASSERT_EQ(series["data"].size(), 10u);
  for (const json& point : series["data"]) {
    EXPECT_EQ(point["batches"].get<int64_t>() % 10, 0);
    EXPECT_FALSE(point.contains("epoch"));
  }
}

TEST(DownsampledMetricsJsonTest, NoNamesMeansEveryValue) {
  json series = DownsampledMetricsJson({Report(5, {{"a", 1}, {"b", 2}})}, "inference", {}, 10);
  EXPECT_EQ(series["type"], "METRIC_TYPE_UNSPECIFIED");
  EXPECT_EQ(series["data"][0]["values"], (json{{"a", 1}, {"b", 2}}));
}

}  // namespace
}  // namespace det::master
