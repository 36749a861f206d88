#include "master/log_retention.h"

#include <gtest/gtest.h>

#include "master/db/store_test_backends.h"
#include "master/db/temp_sqlite_store.h"

namespace det::master {
namespace {

constexpr auto kDay = std::chrono::hours(24);

TEST(LogRetentionTest, RemainingDaysCountFromTheEndOfTheTrial) {
  const WallTime now = std::chrono::system_clock::now();
  api::Trial trial;
  EXPECT_EQ(RemainingRetentionDays(trial, std::nullopt, now), -1) << "no retention anywhere: forever";
  EXPECT_EQ(RemainingRetentionDays(trial, 30, now), 30) << "running: all of them";
  trial.end_time = now - 10 * kDay - std::chrono::hours(1);
  EXPECT_EQ(RemainingRetentionDays(trial, 30, now), 20);
  EXPECT_EQ(RemainingRetentionDays(trial, 5, now), 0) << "due";
  trial.log_retention_days = -1;
  EXPECT_EQ(RemainingRetentionDays(trial, 5, now), -1) << "its own retention first";
  trial.log_retention_days = 12;
  EXPECT_EQ(RemainingRetentionDays(trial, std::nullopt, now), 2);
}

TEST(LogRetentionTest, APassDeletesWhatExpiredByTheDefaultAndTheWorkerRunsOnceAtStart) {
  TempSqliteStore store("log_retention");
  int64_t trial_id;
  AddExperimentWithTrial(*store, &trial_id);
  api::Trial t = *store->GetTrial(trial_id);
  t.state = api::TrialState::kCompleted;
  t.end_time = std::chrono::system_clock::now() - 3 * kDay;
  ASSERT_TRUE(store->UpdateTrialLifecycle(t).ok());
  api::TaskLog line;
  line.task_id = t.task_id;
  line.log = "x";
  ASSERT_TRUE(store->AddTaskLogs({line, line}).ok());

  auto keep_forever = LogRetention::Start(*store, {.log_retention_days = std::nullopt, .schedule = "24h"});
  ASSERT_TRUE(keep_forever.ok()) << keep_forever.status();
  EXPECT_EQ(*(*keep_forever)->RunOnce(std::chrono::system_clock::now()), 0);
  keep_forever->reset();
  {
    auto two_days = LogRetention::Start(*store, {.log_retention_days = 2, .schedule = "0 0 * * *"});
    ASSERT_TRUE(two_days.ok()) << two_days.status();
    // The worker's first pass, at start.
    for (int i = 0; i < 500 && !store->GetTaskLogs(t.task_id, 0, 10, {})->empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(store->GetTaskLogs(t.task_id, 0, 10, {})->empty());
  }
  EXPECT_EQ(LogRetention::Start(*store, {.schedule = "sometimes"}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace det::master
