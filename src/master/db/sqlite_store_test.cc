// What only the SQLite store has to show: rows written by older masters, which PostgreSQL never held
// (its schema starts at migration 0009). Everything else is in store_conformance_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "master/db/store_test_backends.h"

namespace det::master {
namespace {

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = backend_.Open();
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(*s);
  }

  int64_t AddExperimentWithTrial(int64_t* trial_id) { return det::master::AddExperimentWithTrial(*store_, trial_id); }

  SqliteTestBackend backend_;
  std::unique_ptr<SqlStore> store_;
};

// Migration 0008 gives every trial stored before it a TRIAL task owned by its experiment's owner (0009,
// which adds columns to its table, is undone and made again with it).
TEST_F(SqliteStoreTest, TheTasksMigrationCarriesOverExistingTrials) {
  int64_t trial_id = 0;
  AddExperimentWithTrial(&trial_id);
  const std::string task_id = store_->GetTrial(trial_id)->task_id;
  store_.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((backend_.dir() / "det.db").string().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "DROP TABLE tasks; ALTER TABLE allocations DROP COLUMN resource_pool; "
                         "ALTER TABLE allocations DROP COLUMN is_ready; "
                         "ALTER TABLE allocations DROP COLUMN service_address; "
                         "ALTER TABLE allocations DROP COLUMN service_user; "
                         "DELETE FROM schema_migrations WHERE version IN (8, 9)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto again = backend_.Open();
  ASSERT_TRUE(again.ok()) << again.status();
  absl::StatusOr<Task> task = (*again)->GetTask(task_id);
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->type, TaskType::kTrial);
  EXPECT_EQ(task->owner_id, 2);
  EXPECT_EQ(task->job_id, "job");
  EXPECT_EQ(task->state, TaskState::kActive);
}

TEST_F(SqliteStoreTest, AllocationPlacementsRoundTripAndOldRowsStillRead) {
  int64_t trial_id = 0;
  AddExperimentWithTrial(&trial_id);
  Allocation a;
  a.allocation_id = "t.1";
  a.task_id = "t";
  a.slots = 3;
  a.start_time = std::chrono::system_clock::now();
  ASSERT_TRUE(store_->InsertAllocation(a).ok());
  EXPECT_TRUE(store_->GetAllocation("t.1")->placements.empty());
  a.state = AllocationState::kRunning;
  a.placements = {{"a1", {0, 1}}, {"a2", {}}};
  ASSERT_TRUE(store_->UpdateAllocation(a).ok());
  EXPECT_EQ(store_->GetAllocation("t.1")->placements, a.placements);

  // Rows written before gang placement: device ids of the agent in agent_id.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((backend_.dir() / "det.db").string().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE allocations SET agent_id = 'old', slot_ids = '[2,3]'", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(store_->GetAllocation("t.1")->placements, (std::vector<AgentSlots>{{"old", {2, 3}}}));
}

}  // namespace
}  // namespace det::master
