#include "cli/experiment_test_mode.h"

#include <gtest/gtest.h>

namespace det::cli {
namespace {

using nlohmann::json;

TEST(ExperimentTestModeTest, TheTestCopyRunsOneTrialOnTheSameMetricWithoutRestarts) {
  json config = {{"name", "mnist"},
                 {"max_restarts", 5},
                 {"searcher",
                  {{"name", "adaptive_asha"},
                   {"metric", "val_loss"},
                   {"smaller_is_better", true},
                   {"max_trials", 16},
                   {"max_length", {{"epochs", 10}}}}},
                 {"hyperparameters", {{"lr", {{"type", "log"}, {"minval", -4}, {"maxval", -1}, {"base", 10}}}}}};
  json test = MakeTestExperimentConfig(config);
  EXPECT_EQ(test["searcher"], (json{{"name", "single"},
                                    {"metric", "val_loss"},
                                    {"smaller_is_better", true},
                                    {"max_length", {{"epochs", 1}}}}));
  EXPECT_EQ(test["max_restarts"], 0);
  EXPECT_EQ(test["description"], "[test-mode] mnist");
  EXPECT_EQ(test["hyperparameters"], config["hyperparameters"]) << "the single searcher samples them";
  EXPECT_FALSE(MakeTestExperimentConfig(json{{"searcher", {{"name", "grid"}, {"metric", "m"}}}})["searcher"].contains(
      "max_length"));
}

TEST(ExperimentTestModeTest, TheStageFollowsWhatTheTrialReported) {
  EXPECT_EQ(TestStage(json()), 0);
  EXPECT_EQ(TestStage(json{{"state", "STATE_QUEUED"}}), 0);
  json trial = {{"state", "STATE_RUNNING"}, {"totalBatchesProcessed", 0}, {"latestValidation", nullptr},
                {"checkpointCount", 0}};
  EXPECT_EQ(TestStage(trial), 1);
  trial["totalBatchesProcessed"] = 10;
  EXPECT_EQ(TestStage(trial), 2);
  trial["latestValidation"] = {{"metrics", json::object()}};
  EXPECT_EQ(TestStage(trial), 3);
  trial["checkpointCount"] = 1;
  EXPECT_EQ(TestStage(trial), 4);
}

}  // namespace
}  // namespace det::cli
