#include "master/trial_facts.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "master/db/store_test_backends.h"
#include "master/db/temp_sqlite_store.h"

namespace det::master {
namespace {

TEST(TrialFactsCacheTest, KeptUntilAskedFreshOrTooOld) {
  TempSqliteStore store("det_trial_facts");
  int64_t trial_id = 0;
  int64_t exp = AddExperimentWithTrial(*store, &trial_id);
  TrialFactsCache cache(*store, std::chrono::seconds(60));
  auto now = TrialFactsCache::Clock::now();
  auto facts = cache.Trial(trial_id, false, now);
  ASSERT_TRUE(facts.ok()) << facts.status();
  EXPECT_EQ(facts->experiment_id, exp);
  EXPECT_EQ(facts->searcher.name, "acc");

  // The experiment goes: kept facts still answer until asked fresh or too old.
  ASSERT_TRUE(store->UpdateExperimentState(exp, api::ExperimentState::kCompleted, std::chrono::system_clock::now(), 1)
                  .ok());
  ASSERT_TRUE(store->DeleteExperiment(exp, {api::ExperimentState::kCompleted}).ok());
  EXPECT_EQ(cache.Trial(trial_id, false, now + std::chrono::seconds(59))->experiment_id, exp) << "kept";
  EXPECT_EQ(cache.Trial(trial_id, false, now + std::chrono::seconds(60)).status().code(), absl::StatusCode::kNotFound)
      << "too old: read again";
  EXPECT_EQ(cache.Trial(trial_id, true, now).status().code(), absl::StatusCode::kNotFound) << "read afresh";
}

TEST(TrialFactsCacheTest, AReportIsTheTrialsOwnAllocationsOrAUsers) {
  TempSqliteStore store("det_trial_facts");
  int64_t trial_id = 0, other_trial = 0;
  AddExperimentWithTrial(*store, &trial_id);
  AddExperimentWithTrial(*store, &other_trial);
  const std::string task = store->GetTrial(trial_id)->task_id;
  ASSERT_TRUE(store->InsertAllocation({.allocation_id = task + ".1", .task_id = task, .token_hash = "h"}).ok());
  TrialFactsCache cache(*store);

  absl::StatusOr<TrialFacts> own = cache.TrialReportedBy(trial_id, task + ".1");
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_EQ(own->task_id, task);
  absl::Status other = cache.TrialReportedBy(other_trial, task + ".1").status();
  EXPECT_EQ(other.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(other.message(), absl::StrCat("allocation ", task, ".1 does not belong to trial ", other_trial));
  EXPECT_TRUE(cache.TrialReportedBy(other_trial, "").ok()) << "a user may report for any trial";
  EXPECT_EQ(cache.TrialReportedBy(999, "").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(cache.TrialReportedBy(trial_id, "no-such-allocation").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace det::master
