#pragma once
// For tests: the databases a SqlStore runs on, each fresh per test.
//  - SqliteTestBackend: a file in a temporary directory named after the running test.
//  - PostgresTestBackend: a new database on a real PostgreSQL server: the one the test run shares
//    (shared_test_postgres.h), or else one that the test process starts on first use
//    (common/local_postgres.h: initdb into a temporary directory, a free loopback port, fsync off)
//    and stops when it exits.
// Open() opens the same database again each time (reopening is part of what tests check).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/local_postgres.h"
#include "master/db/postgres/postgres_database.h"
#include "master/db/shared_test_postgres.h"
#include "master/db/sql_store.h"
#include "master/db/sqlite_store.h"

namespace det::master {

inline std::string CurrentTestName() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info == nullptr ? "none" : info->name();
}

// One trial's reports alone (AddMetricsBatch of one part); their ids.
inline absl::StatusOr<std::vector<int64_t>> AddMetrics(Store& store, std::vector<api::MetricsReport> reports,
                                                       SummaryUpdate update) {
  auto ids = store.AddMetricsBatch({TrialReports{std::move(reports), std::move(update)}}, 0);
  if (!ids.ok()) return ids.status();
  return std::move(ids->front());
}

// An experiment with an empty config, started `minutes_ago`, in `state`; job "job-NAME". Returns its id.
inline int64_t AddExperiment(Store& store, const std::string& name, int64_t owner, api::ExperimentState state,
                             std::vector<std::string> labels = {}, int minutes_ago = 0,
                             const std::string& description = "") {
  api::Experiment e;
  e.name = name;
  e.description = description;
  e.labels = std::move(labels);
  e.state = state;
  e.config_json = "{}";
  e.owner_id = owner;
  e.job_id = "job-" + name;
  e.start_time = std::chrono::system_clock::now() - std::chrono::minutes(minutes_ago);
  auto id = store.InsertExperiment(e, "tgz");
  EXPECT_TRUE(id.ok()) << id.status();
  return *id;
}

// An experiment (config with searcher metric "acc", owner 2, job "job") with one trial; returns the
// experiment's id and sets `trial_id`.
inline int64_t AddExperimentWithTrial(Store& store, int64_t* trial_id) {
  api::Experiment e;
  e.name = "exp";
  e.config_json = R"({"searcher":{"name":"single","metric":"acc"}})";
  e.original_config = "name: exp\n";
  e.owner_id = 2;
  e.job_id = "job";
  e.start_time = std::chrono::system_clock::now();
  auto id = store.InsertExperiment(e, "tgz-bytes");
  EXPECT_TRUE(id.ok()) << id.status();
  api::Trial t;
  t.experiment_id = *id;
  t.request_id = "r";
  t.task_id = std::to_string(*id) + ".1";
  t.start_time = e.start_time;
  auto tid = store.InsertTrial(t);
  EXPECT_TRUE(tid.ok()) << tid.status();
  *trial_id = *tid;
  return *id;
}

class SqliteTestBackend {
 public:
  static constexpr const char* kName = "sqlite";
  SqliteTestBackend()
      : dir_(std::filesystem::temp_directory_path() /
             absl::StrCat("det_store_", getpid(), "_", CurrentTestName())) {
    std::filesystem::create_directories(dir_);
  }
  ~SqliteTestBackend() { std::filesystem::remove_all(dir_); }
  absl::StatusOr<std::unique_ptr<SqlStore>> Open() { return OpenSqliteStore((dir_ / "det.db").string()); }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

// The test run's shared server when DET_TEST_POSTGRES_DIR names one (shared_test_postgres.h), else
// the test process's own, started on first use; its failure is every test's failure.
inline const absl::StatusOr<LocalPostgres>& TestPostgresServer() {
  static const absl::StatusOr<LocalPostgres> server = []() -> absl::StatusOr<LocalPostgres> {
    if (const char* shared = std::getenv("DET_TEST_POSTGRES_DIR"); shared != nullptr && *shared != '\0') {
      return ReadSharedTestPostgres(shared);
    }
    std::string dir = (std::filesystem::temp_directory_path() / absl::StrCat("det_pg_", getpid())).string();
    absl::StatusOr<LocalPostgres> pg = StartLocalPostgres({.dir = dir, .port = 0, .durable = false, .database = "postgres"});
    if (pg.ok()) {
      static std::string stop_dir = dir;
      std::atexit([] {
        (void)StopLocalPostgres(stop_dir);
        std::filesystem::remove_all(stop_dir);
      });
    }
    return pg;
  }();
  return server;
}

class PostgresTestBackend {
 public:
  static constexpr const char* kName = "postgres";
  PostgresTestBackend() {
    static std::atomic<int> next{0};
    name_ = absl::StrCat("t", getpid(), "_", next++);
    if (!TestPostgresServer().ok()) return;
    RunOnServer(absl::StrCat("CREATE DATABASE ", name_));
  }
  ~PostgresTestBackend() {
    if (TestPostgresServer().ok()) RunOnServer(absl::StrCat("DROP DATABASE IF EXISTS ", name_, " WITH (FORCE)"));
  }
  absl::StatusOr<std::unique_ptr<SqlStore>> Open() {
    if (!TestPostgresServer().ok()) return TestPostgresServer().status();
    absl::StatusOr<std::unique_ptr<PostgresDatabase>> db = PostgresDatabase::Open(ConnectionString());
    if (!db.ok()) return db.status();
    return SqlStore::Open(std::move(*db));
  }
  std::string ConnectionString() const { return TestPostgresServer()->ConnectionString(name_); }

 private:
  static void RunOnServer(const std::string& sql) {
    auto admin = PostgresConnection::Connect(TestPostgresServer()->ConnectionString("postgres"));
    absl::Status st = admin->Exec(sql);
    EXPECT_TRUE(st.ok()) << sql << ": " << st;
  }
  std::string name_;
};

}  // namespace det::master
