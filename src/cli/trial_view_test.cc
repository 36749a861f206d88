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

const json kWorkloads = json::parse(R"([
  {"training": {"totalBatches": 45, "endTime": "2026-01-02T03:04:30Z", "metrics": {"avgMetrics": {"loss": 0.5}}}},
  {"validation": {"totalBatches": 45, "endTime": "2026-01-02T03:05:00Z", "metrics": {"avgMetrics": {"accuracy": 0.8}}}},
  {"checkpoint": {"totalBatches": 45, "endTime": "2026-01-02T03:05:10Z", "state": "STATE_COMPLETED", "uuid": "c0ffee"}},
  {"validation": {"totalBatches": 90, "endTime": "2026-01-02T03:06:00Z", "metrics": {"avgMetrics": {"accuracy": 0.9}}}}])");

TEST(TrialViewTest, DescribesTheTrialAndEachWorkload) {
  std::string text = RenderTrialDescription(kTrial, kWorkloads, /*training_metrics=*/false, OutputFormat::kTable);
  EXPECT_NE(text.find("Trial:"), std::string::npos) << text;
  EXPECT_NE(text.find("COMPLETED"), std::string::npos) << text;
  EXPECT_NE(text.find("accuracy=0.95"), std::string::npos) << text;  // best
  EXPECT_NE(text.find("validating"), std::string::npos) << text;
  EXPECT_NE(text.find("Workloads:"), std::string::npos) << text;
  EXPECT_LT(text.find("accuracy=0.8"), text.find("c0ffee")) << text;
  EXPECT_LT(text.find("c0ffee"), text.find("2026-01-02 03:06:00")) << text;
  EXPECT_EQ(text.find("loss=0.5"), std::string::npos) << "training metrics only with --metrics\n" << text;
  EXPECT_EQ(text.find("Workload Metrics"), std::string::npos) << text;
}

TEST(TrialViewTest, WithMetricsTrainingReportsShowTheirMetrics) {
  std::string text = RenderTrialDescription(kTrial, kWorkloads, /*training_metrics=*/true, OutputFormat::kTable);
  EXPECT_NE(text.find("Workload Metrics"), std::string::npos) << text;
  EXPECT_NE(text.find("loss=0.5"), std::string::npos) << text;
}

TEST(TrialViewTest, CsvHasNoTitles) {
  std::string csv = RenderTrialDescription(kTrial, json::array(), false, OutputFormat::kCsv);
  EXPECT_EQ(csv.find("Trial:"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("Workloads:"), std::string::npos) << csv;
  EXPECT_NE(csv.find("Trial ID,State"), std::string::npos) << csv;
  EXPECT_NE(csv.find("# of Batches,Report Time,Checkpoint,Checkpoint UUID,Validation Metrics"), std::string::npos)
      << csv;
}

}  // namespace
}  // namespace det::cli
