#include "master/experiment_rules.h"

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
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

TEST(StateChangeOfEndedExperimentTest, ALiveExperimentIsTheClustersToChange) {
  using api::ExperimentState;
  for (ExperimentState live : {ExperimentState::kActive, ExperimentState::kPaused, ExperimentState::kStoppingCanceled,
                               ExperimentState::kStoppingKilled, ExperimentState::kStoppingCompleted,
                               ExperimentState::kStoppingError}) {
    for (StateChangeScope scope : {StateChangeScope::kOneExperiment, StateChangeScope::kBulk}) {
      EXPECT_EQ(StateChangeOfEndedExperiment(3, live, ExperimentState::kPaused, scope), std::nullopt)
          << api::Name(live);
    }
  }
}

TEST(StateChangeOfEndedExperimentTest, StoppingAgainDoesNothingAndPausingOrActivatingIsRefused) {
  using api::ExperimentState;
  constexpr StateChangeScope kOne = StateChangeScope::kOneExperiment;
  EXPECT_EQ(StateChangeOfEndedExperiment(3, ExperimentState::kCompleted, ExperimentState::kStoppingCanceled, kOne),
            absl::OkStatus());
  EXPECT_EQ(StateChangeOfEndedExperiment(3, ExperimentState::kCanceled, ExperimentState::kStoppingKilled, kOne),
            absl::OkStatus());
  for (ExperimentState target : {ExperimentState::kActive, ExperimentState::kPaused}) {
    std::optional<absl::Status> refused = StateChangeOfEndedExperiment(3, ExperimentState::kError, target, kOne);
    ASSERT_TRUE(refused.has_value());
    EXPECT_TRUE(absl::IsFailedPrecondition(*refused));
    EXPECT_EQ(refused->message(), "experiment in incompatible state STATE_ERROR");
  }
  // Being deleted, or failed to be, is ended too.
  for (ExperimentState ended : {ExperimentState::kDeleting, ExperimentState::kDeleteFailed}) {
    EXPECT_TRUE(absl::IsFailedPrecondition(*StateChangeOfEndedExperiment(3, ended, ExperimentState::kActive, kOne)));
  }
}

TEST(StateChangeOfEndedExperimentTest, InABulkActionAnyChangeOfAnEndedOneIsAnError) {
  using api::ExperimentState;
  for (ExperimentState target : {ExperimentState::kActive, ExperimentState::kPaused, ExperimentState::kStoppingCanceled,
                                 ExperimentState::kStoppingKilled}) {
    std::optional<absl::Status> refused =
        StateChangeOfEndedExperiment(8, ExperimentState::kCompleted, target, StateChangeScope::kBulk);
    ASSERT_TRUE(refused.has_value());
    EXPECT_TRUE(absl::IsFailedPrecondition(*refused));
    EXPECT_EQ(refused->message(), "experiment 8 is COMPLETED: it has ended");
  }
}

TEST(ResourcesChangeResultTest, TheClusterKnowingNoJobMeansTheExperimentHasEnded) {
  absl::Status ended = ResourcesChangeResult(5, api::ExperimentState::kCanceled, absl::NotFoundError("job x not found"));
  EXPECT_TRUE(absl::IsFailedPrecondition(ended));
  EXPECT_EQ(ended.message(), "experiment 5 is CANCELED; its resources can be changed only while it is active or paused");
  EXPECT_TRUE(ResourcesChangeResult(5, api::ExperimentState::kActive, absl::OkStatus()).ok());
  absl::Status other = absl::InvalidArgumentError("priority: must be from 1 to 99");
  EXPECT_EQ(ResourcesChangeResult(5, api::ExperimentState::kActive, other), other);
}

TEST(BestSearcherMetricTest, TheBestReportedValueByTheSearchersOrder) {
  auto trial = [](std::optional<double> value) {
    api::Trial t;
    t.searcher_metric_value = value;
    return t;
  };
  std::vector<api::Trial> trials = {trial(0.5), trial(std::nullopt), trial(0.2), trial(0.9)};
  EXPECT_EQ(*BestSearcherMetric(1, trials, /*smaller_is_better=*/true), 0.2);
  EXPECT_EQ(*BestSearcherMetric(1, trials, /*smaller_is_better=*/false), 0.9);
  absl::StatusOr<double> none = BestSearcherMetric(4, {trial(std::nullopt)}, true);
  EXPECT_TRUE(absl::IsNotFound(none.status()));
  EXPECT_EQ(none.status().message(), "experiment 4 has no validation metrics yet");
  EXPECT_TRUE(absl::IsNotFound(BestSearcherMetric(4, {}, true).status()));
}

TEST(TrialToContinueTest, OnlyASingleTrialExperimentContinues) {
  api::Trial only;
  only.id = 12;
  absl::StatusOr<api::Trial> trial = TrialToContinue(3, {only});
  ASSERT_TRUE(trial.ok()) << trial.status();
  EXPECT_EQ(trial->id, 12);
  for (size_t n : {size_t{0}, size_t{2}}) {
    absl::StatusOr<api::Trial> refused = TrialToContinue(3, std::vector<api::Trial>(n));
    EXPECT_TRUE(absl::IsFailedPrecondition(refused.status()));
    EXPECT_EQ(refused.status().message(),
              absl::StrCat("experiment 3 has ", n, " trials; only a single-trial experiment continues"));
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
