#include "master/checkpoint_gc.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "master/db/store_test_backends.h"
#include "master/db/temp_sqlite_store.h"
#include "master/experiment_rules.h"

namespace det::master {
namespace {

namespace fs = std::filesystem;
using ::testing::UnorderedElementsAre;

// An experiment with one trial that checkpointed at steps 100, 200, 300 with validation losses
// 0.5, 0.2, 0.4, the checkpoints as real directories under a shared_fs host_path.
class CheckpointGcTest : public ::testing::Test {
 protected:
  CheckpointGcTest() : store_("checkpoint_gc"), host_path_(store_.dir() / "checkpoints") {}

  int64_t AddExperiment(const std::string& policy) {
    api::Experiment e;
    e.name = "gc";
    e.config_json = nlohmann::json{{"searcher", {{"name", "single"}, {"metric", "loss"}}},
                                   {"checkpoint_storage", nlohmann::json::parse(policy)}}
                        .dump();
    e.config_json.replace(e.config_json.find("HOST"), 4, host_path_.string());
    e.searcher_metric = "loss";
    e.smaller_is_better = true;
    e.state = api::ExperimentState::kCompleted;
    e.owner_id = 2;  // the built-in user "determined"
    e.job_id = "job";
    e.start_time = std::chrono::system_clock::now();
    int64_t id = *store_->InsertExperiment(e, "tgz");
    api::Trial t;
    t.experiment_id = id;
    t.request_id = "r";
    t.task_id = std::to_string(id) + ".1";
    t.start_time = e.start_time;
    int64_t trial_id = *store_->InsertTrial(t);
    const std::pair<int64_t, double> steps[] = {{100, 0.5}, {200, 0.2}, {300, 0.4}};
    for (auto [step, loss] : steps) {
      api::MetricsReport m;
      m.trial_id = trial_id;
      m.group = "validation";
      m.total_batches = step;
      m.metrics_json = nlohmann::json{{"loss", loss}}.dump();
      EXPECT_TRUE(AddMetrics(*store_, {m}, [](api::Trial&, const std::vector<api::MetricsReport>&) {}).ok());
      api::Checkpoint c;
      c.uuid = absl::StrCat("e", id, "-", step);
      c.trial_id = trial_id;
      c.experiment_id = id;
      c.steps_completed = step;
      c.resources_json = R"({"model.pt":5})";
      EXPECT_TRUE(store_->AddCheckpoint(c, 5).ok());
      fs::create_directories(host_path_ / c.uuid);
      std::ofstream(host_path_ / c.uuid / "model.pt") << "bytes";
    }
    return id;
  }

  std::vector<std::string> OnDisk() {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(host_path_)) names.push_back(entry.path().filename());
    return names;
  }

  std::map<std::string, std::string> States(int64_t experiment_id) {
    std::map<std::string, std::string> states;
    absl::StatusOr<std::vector<api::Checkpoint>> listed = store_->ListCheckpoints(experiment_id);
    EXPECT_TRUE(listed.ok()) << listed.status();
    for (const api::Checkpoint& c : listed.value_or(std::vector<api::Checkpoint>{})) states[c.uuid] = c.state;
    return states;
  }

  TempSqliteStore store_;
  fs::path host_path_;
};

TEST_F(CheckpointGcTest, DefaultPolicyKeepsTheBestAndTheLatest) {
  int64_t id = AddExperiment(R"({"type":"shared_fs","host_path":"HOST"})");
  CheckpointGc gc(*store_);
  gc.Schedule(id, {});
  gc.WaitIdle();
  EXPECT_THAT(OnDisk(), UnorderedElementsAre(absl::StrCat("e", id, "-200"), absl::StrCat("e", id, "-300")));
  EXPECT_EQ(States(id)[absl::StrCat("e", id, "-100")], "DELETED");
  EXPECT_EQ(States(id)[absl::StrCat("e", id, "-200")], "COMPLETED");
  EXPECT_EQ(store_->GetExperiment(id)->checkpoint_count, 2);
  EXPECT_EQ(store_->GetExperiment(id)->checkpoint_size, 10);
  EXPECT_TRUE(store_->ListCheckpointGcPending()->empty());
}

TEST_F(CheckpointGcTest, ZeroesDeleteEverythingButWhatMustBeKept) {
  int64_t id = AddExperiment(
      R"({"type":"shared_fs","host_path":"HOST","save_experiment_best":0,"save_trial_best":0,"save_trial_latest":0})");
  CheckpointGc gc(*store_);
  gc.Schedule(id, {absl::StrCat("e", id, "-100")});
  gc.WaitIdle();
  EXPECT_THAT(OnDisk(), UnorderedElementsAre(absl::StrCat("e", id, "-100")));
}

TEST_F(CheckpointGcTest, RunningAgainChangesNothing) {
  int64_t id = AddExperiment(R"({"type":"shared_fs","host_path":"HOST"})");
  CheckpointGc gc(*store_);
  ASSERT_TRUE(gc.CollectOnce(id, {}).ok());
  auto states = States(id);
  ASSERT_TRUE(gc.CollectOnce(id, {}).ok());
  EXPECT_EQ(States(id), states);
  EXPECT_EQ(OnDisk().size(), 2u);
}

TEST_F(CheckpointGcTest, ACheckpointAlreadyGoneFromStorageIsStillMarkedDeleted) {
  int64_t id = AddExperiment(R"({"type":"shared_fs","host_path":"HOST"})");
  fs::remove_all(host_path_ / absl::StrCat("e", id, "-100"));
  CheckpointGc gc(*store_);
  ASSERT_TRUE(gc.CollectOnce(id, {}).ok());
  EXPECT_EQ(States(id)[absl::StrCat("e", id, "-100")], "DELETED");
}

// Storage that refuses the first `failures` deletions, then deletes for real.
class FlakyStorage : public storage::StorageManager {
 public:
  FlakyStorage(std::unique_ptr<storage::StorageManager> real, std::atomic<int>& failures)
      : real_(std::move(real)), failures_(failures) {}
  absl::StatusOr<fs::path> StorePath(const std::string& uuid) override { return real_->StorePath(uuid); }
  absl::Status PostStore(const std::string& uuid, const fs::path& dir) override { return real_->PostStore(uuid, dir); }
  absl::StatusOr<fs::path> RestorePath(const std::string& uuid) override { return real_->RestorePath(uuid); }
  absl::Status Delete(const std::string& uuid) override {
    if (failures_-- > 0) return absl::UnavailableError("storage is down");
    return real_->Delete(uuid);
  }
  std::string Describe() const override { return "flaky " + real_->Describe(); }

 private:
  std::unique_ptr<storage::StorageManager> real_;
  std::atomic<int>& failures_;
};

CheckpointGcOptions Flaky(std::atomic<int>& failures, int max_attempts) {
  return {.make_storage = [&failures](const nlohmann::json& config)
              -> absl::StatusOr<std::unique_ptr<storage::StorageManager>> {
            auto real = storage::MakeStorageManager(config);
            if (!real.ok()) return real.status();
            return std::make_unique<FlakyStorage>(std::move(*real), failures);
          },
          .max_attempts = max_attempts,
          .first_retry_delay = std::chrono::milliseconds(1)};
}

TEST_F(CheckpointGcTest, AStorageFailureIsRetriedAndNothingIsMarkedBeforeStorageConfirms) {
  int64_t id = AddExperiment(R"({"type":"shared_fs","host_path":"HOST"})");
  std::atomic<int> failures = 2;
  CheckpointGc gc(*store_, Flaky(failures, 5));
  gc.Schedule(id, {});
  gc.WaitIdle();
  EXPECT_EQ(States(id)[absl::StrCat("e", id, "-100")], "DELETED");
  EXPECT_EQ(OnDisk().size(), 2u);
  EXPECT_TRUE(store_->ListCheckpointGcPending()->empty());
}

TEST_F(CheckpointGcTest, AfterTheLastAttemptTheExperimentStaysPending) {
  int64_t id = AddExperiment(R"({"type":"shared_fs","host_path":"HOST"})");
  std::atomic<int> failures = 100;
  CheckpointGc gc(*store_, Flaky(failures, 3));
  gc.Schedule(id, {});
  gc.WaitIdle();
  EXPECT_EQ(States(id)[absl::StrCat("e", id, "-100")], "COMPLETED") << "storage never confirmed the deletion";
  EXPECT_EQ(OnDisk().size(), 3u);
  EXPECT_THAT(*store_->ListCheckpointGcPending(), ::testing::ElementsAre(id));
}

TEST_F(CheckpointGcTest, NamedCheckpointsAreDeletedAndNothingElse) {
  int64_t id = AddExperiment(R"({"type":"shared_fs","host_path":"HOST"})");
  CheckpointGc gc(*store_);
  gc.Delete(id, {absl::StrCat("e", id, "-100"), absl::StrCat("e", id, "-300")});
  gc.WaitIdle();
  std::string kept = absl::StrCat("e", id, "-200");
  EXPECT_THAT(OnDisk(), UnorderedElementsAre(kept));
  EXPECT_EQ(States(id), (std::map<std::string, std::string>{{absl::StrCat("e", id, "-100"), "DELETED"},
                                                            {kept, "COMPLETED"},
                                                            {absl::StrCat("e", id, "-300"), "DELETED"}}));
}

TEST_F(CheckpointGcTest, FilesNamedByGlobsGoAndTheRestStays) {
  int64_t id = AddExperiment(R"({"type":"shared_fs","host_path":"HOST"})");
  const api::Checkpoint first = *store_->GetCheckpoint(absl::StrCat("e", id, "-100"));
  const std::string partial = absl::StrCat("e", id, "-partial"), emptied = absl::StrCat("e", id, "-emptied");
  for (const std::string& uuid : {partial, emptied}) {
    api::Checkpoint c = first;
    c.uuid = uuid;
    c.resources_json = R"({"model.pt":5,"optimizer/state.pt":9})";
    ASSERT_TRUE(store_->AddCheckpoint(c, 14).ok());
    fs::create_directories(host_path_ / uuid / "optimizer");
    std::ofstream(host_path_ / uuid / "model.pt") << "bytes";
    std::ofstream(host_path_ / uuid / "optimizer" / "state.pt") << "optimizer";
  }
  const int64_t size_before = store_->GetExperiment(id)->checkpoint_size;

  CheckpointGc gc(*store_);
  gc.RemoveFiles(id, {partial}, {"optimizer"});
  gc.RemoveFiles(id, {emptied}, {"*.pt", "optimizer/**"});
  gc.WaitIdle();

  EXPECT_TRUE(fs::exists(host_path_ / partial / "model.pt"));
  EXPECT_FALSE(fs::exists(host_path_ / partial / "optimizer"));
  EXPECT_FALSE(fs::exists(host_path_ / emptied)) << "a checkpoint left with none of its files is gone";
  EXPECT_TRUE(fs::exists(host_path_ / absl::StrCat("e", id, "-300") / "model.pt")) << "not named";
  std::map<std::string, std::string> states = States(id);
  EXPECT_EQ(states[partial], "PARTIALLY_DELETED");
  EXPECT_EQ(states[emptied], "DELETED");
  EXPECT_EQ(states[absl::StrCat("e", id, "-300")], "COMPLETED");
  EXPECT_EQ(nlohmann::json::parse(store_->GetCheckpoint(partial)->resources_json), (nlohmann::json{{"model.pt", 5}}));
  EXPECT_EQ(store_->GetExperiment(id)->checkpoint_size, size_before - 9 - 14);

  // Deleting the experiment takes what is left of a partially deleted checkpoint too.
  ASSERT_TRUE(StartDeletingExperiment(*store_, id).ok());
  gc.DeleteExperiment(id);
  gc.WaitIdle();
  EXPECT_TRUE(OnDisk().empty());
}

TEST_F(CheckpointGcTest, AnExperimentsTensorboardFilesGoAndNoOtherExperiments) {
  int64_t id = AddExperiment(R"({"type":"shared_fs","host_path":"HOST"})");
  const fs::path mine = host_path_ / "tensorboard/experiment" / std::to_string(id) / "trial/1/events.out.tfevents.1";
  const fs::path other = host_path_ / "tensorboard/experiment" / std::to_string(id + 100) / "trial/2/events";
  for (const fs::path& p : {mine, other}) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "event";
  }
  CheckpointGc gc(*store_);
  gc.DeleteTensorboardFiles(id);
  gc.WaitIdle();
  EXPECT_FALSE(fs::exists(mine));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_EQ(States(id)[absl::StrCat("e", id, "-100")], "COMPLETED") << "checkpoints are not touched";
}

TEST_F(CheckpointGcTest, ADeletedExperimentLosesItsCheckpointsThenItsRecords) {
  int64_t id = AddExperiment(R"({"type":"shared_fs","host_path":"HOST"})");
  ASSERT_TRUE(StartDeletingExperiment(*store_, id).ok());
  CheckpointGc gc(*store_);
  fs::path events = host_path_ / "tensorboard/experiment" / std::to_string(id) / "trial/1/events";
  fs::create_directories(events.parent_path());
  std::ofstream(events) << "event";
  gc.DeleteExperiment(id);
  gc.WaitIdle();
  EXPECT_FALSE(fs::exists(events)) << "its TensorBoard files go too";
  EXPECT_EQ(OnDisk(), std::vector<std::string>{"tensorboard"}) << "every checkpoint is gone";
  EXPECT_EQ(store_->GetExperiment(id).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(CheckpointGcTest, ADeletedExperimentLosesTheTensorboardFilesUpstreamsHarnessWrote) {
  int64_t id = AddExperiment(R"({"type":"shared_fs","host_path":"HOST"})");
  ASSERT_TRUE(StartDeletingExperiment(*store_, id).ok());
  CheckpointGc gc(*store_);
  gc.SetClusterId("cluster-1");
  // Upstream's harness writes under CLUSTER_ID/tensorboard/experiment/ID; another cluster's are left.
  fs::path events = host_path_ / "cluster-1/tensorboard/experiment" / std::to_string(id) / "trial/1/events";
  fs::path other_cluster = host_path_ / "cluster-2/tensorboard/experiment" / std::to_string(id) / "trial/1/events";
  for (const fs::path& p : {events, other_cluster}) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "event";
  }
  gc.DeleteExperiment(id);
  gc.WaitIdle();
  EXPECT_FALSE(fs::exists(events));
  EXPECT_TRUE(fs::exists(other_cluster));
  EXPECT_EQ(store_->GetExperiment(id).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(CheckpointGcTest, AnExperimentWhoseCheckpointsStorageKeepsIsDeleteFailedAndKept) {
  int64_t id = AddExperiment(R"({"type":"shared_fs","host_path":"HOST"})");
  ASSERT_TRUE(StartDeletingExperiment(*store_, id).ok());
  std::atomic<int> failures = 100;
  CheckpointGc gc(*store_, Flaky(failures, 2));
  gc.DeleteExperiment(id);
  gc.WaitIdle();
  EXPECT_EQ(store_->GetExperiment(id)->state, api::ExperimentState::kDeleteFailed);
  EXPECT_EQ(OnDisk().size(), 3u);
  EXPECT_EQ(States(id).size(), 3u);
}

TEST_F(CheckpointGcTest, ADeletedExperimentHasNothingLeftToCollect) {
  CheckpointGc gc(*store_);
  EXPECT_TRUE(gc.CollectOnce(12345, {}).ok());
}

}  // namespace
}  // namespace det::master
