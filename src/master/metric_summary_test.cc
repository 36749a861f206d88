#include "master/metric_summary.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace det::master {
namespace {

api::MetricsReport Report(const std::string& group, int64_t batches, const std::string& metrics) {
  api::MetricsReport r;
  r.group = group;
  r.total_batches = batches;
  r.metrics_json = metrics;
  return r;
}

TEST(MetricSummaryTest, TracksLatestAndBestValidation) {
  api::Trial t;
  EXPECT_EQ(*ApplyMetricsToTrial(t, Report("validation", 10, R"({"accuracy":0.8})"), "accuracy", false), 0.8);
  ApplyMetricsToTrial(t, Report("validation", 20, R"({"accuracy":0.95})"), "accuracy", false);
  ApplyMetricsToTrial(t, Report("validation", 30, R"({"accuracy":0.9})"), "accuracy", false);
  EXPECT_EQ(*t.searcher_metric_value, 0.95);
  auto best = nlohmann::json::parse(t.best_validation_json);
  EXPECT_EQ(best["totalBatches"], 20);
  auto latest = nlohmann::json::parse(t.latest_validation_json);
  EXPECT_EQ(latest["metrics"]["avgMetrics"]["accuracy"], 0.9);
  EXPECT_EQ(t.total_batches, 30);
  auto summary = nlohmann::json::parse(t.summary_metrics_json);
  EXPECT_EQ(summary["validation_metrics"]["accuracy"]["count"], 3);
  EXPECT_DOUBLE_EQ(summary["validation_metrics"]["accuracy"]["max"].get<double>(), 0.95);
  EXPECT_DOUBLE_EQ(summary["validation_metrics"]["accuracy"]["last"].get<double>(), 0.9);
}

TEST(MetricSummaryTest, SmallerIsBetterAndTrainingGroup) {
  api::Trial t;
  EXPECT_FALSE(ApplyMetricsToTrial(t, Report("training", 5, R"({"loss":2.0})"), "loss", true).has_value());
  EXPECT_FALSE(t.searcher_metric_value.has_value());  // training reports don't feed the searcher metric
  ApplyMetricsToTrial(t, Report("validation", 5, R"({"loss":1.0})"), "loss", true);
  ApplyMetricsToTrial(t, Report("validation", 9, R"({"loss":1.5})"), "loss", true);
  EXPECT_EQ(*t.searcher_metric_value, 1.0);
  auto summary = nlohmann::json::parse(t.summary_metrics_json);
  EXPECT_EQ(summary["avg_metrics"]["loss"]["last"], 2.0);
}

}  // namespace
}  // namespace det::master

namespace det::master {
namespace {

TEST(MetricSummaryTest, ReportsFoldedTogetherEqualReportsFoldedOneByOne) {
  std::vector<api::MetricsReport> reports = {
      Report("training", 5, R"({"loss":2.0,"note":"warmup"})"), Report("validation", 5, R"({"loss":1.0})"),
      Report("training", 9, R"({"loss":1.5,"note":"steady","nested":{"a":[1,true]}})"),
      Report("validation", 9, R"({"loss":1.25})"), Report("training", 10, R"({"note":3,"loss":1.0})"),
      Report("training", 11, R"({"note":"again","loss":0.5})"), Report("training", 12, R"({"note":4})")};
  api::Trial one_by_one;
  std::vector<std::vector<MetricPoint>> parsed;
  for (const api::MetricsReport& r : reports) {
    ApplyMetricsToTrial(one_by_one, r, "loss", true);
    parsed.push_back(MetricPointsOf(nlohmann::json::parse(r.metrics_json)));
  }
  ApplyMetricsToTrial(one_by_one, Report("validation", 12, "not an object"), "loss", true);  // changes nothing
  api::Trial together;
  ApplyReportsToTrial(together, reports, parsed, "loss", true);
  EXPECT_EQ(nlohmann::json::parse(together.summary_metrics_json), nlohmann::json::parse(one_by_one.summary_metrics_json));
  EXPECT_EQ(together.summary_metrics_json, one_by_one.summary_metrics_json);
  EXPECT_EQ(together.best_validation_json, one_by_one.best_validation_json);
  EXPECT_EQ(together.latest_validation_json, one_by_one.latest_validation_json);
  EXPECT_EQ(together.searcher_metric_value, 1.0);
  EXPECT_EQ(together.total_batches, 12);
  nlohmann::json loss = nlohmann::json::parse(together.summary_metrics_json)["avg_metrics"]["loss"];
  EXPECT_EQ(loss, nlohmann::json::parse(R"({"type":"number","count":4,"sum":5.0,"min":0.5,"max":2.0,"last":0.5,"mean":1.25})"));
  nlohmann::json note = nlohmann::json::parse(together.summary_metrics_json)["avg_metrics"]["note"];
  EXPECT_EQ(note, nlohmann::json::parse(R"({"type":"number","count":1,"sum":4.0,"min":4.0,"max":4.0,"last":4.0,"mean":4.0})"))
      << "a number after a string starts the count again";
}

TEST(MetricSummaryTest, TheProfilersGroupsStayOutOfTheSummary) {
  api::Trial t;
  ApplyMetricsToTrial(t, Report("training", 3, R"({"loss":1.0})"), "loss", true);
  const std::string before = t.summary_metrics_json;
  for (const char* group : {"cpu", "gpu", "memory", "disk", "network"}) {
    ApplyMetricsToTrial(t, Report(group, 900, R"({"agent-0":{"cpu_util_simple":12.5}})"), "loss", true);
  }
  EXPECT_EQ(t.summary_metrics_json, before);
  EXPECT_EQ(t.total_batches, 3);
  ApplyMetricsToTrial(t, Report("timings", 3, R"({"agent-0":{"backward":0.001}})"), "loss", true);
  EXPECT_NE(t.summary_metrics_json, before) << "other groups, ours included, are summarized";
  EXPECT_TRUE(IsProfilingGroup("disk"));
  EXPECT_FALSE(IsProfilingGroup("validation"));
}

TEST(MetricSummaryTest, ASummaryChangedByAnotherWriterIsReadAgainNotTheOneKept) {
  auto apply = [](api::Trial& t, double loss) {
    std::vector<api::MetricsReport> reports = {Report("training", 1, absl::StrCat(R"({"loss":)", loss, "}"))};
    std::vector<std::vector<MetricPoint>> points = {MetricPointsOf(nlohmann::json::parse(reports[0].metrics_json))};
    ApplyReportsToTrial(t, reports, points, "loss", true);
  };
  auto count = [](const api::Trial& t) {
    return nlohmann::json::parse(t.summary_metrics_json)["avg_metrics"]["loss"]["count"].get<int>();
  };
  api::Trial t;
  t.id = 42;
  apply(t, 1);
  apply(t, 2);  // the kept summary: the text is the one written
  EXPECT_EQ(count(t), 2);
  api::Trial rolled_back = t;
  apply(t, 3);                                 // written, then (say) rolled back:
  apply(rolled_back, 3);                       // the stored text is the older one
  EXPECT_EQ(count(rolled_back), 3) << "not 4: the kept summary was of a text the store does not hold";
  api::Trial replaced;
  replaced.id = 42;
  replaced.summary_metrics_json = R"({"avg_metrics":{"loss":{"type":"number","count":10,"sum":10.0,"min":1.0,)"
                                  R"("max":1.0,"last":1.0,"mean":1.0}}})";
  apply(replaced, 1);
  EXPECT_EQ(count(replaced), 11);
}

TEST(MetricValueTest, OnlyNumbersCount) {
  nlohmann::json metrics = {{"loss", 0.5}, {"steps", 3}, {"name", "x"}, {"none", nullptr}};
  EXPECT_EQ(MetricValue(metrics, "loss"), 0.5);
  EXPECT_EQ(MetricValue(metrics, "steps"), 3.0);
  EXPECT_EQ(MetricValue(metrics, "name"), std::nullopt);
  EXPECT_EQ(MetricValue(metrics, "none"), std::nullopt);
  EXPECT_EQ(MetricValue(metrics, "missing"), std::nullopt);
  EXPECT_EQ(MetricValue(nlohmann::json::array(), "loss"), std::nullopt);
}

}  // namespace
}  // namespace det::master
