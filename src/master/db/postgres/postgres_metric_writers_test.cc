// PostgreSQL's metric writers commit beside the writer (SqlDatabase::SideWriters): they never wait for
// a trial another transaction holds, and an experiment's deletion cannot leave their metrics behind.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "master/db/store_test_backends.h"

namespace det::master {
namespace {

absl::StatusOr<std::vector<std::vector<int64_t>>> AddOneReport(Store& store, int64_t trial, int writer) {
  api::MetricsReport m;
  m.trial_id = trial;
  m.group = "training";
  m.total_batches = 1;
  m.metrics_json = R"({"loss":1})";
  return store.AddMetricsBatch({{{m}, [](api::Trial&, const std::vector<api::MetricsReport>&) {}}}, writer);
}

int64_t Count(SqlConnection& db, const std::string& sql) {
  auto s = db.Prepare(sql);
  EXPECT_TRUE(s.ok()) << s.status();
  if (!s.ok()) return -1;
  absl::StatusOr<bool> row = s->Step();
  EXPECT_TRUE(row.ok() && *row) << sql;
  return row.ok() && *row ? s->Int(0) : -1;
}

TEST(PostgresMetricWritersTest, TwoWritersBesideTheWriter) {
  PostgresTestBackend backend;
  auto store = backend.Open();
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->MetricWriters(), 2);
}

TEST(PostgresMetricWritersTest, AWriterDoesNotWaitForATrialAnotherTransactionHolds) {
  PostgresTestBackend backend;
  auto store = backend.Open();
  ASSERT_TRUE(store.ok()) << store.status();
  int64_t trial = 0;
  AddExperimentWithTrial(**store, &trial);
  auto other = PostgresConnection::Connect(backend.ConnectionString());
  {
    SqlTransaction tx(*other);
    ASSERT_TRUE(tx.Begin().ok());
    auto lock = other->Prepare("SELECT id FROM trials WHERE id = ? FOR UPDATE");
    ASSERT_TRUE(lock.ok()) << lock.status();
    ASSERT_TRUE(lock->Bind(1, trial).Run().ok());
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(AddOneReport(**store, trial, 1).status().code(), absl::StatusCode::kAborted);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1)) << "it waited for the lock";
  }  // rolled back
  EXPECT_TRUE(AddOneReport(**store, trial, 1).ok());
  EXPECT_EQ(Count(*other, absl::StrCat("SELECT count(*) FROM metrics WHERE trial_id = ", trial)), 1);
}

// A metric writer's transaction is open (its trial locked, a row inserted) when the experiment is
// deleted: the deletion waits for it and then deletes its row too.
TEST(PostgresMetricWritersTest, AnExperimentsDeletionWaitsForAMetricWriterAndLeavesNoMetrics) {
  PostgresTestBackend backend;
  auto store = backend.Open();
  ASSERT_TRUE(store.ok()) << store.status();
  int64_t trial = 0;
  const int64_t experiment = AddExperimentWithTrial(**store, &trial);
  const api::ExperimentState state = (*store)->GetExperiment(experiment)->state;
  auto writer = PostgresConnection::Connect(backend.ConnectionString());
  auto admin = PostgresConnection::Connect(backend.ConnectionString());
  SqlTransaction tx(*writer);
  ASSERT_TRUE(tx.Begin().ok());
  auto lock = writer->Prepare("SELECT id FROM trials WHERE id = ? FOR NO KEY UPDATE NOWAIT");
  ASSERT_TRUE(lock.ok()) << lock.status();
  ASSERT_TRUE(lock->Bind(1, trial).Run().ok());
  auto insert = writer->Prepare(
      "INSERT INTO metrics (trial_id, trial_run_id, metric_group, total_batches, end_time, metrics) "
      "VALUES (?, 1, 'training', 1, 0, '{}')");
  ASSERT_TRUE(insert.ok()) << insert.status();
  ASSERT_TRUE(insert->Bind(1, trial).Run().ok());

  absl::StatusOr<api::ExperimentState> deleted = absl::UnknownError("not run");
  std::thread deleter([&] { deleted = (*store)->DeleteExperiment(experiment, {state}); });
  const std::string waiting =
      "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";
  for (int i = 0; i < 500 && Count(*admin, waiting) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(Count(*admin, waiting), 1) << "the deletion should wait for the metric writer";
  ASSERT_TRUE(tx.Commit().ok());
  deleter.join();
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_EQ(Count(*admin, absl::StrCat("SELECT count(*) FROM metrics WHERE trial_id = ", trial)), 0);
  EXPECT_EQ(AddOneReport(**store, trial, 0).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace det::master
