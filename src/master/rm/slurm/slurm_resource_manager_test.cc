// The Slurm resource manager over an in-memory Slurm (a SlurmClient fake in this file): what it submits,
// how Slurm's states become the task core's events, kill, and re-attaching after a restart. Real Slurm is
// the end-to-end tests' (tests/e2e/test_slurm.py).
#include "master/rm/slurm/slurm_resource_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/test_temp_dir.h"
#include "master/manual_loop.h"
#include "master/rm/recording_allocation_events.h"
#include "master/rm/slurm/batch_script.h"

namespace det::master {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class FakeSlurm : public slurm::SlurmClient {
 public:
  absl::StatusOr<std::string> Submit(const slurm::SubmitRequest& request) override {
    std::lock_guard lock(mu);
    if (!refusal.ok()) return refusal;
    const std::string id = std::to_string(next_id++);
    submitted.push_back(request);
    jobs[id] = {.id = id, .name = request.job_name, .state = "PENDING", .reason = "Priority",
                .partition = request.partition};
    return id;
  }
  absl::StatusOr<std::vector<slurm::SlurmJob>> Jobs(const std::vector<std::string>& ids) override {
    std::lock_guard lock(mu);
    std::vector<slurm::SlurmJob> out;
    for (const auto& [id, job] : jobs) {
      if (ids.empty() || std::find(ids.begin(), ids.end(), id) != ids.end()) out.push_back(job);
    }
    return out;
  }
  absl::Status Signal(const std::string& id, int signal) override {
    std::lock_guard lock(mu);
    calls.push_back(absl::StrCat("signal ", id, " ", signal));
    return absl::OkStatus();
  }
  absl::Status Cancel(const std::string& id) override {
    std::lock_guard lock(mu);
    calls.push_back(absl::StrCat("cancel ", id));
    if (jobs.count(id)) jobs[id].state = "CANCELLED";
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<slurm::SlurmPartition>> Partitions() override { return partitions; }
  absl::StatusOr<std::vector<slurm::SlurmNode>> Nodes() override { return nodes; }

  void Set(const std::string& id, const std::string& state, const std::string& reason = "") {
    std::lock_guard lock(mu);
    jobs[id].state = state;
    jobs[id].reason = reason;
    if (state != "PENDING") jobs[id].nodes = {"n1"};
  }
  std::vector<std::string> Calls() {
    std::lock_guard lock(mu);
    return calls;
  }

  std::mutex mu;
  int next_id = 100;
  absl::Status refusal = absl::OkStatus();
  std::vector<slurm::SubmitRequest> submitted;
  std::map<std::string, slurm::SlurmJob> jobs;
  std::vector<std::string> calls;
  std::vector<slurm::SlurmPartition> partitions = {
      {.name = "cpu", .nodes = {"n1"}, .total_cpus = 8, .is_default = true, .state = "UP"},
      {.name = "gpu", .nodes = {"n1"}, .total_cpus = 8, .total_gpus = 4, .state = "UP"}};
  std::vector<slurm::SlurmNode> nodes = {
      {.name = "n1", .state = "idle", .cpus = 8, .gpus = 4, .partitions = {"cpu", "gpu"}}};
};

class SlurmResourceManagerTest : public ::testing::Test {
 protected:
  void SetUp() override { MakeManager(); }

  void MakeManager(bool sudo = false) {
    manager_.reset();
    manager_ = std::make_unique<SlurmResourceManager>(
        loop_, events_, slurm_,
        SlurmOptions{.partitions = slurm_->partitions,
                     .nodes = slurm_->nodes,
                     .partition_slot_types = {{"cpu", "cpu"}},
                     .job_storage_root = dir_.path().string(),
                     .master_url = "http://master:8080",
                     .runner = "/opt/det/bin/determined-pod-runner",
                     .sudo_authorized = sudo,
                     .poll_interval = std::chrono::milliseconds(2)});
  }

  // Runs the loop until `done` (the manager's threads post to it as they learn), or fails after 5 s.
  void Until(const std::function<bool()>& done, const std::string& what) {
    for (int i = 0; i < 2500; ++i) {
      loop_.RunPending();
      if (done()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    FAIL() << "timed out waiting for " << what;
  }

  void Request(const std::string& id, int slots, const std::string& pool = "gpu") {
    events_.jobs[id] = JobAttributes{.job_id = "job-" + id, .resource_pool = pool, .slots = slots};
    manager_->Request({.allocation_id = id, .task_id = "task-" + id, .slots = slots});
    manager_->Schedule();
  }

  void Start(const std::string& id, nlohmann::json slurm = nullptr, std::optional<TaskUser> user = std::nullopt) {
    manager_->Start(id, ProcessLaunch{.task_type = "TRIAL", .entrypoint = {"python3", "train.py"},
                                      .env = {{"DET_TASK_ID", "task-" + id}}, .session_token = "tok",
                                      .user = user, .slurm = std::move(slurm)});
    Until([&] { return !Submitted().empty() || !events_.exits.empty(); }, "the submit");
  }

  std::vector<slurm::SubmitRequest> Submitted() {
    std::lock_guard lock(slurm_->mu);
    return slurm_->submitted;
  }

  void WriteExitStatus(const std::string& id, int status) {
    std::ofstream(slurm::ExitStatusFile(manager_->JobDir(id))) << status << "\n";
  }

  TestTempDir dir_{"det_slurm_rm"};
  ManualLoop loop_;
  RecordingAllocationEvents events_;
  std::shared_ptr<FakeSlurm> slurm_ = std::make_shared<FakeSlurm>();
  std::unique_ptr<SlurmResourceManager> manager_;
};

TEST_F(SlurmResourceManagerTest, PartitionsArePoolsWithTheirSlotTypes) {
  std::vector<PoolSummary> pools = manager_->Pools();
  ASSERT_EQ(pools.size(), 2u);
  EXPECT_EQ(pools[0].options.name, "cpu");
  EXPECT_EQ(pools[0].slot_type, "cpu") << "partition_overrides win over the node's GPUs";
  EXPECT_EQ(pools[0].slots_available, 8);
  EXPECT_EQ(pools[1].slot_type, "cuda");
  EXPECT_EQ(pools[1].slots_available, 4);
  EXPECT_THAT(manager_->CheckFits("gpu", 5, false, {}).message(),
              HasSubstr("5 slots do not fit Slurm partition gpu, which has 4 GPUs"));
  EXPECT_TRUE(manager_->CheckFits("gpu", 4, true, {}).ok());
  EXPECT_TRUE(absl::IsNotFound(manager_->CheckFits("nope", 1, false, {})));
  EXPECT_TRUE(absl::IsFailedPrecondition(manager_->SetAgentEnabled("n1", false, false).status()));
  std::vector<AgentSummary> agents = manager_->Agents();
  ASSERT_EQ(agents.size(), 1u);
  EXPECT_EQ(agents[0].identity.resource_pool, "cpu");
  ASSERT_EQ(agents[0].slots.size(), 8u) << "listed in the cpu partition: its CPUs are its slots";
  EXPECT_EQ(agents[0].slots[0].type, "cpu");
}

TEST_F(SlurmResourceManagerTest, EachAllocationIsOneBatchJobOfItsTasks) {
  Request("a1", 2);
  ASSERT_TRUE(events_.placed.count("a1")) << "Slurm decides when: the request is placed at once";
  EXPECT_EQ(events_.placed["a1"].pool, "gpu");
  Start("a1", {{"slots_per_node", 1}, {"gpu_type", "h200"}, {"sbatch_args", {"--time=10"}}});
  ASSERT_EQ(Submitted().size(), 1u);
  const slurm::SubmitRequest r = Submitted()[0];
  EXPECT_EQ(r.partition, "gpu");
  EXPECT_EQ(r.job_name, "det-a1");
  EXPECT_EQ(r.ntasks, 2);
  EXPECT_EQ(r.gpus_per_task, 1);
  EXPECT_EQ(r.gpu_type, "h200");
  EXPECT_THAT(r.user_sbatch_args, ElementsAre("--time=10"));
  EXPECT_EQ(r.output_path, manager_->JobDir("a1") + "/slurm-%j.out");
  EXPECT_EQ(r.run_as_user, "") << "without sudo_authorized, jobs are the master's user's";
  EXPECT_THAT(r.script, HasSubstr("srun --kill-on-bad-exit=1"));
  EXPECT_THAT(r.script, HasSubstr("/opt/det/bin/determined-pod-runner"));
  EXPECT_THAT(r.script, HasSubstr("export DET_MASTER=http://master:8080"));
  EXPECT_THAT(r.script, HasSubstr(R"("platform":"slurm")"));
  EXPECT_THAT(r.script, HasSubstr(R"("pods":2)"));
  Until([&] { return std::filesystem::exists(manager_->JobDir("a1") + "/slurm-job-id"); }, "the job id file");
  EXPECT_THAT(events_.logs, Contains("a1: Slurm job 100 submitted to partition gpu"));
}

TEST_F(SlurmResourceManagerTest, CpuSlotsAreCpusAndASingleTaskTakesThemAll) {
  Request("a1", 3, "cpu");
  Start("a1");
  EXPECT_EQ(Submitted()[0].ntasks, 1);
  EXPECT_EQ(Submitted()[0].cpus_per_task, 3);
  EXPECT_EQ(Submitted()[0].gpus_per_task, 0);
}

TEST_F(SlurmResourceManagerTest, WithSudoJobsAreTheTasksUsers) {
  MakeManager(/*sudo=*/true);
  Request("a1", 0, "cpu");
  Start("a1", nullptr, TaskUser{.uid = 1001, .gid = 1001, .user = "alice", .group = "alice"});
  EXPECT_EQ(Submitted()[0].run_as_user, "alice");
}

TEST_F(SlurmResourceManagerTest, RunningStartsItAndTheJobDirsExitStatusEndsIt) {
  Request("a1", 1);
  Start("a1");
  Until([&] { return !events_.logs.empty(); }, "the submit log");
  slurm_->Set("100", "PENDING", "Resources");
  Until([&] { return std::find(events_.logs.begin(), events_.logs.end(), "a1: Slurm job 100 is pending: Resources") !=
                     events_.logs.end(); },
        "the pending reason in the log");
  std::vector<QueuedJobView> queue = manager_->JobQueue();
  ASSERT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue[0].state, "STATE_QUEUED");
  EXPECT_EQ(queue[0].pending_reason, "Slurm job 100 pending: Resources");
  slurm_->Set("100", "RUNNING");
  Until([&] { return !events_.started.empty(); }, "the start");
  EXPECT_THAT(events_.started, ElementsAre("a1"));
  EXPECT_EQ(events_.started_on["a1"], "n1");
  EXPECT_EQ(manager_->ChiefAddress("a1"), "n1");
  EXPECT_EQ(manager_->JobQueue()[0].state, "STATE_SCHEDULED");
  WriteExitStatus("a1", 3);
  slurm_->Set("100", "FAILED", "NonZeroExitCode");
  Until([&] { return !events_.exits.empty(); }, "the exit");
  EXPECT_THAT(events_.exits, ElementsAre("a1 3"));
  EXPECT_THAT(events_.whys[0], HasSubstr("Slurm job 100 FAILED (NonZeroExitCode), exit status 3"));
  Until([&] { return !std::filesystem::exists(manager_->JobDir("a1")); }, "the job directory to go");
  // (The poller may also have seen the job's first reason, Priority, before it became Resources.)
  EXPECT_EQ(std::count(events_.logs.begin(), events_.logs.end(), "a1: Slurm job 100 is pending: Resources"), 1)
      << "a reason is said once";
}

TEST_F(SlurmResourceManagerTest, ARefusedSubmitEndsTheAllocationWithSlurmsMessage) {
  slurm_->refusal = absl::InvalidArgumentError(
      "sbatch: error: Batch job submission failed: Requested node configuration is not available");
  Request("a1", 1);
  Start("a1");
  Until([&] { return !events_.exits.empty(); }, "the exit");
  EXPECT_THAT(events_.exits, ElementsAre("a1 1"));
  EXPECT_THAT(events_.logs, Contains(HasSubstr("Requested node configuration is not available")));
}

TEST_F(SlurmResourceManagerTest, KillSignalsARunningJobThenCancelsItAfterTheGrace) {
  Request("a1", 1);
  Start("a1");
  slurm_->Set("100", "RUNNING");
  Until([&] { return !events_.started.empty(); }, "the start");
  manager_->Kill("a1");
  Until([&] { return !slurm_->Calls().empty(); }, "the signal");
  EXPECT_THAT(slurm_->Calls(), ElementsAre("signal 100 15"));
  loop_.AdvanceBy(std::chrono::seconds(10));
  Until([&] { return slurm_->Calls().size() == 2; }, "the cancel");
  EXPECT_EQ(slurm_->Calls()[1], "cancel 100");
  Until([&] { return !events_.exits.empty(); }, "the exit");
  EXPECT_THAT(events_.exits, ElementsAre("a1 137"));
}

TEST_F(SlurmResourceManagerTest, KillOfAPendingJobCancelsItAtOnce) {
  Request("a1", 1);
  Start("a1");
  Until([&] { return !events_.logs.empty(); }, "the submit log");
  slurm_->Set("100", "PENDING", "Resources");
  Until([&] { return manager_->JobQueue()[0].pending_reason != ""; }, "the poll");
  manager_->Kill("a1");
  Until([&] { return !slurm_->Calls().empty(); }, "the cancel");
  EXPECT_THAT(slurm_->Calls(), ElementsAre("cancel 100"));
}

TEST_F(SlurmResourceManagerTest, ARestartedMasterReattachesByTheJobIdFileOrTheJobsName) {
  Request("a1", 1);
  Start("a1");
  Until([&] { return std::filesystem::exists(manager_->JobDir("a1") + "/slurm-job-id"); }, "the job id file");
  slurm_->Set("100", "RUNNING");
  // A job whose id never reached its file (the master died in between), found by its name.
  slurm_->jobs["200"] = {.id = "200", .name = "det-a2", .state = "RUNNING", .nodes = {"n1"}};
  MakeManager();
  for (const std::string id : {"a1", "a2"}) {
    manager_->Restore(Allocation{.allocation_id = id, .task_id = "task-" + id, .state = AllocationState::kRunning,
                                 .slots = 1, .resource_pool = "gpu"});
  }
  manager_->RestoreDone();
  Until([&] { return manager_->ChiefAddress("a1") && manager_->ChiefAddress("a2"); }, "both re-attached");
  EXPECT_THAT(events_.started, IsEmpty()) << "a restored running allocation does not start again";
  EXPECT_EQ(Submitted().size(), 1u) << "nothing is submitted again";
  std::filesystem::create_directories(manager_->JobDir("a2"));
  WriteExitStatus("a2", 0);
  slurm_->Set("200", "COMPLETED");
  Until([&] { return !events_.exits.empty(); }, "a2's exit");
  EXPECT_THAT(events_.exits, ElementsAre("a2 0"));
}

TEST_F(SlurmResourceManagerTest, RestoredWorkSlurmNoLongerKnowsEndsWithAReason) {
  // One ended while the master was away (its exit status is in its directory); one left no trace.
  std::filesystem::create_directories(manager_->JobDir("done"));
  WriteExitStatus("done", 0);
  for (const std::string id : {"done", "gone"}) {
    manager_->Restore(Allocation{.allocation_id = id, .task_id = "task-" + id, .state = AllocationState::kRunning,
                                 .slots = 1, .resource_pool = "gpu"});
  }
  manager_->RestoreDone();
  Until([&] { return events_.exits.size() == 2; }, "both to end");
  EXPECT_THAT(events_.exits, ::testing::UnorderedElementsAre("done 0", "gone -1 lost"));
  EXPECT_THAT(events_.whys, Contains(HasSubstr("Slurm has no job of it")));
}

TEST_F(SlurmResourceManagerTest, AJobSlurmForgetsWithoutAnExitStatusEndsLost) {
  Request("a1", 1);
  Start("a1");
  slurm_->Set("100", "RUNNING");
  Until([&] { return !events_.started.empty(); }, "the start");
  {
    std::lock_guard lock(slurm_->mu);
    slurm_->jobs.clear();
  }
  Until([&] { return !events_.exits.empty(); }, "the exit");
  EXPECT_THAT(events_.exits, ElementsAre("a1 -1 lost"));
  EXPECT_THAT(events_.whys[0], HasSubstr("gone from Slurm"));
}

TEST_F(SlurmResourceManagerTest, ReleaseOfALiveJobCancelsIt) {
  Request("a1", 1);
  Start("a1");
  slurm_->Set("100", "RUNNING");
  Until([&] { return !events_.started.empty(); }, "the start");
  manager_->Release("a1");
  Until([&] { return !slurm_->Calls().empty(); }, "the cancel");
  EXPECT_THAT(slurm_->Calls(), ElementsAre("cancel 100"));
  EXPECT_THAT(manager_->JobQueue(), IsEmpty());
}

TEST(SlurmWckeyTest, FromTheProjectTheWorkspaceOrTheLabels) {
  ProcessLaunch launch{.project_name = "vision", .workspace_name = "research", .labels = {"acct-x", "fast", "acct-y"}};
  EXPECT_EQ(SlurmResourceManager::Wckey("", launch), "");
  EXPECT_EQ(SlurmResourceManager::Wckey("project", launch), "vision");
  EXPECT_EQ(SlurmResourceManager::Wckey("workspace", launch), "research");
  EXPECT_EQ(SlurmResourceManager::Wckey("label", launch), "acct-x_fast_acct-y");
  EXPECT_EQ(SlurmResourceManager::Wckey("label:acct-", launch), "x_y");
}

TEST(SlurmBatchScriptTest, ExportsQuotedRunsTheStepAndKeepsItsStatus) {
  std::string script = slurm::BatchScript({.allocation_id = "a1",
                                           .env = {{"DET_TASK_SPEC", R"({"entrypoint":["echo","it's"]})"}},
                                           .runner = "/opt/det/bin/determined-pod-runner",
                                           .job_dir = "/jobs/a1",
                                           .path = "/opt/bin:/usr/bin"});
  EXPECT_EQ(script.rfind("#!/bin/bash\n", 0), 0u);
  EXPECT_THAT(script, HasSubstr("export PATH=/opt/bin:/usr/bin\n"));
  EXPECT_THAT(script, HasSubstr(R"(export DET_TASK_SPEC='{"entrypoint":["echo","it'\''s"]}')"));
  EXPECT_THAT(script, HasSubstr("trap "));
  EXPECT_THAT(script, HasSubstr("echo \"$status\" > /jobs/a1/exit-status.tmp && mv -f /jobs/a1/exit-status.tmp "
                                "/jobs/a1/exit-status"));
  EXPECT_THAT(script, HasSubstr(R"(d="$1/task-$SLURM_PROCID")"));
}

}  // namespace
}  // namespace det::master
