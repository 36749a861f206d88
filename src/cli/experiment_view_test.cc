#include "cli/experiment_view.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::cli {
namespace {

using nlohmann::json;

json Experiment() {
  return json{{"id", 3},
              {"username", "determined"},
              {"name", "digits"},
              {"forkedFrom", nullptr},
              {"state", "STATE_COMPLETED"},
              {"progress", 1.0},
              {"startTime", "2024-05-01T10:00:00Z"},
              {"endTime", "2024-05-01T10:05:00.5Z"},
              {"resourcePool", "default"},
              {"archived", false},
              {"description", "d"},
              {"labels", json::array({"b", "a"})}};
}

TEST(ExperimentViewTest, ListTable) {
  Table t = ExperimentListTable(json::array({Experiment()}), /*show_archived=*/false);
  std::string text = t.Render();
  EXPECT_NE(text.find(" ID | Owner      | Name   | Parent ID | State     | Progress |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  3 | determined | digits |           | COMPLETED | 100.0%   | "
                      "2024-05-01 10:00:00+0000 | 2024-05-01 10:05:00+0000 | default"),
            std::string::npos)
      << text;
  EXPECT_NE(ExperimentListTable(json::array({Experiment()}), true).Render().find("Archived"),
            std::string::npos);
}

TEST(ExperimentViewTest, DescribeShowsTrialsAndCheckpointsWithLocation) {
  json get = {
      {"experiment", Experiment()},
      {"config",
       {{"checkpoint_storage",
         {{"type", "shared_fs"}, {"host_path", "/d/checkpoints"}, {"storage_path", nullptr}}}}}};
  json trials = json::array(
      {json{{"id", 7},
            {"state", "STATE_COMPLETED"},
            {"totalBatchesProcessed", 100},
            {"hparams", {{"lr", 0.1}}},
            {"latestValidation", {{"metrics", {{"avgMetrics", {{"validation_loss", 0.25}}}}}}}}});
  json ckpts = json::array({json{{"uuid", "abc-123"},
                                 {"state", "STATE_COMPLETED"},
                                 {"resources", {{"model.pt", "1024"}, {"meta.json", "512"}}},
                                 {"metadata", {{"steps_completed", 100}}},
                                 {"reportTime", "2024-05-01T10:04:00Z"},
                                 {"training", {{"trialId", 7}}}}});
  std::string text = RenderExperimentDescription(get, trials, ckpts, OutputFormat::kTable);
  EXPECT_NE(text.find("Experiment:\n"), std::string::npos);
  EXPECT_NE(text.find("\nTrials:\n"), std::string::npos);
  EXPECT_NE(text.find("\nCheckpoints:\n"), std::string::npos);
  EXPECT_NE(text.find("{\"lr\":0.1}"), std::string::npos) << text;
  EXPECT_NE(text.find("validation_loss=0.25"), std::string::npos) << text;
  EXPECT_NE(text.find("a, b"), std::string::npos) << text;
  EXPECT_NE(text.find("abc-123 |        7 |   100 | COMPLETED | 2024-05-01 10:04:00+0000 | 1.5KB | "
                      "/d/checkpoints/abc-123"),
            std::string::npos)
      << text;
  std::string csv = RenderExperimentDescription(get, trials, ckpts, OutputFormat::kCsv);
  EXPECT_EQ(csv.find("Experiment:"), std::string::npos);
  EXPECT_NE(csv.find("abc-123,7,100,COMPLETED"), std::string::npos) << csv;
}

TEST(ExperimentViewTest, ListCheckpointsShowsTheSearcherMetricAtEachCheckpoint) {
  json with_metric = {{"uuid", "abc"},
                      {"state", "STATE_COMPLETED"},
                      {"resources", {{"model.pt", "1024"}, {"meta.json", "512"}}},
                      {"metadata", {{"steps_completed", 100}}},
                      {"training", {{"trialId", 7}, {"validationMetrics", {{"avgMetrics", {{"loss", 0.25}}}}}}}};
  json without = {{"uuid", "def"}, {"state", "STATE_DELETED"}, {"training", {{"trialId", "8"}}}};
  std::string csv = Render(ExperimentCheckpointsTable(json::array({with_metric, without}), "loss"), OutputFormat::kCsv);
  EXPECT_EQ(csv,
            "Trial ID,# of Batches,State,Validation Metric,UUID,Resources,Size\n"
            "7,100,COMPLETED,0.25,abc,2,1.5KB\n"
            "8,,DELETED,,def,0,0.0B\n");
}

TEST(ExperimentViewTest, CheckpointBytesAcceptsStringsAndNumbers) {
  EXPECT_EQ(CheckpointBytes(json{{"resources", {{"a", "10"}, {"b", 5}}}}), 15);
  EXPECT_EQ(CheckpointBytes(json::object()), 0);
}

TEST(ExperimentViewTest, StorageFallsBackToExperimentConfig) {
  json get = {{"experiment", {{"config", {{"checkpoint_storage", {{"type", "directory"}}}}}}}};
  EXPECT_EQ(CheckpointStorageOf(get)["type"], "directory");
}

}  // namespace
}  // namespace det::cli
