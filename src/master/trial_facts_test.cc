#include "master/trial_facts.h"

#include <gtest/gtest.h>

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

  // The experiment goes and SQLite gives its trial id to a new one.
  ASSERT_TRUE(store->UpdateExperimentState(exp, api::ExperimentState::kCompleted, std::chrono::system_clock::now(), 1)
                  .ok());
  ASSERT_TRUE(store->DeleteExperiment(exp, {api::ExperimentState::kCompleted}).ok());
  int64_t reused = 0;
  int64_t next = AddExperimentWithTrial(*store, &reused);
  ASSERT_EQ(reused, trial_id) << "the test needs SQLite to reuse the id";
  EXPECT_EQ(cache.Trial(trial_id, false, now)->experiment_id, exp) << "kept";
  EXPECT_EQ(cache.Trial(trial_id, true, now)->experiment_id, next) << "read afresh";
  EXPECT_EQ(cache.Trial(trial_id, false, now)->experiment_id, next) << "and kept again";
}

}  // namespace
}  // namespace det::master
