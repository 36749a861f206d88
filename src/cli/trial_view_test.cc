#include "cli/trial_view.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::cli {
namespace {

using nlohmann::json;

const json kTrial = json::parse(R"({
  "id": 7, "experimentId": 3, "state": "STATE_COMPLETED", "restarts": 1, "checkpointCount": 4,
  "runnerState": "validating", "totalBatchesProcessed": 90, "hparams": {"lr": 0.1},
  "startTime": "2026-01-02T03:04:05Z", "endTime": null,
  "bestValidation": {"metrics": {"avgMetrics": {"accuracy": 0.95}}},
  "latestValidation": {"metrics": {"avgMetrics": {"accuracy": 0.9}}}})");

TEST(TrialViewTest, DescribesTheTrialAndItsValidations) {
  json validations = json::parse(R"([
    {"totalBatches": 45, "endTime": "2026-01-02T03:05:00Z", "metrics": {"validation_metrics": {"accuracy": 0.8}}},
    {"totalBatches": 90, "endTime": "2026-01-02T03:06:00Z", "metrics": {"validation_metrics": {"accuracy": 0.9}}}])");
  std::string text = RenderTrialDescription(kTrial, validations, OutputFormat::kTable);
  EXPECT_NE(text.find("Trial:"), std::string::npos) << text;
  EXPECT_NE(text.find("COMPLETED"), std::string::npos) << text;
  EXPECT_NE(text.find("accuracy=0.95"), std::string::npos) << text;  // best
  EXPECT_NE(text.find("validating"), std::string::npos) << text;
  EXPECT_NE(text.find("Validation metrics:"), std::string::npos) << text;
  EXPECT_LT(text.find("accuracy=0.8"), text.find("2026-01-02 03:06:00")) << text;
}

TEST(TrialViewTest, WithoutMetricsThereIsNoMetricsSection) {
  std::string text = RenderTrialDescription(kTrial, nullptr, OutputFormat::kTable);
  EXPECT_EQ(text.find("Validation metrics:"), std::string::npos) << text;
  std::string csv = RenderTrialDescription(kTrial, nullptr, OutputFormat::kCsv);
  EXPECT_EQ(csv.find("Trial:"), std::string::npos) << csv;
  EXPECT_NE(csv.find("Trial ID,State"), std::string::npos) << csv;
}

}  // namespace
}  // namespace det::cli
