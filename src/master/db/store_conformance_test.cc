#include "master/db/store_test_backends.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <tuple>
#include <nlohmann/json.hpp>

namespace det::master {
namespace {

template <class Backend>
class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = backend_.Open();
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(*s);
  }
  // Closes the store and opens the same database again.
  std::unique_ptr<SqlStore> Reopen() {
    store_.reset();
    auto again = backend_.Open();
    EXPECT_TRUE(again.ok()) << again.status();
    return again.ok() ? std::move(*again) : nullptr;
  }

  int64_t AddExperimentWithTrial(int64_t* trial_id) { return det::master::AddExperimentWithTrial(*store_, trial_id); }

  Backend backend_;
  std::unique_ptr<SqlStore> store_;
};

struct BackendNames {
  template <class T>
  static std::string GetName(int) {
    return T::kName;
  }
};
using Backends = ::testing::Types<SqliteTestBackend, PostgresTestBackend>;
TYPED_TEST_SUITE(StoreTest, Backends, BackendNames);

TYPED_TEST(StoreTest, BuiltInUsersHaveBlankPasswords) {
  auto admin = this->store_->GetUserByName("admin");
  ASSERT_TRUE(admin.ok());
  EXPECT_TRUE(admin->admin);
  EXPECT_FALSE(admin->password_hash.has_value());
  EXPECT_TRUE(this->store_->GetUserByName("determined").ok());
  EXPECT_EQ(this->store_->GetUserByName("nobody").status().code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreTest, MigrationsAreIdempotentAcrossReopen) {
  int64_t trial_id;
  this->AddExperimentWithTrial(&trial_id);
  auto again = this->Reopen();
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE(again->GetTrial(trial_id).ok());
}

TYPED_TEST(StoreTest, CreatedOnlyOnFirstOpenAndPasswordsCanBeSet) {
  EXPECT_TRUE(this->store_->created());
  ASSERT_TRUE(this->store_->SetUserPasswordHash(1, std::string("$2b$hash")).ok());
  EXPECT_EQ(this->store_->SetUserPasswordHash(99, std::nullopt).code(), absl::StatusCode::kNotFound);
  auto again = this->Reopen();
  ASSERT_NE(again, nullptr);
  EXPECT_FALSE(again->created());
  auto admin = again->GetUserByName("admin");
  ASSERT_TRUE(admin.ok());
  EXPECT_EQ(admin->password_hash, std::optional<std::string>("$2b$hash"));
  ASSERT_TRUE(again->SetUserPasswordHash(1, std::nullopt).ok());
  EXPECT_FALSE(again->GetUser(1)->password_hash.has_value());
}

TYPED_TEST(StoreTest, SessionsExpire) {
  auto now = std::chrono::system_clock::now();
  ASSERT_TRUE(this->store_->AddSession("h", 1, now + std::chrono::hours(1)).ok());
  EXPECT_EQ(*this->store_->LookupSession("h", now), 1);
  EXPECT_FALSE(this->store_->LookupSession("h", now + std::chrono::hours(2)).ok());
  ASSERT_TRUE(this->store_->DeleteSession("h").ok());
  EXPECT_FALSE(this->store_->LookupSession("h", now).ok());
}

TYPED_TEST(StoreTest, ExperimentsTrialsAndModelDefinition) {
  int64_t trial_id;
  int64_t exp_id = this->AddExperimentWithTrial(&trial_id);
  auto e = this->store_->GetExperiment(exp_id);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->username, "determined");
  EXPECT_EQ(e->searcher_type, "single");
  EXPECT_EQ(e->trial_ids, std::vector<int64_t>{trial_id});
  EXPECT_EQ(e->model_definition_size, 9);
  EXPECT_EQ(*this->store_->GetModelDefinition(exp_id), "tgz-bytes");
  ASSERT_TRUE(
      this->store_->UpdateExperimentState(exp_id, api::ExperimentState::kCompleted, std::chrono::system_clock::now(), 1.0).ok());
  EXPECT_EQ(this->store_->GetExperiment(exp_id)->state, api::ExperimentState::kCompleted);
  EXPECT_EQ(this->store_->ListExperiments({})->size(), 1u);
  EXPECT_EQ(*this->store_->CountExperiments({}), 1);
  EXPECT_EQ(this->store_->ListExperiments({.usernames = {"determined"}})->size(), 1u);
  EXPECT_EQ(this->store_->ListExperiments({.usernames = {"admin"}})->size(), 0u);
  EXPECT_EQ(*this->store_->CountExperiments({.user_ids = {1, 2}}), 1);
  auto t = this->store_->GetTrialByTaskId(std::to_string(exp_id) + ".1");
  ASSERT_TRUE(t.ok());
  t->state = api::TrialState::kCompleted;
  t->run_id = 1;
  t->request_id = "a-new-search's-request";
  ASSERT_TRUE(this->store_->UpdateTrialLifecycle(*t).ok());
  EXPECT_EQ(this->store_->GetTrial(trial_id)->state, api::TrialState::kCompleted);
  EXPECT_EQ(this->store_->GetTrial(trial_id)->request_id, "a-new-search's-request");
}

TYPED_TEST(StoreTest, TasksRoundTripFilterAndKeepTheirContext) {
  Task cmd{.task_id = "c1", .type = TaskType::kCommand, .owner_id = 2, .job_id = "j1", .description = "Command (a-b-c)",
           .config_json = R"({"entrypoint":["true"]})", .start_time = WallTime(std::chrono::seconds(5))};
  ASSERT_TRUE(this->store_->InsertTask(cmd, "tgz").ok());
  Task generic{.task_id = "g1", .type = TaskType::kGeneric, .owner_id = 1, .job_id = "j2",
               .start_time = WallTime(std::chrono::seconds(6))};
  ASSERT_TRUE(this->store_->InsertTask(generic, "").ok());
  absl::StatusOr<Task> read = this->store_->GetTask("c1");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->type, TaskType::kCommand);
  EXPECT_EQ(read->username, "determined");
  EXPECT_EQ(read->state, TaskState::kActive);
  EXPECT_EQ(read->config_json, cmd.config_json);
  EXPECT_EQ(*this->store_->GetTaskContext("c1"), "tgz");
  EXPECT_EQ(*this->store_->GetTaskContext("g1"), "");
  EXPECT_TRUE(absl::IsNotFound(this->store_->GetTask("nope").status()));

  read->state = TaskState::kError;
  read->exit_code = 3;
  read->exit_status = "exited with code 3";
  read->end_time = WallTime(std::chrono::seconds(9));
  ASSERT_TRUE(this->store_->UpdateTask(*read).ok());
  EXPECT_EQ(this->store_->GetTask("c1")->exit_code, 3);
  EXPECT_EQ(this->store_->GetTask("c1")->state, TaskState::kError);
  EXPECT_TRUE(absl::IsNotFound(this->store_->UpdateTask(Task{.task_id = "nope"})));

  auto ids = [&](const TaskFilter& f) {
    std::vector<std::string> out;
    absl::StatusOr<std::vector<Task>> tasks = this->store_->ListTasks(f);
    EXPECT_TRUE(tasks.ok()) << tasks.status();
    if (tasks.ok()) {
      for (const Task& t : *tasks) out.push_back(t.task_id);
    }
    return out;
  };
  EXPECT_EQ(ids({}), (std::vector<std::string>{"c1", "g1"}));
  EXPECT_EQ(ids({.live_only = true}), (std::vector<std::string>{"g1"}));
  EXPECT_EQ(ids({.types = {TaskType::kCommand}}), (std::vector<std::string>{"c1"}));
  EXPECT_EQ(ids({.usernames = {"admin"}}), (std::vector<std::string>{"g1"}));
  EXPECT_EQ(ids({.owner_ids = {2}}), (std::vector<std::string>{"c1"}));
  EXPECT_EQ(ids({.descending = true, .limit = 1}), (std::vector<std::string>{"g1"}));
  EXPECT_EQ(ids({.offset = 1}), (std::vector<std::string>{"g1"}));
  EXPECT_EQ(*this->store_->CountTasks({.offset = 1, .limit = 1}), 2) << "paging does not change the count";
  EXPECT_EQ(*this->store_->CountTasks({.live_only = true}), 1);
  EXPECT_EQ(*this->store_->CountTasks({.types = {TaskType::kGeneric}, .usernames = {"determined"}}), 0);

  ASSERT_TRUE(this->store_->InsertAllocation({.allocation_id = "c1.1", .task_id = "c1", .token_hash = "x1", .slots = 1,
                                        .start_time = WallTime(std::chrono::seconds(7))})
                  .ok());
  ASSERT_TRUE(this->store_->InsertAllocation({.allocation_id = "c1.2", .task_id = "c1", .token_hash = "x2", .slots = 1,
                                        .resource_pool = "p", .start_time = WallTime(std::chrono::seconds(8))})
                  .ok());
  absl::StatusOr<std::vector<Allocation>> allocations = this->store_->ListAllocations("c1");
  ASSERT_EQ(allocations->size(), 2u);
  EXPECT_EQ(allocations->back().resource_pool, "p");
  EXPECT_EQ(allocations->back().state, AllocationState::kQueued);
}

TYPED_TEST(StoreTest, AllocationsOverlappingAWindow) {
  ASSERT_TRUE(this->store_->InsertTask({.task_id = "u1", .owner_id = 1, .start_time = WallTime(std::chrono::seconds(1))}, "").ok());
  auto at = [](int s) { return WallTime(std::chrono::seconds(s)); };
  // Ended before the window, ended inside it, still running, starting at its end.
  for (auto [id, start, end] : std::vector<std::tuple<std::string, int, int>>{
           {"u1.1", 10, 20}, {"u1.2", 25, 35}, {"u1.3", 40, 0}, {"u1.4", 50, 60}}) {
    Allocation a{.allocation_id = id, .task_id = "u1", .token_hash = id, .slots = 2, .start_time = at(start)};
    ASSERT_TRUE(this->store_->InsertAllocation(a).ok());
    if (end != 0) {
      a.end_time = at(end);
      ASSERT_TRUE(this->store_->UpdateAllocation(a).ok());
    }
  }
  absl::StatusOr<std::vector<Allocation>> in = this->store_->ListAllocationsOverlapping(at(20), at(50));
  ASSERT_TRUE(in.ok()) << in.status();
  std::vector<std::string> ids;
  for (const Allocation& a : *in) ids.push_back(a.allocation_id);
  EXPECT_EQ(ids, (std::vector<std::string>{"u1.2", "u1.3"})) << "[begin, end): touching either edge is outside";
  EXPECT_EQ(in->front().end_time, at(35));
  EXPECT_EQ(in->front().slots, 2);
}

TYPED_TEST(StoreTest, ServiceFieldsRoundTrip) {
  Task t{.task_id = "n1", .type = TaskType::kNotebook, .owner_id = 2, .description = "nb",
         .start_time = WallTime(std::chrono::seconds(5)), .service_json = R"({"token":"t"})"};
  ASSERT_TRUE(this->store_->InsertTask(t, "").ok());
  EXPECT_EQ(this->store_->GetTask("n1")->service_json, R"({"token":"t"})");
  Allocation a{.allocation_id = "n1.1", .task_id = "n1", .token_hash = "h", .slots = 1,
               .start_time = WallTime(std::chrono::seconds(6))};
  ASSERT_TRUE(this->store_->InsertAllocation(a).ok());
  EXPECT_FALSE(this->store_->GetAllocation("n1.1")->ready);
  a.ready = true;
  a.service_address = "10.0.0.2:2900";
  a.service_user = "someone";
  a.placements = {{"gpu-agent", {2, 4}, {{.id = 2, .type = "cuda", .device = "NVIDIA H200", .uuid = "GPU-c"},
                                         {.id = 4, .type = "cuda", .device = "NVIDIA A100 MIG 1g.5gb",
                                          .uuid = "MIG-d"}}}};
  ASSERT_TRUE(this->store_->UpdateAllocation(a).ok());
  Allocation read = *this->store_->GetAllocation("n1.1");
  EXPECT_TRUE(read.ready);
  EXPECT_EQ(read.service_address, "10.0.0.2:2900");
  EXPECT_EQ(read.service_user, "someone");
  EXPECT_EQ(read.placements, a.placements);  // the devices behind the slots too
}

TYPED_TEST(StoreTest, SearcherIsItsLastSnapshotAndTheEventsAppendedSince) {
  int64_t trial_id = 0;
  int64_t exp_id = this->AddExperimentWithTrial(&trial_id);
  EXPECT_EQ(this->store_->GetSearcher(exp_id).status().code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(this->store_->SaveSearcherSnapshot(exp_id, R"({"v":1})").ok());
  ASSERT_TRUE(this->store_->AppendSearcherEvents(exp_id, 0, {"a", "b"}).ok());
  ASSERT_TRUE(this->store_->AppendSearcherEvents(exp_id, 2, {"c"}).ok());
  absl::StatusOr<SavedSearcher> got = this->store_->GetSearcher(exp_id);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->snapshot, R"({"v":1})");
  EXPECT_EQ(got->events, (std::vector<std::string>{"a", "b", "c"}));

  // A number written already refuses the whole append.
  EXPECT_EQ(this->store_->AppendSearcherEvents(exp_id, 2, {"c again", "d"}).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(this->store_->GetSearcher(exp_id)->events.size(), 3u);

  // A number after a missing one is refused: replaying would skip the missing event.
  EXPECT_EQ(this->store_->AppendSearcherEvents(exp_id, 4, {"e"}).code(), absl::StatusCode::kFailedPrecondition);

  // A snapshot covers the events before it: they are gone, and numbers start again.
  ASSERT_TRUE(this->store_->SaveSearcherSnapshot(exp_id, R"({"v":2})").ok());
  ASSERT_TRUE(this->store_->AppendSearcherEvents(exp_id, 0, {"e"}).ok());
  got = this->store_->GetSearcher(exp_id);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->snapshot, R"({"v":2})");
  EXPECT_EQ(got->events, std::vector<std::string>{"e"});
}

TYPED_TEST(StoreTest, ABatchCommitsItsWritesTogetherAndUndoesAFailedOneAlone) {
  int64_t trial_id = 0;
  const int64_t exp_id = this->AddExperimentWithTrial(&trial_id);
  Store& store = *this->store_;
  absl::StatusCode seen_during_the_batch = absl::StatusCode::kUnknown;
  absl::StatusCode seen_elsewhere = absl::StatusCode::kUnknown;
  std::vector<absl::Status> outcomes = store.WriteBatch({
      [&] { return store.SaveSearcherSnapshot(exp_id, R"({"v":1})"); },  // a transaction of its own, nested
      [&] {  // writes something, then fails: all of it is undone
        absl::Status first = store.AppendSearcherEvents(exp_id, 0, {"undone"});
        return first.ok() ? store.AppendSearcherEvents(exp_id, 0, {"again"}) : first;
      },
      [&] {
        seen_during_the_batch = store.GetSearcher(exp_id).status().code();  // the batch's own rows
        std::thread([&] { seen_elsewhere = store.GetSearcher(exp_id).status().code(); }).join();
        return store.AppendSearcherEvents(exp_id, 0, {"kept"});
      },
  });
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_TRUE(outcomes[0].ok()) << outcomes[0];
  EXPECT_EQ(outcomes[1].code(), absl::StatusCode::kAlreadyExists) << outcomes[1];
  EXPECT_TRUE(outcomes[2].ok()) << outcomes[2];
  EXPECT_EQ(seen_during_the_batch, absl::StatusCode::kOk) << "a batch reads the rows it wrote";
  EXPECT_EQ(seen_elsewhere, absl::StatusCode::kNotFound) << "other readers see none of a batch before it commits";
  absl::StatusOr<SavedSearcher> saved = store.GetSearcher(exp_id);
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(saved->snapshot, R"({"v":1})");
  EXPECT_EQ(saved->events, std::vector<std::string>{"kept"});
  EXPECT_TRUE(store.WriteBatch({}).empty());
}

TYPED_TEST(StoreTest, MetricsUpdateSummaryInOneTransaction) {
  int64_t trial_id;
  this->AddExperimentWithTrial(&trial_id);
  api::MetricsReport m;
  m.trial_id = trial_id;
  m.group = "validation";
  m.total_batches = 10;
  m.metrics_json = R"({"acc":0.9})";
  auto id = AddMetrics(*this->store_, {m}, [](api::Trial& t, const std::vector<api::MetricsReport>&) {
    t.total_batches = 10;
    t.searcher_metric_value = 0.9;
  });
  ASSERT_TRUE(id.ok()) << id.status();
  auto reports = this->store_->GetMetrics(trial_id, "validation", {});
  ASSERT_TRUE(reports.ok());
  ASSERT_EQ(reports->size(), 1u);
  EXPECT_EQ((*reports)[0].metrics_json, R"({"acc":0.9})");
  EXPECT_EQ(this->store_->GetTrial(trial_id)->total_batches, 10);
  EXPECT_EQ(*this->store_->GetTrial(trial_id)->searcher_metric_value, 0.9);
  m.trial_id = 999;
  EXPECT_EQ(AddMetrics(*this->store_, {m}, [](api::Trial&, const std::vector<api::MetricsReport>&) {}).status().code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreTest, ABatchOfMetricsIsStoredWholeInOrder) {
  int64_t trial_id;
  this->AddExperimentWithTrial(&trial_id);
  std::vector<api::MetricsReport> batch(3);
  for (int i = 0; i < 3; ++i) {
    batch[i].trial_id = trial_id;
    batch[i].group = "training";
    batch[i].total_batches = (i + 1) * 10;
    batch[i].metrics_json = R"({"loss":1})";
  }
  std::vector<int64_t> seen;
  auto ids = AddMetrics(*this->store_, batch, [&](api::Trial& t, const std::vector<api::MetricsReport>& reports) {
    for (const api::MetricsReport& m : reports) {
      seen.push_back(m.total_batches);
      t.total_batches = m.total_batches;
    }
  });
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_EQ(ids->size(), 3u);
  EXPECT_EQ(seen, (std::vector<int64_t>{10, 20, 30}));
  EXPECT_EQ(this->store_->GetTrial(trial_id)->total_batches, 30);
  EXPECT_EQ(this->store_->GetMetrics(trial_id, "training", {})->size(), 3u);

  // One bad report (another trial) stores none of the batch.
  batch[1].trial_id = 999;
  EXPECT_EQ(AddMetrics(*this->store_, batch, [](api::Trial&, const std::vector<api::MetricsReport>&) {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(this->store_->GetMetrics(trial_id, "training", {})->size(), 3u);
  EXPECT_TRUE(AddMetrics(*this->store_, {}, [](api::Trial&, const std::vector<api::MetricsReport>&) {})->empty());
}

// Group commit: parts of several trials in one transaction; each trial's summary is read once and
// sees its reports in order across parts; an unknown trial in any part stores nothing at all.
TYPED_TEST(StoreTest, PartsOfSeveralTrialsCommitTogether) {
  int64_t a = 0, b = 0;
  this->AddExperimentWithTrial(&a);
  this->AddExperimentWithTrial(&b);
  auto report = [](int64_t trial, int64_t batches) {
    api::MetricsReport m;
    m.trial_id = trial;
    m.group = "training";
    m.total_batches = batches;
    m.metrics_json = R"({"loss":1})";
    return m;
  };
  auto count = [](api::Trial& t, const std::vector<api::MetricsReport>& reports) {
    for (const api::MetricsReport& m : reports) t.total_batches += m.total_batches;
  };
  std::vector<TrialReports> parts = {{{report(a, 1), report(a, 2)}, count}, {{report(b, 10)}, count},
                                     {{report(a, 4)}, count}};
  auto ids = this->store_->AddMetricsBatch(parts, 0);
  ASSERT_TRUE(ids.ok()) << ids.status();
  ASSERT_EQ(ids->size(), 3u);
  EXPECT_EQ((*ids)[0].size(), 2u);
  EXPECT_LT((*ids)[0][1], (*ids)[2][0]);
  EXPECT_EQ(this->store_->GetTrial(a)->total_batches, 7);
  EXPECT_EQ(this->store_->GetTrial(b)->total_batches, 10);

  parts = {{{report(a, 1)}, count}, {{report(424242, 1)}, count}};
  EXPECT_EQ(this->store_->AddMetricsBatch(parts, 0).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(this->store_->GetMetrics(a, "training", {})->size(), 3u) << "the good part was not stored either";
  EXPECT_EQ(this->store_->GetTrial(a)->total_batches, 7);
}

// A batch larger than one statement of rows (SQLite: 1,000 a statement) keeps every row whole, text
// that needs quoting included, and each report's id is the id its row got, in order.
TYPED_TEST(StoreTest, ALargeBatchKeepsEveryRowAndItsId) {
  int64_t a = 0, b = 0;
  this->AddExperimentWithTrial(&a);
  this->AddExperimentWithTrial(&b);
  auto reports = [](int64_t trial, int n, const std::string& group) {
    std::vector<api::MetricsReport> out(n);
    for (int i = 0; i < n; ++i) {
      out[i].trial_id = trial;
      out[i].trial_run_id = 2;
      out[i].group = group;
      out[i].total_batches = i + 1;
      out[i].end_time = FromUnixMicros(1'700'000'000'000'000 + i);
      out[i].metrics_json = absl::StrCat(R"({"loss":)", i, R"(,"note":"say \"hi\", {a,b} \\ żółw"})");
      out[i].batch_metrics_json = i % 2 == 0 ? "[]" : R"([{"loss":1}])";
    }
    return out;
  };
  auto none = [](api::Trial&, const std::vector<api::MetricsReport>&) {};
  std::vector<TrialReports> parts = {{reports(a, 1200, "training"), none},
                                     {reports(b, 700, "my group, \"quoted\""), none},
                                     {reports(a, 600, "validation"), none}};
  auto ids = this->store_->AddMetricsBatch(parts, 0);
  ASSERT_TRUE(ids.ok()) << ids.status();
  ASSERT_EQ(ids->size(), parts.size());
  int64_t previous = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    ASSERT_EQ((*ids)[p].size(), parts[p].reports.size());
    auto stored = this->store_->GetMetrics(parts[p].reports.front().trial_id, parts[p].reports.front().group, {});
    ASSERT_TRUE(stored.ok()) << stored.status();
    ASSERT_EQ(stored->size(), parts[p].reports.size()) << "part " << p;
    for (size_t k = 0; k < stored->size(); ++k) {
      const api::MetricsReport& want = parts[p].reports[k];
      const api::MetricsReport& got = (*stored)[k];
      EXPECT_GT((*ids)[p][k], previous) << "ids follow the batch's order";
      previous = (*ids)[p][k];
      EXPECT_EQ(got.id, (*ids)[p][k]);
      EXPECT_EQ(got.total_batches, want.total_batches);
      EXPECT_EQ(got.trial_run_id, want.trial_run_id);
      EXPECT_EQ(got.group, want.group);
      EXPECT_EQ(got.end_time, want.end_time);
      EXPECT_EQ(got.metrics_json, want.metrics_json);
      EXPECT_EQ(got.batch_metrics_json, want.batch_metrics_json);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// Every metric writer commits side by side with the others, each for its own trials: nothing is lost,
// each trial's reports keep their order and its summary counts every one.
TYPED_TEST(StoreTest, MetricWritersCommitSideBySide) {
  const int writers = this->store_->MetricWriters();
  ASSERT_GE(writers, 1);
  std::vector<int64_t> trials(2 * writers);
  for (int64_t& t : trials) this->AddExperimentWithTrial(&t);
  auto count = [](api::Trial& t, const std::vector<api::MetricsReport>& reports) {
    t.total_batches += static_cast<int64_t>(reports.size());
  };
  constexpr int kRounds = 20;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      for (int round = 0; round < kRounds; ++round) {
        std::vector<TrialReports> parts;
        for (size_t i = w; i < trials.size(); i += writers) {
          api::MetricsReport m;
          m.trial_id = trials[i];
          m.group = "training";
          m.total_batches = round;
          m.metrics_json = R"({"loss":1})";
          parts.push_back({{m, m}, count});
        }
        if (!this->store_->AddMetricsBatch(parts, w).ok()) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, 0);
  for (int64_t t : trials) {
    EXPECT_EQ(this->store_->GetTrial(t)->total_batches, 2 * kRounds);
    auto stored = this->store_->GetMetrics(t, "training", {});
    ASSERT_TRUE(stored.ok()) << stored.status();
    ASSERT_EQ(stored->size(), 2u * kRounds);
    for (size_t i = 1; i < stored->size(); ++i) EXPECT_LT((*stored)[i - 1].id, (*stored)[i].id);
  }
}

TYPED_TEST(StoreTest, CheckpointsAndLogs) {
  int64_t trial_id;
  int64_t exp_id = this->AddExperimentWithTrial(&trial_id);
  api::Checkpoint c;
  c.uuid = "u1";
  c.trial_id = trial_id;
  c.experiment_id = exp_id;
  c.resources_json = R"({"a":3})";
  ASSERT_TRUE(this->store_->AddCheckpoint(c, 3).ok());
  EXPECT_EQ(this->store_->AddCheckpoint(c, 3).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(this->store_->GetTrial(trial_id)->latest_checkpoint_uuid, "u1");
  EXPECT_EQ(this->store_->GetTrial(trial_id)->total_checkpoint_size, 3);
  EXPECT_EQ(this->store_->GetExperiment(exp_id)->checkpoint_size, 3) << "the trials' total";
  EXPECT_EQ(this->store_->GetExperiment(exp_id)->checkpoint_count, 1);
  EXPECT_EQ(this->store_->ListCheckpoints(exp_id)->size(), 1u);

  ASSERT_TRUE(this->store_->SetCheckpointMetadata("u1", R"({"note":"best so far"})").ok());
  EXPECT_EQ(this->store_->GetCheckpoint("u1")->metadata_json, R"({"note":"best so far"})");
  EXPECT_EQ(this->store_->SetCheckpointMetadata("nope", "{}").code(), absl::StatusCode::kNotFound);

  ASSERT_TRUE(this->store_->MarkCheckpointDeleted("u1").ok());
  EXPECT_EQ(this->store_->GetCheckpoint("u1")->state, "DELETED");
  EXPECT_EQ(this->store_->GetExperiment(exp_id)->checkpoint_count, 0);
  EXPECT_EQ(this->store_->GetExperiment(exp_id)->checkpoint_size, 0);
  ASSERT_TRUE(this->store_->MarkCheckpointDeleted("u1").ok()) << "deleting twice changes nothing";
  EXPECT_EQ(this->store_->GetTrial(trial_id)->checkpoint_count, 0);
  EXPECT_EQ(this->store_->MarkCheckpointDeleted("nope").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(this->store_->GetTrial(trial_id)->latest_checkpoint_uuid, "") << "nothing left to resume from";

  // The trial's latest checkpoint going: it resumes from the latest one left.
  for (const char* uuid : {"u2", "u3"}) {
    c.uuid = uuid;
    c.report_time += std::chrono::seconds(1);
    ASSERT_TRUE(this->store_->AddCheckpoint(c, 3).ok());
  }
  ASSERT_TRUE(this->store_->MarkCheckpointDeleted("u2").ok());
  EXPECT_EQ(this->store_->GetTrial(trial_id)->latest_checkpoint_uuid, "u3") << "an older one going changes nothing";
  c.uuid = "u4";
  c.report_time += std::chrono::seconds(1);
  ASSERT_TRUE(this->store_->AddCheckpoint(c, 3).ok());
  ASSERT_TRUE(this->store_->MarkCheckpointDeleted("u4").ok());
  EXPECT_EQ(this->store_->GetTrial(trial_id)->latest_checkpoint_uuid, "u3");

  // Some of a checkpoint's files going: it keeps the rest, its sizes shrink, and nothing resumes from it.
  c.uuid = "u5";
  c.report_time += std::chrono::seconds(1);
  c.resources_json = R"({"model.pt":10,"optimizer/state.pt":5})";
  ASSERT_TRUE(this->store_->AddCheckpoint(c, 15).ok());
  const int64_t trial_size = this->store_->GetTrial(trial_id)->total_checkpoint_size;
  const int64_t experiment_count = this->store_->GetExperiment(exp_id)->checkpoint_count;
  ASSERT_TRUE(this->store_->MarkCheckpointPartiallyDeleted("u5", R"({"model.pt":10})").ok());
  api::Checkpoint partial = *this->store_->GetCheckpoint("u5");
  EXPECT_EQ(partial.state, "PARTIALLY_DELETED");
  EXPECT_EQ(nlohmann::json::parse(partial.resources_json), nlohmann::json::parse(R"({"model.pt":10})"));
  EXPECT_EQ(this->store_->GetTrial(trial_id)->total_checkpoint_size, trial_size - 5);
  EXPECT_EQ(this->store_->GetExperiment(exp_id)->checkpoint_count, experiment_count) << "it is still there";
  EXPECT_EQ(this->store_->GetTrial(trial_id)->latest_checkpoint_uuid, "u3") << "a partial checkpoint resumes nothing";
  ASSERT_TRUE(this->store_->MarkCheckpointDeleted("u5").ok());
  EXPECT_EQ(this->store_->GetTrial(trial_id)->total_checkpoint_size, trial_size - 15) << "the rest goes once";
  EXPECT_EQ(this->store_->MarkCheckpointPartiallyDeleted("u5", "{}").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(this->store_->MarkCheckpointPartiallyDeleted("nope", "{}").code(), absl::StatusCode::kNotFound);

  EXPECT_TRUE(this->store_->ListCheckpointGcPending()->empty());
  ASSERT_TRUE(this->store_->SetCheckpointGcPending(exp_id, true).ok());
  EXPECT_THAT(*this->store_->ListCheckpointGcPending(), ::testing::ElementsAre(exp_id));
  ASSERT_TRUE(this->store_->SetCheckpointGcPending(exp_id, false).ok());
  EXPECT_TRUE(this->store_->ListCheckpointGcPending()->empty());

  std::vector<api::TaskLog> logs(3);
  for (int i = 0; i < 3; ++i) {
    logs[i].task_id = "t";
    logs[i].log = "line " + std::to_string(i) + "\n";
  }
  ASSERT_TRUE(this->store_->AddTaskLogs(logs).ok());
  auto first = this->store_->GetTaskLogs("t", 0, 2, {});
  ASSERT_EQ(first->size(), 2u);
  auto rest = this->store_->GetTaskLogs("t", (*first)[1].id, 10, {});
  ASSERT_EQ(rest->size(), 1u);
  EXPECT_EQ((*rest)[0].log, "line 2\n");
  auto newest = this->store_->GetTaskLogsNewestFirst("t", 0, 2, {});
  ASSERT_EQ(newest->size(), 2u);
  EXPECT_EQ((*newest)[0].log, "line 2\n");
  EXPECT_EQ((*newest)[1].log, "line 1\n");
  EXPECT_EQ(this->store_->GetTaskLogsNewestFirst("t", (*newest)[1].id, 10, {})->size(), 1u);
}

TYPED_TEST(StoreTest, CheckpointsKeepTheIdOfTheirStorageConfig) {
  int64_t trial_id;
  int64_t exp_id = this->AddExperimentWithTrial(&trial_id);
  absl::StatusOr<int64_t> shared_fs = this->store_->CheckpointStorageId(R"({"host_path":"/a","type":"shared_fs"})");
  ASSERT_TRUE(shared_fs.ok()) << shared_fs.status();
  EXPECT_EQ(*this->store_->CheckpointStorageId(R"({"host_path":"/a","type":"shared_fs"})"), *shared_fs)
      << "the same text, the same id";
  EXPECT_NE(*this->store_->CheckpointStorageId(R"({"host_path":"/b","type":"shared_fs"})"), *shared_fs);
  api::Checkpoint c;
  c.trial_id = trial_id;
  c.experiment_id = exp_id;
  c.uuid = "without";
  ASSERT_TRUE(this->store_->AddCheckpoint(c, 0).ok());
  c.uuid = "with";
  c.storage_id = *shared_fs;
  ASSERT_TRUE(this->store_->AddCheckpoint(c, 0).ok());
  EXPECT_FALSE(this->store_->GetCheckpoint("without")->storage_id.has_value());
  EXPECT_EQ(this->store_->GetCheckpoint("with")->storage_id, *shared_fs);
  EXPECT_EQ(this->store_->ListCheckpoints(exp_id)->back().storage_id, *shared_fs);
}

TYPED_TEST(StoreTest, TaskLogFiltersCombine) {
  auto line = [](std::string text, std::string agent, std::optional<int> rank, std::string stdtype,
                 std::string level, int seconds) {
    api::TaskLog l;
    l.task_id = "t";
    l.log = std::move(text);
    l.agent_id = std::move(agent);
    l.rank_id = rank;
    l.stdtype = std::move(stdtype);
    l.level = std::move(level);
    l.timestamp = WallTime(std::chrono::seconds(1000 + seconds));
    return l;
  };
  ASSERT_TRUE(this->store_
                  ->AddTaskLogs({line("a", "agent-0", 0, "stdout", "LOG_LEVEL_INFO", 1),
                                 line("b", "agent-1", 1, "stderr", "LOG_LEVEL_ERROR", 2),
                                 line("c", "agent-1", 1, "stdout", "LOG_LEVEL_WARNING", 3),
                                 line("d", "agent-0", std::nullopt, "stdout", "LOG_LEVEL_INFO", 4)})
                  .ok());
  auto texts = [&](const TaskLogFilter& f) {
    std::vector<std::string> out;
    absl::StatusOr<std::vector<api::TaskLog>> logs = this->store_->GetTaskLogs("t", 0, 100, f);
    if (!logs.ok()) return std::vector<std::string>{logs.status().ToString()};
    for (const api::TaskLog& l : *logs) out.push_back(l.log);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(texts({.agent_ids = {"agent-1"}}), (V{"b", "c"}));
  EXPECT_EQ(texts({.rank_ids = {0, 1}}), (V{"a", "b", "c"}));
  EXPECT_EQ(texts({.stdtypes = {"stdout"}, .levels = {"LOG_LEVEL_WARNING", "LOG_LEVEL_ERROR"}}), (V{"c"}));
  EXPECT_EQ(texts({.before = WallTime(std::chrono::seconds(1003)), .after = WallTime(std::chrono::seconds(1001))}),
            (V{"b"}));
  EXPECT_EQ(texts({.sources = {"master"}}), V{});
  EXPECT_EQ(texts({.search_text = "c"}), V{"c"});
  EXPECT_EQ(texts({.search_text = "%"}), V{}) << "no wildcards";
  EXPECT_EQ(texts({.search_text = "^[b-c]$", .search_is_regex = true}), (V{"b", "c"}));
  EXPECT_EQ(texts({.search_text = "[", .search_is_regex = true}).size(), 1u) << "an error, not rows";
  EXPECT_EQ(texts({.rank_ids = {-1}}), V{"d"}) << "rank -1 stands for lines without a rank";
  EXPECT_EQ(texts({.rank_ids = {-1, 0}}), (V{"a", "d"}));
  TaskLogFilter agent0{.agent_ids = {"agent-0"}};
  auto newest = this->store_->GetTaskLogsNewestFirst("t", 0, 1, agent0);
  ASSERT_EQ(newest->size(), 1u);
  EXPECT_EQ((*newest)[0].log, "d");
}

TYPED_TEST(StoreTest, TaskLogFieldsAreTheDistinctValues) {
  auto line = [](std::string agent, std::optional<int> rank, std::string stdtype, std::string source) {
    api::TaskLog l;
    l.task_id = "t";
    l.allocation_id = "t.1";
    l.log = "x";
    l.agent_id = std::move(agent);
    l.rank_id = rank;
    l.stdtype = std::move(stdtype);
    l.source = std::move(source);
    return l;
  };
  ASSERT_TRUE(this->store_
                  ->AddTaskLogs({line("agent-1", 1, "stdout", "task"), line("agent-0", 0, "stderr", "task"),
                                 line("agent-1", 1, "stdout", "task"), line("", std::nullopt, "", "master")})
                  .ok());
  absl::StatusOr<TaskLogFields> fields = this->store_->GetTaskLogFields("t");
  ASSERT_TRUE(fields.ok()) << fields.status();
  EXPECT_EQ(*fields, (TaskLogFields{.allocation_ids = {"t.1"},
                                    .agent_ids = {"agent-0", "agent-1"},
                                    .rank_ids = {0, 1},
                                    .stdtypes = {"stderr", "stdout"},
                                    .sources = {"master", "task"}}));
  EXPECT_EQ(*this->store_->GetTaskLogFields("other"), TaskLogFields{});
}

TYPED_TEST(StoreTest, ExpiredTaskLogsGoByTheTrialsOwnRetentionElseTheDefault) {
  const WallTime now = std::chrono::system_clock::now();
  constexpr auto kDay = std::chrono::hours(24);
  // A trial that ended `ended_ago` before now (none: still running), with `days` of its own, and one
  // log line.
  auto trial = [&](std::optional<WallTime::duration> ended_ago, std::optional<int> days) {
    int64_t trial_id;
    this->AddExperimentWithTrial(&trial_id);
    api::Trial t = *this->store_->GetTrial(trial_id);
    EXPECT_FALSE(t.log_retention_days.has_value());
    if (ended_ago) {
      t.state = api::TrialState::kCompleted;
      t.end_time = now - *ended_ago;
      EXPECT_TRUE(this->store_->UpdateTrialLifecycle(t).ok());
    }
    if (days) {
      EXPECT_TRUE(this->store_->SetTrialLogRetentionDays(trial_id, *days).ok());
    }
    api::TaskLog line;
    line.task_id = t.task_id;
    line.log = "x";
    EXPECT_TRUE(this->store_->AddTaskLogs({line}).ok());
    return t;
  };
  auto kept = [&](const std::string& task_id) { return !this->store_->GetTaskLogs(task_id, 0, 10, {})->empty(); };
  const api::Trial old = trial(10 * kDay, std::nullopt);
  const api::Trial forever = trial(10 * kDay, -1);
  const api::Trial recent = trial(1 * kDay, 5);
  const api::Trial running = trial(std::nullopt, 0);
  EXPECT_EQ(this->store_->GetTrial(recent.id)->log_retention_days, 5);
  Task command{.task_id = "cmd", .type = TaskType::kCommand, .owner_id = 2, .job_id = "j", .start_time = now - 11 * kDay,
               .end_time = now - 10 * kDay};
  ASSERT_TRUE(this->store_->InsertTask(command, "").ok());
  api::TaskLog line;
  line.task_id = "cmd";
  line.log = "x";
  ASSERT_TRUE(this->store_->AddTaskLogs({line}).ok());

  EXPECT_EQ(*this->store_->DeleteExpiredTaskLogs(now, std::nullopt), 0) << "no retention anywhere: all kept";
  ASSERT_TRUE(this->store_->SetExperimentLogRetentionDays(old.experiment_id, 7).ok());
  EXPECT_EQ(*this->store_->GetTrial(old.id)->log_retention_days, 7);
  EXPECT_EQ(*this->store_->DeleteExpiredTaskLogs(now, std::nullopt), 1);
  EXPECT_FALSE(kept(old.task_id)) << "ended 10 days ago, kept 7";
  EXPECT_EQ(*this->store_->DeleteExpiredTaskLogs(now, 30), 0) << "the command ended 10 days ago";
  EXPECT_EQ(*this->store_->DeleteExpiredTaskLogs(now, 3), 1);
  EXPECT_FALSE(kept("cmd"));
  EXPECT_TRUE(kept(forever.task_id) && kept(recent.task_id) && kept(running.task_id));

  EXPECT_EQ(this->store_->SetTrialLogRetentionDays(999999, 1).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(this->store_->SetExperimentLogRetentionDays(999999, 1).code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreTest, TheUncategorizedWorkspaceAndProjectHoldEveryExperiment) {
  int64_t trial_id;
  this->AddExperimentWithTrial(&trial_id);
  absl::StatusOr<Workspace> ws = this->store_->GetWorkspace(1, 1);
  ASSERT_TRUE(ws.ok()) << ws.status();
  EXPECT_EQ(ws->name, "Uncategorized");
  EXPECT_TRUE(ws->immutable);
  EXPECT_FALSE(ws->archived);
  EXPECT_EQ(ws->username, "admin");
  EXPECT_EQ(ws->num_projects, 1);
  EXPECT_EQ(ws->num_experiments, 1);
  EXPECT_EQ(this->store_->ListWorkspaces({})->total, 1);
  EXPECT_EQ(this->store_->ListWorkspaces({.name = "uncategorized"})->workspaces.size(), 1u);
  EXPECT_EQ(this->store_->ListWorkspaces({.name = "uncategorized", .name_case_sensitive = true})->total, 0);
  EXPECT_EQ(this->store_->ListWorkspaces({.archived = true})->total, 0);
  EXPECT_EQ(this->store_->ListWorkspaces({.usernames = {"admin"}})->total, 1);
  EXPECT_EQ(this->store_->GetWorkspace(2, 1).status().code(), absl::StatusCode::kNotFound);

  absl::StatusOr<Project> project = this->store_->GetProject(1);
  ASSERT_TRUE(project.ok()) << project.status();
  EXPECT_EQ(project->name, "Uncategorized");
  EXPECT_EQ(project->workspace_id, 1);
  EXPECT_EQ(project->workspace_name, "Uncategorized");
  EXPECT_EQ(project->key, "UNCAT");
  EXPECT_TRUE(project->immutable);
  EXPECT_EQ(project->num_experiments, 1);
  EXPECT_EQ(project->num_active_experiments, 1);
  EXPECT_TRUE(project->last_experiment_started_at.has_value());
  EXPECT_EQ(project->notes_json, "[]");
  EXPECT_EQ(this->store_->ListProjects({.workspace_id = 1})->projects.size(), 1u);
  EXPECT_EQ(this->store_->ListProjects({.workspace_id = 2})->total, 0);
  EXPECT_EQ(this->store_->ListProjects({.archived = false})->total, 1);
  EXPECT_EQ(this->store_->GetProject(2).status().code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreTest, WorkspacesAndProjectsAreCreatedWithUniqueNamesAndKeys) {
  const WallTime now = std::chrono::system_clock::now();
  absl::StatusOr<Workspace> ws = this->store_->InsertWorkspace(
      {.name = "vision", .user_id = 2, .created_at = now, .checkpoint_storage_config_json = R"({"type":"shared_fs"})",
       .default_compute_pool = "gpu"});
  ASSERT_TRUE(ws.ok()) << ws.status();
  EXPECT_EQ(ws->id, 2);
  EXPECT_EQ(ws->username, "determined");
  EXPECT_FALSE(ws->immutable);
  EXPECT_EQ(ws->checkpoint_storage_config_json, R"({"type":"shared_fs"})");
  EXPECT_EQ(ws->agent_user_group_json, "");
  EXPECT_EQ(ws->default_compute_pool, "gpu");
  EXPECT_EQ(this->store_->InsertWorkspace({.name = "vision", .user_id = 2, .created_at = now}).status().code(),
            absl::StatusCode::kAlreadyExists);

  absl::StatusOr<Project> project = this->store_->InsertProject(
      {.name = "detection", .workspace_id = ws->id, .description = "boxes", .user_id = 2, .created_at = now,
       .key = "DET01"});
  ASSERT_TRUE(project.ok()) << project.status();
  EXPECT_EQ(project->id, 2);
  EXPECT_EQ(project->workspace_name, "vision");
  EXPECT_EQ(project->key, "DET01");
  EXPECT_EQ(project->num_experiments, 0);
  EXPECT_FALSE(project->last_experiment_started_at.has_value());
  Project same_name{.name = "detection", .workspace_id = ws->id, .user_id = 2, .created_at = now, .key = "OTHER"};
  EXPECT_EQ(this->store_->InsertProject(same_name).status().code(), absl::StatusCode::kAlreadyExists);
  Project same_key{.name = "other", .workspace_id = 1, .user_id = 2, .created_at = now, .key = "DET01"};
  EXPECT_EQ(this->store_->InsertProject(same_key).status().code(), absl::StatusCode::kAlreadyExists);
  same_name.workspace_id = 1;  // the same name in another workspace is fine
  EXPECT_TRUE(this->store_->InsertProject(same_name).ok());
  EXPECT_EQ(this->store_->GetWorkspace(ws->id, 0)->num_projects, 1);
  EXPECT_EQ(this->store_->ListProjects({.workspace_id = 1})->total, 2);
  EXPECT_EQ(this->store_->ListWorkspaces({.by_name = true})->workspaces.front().name, "Uncategorized");
  EXPECT_EQ(this->store_->ListWorkspaces({.by_name = true, .descending = true})->workspaces.front().name, "vision");
}

TYPED_TEST(StoreTest, WorkspacesAndProjectsArePatchedArchivedPinnedAndDeleted) {
  const WallTime now = std::chrono::system_clock::now();
  Workspace ws = *this->store_->InsertWorkspace({.name = "vision", .user_id = 2, .created_at = now});
  ASSERT_TRUE(this->store_->InsertWorkspace({.name = "nlp", .user_id = 2, .created_at = now}).ok());
  absl::StatusOr<Workspace> patched = this->store_->PatchWorkspace(
      ws.id, {.name = "vision2", .checkpoint_storage_config_json = R"({"type":"shared_fs"})",
              .default_compute_pool = "gpu"});
  ASSERT_TRUE(patched.ok()) << patched.status();
  EXPECT_EQ(patched->name, "vision2");
  EXPECT_EQ(patched->checkpoint_storage_config_json, R"({"type":"shared_fs"})");
  EXPECT_EQ(patched->default_compute_pool, "gpu");
  EXPECT_EQ(this->store_->PatchWorkspace(ws.id, {.checkpoint_storage_config_json = ""})->checkpoint_storage_config_json,
            "");
  EXPECT_EQ(this->store_->PatchWorkspace(ws.id, {.name = "nlp"}).status().code(), absl::StatusCode::kAlreadyExists);

  ASSERT_TRUE(this->store_->SetWorkspacePinned(ws.id, 2, true).ok());
  ASSERT_TRUE(this->store_->SetWorkspacePinned(ws.id, 2, true).ok()) << "pinning twice is pinning";
  EXPECT_TRUE(this->store_->GetWorkspace(ws.id, 2)->pinned_at.has_value());
  EXPECT_FALSE(this->store_->GetWorkspace(ws.id, 1)->pinned_at.has_value()) << "pins are per user";
  EXPECT_EQ(this->store_->ListWorkspaces({.viewer_id = 2, .pinned = true})->total, 1);
  EXPECT_EQ(this->store_->ListWorkspaces({.viewer_id = 1, .pinned = true})->total, 0);
  EXPECT_EQ(this->store_->ListWorkspaces({.viewer_id = 2, .pinned = false})->total, 2);
  ASSERT_TRUE(this->store_->SetWorkspacePinned(ws.id, 2, false).ok());
  EXPECT_FALSE(this->store_->GetWorkspace(ws.id, 2)->pinned_at.has_value());

  Project p = *this->store_->InsertProject(
      {.name = "detection", .workspace_id = ws.id, .user_id = 2, .created_at = now, .key = "DET"});
  absl::StatusOr<Project> renamed =
      this->store_->PatchProject(p.id, {.name = "boxes", .description = "d", .key = "BOX", .notes_json = "[{}]"});
  ASSERT_TRUE(renamed.ok()) << renamed.status();
  EXPECT_EQ(renamed->name, "boxes");
  EXPECT_EQ(renamed->description, "d");
  EXPECT_EQ(renamed->notes_json, "[{}]");
  EXPECT_EQ(this->store_->GetProjectByKey("BOX")->id, p.id);
  EXPECT_EQ(this->store_->GetProjectByKey("DET").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(this->store_->PatchProject(p.id, {.key = "UNCAT"}).status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(this->store_->PatchProject(p.id, {.workspace_id = 1})->workspace_name, "Uncategorized");
  ASSERT_TRUE(this->store_->PatchProject(p.id, {.workspace_id = ws.id}).ok());

  ASSERT_TRUE(this->store_->SetWorkspaceArchived(ws.id, true).ok());
  EXPECT_TRUE(this->store_->GetWorkspace(ws.id, 0)->archived);
  EXPECT_TRUE(this->store_->GetProject(p.id)->archived) << "a project in an archived workspace is archived";
  ASSERT_TRUE(this->store_->SetWorkspaceArchived(ws.id, false).ok());
  ASSERT_TRUE(this->store_->SetProjectArchived(p.id, true).ok());
  EXPECT_TRUE(this->store_->GetProject(p.id)->archived);
  EXPECT_FALSE(this->store_->GetWorkspace(ws.id, 0)->archived);

  ASSERT_TRUE(this->store_->InsertTemplate({.name = "t", .config_json = "{}", .workspace_id = ws.id}).ok());
  ASSERT_TRUE(this->store_->SetWorkspacePinned(ws.id, 2, true).ok());
  ASSERT_TRUE(this->store_->DeleteWorkspace(ws.id).ok());
  EXPECT_EQ(this->store_->GetWorkspace(ws.id, 0).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(this->store_->GetProject(p.id).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(this->store_->GetTemplate("t").status().code(), absl::StatusCode::kNotFound);
  Project other = *this->store_->InsertProject(
      {.name = "other", .workspace_id = 1, .user_id = 2, .created_at = now, .key = "OTH"});
  ASSERT_TRUE(this->store_->DeleteProject(other.id).ok());
  EXPECT_EQ(this->store_->GetProject(other.id).status().code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreTest, ModelsAndTheirVersionsAreStoredListedAndDeleted) {
  Workspace ws = *this->store_->InsertWorkspace({.name = "vision", .user_id = 2, .created_at = WallTime()});
  absl::StatusOr<Model> mnist = this->store_->InsertModel(
      {.name = "mnist", .description = "Digits", .metadata_json = R"({"a":1})", .labels = {"cv", "prod"},
       .user_id = 2});
  ASSERT_TRUE(mnist.ok()) << mnist.status();
  EXPECT_EQ(mnist->username, "determined");
  EXPECT_EQ(mnist->workspace_id, 1);
  EXPECT_EQ(mnist->labels, (std::vector<std::string>{"cv", "prod"}));
  EXPECT_EQ(this->store_->InsertModel({.name = "mnist", .user_id = 1}).status().code(),
            absl::StatusCode::kAlreadyExists);
  Model cifar = *this->store_->InsertModel({.name = "cifar", .labels = {"cv"}, .workspace_id = ws.id, .user_id = 1});
  EXPECT_EQ(this->store_->GetModelByName("cifar")->id, cifar.id);
  EXPECT_EQ(this->store_->GetModel(999).status().code(), absl::StatusCode::kNotFound);

  auto names = [&](const ModelFilter& f) {
    std::vector<std::string> out;
    absl::StatusOr<ModelPage> page = this->store_->ListModels(f);
    EXPECT_TRUE(page.ok()) << page.status();
    for (const Model& m : page.value_or(ModelPage{}).models) out.push_back(m.name);
    return out;
  };
  EXPECT_EQ(names({}), (std::vector<std::string>{"cifar", "mnist"}));
  EXPECT_EQ(names({.descending = true}), (std::vector<std::string>{"mnist", "cifar"}));
  EXPECT_EQ(names({.description = "digit"}), std::vector<std::string>{"mnist"});
  EXPECT_EQ(names({.labels = {"cv", "prod"}}), std::vector<std::string>{"mnist"});
  EXPECT_EQ(names({.usernames = {"admin"}}), std::vector<std::string>{"cifar"});
  EXPECT_EQ(names({.workspace_ids = {ws.id}}), std::vector<std::string>{"cifar"});
  EXPECT_EQ(names({.workspace_names = {"Uncategorized"}}), std::vector<std::string>{"mnist"});
  EXPECT_EQ(this->store_->ListModels({.limit = 1})->total, 2);
  EXPECT_EQ(*this->store_->ListModelLabels(0), (std::vector<std::string>{"cv", "prod"}));

  absl::StatusOr<Model> patched =
      this->store_->PatchModel(mnist->id, {.name = "digits", .labels = std::vector<std::string>{}, .workspace_id = ws.id});
  ASSERT_TRUE(patched.ok()) << patched.status();
  EXPECT_EQ(patched->name, "digits");
  EXPECT_TRUE(patched->labels.empty());
  EXPECT_EQ(patched->workspace_id, ws.id);
  EXPECT_EQ(patched->description, "Digits") << "unchanged";
  EXPECT_EQ(this->store_->PatchModel(mnist->id, {.name = "cifar"}).status().code(), absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(this->store_->SetModelArchived(cifar.id, true).ok());
  EXPECT_EQ(names({.archived = true}), std::vector<std::string>{"cifar"});

  int64_t trial_id;
  int64_t exp_id = this->AddExperimentWithTrial(&trial_id);
  api::Checkpoint c{.uuid = "ck1", .task_id = "t", .trial_id = trial_id, .experiment_id = exp_id};
  ASSERT_TRUE(this->store_->AddCheckpoint(c, 10).ok());
  absl::StatusOr<ModelVersion> v1 = this->store_->InsertModelVersion(
      {.model_id = mnist->id, .checkpoint_uuid = "ck1", .name = "first", .labels = {"x"}, .user_id = 2});
  ASSERT_TRUE(v1.ok()) << v1.status();
  EXPECT_EQ(v1->version, 1);
  EXPECT_EQ(v1->username, "determined");
  EXPECT_EQ(this->store_->InsertModelVersion({.model_id = mnist->id, .checkpoint_uuid = "ck1", .user_id = 2})->version,
            2);
  EXPECT_EQ(this->store_->InsertModelVersion({.model_id = 999, .checkpoint_uuid = "ck1", .user_id = 2}).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(this->store_->GetModel(mnist->id)->num_versions, 2);
  std::vector<ModelVersion> newest_first = *this->store_->ListModelVersions(mnist->id, true);
  ASSERT_EQ(newest_first.size(), 2u);
  EXPECT_EQ(newest_first[0].version, 2);
  EXPECT_EQ(this->store_->PatchModelVersion(mnist->id, 1, {.comment = "ok"})->comment, "ok");
  EXPECT_EQ(this->store_->GetModelVersion(mnist->id, 1)->name, "first");
  EXPECT_EQ(this->store_->GetModelVersion(mnist->id, 7).status().code(), absl::StatusCode::kNotFound);

  std::vector<Registration> by_uuid = *this->store_->ListRegistrations({"ck1", "other"}, 0);
  ASSERT_EQ(by_uuid.size(), 2u);
  EXPECT_EQ(by_uuid[0].model_name, "digits");
  EXPECT_EQ(by_uuid[0].version, 1);
  EXPECT_EQ(this->store_->ListRegistrations({}, exp_id)->size(), 2u);
  EXPECT_TRUE(this->store_->ListRegistrations({}, 0)->empty());
  ASSERT_TRUE(this->store_->DeleteModelVersion(mnist->id, 1).ok());
  EXPECT_EQ(this->store_->ListRegistrations({}, exp_id)->size(), 1u);
  ASSERT_TRUE(this->store_->DeleteModel(mnist->id).ok());
  EXPECT_TRUE(this->store_->ListRegistrations({"ck1"}, 0)->empty()) << "its versions went with it";
  EXPECT_EQ(this->store_->GetModel(mnist->id).status().code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreTest, TrialsThatUsedACheckpointAreFoundByItOrByItsModelVersion) {
  int64_t source_trial;
  this->AddExperimentWithTrial(&source_trial);
  int64_t inference_trial;
  int64_t inference_exp = this->AddExperimentWithTrial(&inference_trial);
  int64_t tuning_trial;
  this->AddExperimentWithTrial(&tuning_trial);
  Model m = *this->store_->InsertModel({.name = "digits", .user_id = 1});
  ASSERT_TRUE(this->store_->InsertModelVersion({.model_id = m.id, .checkpoint_uuid = "ck", .user_id = 1}).ok());
  constexpr char kInference[] = "TRIAL_SOURCE_INFO_TYPE_INFERENCE";
  ASSERT_TRUE(this->store_->AddTrialSourceInfo({.trial_id = inference_trial, .checkpoint_uuid = "ck", .model_id = m.id,
                                                .model_version = 1, .type = kInference}).ok());
  ASSERT_TRUE(this->store_->AddTrialSourceInfo({.trial_id = tuning_trial, .checkpoint_uuid = "ck",
                                                .type = "TRIAL_SOURCE_INFO_TYPE_FINE_TUNING"}).ok());
  auto trials = [&](const TrialSourceFilter& f) {
    std::vector<int64_t> out;
    absl::StatusOr<std::vector<TrialSourceInfo>> infos = this->store_->ListTrialSourceInfos(f);
    EXPECT_TRUE(infos.ok()) << infos.status();
    for (const TrialSourceInfo& i : infos.value_or(std::vector<TrialSourceInfo>{})) out.push_back(i.trial_id);
    return out;
  };
  using V = std::vector<int64_t>;
  EXPECT_EQ(trials({.checkpoint_uuid = "ck"}), (V{inference_trial, tuning_trial}));
  EXPECT_EQ(trials({.checkpoint_uuid = "ck", .type = kInference}), V{inference_trial});
  EXPECT_EQ(trials({.model_id = m.id, .model_version = 1}), V{inference_trial});
  EXPECT_EQ(trials({.model_id = m.id, .model_version = 2}), V{});
  TrialSourceInfo stored = this->store_->ListTrialSourceInfos({.model_id = m.id})->at(0);
  EXPECT_EQ(stored.model_version, 1);
  EXPECT_EQ(stored.type, kInference);
  EXPECT_FALSE(this->store_->ListTrialSourceInfos({.checkpoint_uuid = "ck", .type = "TRIAL_SOURCE_INFO_TYPE_FINE_TUNING"})
                   ->at(0)
                   .model_id.has_value());

  ASSERT_TRUE(this->store_->DeleteExperiment(inference_exp, {api::ExperimentState::kActive}).ok());
  EXPECT_EQ(trials({.checkpoint_uuid = "ck"}), (V{tuning_trial})) << "a deleted trial's links go with it";
  ASSERT_TRUE(this->store_->AddTrialSourceInfo({.trial_id = tuning_trial, .checkpoint_uuid = "ck", .model_id = m.id,
                                                .model_version = 1, .type = kInference}).ok());
  ASSERT_TRUE(this->store_->DeleteModelVersion(m.id, 1).ok());
  EXPECT_EQ(trials({.model_id = m.id}), V{}) << "and a deleted version's";
}

TYPED_TEST(StoreTest, PoolsAreBoundUnboundAndOverwrittenAndGoWithTheirWorkspace) {
  Workspace a = *this->store_->InsertWorkspace({.name = "a", .user_id = 2, .created_at = WallTime()});
  Workspace b = *this->store_->InsertWorkspace({.name = "b", .user_id = 2, .created_at = WallTime()});
  auto bindings = [&] {
    std::vector<std::pair<std::string, int64_t>> out;
    absl::StatusOr<std::vector<PoolBinding>> listed = this->store_->ListPoolBindings();
    EXPECT_TRUE(listed.ok()) << listed.status();
    for (const PoolBinding& p : listed.value_or(std::vector<PoolBinding>{})) out.emplace_back(p.pool, p.workspace_id);
    return out;
  };
  ASSERT_TRUE(this->store_->BindPool("gpu", {a.id, b.id}, false).ok());
  ASSERT_TRUE(this->store_->BindPool("gpu", {a.id}, false).ok()) << "binding twice is binding";
  ASSERT_TRUE(this->store_->BindPool("cpu", {b.id}, false).ok());
  using Bindings = std::vector<std::pair<std::string, int64_t>>;
  EXPECT_EQ(bindings(), (Bindings{{"cpu", b.id}, {"gpu", a.id}, {"gpu", b.id}}));
  ASSERT_TRUE(this->store_->UnbindPool("gpu", {b.id, 99}).ok());
  EXPECT_EQ(bindings(), (Bindings{{"cpu", b.id}, {"gpu", a.id}}));
  ASSERT_TRUE(this->store_->BindPool("gpu", {b.id}, true).ok());
  EXPECT_EQ(bindings(), (Bindings{{"cpu", b.id}, {"gpu", b.id}}));
  ASSERT_TRUE(this->store_->DeleteWorkspace(b.id).ok());
  EXPECT_TRUE(bindings().empty());
}

TYPED_TEST(StoreTest, AnExperimentIsInOneProjectAndMoves) {
  int64_t trial_id;
  int64_t id = this->AddExperimentWithTrial(&trial_id);
  Workspace ws = *this->store_->InsertWorkspace({.name = "vision", .user_id = 2, .created_at = WallTime()});
  Project p = *this->store_->InsertProject({.name = "detection", .workspace_id = ws.id, .user_id = 1,
                                            .created_at = WallTime(), .key = "DET"});
  api::Experiment e = *this->store_->GetExperiment(id);
  EXPECT_EQ(e.project_id, 1);
  EXPECT_EQ(e.project_name, "Uncategorized");
  EXPECT_EQ(e.workspace_id, 1);
  ASSERT_TRUE(this->store_->SetExperimentProject(id, p.id).ok());
  e = *this->store_->GetExperiment(id);
  EXPECT_EQ(e.project_id, p.id);
  EXPECT_EQ(e.project_name, "detection");
  EXPECT_EQ(e.project_owner_id, 1);
  EXPECT_EQ(e.workspace_id, ws.id);
  EXPECT_EQ(e.workspace_name, "vision");
  EXPECT_FALSE(e.parent_archived);
  ASSERT_TRUE(this->store_->SetProjectArchived(p.id, true).ok());
  EXPECT_TRUE(this->store_->GetExperiment(id)->parent_archived);
  EXPECT_EQ(this->store_->ListExperiments({.project_id = p.id})->size(), 1u);
  EXPECT_EQ(this->store_->ListExperiments({.project_id = 1})->size(), 0u);
  EXPECT_EQ(*this->store_->CountExperiments({.project_id = p.id}), 1);
  EXPECT_EQ(this->store_->GetProject(p.id)->num_experiments, 1);
  EXPECT_EQ(this->store_->SetExperimentProject(999999, p.id).code(), absl::StatusCode::kNotFound);

  api::Experiment placed = e;
  placed.id = 0;
  placed.project_id = p.id;
  absl::StatusOr<int64_t> placed_id = this->store_->InsertExperiment(placed, "tgz");
  ASSERT_TRUE(placed_id.ok()) << placed_id.status();
  EXPECT_EQ(this->store_->GetExperiment(*placed_id)->project_id, p.id) << "inserted where it was placed";
}

TYPED_TEST(StoreTest, ActiveTrialsAndExperimentsShowRunningOrQueued) {
  int64_t trial_id;
  int64_t exp_id = this->AddExperimentWithTrial(&trial_id);
  EXPECT_EQ(this->store_->GetExperiment(exp_id)->display_state, "QUEUED") << "no allocation yet";
  EXPECT_EQ(this->store_->GetTrial(trial_id)->display_state, "QUEUED");
  const std::string task_id = this->store_->GetTrial(trial_id)->task_id;  // allocations name their task
  Allocation a{.allocation_id = "a.1", .task_id = task_id, .state = AllocationState::kQueued, .token_hash = "h1",
               .slots = 1, .start_time = WallTime(std::chrono::seconds(10))};
  ASSERT_TRUE(this->store_->InsertAllocation(a).ok());
  EXPECT_EQ(this->store_->GetExperiment(exp_id)->display_state, "QUEUED");
  a.state = AllocationState::kRunning;
  ASSERT_TRUE(this->store_->UpdateAllocation(a).ok());
  EXPECT_EQ(this->store_->GetExperiment(exp_id)->display_state, "RUNNING");
  EXPECT_EQ(this->store_->ListTrials(exp_id)->front().display_state, "RUNNING");
  EXPECT_EQ(this->store_->GetExperiment(exp_id)->state, api::ExperimentState::kActive) << "the stored state is unchanged";
  // A restart: the latest allocation decides.
  a.state = AllocationState::kTerminated;
  ASSERT_TRUE(this->store_->UpdateAllocation(a).ok());
  ASSERT_TRUE(this->store_->InsertAllocation({.allocation_id = "a.2", .task_id = task_id, .state = AllocationState::kQueued,
                                        .token_hash = "h2", .slots = 1, .start_time = WallTime(std::chrono::seconds(20))})
                  .ok());
  EXPECT_EQ(this->store_->GetTrial(trial_id)->display_state, "QUEUED");
  ASSERT_TRUE(this->store_->UpdateExperimentState(exp_id, api::ExperimentState::kPaused, std::nullopt, 0).ok());
  EXPECT_EQ(this->store_->GetExperiment(exp_id)->display_state, "") << "only ACTIVE has display states";
}

TYPED_TEST(StoreTest, SearcherMetricFromTheConfig) {
  int64_t trial_id;
  int64_t exp_id = this->AddExperimentWithTrial(&trial_id);
  absl::StatusOr<SearcherMetric> metric = this->store_->GetSearcherMetric(exp_id);
  ASSERT_TRUE(metric.ok()) << metric.status();
  EXPECT_EQ(metric->name, "acc");
  EXPECT_TRUE(metric->smaller_is_better) << "the default";
  ASSERT_TRUE(this->store_->PatchExperiment(exp_id, {.config_json = R"({"searcher":{"metric":"loss","smaller_is_better":false}})"})
                  .ok());
  metric = this->store_->GetSearcherMetric(exp_id);
  EXPECT_EQ(metric->name, "loss");
  EXPECT_FALSE(metric->smaller_is_better);
  EXPECT_EQ(this->store_->GetSearcherMetric(exp_id + 100).status().code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreTest, ReusedStatementsSeeNewBindsAndNewRows) {
  // The same queries many times over: each run starts from its own binds, not a cached statement's.
  int64_t trial_id;
  this->AddExperimentWithTrial(&trial_id);
  for (int i = 1; i <= 50; ++i) {
    api::MetricsReport m;
    m.trial_id = trial_id;
    m.group = i % 2 == 0 ? "training" : "validation";
    m.total_batches = i;
    ASSERT_TRUE(AddMetrics(*this->store_, {m}, [i](api::Trial& t, const std::vector<api::MetricsReport>&) { t.total_batches = i; }).ok());
    ASSERT_EQ(this->store_->GetTrial(trial_id)->total_batches, i);
    ASSERT_EQ(this->store_->GetMetrics(trial_id, "training", {})->size(), static_cast<size_t>(i / 2));
  }
  EXPECT_EQ(this->store_->GetMetrics(trial_id, "validation", {.start = 41})->size(), 5u);
  EXPECT_EQ(this->store_->GetMetrics(trial_id, "", {.start = 41})->size(), 10u) << "\"\" is every group";
}

TYPED_TEST(StoreTest, MetricsWithinABatchRange) {
  int64_t trial_id;
  this->AddExperimentWithTrial(&trial_id);
  for (int64_t batches : {30, 10, 20, 40}) {
    api::MetricsReport m;
    m.trial_id = trial_id;
    m.group = "training";
    m.total_batches = batches;
    ASSERT_TRUE(AddMetrics(*this->store_, {m}, [](api::Trial&, const std::vector<api::MetricsReport>&) {}).ok());
  }
  auto batches = [&](const BatchRange& range) {
    std::vector<int64_t> out;
    absl::StatusOr<std::vector<api::MetricsReport>> reports = this->store_->GetMetrics(trial_id, "training", range);
    if (!reports.ok()) return std::vector<int64_t>{-1};
    for (const api::MetricsReport& m : *reports) out.push_back(m.total_batches);
    return out;
  };
  using V = std::vector<int64_t>;
  EXPECT_EQ(batches({}), (V{10, 20, 30, 40}));
  EXPECT_EQ(batches({.start = 20}), (V{20, 30, 40}));
  EXPECT_EQ(batches({.start = 15, .end = 30}), (V{20, 30}));
  EXPECT_EQ(this->store_->GetMetrics(trial_id, "validation", {})->size(), 0u);
}

TYPED_TEST(StoreTest, TemplateInsertGetAndAlreadyExists) {
  ASSERT_TRUE(this->store_->InsertTemplate({"t1", R"({"description":"x"})", 1}).ok());
  auto got = this->store_->GetTemplate("t1");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->name, "t1");
  EXPECT_EQ(got->config_json, R"({"description":"x"})");
  EXPECT_EQ(got->workspace_id, 1);
  absl::Status dup = this->store_->InsertTemplate({"t1", "{}", 1});
  EXPECT_EQ(dup.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.message(), "template \"t1\" already exists");
  EXPECT_EQ(this->store_->GetTemplate("t1")->config_json, R"({"description":"x"})");  // unchanged
  absl::Status missing = this->store_->GetTemplate("nope").status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.message(), "template \"nope\" not found");
}

TYPED_TEST(StoreTest, TemplatePutUpserts) {
  ASSERT_TRUE(this->store_->PutTemplate({"t", R"({"a":1})", 1}).ok());
  ASSERT_TRUE(this->store_->PutTemplate({"t", R"({"a":2})", 3}).ok());
  auto got = this->store_->GetTemplate("t");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->config_json, R"({"a":2})");
  EXPECT_EQ(got->workspace_id, 3);
  EXPECT_EQ(this->store_->ListTemplates({})->total, 1);
}

TYPED_TEST(StoreTest, TemplateUpdateConfig) {
  ASSERT_TRUE(this->store_->InsertTemplate({"t", R"({"a":1})", 2}).ok());
  ASSERT_TRUE(this->store_->UpdateTemplateConfig("t", R"({"b":2})").ok());
  EXPECT_EQ(this->store_->GetTemplate("t")->config_json, R"({"b":2})");
  EXPECT_EQ(this->store_->GetTemplate("t")->workspace_id, 2);
  EXPECT_EQ(this->store_->UpdateTemplateConfig("nope", "{}").code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreTest, TemplateRename) {
  ASSERT_TRUE(this->store_->InsertTemplate({"a", R"({"x":1})", 1}).ok());
  ASSERT_TRUE(this->store_->InsertTemplate({"b", "{}", 1}).ok());
  EXPECT_EQ(this->store_->RenameTemplate("a", "b").code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(this->store_->RenameTemplate("zz", "c").code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(this->store_->RenameTemplate("a", "c").ok());
  EXPECT_EQ(this->store_->GetTemplate("a").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(this->store_->GetTemplate("c")->config_json, R"({"x":1})");
  EXPECT_TRUE(this->store_->RenameTemplate("c", "c").ok());
}

TYPED_TEST(StoreTest, TemplateDelete) {
  ASSERT_TRUE(this->store_->InsertTemplate({"a", "{}", 1}).ok());
  ASSERT_TRUE(this->store_->DeleteTemplate("a").ok());
  EXPECT_EQ(this->store_->GetTemplate("a").status().code(), absl::StatusCode::kNotFound);
  absl::Status again = this->store_->DeleteTemplate("a");
  EXPECT_EQ(again.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(again.message(), "template \"a\" not found");
}

TYPED_TEST(StoreTest, TemplateListFiltersOrdersAndPages) {
  for (const char* n : {"beta", "alpha", "gamma_1", "Gamma%2"}) {
    ASSERT_TRUE(this->store_->InsertTemplate({n, "{}", (n[0] == 'g' || n[0] == 'G') ? 2 : 1}).ok());
  }
  auto names = [](const TemplatePage& p) {
    std::vector<std::string> out;
    for (const Template& t : p.templates) out.push_back(t.name);
    return out;
  };
  auto all = this->store_->ListTemplates({});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->total, 4);
  EXPECT_EQ(names(*all), (std::vector<std::string>{"Gamma%2", "alpha", "beta", "gamma_1"}));

  TemplateFilter desc;
  desc.descending = true;
  EXPECT_EQ(names(*this->store_->ListTemplates(desc)), (std::vector<std::string>{"gamma_1", "beta", "alpha", "Gamma%2"}));

  TemplateFilter by_name;
  by_name.name_contains = "GAMMA";  // case-insensitive substring
  EXPECT_EQ(names(*this->store_->ListTemplates(by_name)), (std::vector<std::string>{"Gamma%2", "gamma_1"}));
  by_name.name_contains = "%";  // LIKE wildcards are literal
  EXPECT_EQ(names(*this->store_->ListTemplates(by_name)), (std::vector<std::string>{"Gamma%2"}));
  by_name.name_contains = "a_";
  EXPECT_EQ(names(*this->store_->ListTemplates(by_name)), (std::vector<std::string>{"gamma_1"}));

  TemplateFilter ws;
  ws.workspace_ids = {1};
  EXPECT_EQ(names(*this->store_->ListTemplates(ws)), (std::vector<std::string>{"alpha", "beta"}));

  TemplateFilter page;
  page.offset = 1;
  page.limit = 2;
  auto p = this->store_->ListTemplates(page);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->total, 4);
  EXPECT_EQ(names(*p), (std::vector<std::string>{"alpha", "beta"}));
}

TYPED_TEST(StoreTest, TemplatesSurviveReopen) {
  ASSERT_TRUE(this->store_->InsertTemplate({"keep", R"({"a":1})", 1}).ok());
  auto again = this->Reopen();
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->GetTemplate("keep")->config_json, R"({"a":1})");
}

// --- Users -------------------------------------------------------------------------------------

TYPED_TEST(StoreTest, InsertUserAssignsIdAndRefusesDuplicates) {
  api::User u;
  u.username = "alice";
  u.display_name = "Alice";
  u.password_hash = "hash";
  auto created = this->store_->InsertUser(u);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_GT(created->id, 2);
  EXPECT_EQ(created->display_name, "Alice");
  EXPECT_TRUE(created->active);
  EXPECT_EQ(created->password_hash, "hash");
  auto dup = this->store_->InsertUser(u);
  EXPECT_EQ(dup.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.status().message(), "user \"alice\" already exists");
}

TYPED_TEST(StoreTest, UpdateUserChangesOnlyGivenFields) {
  api::User u;
  u.username = "bob";
  auto bob = this->store_->InsertUser(u);
  ASSERT_TRUE(bob.ok());
  UserPatch p;
  p.active = false;
  p.display_name = "Bobby";
  auto updated = this->store_->UpdateUser(bob->id, p);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_FALSE(updated->active);
  EXPECT_EQ(updated->display_name, "Bobby");
  EXPECT_EQ(updated->username, "bob");
  EXPECT_FALSE(updated->admin);

  UserPatch rename;
  rename.username = "admin";
  EXPECT_EQ(this->store_->UpdateUser(bob->id, rename).status().code(), absl::StatusCode::kAlreadyExists);
  rename.username = "robert";
  EXPECT_EQ(this->store_->UpdateUser(bob->id, rename)->username, "robert");

  UserPatch pw;
  pw.password_hash = std::optional<std::string>("h2");
  EXPECT_EQ(this->store_->UpdateUser(bob->id, pw)->password_hash, "h2");
  pw.password_hash = std::optional<std::string>();
  EXPECT_FALSE(this->store_->UpdateUser(bob->id, pw)->password_hash.has_value());

  const std::string group = R"({"agentGid":2,"agentGroup":"g","agentUid":1,"agentUser":"u"})";
  UserPatch link;
  link.agent_user_group_json = group;
  EXPECT_EQ(this->store_->UpdateUser(bob->id, link)->agent_user_group_json, group);
  EXPECT_EQ(this->store_->GetUserByName("robert")->agent_user_group_json, group);
  EXPECT_EQ(this->store_->UpdateUser(bob->id, p)->agent_user_group_json, group) << "unchanged when not given";
  link.agent_user_group_json = "";
  EXPECT_EQ(this->store_->UpdateUser(bob->id, link)->agent_user_group_json, "");
  api::User linked;
  linked.username = "linked";
  linked.agent_user_group_json = group;
  EXPECT_EQ(this->store_->InsertUser(linked)->agent_user_group_json, group);

  EXPECT_EQ(this->store_->UpdateUser(999, p).status().code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreTest, ListUsersFiltersSortsAndPages) {
  for (const char* name : {"carol", "dave", "erin"}) {
    api::User u;
    u.username = name;
    u.active = std::string(name) != "dave";
    ASSERT_TRUE(this->store_->InsertUser(u).ok());
  }
  UserFilter all;
  auto page = this->store_->ListUsers(all);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->total, 5);  // admin, determined + 3

  UserFilter inactive;
  inactive.active = false;
  page = this->store_->ListUsers(inactive);
  ASSERT_EQ(page->users.size(), 1u);
  EXPECT_EQ(page->users[0].username, "dave");

  UserFilter admins;
  admins.admin = true;
  EXPECT_EQ(this->store_->ListUsers(admins)->users.at(0).username, "admin");

  UserFilter named;
  named.name_contains = "ER";  // case-insensitive: determined, erin
  EXPECT_EQ(this->store_->ListUsers(named)->total, 2);

  UserFilter sorted;
  sorted.sort = UserSort::kUsername;
  sorted.descending = true;
  sorted.offset = 1;
  sorted.limit = 2;
  page = this->store_->ListUsers(sorted);
  EXPECT_EQ(page->total, 5);
  ASSERT_EQ(page->users.size(), 2u);
  EXPECT_EQ(page->users[0].username, "determined");  // erin, [determined, dave], carol, admin
  EXPECT_EQ(page->users[1].username, "dave");
}

TYPED_TEST(StoreTest, SeededUsersHaveARealModificationTime) {
  // Not 1970: migration 0023 stamps admin and determined when the database is made.
  const auto year_2020 = std::chrono::system_clock::time_point(std::chrono::seconds(1577836800));
  for (const char* name : {"admin", "determined"}) {
    absl::StatusOr<api::User> user = this->store_->GetUserByName(name);
    ASSERT_TRUE(user.ok()) << user.status();
    EXPECT_GT(user->modified_at, year_2020) << name;
  }
}

TYPED_TEST(StoreTest, DeleteUserSessionsRevokesOnlyThatUser) {
  auto later = std::chrono::system_clock::now() + std::chrono::hours(1);
  ASSERT_TRUE(this->store_->AddSession("t1", 1, later).ok());
  ASSERT_TRUE(this->store_->AddSession("t2", 2, later).ok());
  ASSERT_TRUE(this->store_->DeleteUserSessions(1).ok());
  auto now = std::chrono::system_clock::now();
  EXPECT_EQ(this->store_->LookupSession("t1", now).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(this->store_->LookupSession("t2", now).ok());
}

// --- Experiment queries and edits --------------------------------------------------------------

template <class Backend>
class ExperimentQueryTest : public StoreTest<Backend> {
 protected:
  int64_t Add(const std::string& name, int64_t owner, api::ExperimentState state, std::vector<std::string> labels,
              int minutes_ago, const std::string& description = "") {
    return AddExperiment(*this->store_, name, owner, state, std::move(labels), minutes_ago, description);
  }
  std::vector<int64_t> Ids(const ExperimentFilter& f) {
    auto list = this->store_->ListExperiments(f);
    EXPECT_TRUE(list.ok()) << list.status();
    std::vector<int64_t> out;
    for (const auto& e : *list) out.push_back(e.id);
    return out;
  }
};
TYPED_TEST_SUITE(ExperimentQueryTest, Backends, BackendNames);

TYPED_TEST(ExperimentQueryTest, FiltersByIdBoundsAndListsAndProject) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(this->Add("e", 1, api::ExperimentState::kActive, {}, 5 - i));
  ExperimentFilter f;
  f.ids.gt = ids[0];
  f.ids.lte = ids[3];
  f.ids.not_in = {ids[2]};
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{ids[1], ids[3]}));
  EXPECT_EQ(this->store_->CountExperiments(f).value_or(-1), 2);
  ExperimentFilter in;
  in.ids.incl = {ids[4], ids[0]};
  in.ids.lt = ids[4];
  EXPECT_EQ(this->Ids(in), (std::vector<int64_t>{ids[0]}));
  ExperimentFilter project;
  project.project_id = 1;
  EXPECT_EQ(this->Ids(project).size(), 5u);
  project.project_id = 2;
  EXPECT_TRUE(this->Ids(project).empty()) << "no experiment is in project 2";
}

TYPED_TEST(ExperimentQueryTest, FiltersByStateOwnerLabelsNameAndArchived) {
  int64_t a = this->Add("mnist-a", 1, api::ExperimentState::kActive, {"x", "y"}, 3);
  int64_t b = this->Add("mnist-b", 2, api::ExperimentState::kCompleted, {"y"}, 2, "a Description");
  int64_t c = this->Add("cifar", 2, api::ExperimentState::kPaused, {}, 1);
  ASSERT_EQ(*this->store_->SetExperimentArchived(b, true, {api::ExperimentState::kCompleted}),
            api::ExperimentState::kCompleted);

  ExperimentFilter f;
  f.states = {api::ExperimentState::kActive, api::ExperimentState::kPaused};
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{a, c}));

  f = {};
  f.usernames = {"determined"};
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{b, c}));
  f.user_ids = {1};  // OR'ed with usernames
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{a, b, c}));

  f = {};
  f.labels = {"y"};
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{a, b}));
  f.labels = {"y", "x"};  // every label must be present
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{a}));

  f = {};
  f.name_contains = "MNIST";
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{a, b}));
  EXPECT_EQ(*this->store_->CountExperiments(f), 2);

  f = {};
  f.description_contains = "descr";
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{b}));

  f = {};
  f.archived = true;
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{b}));
  f.archived = false;
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{a, c}));
  f = {};
  f.include_archived = false;
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{a, c}));
}

TYPED_TEST(ExperimentQueryTest, SortsAndPages) {
  int64_t a = this->Add("bravo", 2, api::ExperimentState::kPaused, {}, 1);
  int64_t b = this->Add("alpha", 1, api::ExperimentState::kActive, {}, 3);
  int64_t c = this->Add("charlie", 2, api::ExperimentState::kCompleted, {}, 2);
  ExperimentFilter f;
  f.sort = ExperimentSort::kName;
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{b, a, c}));
  f.sort = ExperimentSort::kStartTime;
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{b, c, a}));
  f.descending = true;
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{a, c, b}));
  f.sort = ExperimentSort::kUser;  // admin < determined, ties by id (descending here)
  f.descending = false;
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{b, a, c}));
  f.sort = ExperimentSort::kState;
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{b, c, a}));
  f.sort = ExperimentSort::kId;
  f.descending = true;
  f.offset = 1;
  f.limit = 1;
  EXPECT_EQ(this->Ids(f), (std::vector<int64_t>{b}));
  f.sort = ExperimentSort::kNumTrials;
  f.offset = 0;
  f.limit = 0;
  EXPECT_EQ(this->Ids(f).size(), 3u);
}

TYPED_TEST(ExperimentQueryTest, PatchChangesNameDescriptionNotesAndLabels) {
  int64_t id = this->Add("old", 2, api::ExperimentState::kActive, {"a"}, 1);
  ExperimentPatch p;
  p.name = "new";
  p.notes = "some notes";
  auto e = this->store_->PatchExperiment(id, p);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->name, "new");
  EXPECT_EQ(e->notes, "some notes");
  EXPECT_EQ(e->labels, (std::vector<std::string>{"a"}));
  p = {};
  p.labels = std::vector<std::string>{"b", "c"};
  p.description = "d";
  e = this->store_->PatchExperiment(id, p);
  EXPECT_EQ(e->labels, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(e->description, "d");
  EXPECT_EQ(e->name, "new");
  EXPECT_EQ(this->store_->PatchExperiment(999, p).status().code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(ExperimentQueryTest, IdsOfDeletedExperimentsAndTrialsAreNeverGivenAgain) {
  int64_t first_trial = 0, second_trial = 0;
  this->AddExperimentWithTrial(&first_trial);
  int64_t newest = this->AddExperimentWithTrial(&second_trial);
  const std::vector<api::ExperimentState> any = {api::ExperimentState::kActive};
  ASSERT_TRUE(this->store_->DeleteExperiment(newest, any).ok());
  int64_t next_trial = 0;
  int64_t next = this->AddExperimentWithTrial(&next_trial);
  EXPECT_GT(next, newest);
  EXPECT_GT(next_trial, second_trial);
  EXPECT_GT(this->Add("after", 2, api::ExperimentState::kActive, {}, 0), next);
}

TYPED_TEST(ExperimentQueryTest, TheMasterGivesIdsAboveTheHighestEverAndTheStoreGoesOnAboveThem) {
  int64_t trial = 0;
  int64_t deleted = this->AddExperimentWithTrial(&trial);
  ASSERT_TRUE(this->store_->DeleteExperiment(deleted, {api::ExperimentState::kActive}).ok());
  absl::StatusOr<HighestIds> highest = this->store_->GetHighestIds();
  ASSERT_TRUE(highest.ok()) << highest.status();
  EXPECT_EQ(highest->experiment, deleted) << "a deleted experiment's id counts";
  EXPECT_EQ(highest->trial, trial);

  api::Experiment e{.name = "given", .config_json = "{}", .owner_id = 2, .job_id = "job-given"};
  e.id = highest->experiment + 10;
  ASSERT_EQ(*this->store_->InsertExperiment(e, "tgz"), e.id);
  api::Trial t{.experiment_id = e.id, .request_id = "r", .task_id = "given.1"};
  t.id = highest->trial + 20;
  ASSERT_EQ(*this->store_->InsertTrial(t), t.id);
  EXPECT_EQ(this->store_->GetExperiment(e.id)->trial_ids, std::vector<int64_t>{t.id});
  highest = this->store_->GetHighestIds();
  EXPECT_EQ(highest->experiment, e.id);
  EXPECT_EQ(highest->trial, t.id);

  // Rows without a given id come after the given ones, on PostgreSQL's sequences too.
  int64_t next_trial = 0;
  EXPECT_EQ(this->AddExperimentWithTrial(&next_trial), e.id + 1);
  EXPECT_EQ(next_trial, t.id + 1);
  e.id = e.id + 1;
  EXPECT_FALSE(this->store_->InsertExperiment(e, "tgz").ok()) << "an id already given";
}

TYPED_TEST(ExperimentQueryTest, ConditionalWritesActOnlyInTheGivenStates) {
  using api::ExperimentState;
  int64_t live = this->Add("live", 2, ExperimentState::kActive, {}, 1);
  const std::vector<ExperimentState> done = {ExperimentState::kCompleted, ExperimentState::kCanceled};
  EXPECT_EQ(*this->store_->SetExperimentArchived(live, true, done), ExperimentState::kActive);
  EXPECT_FALSE(this->store_->GetExperiment(live)->archived);
  EXPECT_EQ(*this->store_->SetExperimentState(live, ExperimentState::kDeleting, done), ExperimentState::kActive);
  EXPECT_EQ(*this->store_->DeleteExperiment(live, done), ExperimentState::kActive);
  EXPECT_EQ(this->store_->GetExperiment(live)->state, ExperimentState::kActive);

  int64_t trial_id = 0;
  int64_t exp = this->AddExperimentWithTrial(&trial_id);
  ASSERT_TRUE(this->store_->UpdateExperimentState(exp, ExperimentState::kCanceled, std::chrono::system_clock::now(), 1).ok());
  EXPECT_EQ(*this->store_->SetExperimentArchived(exp, true, done), ExperimentState::kCanceled);
  EXPECT_TRUE(this->store_->GetExperiment(exp)->archived);
  EXPECT_EQ(*this->store_->SetExperimentState(exp, ExperimentState::kDeleting, done), ExperimentState::kCanceled);
  EXPECT_EQ(this->store_->GetExperiment(exp)->state, ExperimentState::kDeleting);
  ASSERT_TRUE(this->store_->SaveSearcherSnapshot(exp, "{}").ok());
  ASSERT_TRUE(this->store_->AppendSearcherEvents(exp, 0, {"{}"}).ok());
  EXPECT_EQ(*this->store_->DeleteExperiment(exp, {ExperimentState::kDeleting}), ExperimentState::kDeleting);
  EXPECT_EQ(this->store_->GetExperiment(exp).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(this->store_->GetTrial(trial_id).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(this->store_->GetSearcher(exp).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(this->store_->DeleteExperiment(exp, done).status().code(), absl::StatusCode::kNotFound);
}

// --- Groups and role assignments ------------------------------------------------------------------

TYPED_TEST(StoreTest, GroupsHaveUniqueNamesMembersAndPages) {
  Store& store = *this->store_;
  absl::StatusOr<Group> vision = store.InsertGroup("vision", {1, 2});
  ASSERT_TRUE(vision.ok()) << vision.status();
  EXPECT_EQ(vision->name, "vision");
  EXPECT_EQ(vision->num_members, 2);
  EXPECT_FALSE(vision->personal_of);
  absl::Status dup = store.InsertGroup("vision", {}).status();
  EXPECT_EQ(dup.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.message(), "group \"vision\" already exists");
  ASSERT_TRUE(store.InsertGroup("nlp", {2}).ok());
  ASSERT_TRUE(store.PersonalGroupOf(2).ok());

  absl::StatusOr<GroupPage> all = store.ListGroups({});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->total, 2) << "personal groups are not listed";
  absl::StatusOr<GroupPage> of_admin = store.ListGroups({.member = 1});
  ASSERT_EQ(of_admin->groups.size(), 1u);
  EXPECT_EQ(of_admin->groups[0].name, "vision");
  absl::StatusOr<GroupPage> second = store.ListGroups({.offset = 1, .limit = 1});
  ASSERT_EQ(second->groups.size(), 1u);
  EXPECT_EQ(second->groups[0].name, "nlp");
  EXPECT_EQ(second->total, 2);
  EXPECT_EQ(store.ListGroups({.name = "nlp"})->total, 1);

  absl::StatusOr<Group> renamed = store.UpdateGroup(vision->id, "perception", {3}, {1});
  ASSERT_TRUE(renamed.ok()) << renamed.status();
  EXPECT_EQ(renamed->name, "perception");
  EXPECT_EQ(*store.ListGroupMembers(vision->id), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(store.UpdateGroup(vision->id, "nlp", {}, {}).status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store.GetGroup(vision->id)->name, "perception") << "a refused update changes nothing";
  EXPECT_EQ(store.GetGroup(999).status().code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreTest, RoleAssignmentsReachUsersThroughTheirGroups) {
  Store& store = *this->store_;
  absl::StatusOr<Group> team = store.InsertGroup("team", {2});
  ASSERT_TRUE(team.ok());
  absl::StatusOr<int64_t> personal = store.PersonalGroupOf(2);
  ASSERT_TRUE(personal.ok()) << personal.status();
  EXPECT_EQ(*store.PersonalGroupOf(2), *personal) << "one personal group a user";
  EXPECT_EQ(store.GetGroup(*personal)->personal_of, 2);
  const std::vector<rbac::Assignment> given = {{.group_id = team->id, .role_id = 4, .workspace_id = 7},
                                               {.group_id = *personal, .role_id = 5}};
  ASSERT_TRUE(store.AddRoleAssignments(given).ok());
  ASSERT_TRUE(store.AddRoleAssignments(given).ok()) << "idempotent";
  absl::StatusOr<std::vector<rbac::Assignment>> of_user = store.ListUserRoleAssignments(2);
  ASSERT_TRUE(of_user.ok()) << of_user.status();
  EXPECT_THAT(*of_user, ::testing::UnorderedElementsAreArray(given));
  EXPECT_TRUE(store.ListUserRoleAssignments(1)->empty());
  EXPECT_EQ(store.ListRoleAssignments({.workspace_id = 7})->size(), 1u);
  EXPECT_EQ(store.ListRoleAssignments({.workspace_id = 7, .with_cluster = true})->size(), 2u);
  EXPECT_EQ(store.ListRoleAssignments({.role_id = 5})->size(), 1u);
  EXPECT_EQ(store.ListRoleAssignments({.group_id = team->id})->size(), 1u);

  ASSERT_TRUE(store.RemoveRoleAssignments({given[1]}).ok());
  EXPECT_EQ(store.ListUserRoleAssignments(2)->size(), 1u);
  ASSERT_TRUE(store.UpdateGroup(team->id, std::nullopt, {}, {2}).ok());
  EXPECT_TRUE(store.ListUserRoleAssignments(2)->empty()) << "leaving the group loses its roles";
  ASSERT_TRUE(store.DeleteGroup(team->id).ok());
  EXPECT_TRUE(store.ListRoleAssignments({})->empty()) << "a deleted group's assignments go with it";
  EXPECT_EQ(store.DeleteGroup(team->id).code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreTest, ADeletedWorkspaceTakesItsRoleAssignments) {
  Store& store = *this->store_;
  absl::StatusOr<Workspace> ws =
      store.InsertWorkspace({.name = "scratch", .user_id = 2, .created_at = std::chrono::system_clock::now()});
  ASSERT_TRUE(ws.ok());
  absl::StatusOr<Group> team = store.InsertGroup("team", {2});
  ASSERT_TRUE(store.AddRoleAssignments({{.group_id = team->id, .role_id = 5, .workspace_id = ws->id},
                                        {.group_id = team->id, .role_id = 4}})
                  .ok());
  ASSERT_TRUE(store.DeleteWorkspace(ws->id).ok());
  EXPECT_EQ(*store.ListRoleAssignments({}), (std::vector<rbac::Assignment>{{.group_id = team->id, .role_id = 4}}));
}

TYPED_TEST(StoreTest, RbacSeedingIsRecordedOnce) {
  EXPECT_FALSE(*this->store_->RbacSeededAt());
  ASSERT_TRUE(this->store_->SetRbacSeededAt(42).ok());
  EXPECT_EQ(*this->store_->RbacSeededAt(), 42);
  auto again = this->Reopen();
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(*again->RbacSeededAt(), 42);
}

}  // namespace
}  // namespace det::master
