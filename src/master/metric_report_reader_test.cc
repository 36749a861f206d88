#include "master/metric_report_reader.h"

#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include "absl/strings/str_cat.h"

#include "common/time_util.h"

namespace det::master {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

TEST(MetricReportReaderTest, ReadsAReportInEitherSpellingWithItsMetricsAsText) {
  auto read = ReadMetricReports(
      R"({"metrics": {"trialId": "7", "trialRunId": 2, "stepsCompleted": 300, "reportTime": "2026-11-26T10:00:00Z",
          "metrics": {"avgMetrics": {"loss": 0.25, "step": 3, "note": "warm\"up", "nested": {"a": [1, true]},
                                     "none": null},
                      "batchMetrics": [{"loss": 0.5}]}},
          "group": "validation"})",
      7, /*batch=*/false, 10);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 1u);
  const api::MetricsReport& r = read->front().report;
  EXPECT_EQ(r.trial_id, 7);
  EXPECT_EQ(r.trial_run_id, 2);
  EXPECT_EQ(r.total_batches, 300);
  EXPECT_EQ(FormatRfc3339(r.end_time), FormatRfc3339(*ParseRfc3339("2026-11-26T10:00:00Z")));
  EXPECT_EQ(r.group, "validation");
  EXPECT_EQ(json::parse(r.metrics_json),
            json::parse(R"({"loss":0.25,"step":3,"note":"warm\"up","nested":{"a":[1,true]},"none":null})"));
  EXPECT_EQ(r.metrics_json.find(' '), std::string::npos) << "stored minified: " << r.metrics_json;
  EXPECT_EQ(json::parse(r.batch_metrics_json), json::parse(R"([{"loss":0.5}])"));

  const std::vector<MetricPoint>& points = read->front().avg_metrics;
  ASSERT_EQ(points.size(), 5u);
  EXPECT_EQ(points[0].name, "loss");
  EXPECT_EQ(points[0].number, 0.25);
  EXPECT_EQ(points[1].number, 3.0);
  EXPECT_FALSE(points[2].number.has_value());
  EXPECT_EQ(json::parse(points[2].other_json), "warm\"up");
  EXPECT_EQ(json::parse(points[3].other_json), json::parse(R"({"a":[1,true]})"));
  EXPECT_EQ(points[4].other_json, "null");

  auto snake = ReadMetricReports(
      R"({"metrics": {"trial_id": 7, "steps_completed": 5, "metrics": {"avg_metrics": {"x": 1}}}})", 7, false, 10);
  ASSERT_TRUE(snake.ok()) << snake.status();
  EXPECT_EQ(snake->front().report.total_batches, 5);
  EXPECT_EQ(snake->front().report.group, "training");
  // Unreported batch metrics are stored as null, which upstream's metric stream shows (not []).
  EXPECT_EQ(snake->front().report.batch_metrics_json, "null");
}

TEST(MetricReportReaderTest, NoOrEmptyBatchMetricsAreStoredAsNull) {
  for (const char* batch : {"", R"(, "batchMetrics": null)", R"(, "batchMetrics": [])"}) {
    auto read = ReadMetricReports(absl::StrCat(R"({"metrics": {"metrics": {"avgMetrics": {"x": 1})", batch, "}}}"), 7,
                                  false, 10);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->front().report.batch_metrics_json, "null") << batch;
  }
}

TEST(MetricReportReaderTest, NumbersAndKeysAreWrittenBackExactly) {
  auto read = ReadMetricReports(
      R"({"metrics": {"metrics": {"avgMetrics": {"a\"b\\c\n": 0.1, "tiny": 1e-300, "big": 18446744073709551615,
          "neg": -9223372036854775808, "third": 0.3333333333333333, "e": 2.5E+20}}}})",
      7, false, 10);
  ASSERT_TRUE(read.ok()) << read.status();
  const std::string& text = read->front().report.metrics_json;
  json stored = json::parse(text);
  EXPECT_EQ(stored["a\"b\\c\n"], 0.1) << text;
  EXPECT_EQ(stored["tiny"].get<double>(), 1e-300);
  EXPECT_EQ(stored["big"].get<uint64_t>(), 18446744073709551615u);
  EXPECT_EQ(stored["neg"].get<int64_t>(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(stored["third"].get<double>(), 0.3333333333333333);
  EXPECT_EQ(stored["e"].get<double>(), 2.5e20);
  EXPECT_EQ(std::vector<std::string>({"a\"b\\c\n", "tiny", "big", "neg", "third", "e"}),
            [&] {
              std::vector<std::string> names;
              for (const MetricPoint& p : read->front().avg_metrics) names.push_back(p.name);
              return names;
            }());
  EXPECT_EQ(read->front().avg_metrics[2].number, 18446744073709551615.0);
}

TEST(MetricReportReaderTest, ABatchIsItsReportsInOrder) {
  std::string body = R"({"reports": [)";
  for (int step = 1; step <= 3; ++step) {
    if (step > 1) body += ",";
    body += R"({"metrics": {"stepsCompleted": )" + std::to_string(step) + R"(, "metrics": {"avgMetrics": {"loss": )" +
            std::to_string(1.0 / step) + "}}}}";
  }
  body += "]}";
  auto read = ReadMetricReports(body, 4, /*batch=*/true, 10);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ((*read)[i].report.total_batches, i + 1);
    EXPECT_EQ((*read)[i].report.trial_id, 4);
  }
  EXPECT_EQ(ReadMetricReports(body, 4, true, 2).status().code(), absl::StatusCode::kInvalidArgument) << "over the limit";
}

TEST(MetricReportReaderTest, AMalformedBodyIsRefusedNamingWhatIsWrong) {
  struct Case {
    std::string body;
    bool batch;
    std::string message;
  };
  const std::vector<Case> cases = {
      {R"({"metrics": {"metrics": {"avgMetrics": {"x": 1}})", false, "not valid JSON"},
      {R"({"metrics": {"metrics": {"avgMetrics": {"x": 1}}}, "extra": [1,}})", false, "not valid JSON"},
      {R"([1])", false, "must be a JSON object"},
      {R"({"group": "training"})", false, "metrics is required"},
      {R"({"metrics": {"trialId": 8, "metrics": {"avgMetrics": {}}}})", false, "metrics.trialId 8 does not match"},
      {R"({"metrics": {"trialId": "x", "metrics": {"avgMetrics": {}}}})", false, "metrics.trialId: must be an integer"},
      {R"({"metrics": {"stepsCompleted": 1.5, "metrics": {"avgMetrics": {}}}})", false, "metrics.stepsCompleted"},
      {R"({"metrics": {"metrics": {"avgMetrics": [1]}}})", false, "avgMetrics is required and must be an object"},
      {R"({"metrics": {"metrics": {}}})", false, "avgMetrics is required"},
      {R"({"metrics": {"reportTime": "yesterday", "metrics": {"avgMetrics": {}}}})", false, ""},
      {R"({"metrics": {"metrics": {"avgMetrics": {}}}, "group": "a.b"})", false, "must not contain '.'"},
      {R"({"metrics": {"metrics": {"avgMetrics": {}}}, "group": 3})", false, "group: must be a string"},
      {R"({"reports": []})", true, "reports: must be a list of 1 to 10"},
      {R"({"reports": {}})", true, "reports: must be a list"},
      {R"({"reports": [{"metrics": {"metrics": {"avgMetrics": {}}}}, {"group": "x"}]})", true,
       "reports[1]: metrics is required"},
  };
  for (const Case& c : cases) {
    auto read = ReadMetricReports(c.body, 7, c.batch, 10);
    EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument) << c.body;
    EXPECT_THAT(std::string(read.status().message()), HasSubstr(c.message)) << c.body;
  }
}

}  // namespace
}  // namespace det::master
