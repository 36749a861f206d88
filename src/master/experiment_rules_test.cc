#include "master/experiment_rules.h"

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "master/db/store_test_backends.h"
#include "master/db/temp_sqlite_store.h"

namespace det::master {
namespace {

class ExperimentRulesTest : public ::testing::Test {
 protected:
  TempSqliteStore store_{"det_rules_test"};
};

TEST_F(ExperimentRulesTest, ArchiveAndDeleteNeedATerminalState) {
  int64_t live = AddExperiment(*store_, "live", 2, api::ExperimentState::kActive, {}, 1);
  absl::Status st = ArchiveExperiment(*store_, live, true);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(DeleteExperimentRecords(*store_, live).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(store_->GetExperiment(live).ok());

  int64_t trial_id = 0;
  int64_t done = AddExperimentWithTrial(*store_, &trial_id);
  ASSERT_TRUE(
      store_->UpdateExperimentState(done, api::ExperimentState::kCompleted, std::chrono::system_clock::now(), 1.0).ok());
  ASSERT_TRUE(ArchiveExperiment(*store_, done, true).ok());
  EXPECT_TRUE(store_->GetExperiment(done)->archived);
  ASSERT_TRUE(ArchiveExperiment(*store_, done, false).ok());
  EXPECT_FALSE(store_->GetExperiment(done)->archived);
  ASSERT_TRUE(DeleteExperimentRecords(*store_, done).ok());
  EXPECT_EQ(store_->GetExperiment(done).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->GetTrial(trial_id).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(DeleteExperimentRecords(*store_, done).code(), absl::StatusCode::kNotFound);
}

TEST_F(ExperimentRulesTest, OnlyAFinishedExperimentBecomesDeletingAndAFailedDeletionCanBeRetried) {
  int64_t live = AddExperiment(*store_, "live", 2, api::ExperimentState::kActive, {}, 1);
  absl::Status refused = StartDeletingExperiment(*store_, live);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.message(), "experiment in non terminal state 'STATE_ACTIVE', try again later");

  int64_t trial_id = 0;
  int64_t done = AddExperimentWithTrial(*store_, &trial_id);
  ASSERT_TRUE(
      store_->UpdateExperimentState(done, api::ExperimentState::kCanceled, std::chrono::system_clock::now(), 0.5).ok());
  ASSERT_TRUE(StartDeletingExperiment(*store_, done).ok());
  EXPECT_EQ(store_->GetExperiment(done)->state, api::ExperimentState::kDeleting);
  EXPECT_EQ(StartDeletingExperiment(*store_, done).code(), absl::StatusCode::kFailedPrecondition) << "already deleting";
  EXPECT_EQ(ArchiveExperiment(*store_, done, true).code(), absl::StatusCode::kFailedPrecondition);

  ASSERT_TRUE(MarkExperimentDeleteFailed(*store_, done).ok());
  EXPECT_EQ(store_->GetExperiment(done)->state, api::ExperimentState::kDeleteFailed);
  ASSERT_TRUE(StartDeletingExperiment(*store_, done).ok()) << "a failed deletion can be asked for again";
  ASSERT_TRUE(DeleteExperimentRecords(*store_, done).ok());
  EXPECT_EQ(store_->GetExperiment(done).status().code(), absl::StatusCode::kNotFound);
}

TEST(ChangeEndedExperimentStateTest, StoppingAgainDoesNothingAndPausingOrActivatingIsRefused) {
  using api::ExperimentState;
  EXPECT_TRUE(ChangeEndedExperimentState(ExperimentState::kCompleted, ExperimentState::kStoppingCanceled).ok());
  EXPECT_TRUE(ChangeEndedExperimentState(ExperimentState::kCanceled, ExperimentState::kStoppingKilled).ok());
  for (ExperimentState target : {ExperimentState::kActive, ExperimentState::kPaused}) {
    absl::Status refused = ChangeEndedExperimentState(ExperimentState::kError, target);
    EXPECT_TRUE(absl::IsFailedPrecondition(refused));
    EXPECT_EQ(refused.message(), "experiment in incompatible state STATE_ERROR");
  }
}

TEST(ContinuedConfigTest, OverridesMergeInButHyperparametersStay) {
  const nlohmann::json stored = {{"searcher", {{"name", "single"}, {"max_length", {{"batches", 100}}}}},
                                 {"hyperparameters", {{"lr", {{"type", "const"}, {"val", 0.1}}}}}};
  absl::StatusOr<nlohmann::json> longer =
      ContinuedConfig(stored, {{"searcher", {{"max_length", {{"batches", 300}}}}}});
  ASSERT_TRUE(longer.ok()) << longer.status();
  EXPECT_EQ((*longer)["searcher"], (nlohmann::json{{"name", "single"}, {"max_length", {{"batches", 300}}}}));
  EXPECT_TRUE(ContinuedConfig(stored, {{"hyperparameters", stored["hyperparameters"]}}).ok()) << "the same ones";
  absl::StatusOr<nlohmann::json> other =
      ContinuedConfig(stored, {{"hyperparameters", {{"lr", {{"type", "const"}, {"val", 0.2}}}}}});
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(other.status().message().find("hyperparameters"), absl::string_view::npos);
}

}  // namespace
}  // namespace det::master
