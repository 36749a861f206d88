#include "master/metric_columns.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::master {
namespace {

using nlohmann::json;

api::MetricsReport ColumnsReport(int64_t batches, const std::string& metrics) {
  api::MetricsReport r;
  r.total_batches = batches;
  r.metrics_json = metrics;
  return r;
}

api::Trial ColumnsTrial(const std::string& summary) {
  api::Trial t;
  t.summary_metrics_json = summary;
  return t;
}

TEST(MetricColumnsTest, ColumnsNameHyperparametersAndReportedMetrics) {
  api::Experiment e;
  e.config_json = R"({"hyperparameters": {"lr": {"type": "double", "minval": 0.1, "maxval": 1},
      "opt": {"kind": {"type": "const", "val": "sgd"}}, "mix": {"type": "categorical", "vals": [1, "a"]}}})";
  json columns = ProjectColumnsJson(
      {e}, {ColumnsTrial(R"({"avg_metrics": {"loss": {"type": "number", "min": 1, "max": 2}},
                                 "validation_metrics": {"acc": {"type": "number"}},
                                 "inference": {"note": {"type": "string"}}})")});
  std::map<std::string, std::pair<std::string, std::string>> by_name;
  for (const json& c : columns) by_name[c["column"]] = {c["location"], c["type"]};
  EXPECT_EQ(columns[0]["column"], "id");
  EXPECT_EQ(by_name["hp.lr"], std::make_pair(std::string("LOCATION_TYPE_HYPERPARAMETERS"), std::string("COLUMN_TYPE_NUMBER")));
  EXPECT_EQ(by_name["hp.opt.kind"].second, "COLUMN_TYPE_TEXT");
  EXPECT_EQ(by_name["hp.mix"].second, "COLUMN_TYPE_UNSPECIFIED");
  EXPECT_EQ(by_name["training.loss"].first, "LOCATION_TYPE_TRAINING");
  EXPECT_EQ(by_name["validation.acc"].first, "LOCATION_TYPE_VALIDATIONS");
  EXPECT_EQ(by_name["inference.note"],
            std::make_pair(std::string("LOCATION_TYPE_CUSTOM_METRIC"), std::string("COLUMN_TYPE_TEXT")));
}

TEST(MetricColumnsTest, RangesSpanEveryTrialsNumericSummaries) {
  json ranges = MetricRangesJson({ColumnsTrial(R"({"validation_metrics": {"loss": {"type": "number", "min": 0.5, "max": 2}}})"),
                                  ColumnsTrial(R"({"validation_metrics": {"loss": {"type": "number", "min": 0.25, "max": 1},
                                                       "tag": {"type": "string"}}})")});
  EXPECT_EQ(ranges, json::parse(R"([{"metricsName": "validation.loss", "min": 0.25, "max": 2.0}])"));
}

TEST(MetricColumnsTest, GroupComesFromGroupOrMetricType) {
  EXPECT_EQ(*MetricGroupOf("inference", "METRIC_TYPE_TRAINING"), "inference");
  EXPECT_EQ(*MetricGroupOf("", "METRIC_TYPE_VALIDATION"), "validation");
  EXPECT_FALSE(MetricGroupOf("", "").ok());
  EXPECT_FALSE(MetricGroupOf("", "METRIC_TYPE_COLOR").ok());
}

TEST(MetricColumnsTest, BatchesSnapshotAndSample) {
  std::vector<api::MetricsReport> reports = {ColumnsReport(10, R"({"loss": 3})"), ColumnsReport(20, R"({"acc": 1})"),
                                             ColumnsReport(30, R"({"loss": 2})"), ColumnsReport(40, R"({"loss": 1})")};
  EXPECT_EQ(MetricBatchesOf(reports, "loss"), (std::vector<int64_t>{10, 30, 40}));
  EXPECT_EQ(SnapshotReport(reports, "loss", 33, 5)->total_batches, 30);
  EXPECT_EQ(SnapshotReport(reports, "loss", 35, 5)->total_batches, 30);  // a tie: the earlier
  EXPECT_FALSE(SnapshotReport(reports, "loss", 20, 5).has_value());
  json all = SampleDataPoints(reports, "loss", 0, 100, 10);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2]["values"], json::parse(R"({"loss": 1.0})"));
  json two = SampleDataPoints(reports, "loss", 0, 100, 2);
  EXPECT_EQ(two[0]["batches"], 10);
  EXPECT_EQ(two[1]["batches"], 40);  // the last is always kept
  EXPECT_EQ(SampleDataPoints(reports, "loss", 15, 35, 10).size(), 1u);
}

TEST(MetricColumnsTest, BatchesStreamSendsWhatIsNew) {
  json first = json::parse(R"({"batches": [1, 2]})");
  EXPECT_EQ(*BatchesDelta(first, json()), first);
  EXPECT_EQ(*BatchesDelta(json::parse(R"({"batches": [1, 2, 3, 4]})"), first), json::parse(R"({"batches": [3, 4]})"));
  EXPECT_FALSE(BatchesDelta(first, first).has_value());
  EXPECT_EQ(*BatchesDelta(json::parse(R"({"batches": []})"), json()), json::parse(R"({"batches": []})"));
}

TEST(MetricColumnsTest, SampleStreamSendsNewPointsAndPromotedAndDemotedTrials) {
  json first = json::parse(R"({"trials": [{"trialId": 1, "hparams": {}, "data": [{"batches": 1}]}]})");
  EXPECT_EQ(*SampleDelta(first, json()),
            json::parse(R"({"trials": [{"trialId": 1, "hparams": {}, "data": [{"batches": 1}]}],
                            "promotedTrials": [1], "demotedTrials": []})"));
  EXPECT_FALSE(SampleDelta(first, first).has_value());
  json next = json::parse(R"({"trials": [{"trialId": 2, "hparams": {"x": 1}, "data": [{"batches": 5}]},
                                         {"trialId": 1, "hparams": {}, "data": [{"batches": 1}, {"batches": 2}]}]})");
  EXPECT_EQ(*SampleDelta(next, first),
            json::parse(R"({"trials": [{"trialId": 2, "hparams": {"x": 1}, "data": [{"batches": 5}]},
                                       {"trialId": 1, "hparams": {}, "data": [{"batches": 2}]}],
                            "promotedTrials": [2], "demotedTrials": []})"));
  json dropped = json::parse(R"({"trials": [{"trialId": 2, "hparams": {"x": 1}, "data": [{"batches": 5}]}]})");
  EXPECT_EQ(*SampleDelta(dropped, next),
            json::parse(R"({"trials": [{"trialId": 2, "hparams": {"x": 1}, "data": []}],
                            "promotedTrials": [], "demotedTrials": [1]})"));
}

}  // namespace
}  // namespace det::master
