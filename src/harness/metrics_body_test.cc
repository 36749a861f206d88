#include "harness/metrics_body.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::harness {
namespace {

using nlohmann::json;

TEST(MetricsBodyTest, BuildsUpstreamShape) {
  auto t = FromUnixMicros(1700000000123456);
  auto body = BuildTrialMetricsBody(7, 2, "training", 100, json{{"loss", 0.5}},
                                    json::array({json{{"loss", 0.6}}}), t);
  ASSERT_TRUE(body.ok()) << body.status();
  json want = json::parse(R"({
    "metrics": {"trialId": 7, "trialRunId": 2, "stepsCompleted": 100,
                "reportTime": "2023-11-14T22:13:20.123456Z",
                "metrics": {"avgMetrics": {"loss": 0.5}, "batchMetrics": [{"loss": 0.6}]}},
    "group": "training"})");
  EXPECT_EQ(*body, want);
  EXPECT_EQ(TrialMetricsPath(7), "/api/v1/trials/7/metrics");
}

TEST(MetricsBodyTest, NullBatchMetricsBecomeEmptyList) {
  auto body = BuildTrialMetricsBody(1, 1, "validation", 3, json{{"accuracy", 0.9}}, json(),
                                    FromUnixMicros(0));
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ((*body)["metrics"]["metrics"]["batchMetrics"], json::array());
  EXPECT_EQ((*body)["group"], "validation");
  EXPECT_EQ((*body)["metrics"]["reportTime"], "1970-01-01T00:00:00.000000Z");
}

TEST(MetricsBodyTest, RejectsMalformedReports) {
  auto t = FromUnixMicros(0);
  EXPECT_EQ(BuildTrialMetricsBody(1, 1, "", 0, json::object(), json(), t).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildTrialMetricsBody(1, 1, "training", 0, json(3), json(), t).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildTrialMetricsBody(1, 1, "training", -1, json::object(), json(), t).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildTrialMetricsBody(1, 1, "training", 0, json::object(), json::array({1}), t)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace det::harness
