#include "master/experiment_rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "master/db/temp_sqlite_store.h"

namespace det::master {
namespace {

class ExperimentRulesTest : public ::testing::Test {
 protected:
  int64_t Add(const std::string& name, int64_t owner, api::ExperimentState state, std::vector<std::string> labels,
              int minutes_ago) {
    api::Experiment e;
    e.name = name;
    e.labels = std::move(labels);
    e.state = state;
    e.config_json = "{}";
    e.owner_id = owner;
    e.job_id = "job-" + name;
    e.start_time = std::chrono::system_clock::now() - std::chrono::minutes(minutes_ago);
    auto id = store_->InsertExperiment(e, "tgz");
    EXPECT_TRUE(id.ok()) << id.status();
    return *id;
  }
  int64_t AddExperimentWithTrial(int64_t* trial_id) {
    int64_t id = Add("exp", 2, api::ExperimentState::kActive, {}, 0);
    api::Trial t;
    t.experiment_id = id;
    t.request_id = "r";
    t.task_id = std::to_string(id) + ".1";
    t.start_time = std::chrono::system_clock::now();
    auto tid = store_->InsertTrial(t);
    EXPECT_TRUE(tid.ok()) << tid.status();
    *trial_id = *tid;
    return id;
  }

  TempSqliteStore store_{"det_rules_test"};
};

TEST_F(ExperimentRulesTest, ArchiveAndDeleteNeedATerminalState) {
  int64_t live = Add("live", 2, api::ExperimentState::kActive, {}, 1);
  absl::Status st = ArchiveExperiment(*store_, live, true);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(DeleteExperimentRecords(*store_, live).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(store_->GetExperiment(live).ok());

  int64_t trial_id = 0;
  int64_t done = AddExperimentWithTrial(&trial_id);
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
  int64_t live = Add("live", 2, api::ExperimentState::kActive, {}, 1);
  absl::Status refused = StartDeletingExperiment(*store_, live);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.message(), "experiment in non terminal state 'STATE_ACTIVE', try again later");

  int64_t trial_id = 0;
  int64_t done = AddExperimentWithTrial(&trial_id);
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

}  // namespace
}  // namespace det::master
