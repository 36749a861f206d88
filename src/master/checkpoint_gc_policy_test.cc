#include "master/checkpoint_gc_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace det::master {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// Trial 1 checkpoints at 100, 200, 300 with losses 0.5, 0.2, 0.4; trial 2 at 100, 200 with 0.3, 0.6.
std::vector<GcCheckpoint> TwoTrials() {
  return {{"t1-100", 1, 100}, {"t1-200", 1, 200}, {"t1-300", 1, 300}, {"t2-100", 2, 100}, {"t2-200", 2, 200}};
}
std::vector<GcValidation> TheirValidations() {
  return {{1, 1, 100, 0.5}, {2, 1, 200, 0.2}, {3, 1, 300, 0.4}, {4, 2, 100, 0.3}, {5, 2, 200, 0.6}};
}

TEST(CheckpointGcPolicyTest, DefaultsKeepEachTrialsBestAndLatest) {
  EXPECT_THAT(CheckpointsToDelete(TwoTrials(), TheirValidations(), {}, true, {}), ElementsAre("t1-100"));
}

TEST(CheckpointGcPolicyTest, ZeroesDeleteEverything) {
  CheckpointGcPolicy none{.save_experiment_best = 0, .save_trial_best = 0, .save_trial_latest = 0};
  EXPECT_EQ(CheckpointsToDelete(TwoTrials(), TheirValidations(), none, true, {}).size(), 5u);
}

TEST(CheckpointGcPolicyTest, ExperimentBestKeepsTheBestAcrossTrials) {
  CheckpointGcPolicy best2{.save_experiment_best = 2, .save_trial_best = 0, .save_trial_latest = 0};
  // Best two losses: t1-200 (0.2), t2-100 (0.3).
  EXPECT_THAT(CheckpointsToDelete(TwoTrials(), TheirValidations(), best2, true, {}),
              ElementsAre("t1-100", "t1-300", "t2-200"));
}

TEST(CheckpointGcPolicyTest, LargerIsBetterFlipsTheRanking) {
  CheckpointGcPolicy best1{.save_experiment_best = 1, .save_trial_best = 0, .save_trial_latest = 0};
  // Largest value: t2-200 (0.6).
  EXPECT_THAT(CheckpointsToDelete(TwoTrials(), TheirValidations(), best1, false, {}),
              ElementsAre("t1-100", "t1-200", "t1-300", "t2-100"));
}

TEST(CheckpointGcPolicyTest, TrialLatestCountsBySteps) {
  CheckpointGcPolicy latest2{.save_experiment_best = 0, .save_trial_best = 0, .save_trial_latest = 2};
  // Reported out of order: steps decide, not the list order.
  std::vector<GcCheckpoint> shuffled = {{"t1-300", 1, 300}, {"t1-100", 1, 100}, {"t1-200", 1, 200}};
  EXPECT_THAT(CheckpointsToDelete(shuffled, TheirValidations(), latest2, true, {}), ElementsAre("t1-100"));
}

TEST(CheckpointGcPolicyTest, ACheckpointWithoutAValidationAtItsStepIsNotAmongTheBest) {
  std::vector<GcCheckpoint> checkpoints = {{"unvalidated", 1, 150}, {"validated", 1, 100}, {"latest", 1, 400}};
  std::vector<GcValidation> validations = {{1, 1, 100, 0.9}};
  CheckpointGcPolicy policy{.save_experiment_best = 5, .save_trial_best = 5, .save_trial_latest = 1};
  EXPECT_THAT(CheckpointsToDelete(checkpoints, validations, policy, true, {}), ElementsAre("unvalidated"));
}

TEST(CheckpointGcPolicyTest, ValidationsWithoutTheMetricRankLast) {
  std::vector<GcCheckpoint> checkpoints = {{"no-metric", 1, 100}, {"metric", 1, 200}, {"latest", 1, 300}};
  std::vector<GcValidation> validations = {{1, 1, 100, std::nullopt}, {2, 1, 200, 0.9}, {3, 1, 300, 5.0}};
  CheckpointGcPolicy policy{.save_experiment_best = 0, .save_trial_best = 1, .save_trial_latest = 0};
  EXPECT_THAT(CheckpointsToDelete(checkpoints, validations, policy, true, {}), UnorderedElementsAre("no-metric", "latest"));
}

TEST(CheckpointGcPolicyTest, KeptCheckpointsSurvive) {
  CheckpointGcPolicy none{.save_experiment_best = 0, .save_trial_best = 0, .save_trial_latest = 0};
  EXPECT_THAT(CheckpointsToDelete({{"warm-start", 1, 100}}, {}, none, true, {"warm-start"}), IsEmpty());
}

TEST(CheckpointGcPolicyTest, TiesGoToTheEarlierValidation) {
  std::vector<GcCheckpoint> checkpoints = {{"first", 1, 100}, {"second", 2, 100}};
  std::vector<GcValidation> validations = {{7, 1, 100, 0.5}, {3, 2, 100, 0.5}};
  CheckpointGcPolicy best1{.save_experiment_best = 1, .save_trial_best = 0, .save_trial_latest = 0};
  EXPECT_THAT(CheckpointsToDelete(checkpoints, validations, best1, true, {}), ElementsAre("first"));
}

}  // namespace
}  // namespace det::master
