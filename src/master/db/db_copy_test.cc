#include "master/db/db_copy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "master/db/postgres/postgres_database.h"
#include "master/db/sqlite/sqlite_database.h"
#include "master/db/store_test_backends.h"

namespace det::master {
namespace {

using ::testing::HasSubstr;

// Every table as text rows in key order (PostgreSQL's rowid stand-in left out), to compare databases.
std::map<std::string, std::vector<std::string>> Dump(SqlDatabase& db) {
  std::map<std::string, std::vector<std::string>> out;
  SqlLease c = db.Reader();
  for (const std::string& table : ClusterTables()) {
    auto s = c->Prepare(absl::StrCat("SELECT * FROM ", table, " ORDER BY 1"));
    EXPECT_TRUE(s.ok()) << s.status();
    if (!s.ok()) continue;
    while (*s->Step()) {
      std::string row;
      for (int i = 0; i < s->ColumnCount(); ++i) {
        if (s->ColumnName(i) == "rowid") continue;
        char d[32];
        switch (s->Type(i)) {
          case SqlValueType::kNull: row += "NULL"; break;
          case SqlValueType::kInt: row += std::to_string(s->Int(i)); break;
          case SqlValueType::kDouble:
            std::snprintf(d, sizeof d, "%.17g", s->Double(i));
            row += d;
            break;
          default: row += "'" + s->Text(i) + "'";
        }
        row += "|";
      }
      out[table].push_back(row);
    }
  }
  return out;
}

// A cluster with a row in every table: users and a session, an experiment (binary model definition,
// labels), a trial, a task with a binary context, allocations, metrics, checkpoints, logs, a
// template, a searcher snapshot with an event, and a deleted experiment's id.
void Populate(SqlStore& store) {
  auto now = std::chrono::system_clock::now();
  api::User u;
  u.username = "alice";
  u.password_hash = "hash";
  ASSERT_TRUE(store.InsertUser(u).ok());
  ASSERT_TRUE(store.AddSession("token", 3, now + std::chrono::hours(1)).ok());
  api::Experiment e;
  e.name = "exp";
  e.labels = {"a", "b"};
  e.config_json = R"({"searcher":{"metric":"loss"}})";
  e.original_config = "name: exp\n";
  e.owner_id = 3;
  e.job_id = "job";
  e.start_time = now;
  e.progress = 0.1 + 0.2;
  std::string binary("\x00\x01\xff tgz", 7);
  auto exp = store.InsertExperiment(e, binary);
  ASSERT_TRUE(exp.ok()) << exp.status();
  api::Trial t;
  t.experiment_id = *exp;
  t.request_id = "r";
  t.task_id = "trial-task";
  t.hparams_json = R"({"lr":0.001})";
  t.start_time = now;
  auto trial = store.InsertTrial(t);
  ASSERT_TRUE(trial.ok());
  Task task;
  task.task_id = "cmd-1";
  task.owner_id = 3;
  task.start_time = now;
  task.service_json = R"({"token":"x"})";
  ASSERT_TRUE(store.InsertTask(task, binary).ok());
  for (const char* id : {"cmd-1.1", "cmd-1.2"}) {
    Allocation a;
    a.allocation_id = id;
    a.task_id = "cmd-1";
    a.token_hash = std::string("h") + id;
    a.slots = 1;
    a.start_time = now;
    ASSERT_TRUE(store.InsertAllocation(a).ok());
    a.placements = {{"agent", {0}}};
    a.state = AllocationState::kRunning;
    a.service_address = "10.0.0.1:8888";
    ASSERT_TRUE(store.UpdateAllocation(a).ok());
  }
  for (int i = 0; i < 1200; ++i) {  // more than a page of reads and an insert statement
    api::MetricsReport m;
    m.trial_id = *trial;
    m.group = i % 2 ? "validation" : "training";
    m.total_batches = i;
    m.end_time = now;
    m.metrics_json = absl::StrCat(R"({"loss":)", 1.0 / (i + 3), "}");
    ASSERT_TRUE(AddMetrics(store, {m}, [](api::Trial& tr, const std::vector<api::MetricsReport>& r) {
      tr.total_batches = r.back().total_batches;
      tr.searcher_metric_value = 1.0 / 3;
    }).ok());
  }
  api::Checkpoint c;
  c.uuid = "ckpt";
  c.trial_id = *trial;
  c.experiment_id = *exp;
  c.task_id = "trial-task";
  c.resources_json = R"({"model.pt":10})";
  c.report_time = now;
  c.storage_id = *store.CheckpointStorageId(R"({"type":"shared_fs","host_path":"/ckpts"})");
  ASSERT_TRUE(store.AddCheckpoint(c, 10).ok());
  std::vector<api::TaskLog> logs(3);
  for (int i = 0; i < 3; ++i) {
    logs[i].task_id = "cmd-1";
    logs[i].log = absl::StrCat("line ", i, " with 'quotes' and ünïcode\n");
    logs[i].timestamp = now;
    if (i > 0) logs[i].rank_id = i;
  }
  ASSERT_TRUE(store.AddTaskLogs(logs).ok());
  ASSERT_TRUE(store.InsertTemplate({"tpl", R"({"a":1})", 1}).ok());
  absl::StatusOr<Workspace> ws = store.InsertWorkspace({.name = "vision", .user_id = 3, .created_at = now});
  ASSERT_TRUE(ws.ok()) << ws.status();
  ASSERT_TRUE(store.SetWorkspacePinned(ws->id, 3, true).ok());
  ASSERT_TRUE(store.InsertProject({.name = "p", .workspace_id = ws->id, .user_id = 3, .created_at = now, .key = "P"})
                  .ok());
  ASSERT_TRUE(store.BindPool("gpu", {ws->id}, false).ok());
  absl::StatusOr<Model> model = store.InsertModel({.name = "m", .labels = {"x"}, .workspace_id = ws->id, .user_id = 3});
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE(store.InsertModelVersion({.model_id = model->id, .checkpoint_uuid = "ckpt", .user_id = 3}).ok());
  ASSERT_TRUE(store.SaveSearcherSnapshot(*exp, R"({"state":1})").ok());
  ASSERT_TRUE(store.AppendSearcherEvents(*exp, 0, {R"({"e":"initial"})"}).ok());
  int64_t deleted = AddExperiment(store, "deleted", 3, api::ExperimentState::kCanceled);
  ASSERT_TRUE(store.DeleteExperiment(deleted, {api::ExperimentState::kCanceled}).ok());
}

TEST(DbCopyTest, SqliteToPostgresAndBackLosesNothingAndKeepsIds) {
  SqliteTestBackend sqlite;
  {
    auto store = sqlite.Open();
    ASSERT_TRUE(store.ok()) << store.status();
    Populate(**store);
  }
  auto source = OpenDatabaseUrl("sqlite:" + (sqlite.dir() / "det.db").string());
  ASSERT_TRUE(source.ok()) << source.status();
  PostgresTestBackend postgres;
  auto destination = PostgresDatabase::Open(postgres.ConnectionString());
  ASSERT_TRUE(destination.ok()) << destination.status();
  std::vector<CopyProgress> seen;
  ASSERT_TRUE(CopyDatabase(**source, **destination, [&](const CopyProgress& p) { seen.push_back(p); }).ok());
  auto before = Dump(**source);
  EXPECT_EQ(before["metrics"].size(), 1200u);
  EXPECT_EQ(Dump(**destination), before);
  EXPECT_EQ(seen.back().table, "id_high_water");

  // The copy is a working cluster: new rows continue the ids.
  destination->reset();
  auto store = postgres.Open();
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->GetUserByName("alice")->id, 3);
  EXPECT_EQ((*store)->GetModelDefinition(1).value(), std::string("\x00\x01\xff tgz", 7));
  api::User bob;
  bob.username = "bob";
  EXPECT_EQ((*store)->InsertUser(bob)->id, 4);
  EXPECT_EQ(AddExperiment(**store, "new", 3, api::ExperimentState::kActive), 3) << "not the deleted experiment's 2";
  int64_t gone = AddExperiment(**store, "gone", 3, api::ExperimentState::kCanceled);
  ASSERT_EQ(gone, 4);
  ASSERT_TRUE((*store)->DeleteExperiment(gone, {api::ExperimentState::kCanceled}).ok());

  // And back into a new SQLite file.
  auto pg_source = PostgresDatabase::Open(postgres.ConnectionString());
  ASSERT_TRUE(pg_source.ok());
  store->reset();
  auto back = OpenDatabaseUrl((sqlite.dir() / "back.db").string());
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(CopyDatabase(**pg_source, **back).ok());
  auto round_trip = Dump(**back);
  EXPECT_EQ(round_trip["metrics"], before["metrics"]);
  EXPECT_EQ(round_trip["users"].size(), before["users"].size() + 1);
  back->reset();
  auto back_store = OpenSqliteStore((sqlite.dir() / "back.db").string());
  ASSERT_TRUE(back_store.ok()) << back_store.status();
  EXPECT_EQ(AddExperiment(**back_store, "after", 3, api::ExperimentState::kActive), 5)
      << "not experiment 4, which PostgreSQL gave and deleted";
}

TEST(DbCopyTest, RefusesADestinationThatHoldsAClusterAndADatabaseInUse) {
  SqliteTestBackend dir;
  for (const char* name : {"a.db", "b.db"}) {
    auto store = OpenSqliteStore((dir.dir() / name).string());
    ASSERT_TRUE(store.ok());
    Populate(**store);
  }
  auto a = OpenDatabaseUrl((dir.dir() / "a.db").string());
  auto b = OpenDatabaseUrl((dir.dir() / "b.db").string());
  ASSERT_TRUE(a.ok() && b.ok());
  absl::Status full = CopyDatabase(**a, **b);
  EXPECT_EQ(full.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(full.message(), HasSubstr("already holds a cluster (users: 1, user_sessions: 1, workspaces: 1, workspace_pins: 1, "
                                         "projects: 1, experiments: 1"));

  a->reset();
  b->reset();
  auto master = OpenDatabaseUrl((dir.dir() / "a.db").string());  // as a running master would
  ASSERT_TRUE(master.ok());
  ASSERT_TRUE((*master)->ClaimForMaster().ok());
  auto c = OpenDatabaseUrl((dir.dir() / "c.db").string());
  ASSERT_TRUE(c.ok());
  auto again = OpenDatabaseUrl((dir.dir() / "a.db").string());
  absl::Status busy = CopyDatabase(**again, **c);
  EXPECT_EQ(busy.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(busy.message(), HasSubstr(absl::StrCat("a master (pid ", getpid(), ") is using")));
}

}  // namespace
}  // namespace det::master
