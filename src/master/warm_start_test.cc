#include "master/warm_start.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "master/db/store_test_backends.h"
#include "master/db/temp_sqlite_store.h"

namespace det::master {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json Searcher(json fields) { return {{"searcher", std::move(fields)}}; }

TEST(WarmStartTest, WithoutASourceThereIsNone) {
  TempSqliteStore store("det_warm_start_test");
  EXPECT_EQ(*WarmStartCheckpoint(*store, *store, Searcher({{"name", "single"}})), "");
  EXPECT_EQ(*WarmStartCheckpoint(*store, *store, json::object()), "");
}

TEST(WarmStartTest, ASourceCheckpointMustExist) {
  TempSqliteStore store("det_warm_start_test2");
  int64_t trial_id = 0;
  int64_t exp_id = AddExperimentWithTrial(*store, &trial_id);
  api::Checkpoint ckpt{.uuid = "ckpt-1", .task_id = std::to_string(exp_id) + ".1", .trial_id = trial_id,
                       .experiment_id = exp_id, .report_time = std::chrono::system_clock::now()};
  ASSERT_TRUE(store->AddCheckpoint(ckpt, 10).ok());
  EXPECT_EQ(*WarmStartCheckpoint(*store, *store, Searcher({{"source_checkpoint_uuid", "ckpt-1"}})), "ckpt-1");
  absl::StatusOr<std::string> missing = WarmStartCheckpoint(*store, *store, Searcher({{"source_checkpoint_uuid", "nope"}}));
  EXPECT_TRUE(absl::IsInvalidArgument(missing.status()));
  EXPECT_THAT(missing.status().message(), HasSubstr("searcher.source_checkpoint_uuid: no checkpoint nope"));
}

TEST(WarmStartTest, ASourceTrialGivesItsLatestCheckpoint) {
  TempSqliteStore store("det_warm_start_test3");
  int64_t trial_id = 0;
  int64_t exp_id = AddExperimentWithTrial(*store, &trial_id);
  absl::StatusOr<std::string> bare = WarmStartCheckpoint(*store, *store, Searcher({{"source_trial_id", trial_id}}));
  EXPECT_TRUE(absl::IsInvalidArgument(bare.status()));
  EXPECT_THAT(bare.status().message(), HasSubstr("has no checkpoint to start from"));

  api::Checkpoint ckpt{.uuid = "ckpt-2", .task_id = std::to_string(exp_id) + ".1", .trial_id = trial_id,
                       .experiment_id = exp_id, .report_time = std::chrono::system_clock::now()};
  ASSERT_TRUE(store->AddCheckpoint(ckpt, 10).ok());
  EXPECT_EQ(*WarmStartCheckpoint(*store, *store, Searcher({{"source_trial_id", trial_id}})), "ckpt-2");
  absl::StatusOr<std::string> missing = WarmStartCheckpoint(*store, *store, Searcher({{"source_trial_id", 999}}));
  EXPECT_TRUE(absl::IsInvalidArgument(missing.status()));
  EXPECT_THAT(missing.status().message(), HasSubstr("searcher.source_trial_id: no trial 999"));
}

}  // namespace
}  // namespace det::master
