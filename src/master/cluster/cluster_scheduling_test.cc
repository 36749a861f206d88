// The cluster actor driving the scheduling policies: pools, priority preemption, gangs, agent
// enable/disable and the job queue.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "master/cluster/cluster_test_fixture.h"

namespace det::master {
namespace {

class ClusterSchedulingTest : public ClusterTest {
 protected:
  ClusterOptions Options() override {
    scheduler::SchedulerConfig priority{.preemption = true};
    scheduler::SchedulerConfig fair{.type = scheduler::SchedulerType::kFairShare};
    return ClusterOptions{.pools = {{.name = "default", .scheduler = priority}, {.name = "fair", .scheduler = fair, .agent_reconnect_wait = std::chrono::minutes(2)}},
                          .cluster_id = "c",
                          .master_id = "m"};
  }

  static std::string Yaml(const std::string& resources, int max_restarts = 0) {
    return "entrypoint: python3 train.py\nsearcher: {name: single, metric: accuracy}\nhyperparameters: {lr: 0.1}\n"
           "max_restarts: " +
           std::to_string(max_restarts) + "\nresources: " + resources + "\n";
  }

  absl::Status TryCreate(const std::string& yaml) {
    auto cfg = config::ParseExperimentConfig(
        yaml, {.checkpoint_storage_json = R"({"type":"shared_fs","host_path":"/tmp"})", .seed = 3, .name = "n"});
    if (!cfg.ok()) return cfg.status();
    absl::Status result = absl::UnknownError("not run");
    cluster_->CreateExperiment({.config = *cfg, .owner_id = 2}, [&](absl::StatusOr<int64_t> r) { result = r.status(); });
    loop_.RunPending();
    return result;
  }

  std::vector<JobInfo> Jobs() {
    std::vector<JobInfo> jobs;
    cluster_->ListJobs([&](std::vector<JobInfo> j) { jobs = std::move(j); });
    loop_.RunPending();
    return jobs;
  }

  absl::Status Update(const std::string& job_id, JobChange change) {
    absl::Status result = absl::UnknownError("not run");
    cluster_->UpdateJob(job_id, std::move(change), [&](absl::Status s) { result = s; });
    loop_.RunPending();
    return result;
  }

  void AckAndExit(const std::string& agent, const std::string& allocation_id) {
    cluster_->AckPreemption(allocation_id, [](absl::Status) {});
    loop_.RunPending();
    Exit(agent, allocation_id, 0);
  }

  std::string JobId(int64_t experiment_id) { return store_->GetExperiment(experiment_id)->job_id; }
};

TEST_F(ClusterSchedulingTest, AHigherPriorityJobPreemptsALowerOneWhichResumesAfterIt) {
  auto conn = ConnectAgent("a1", 1);
  int64_t low = CreateExperimentFrom(Yaml("{priority: 50}"));
  ASSERT_EQ(Starts(*conn).size(), 1u);
  std::string low_alloc = Starts(*conn)[0].allocation_id;
  EXPECT_FALSE(Preempted(low_alloc));

  int64_t high = CreateExperimentFrom(Yaml("{priority: 10}"));
  EXPECT_TRUE(Preempted(low_alloc)) << "the lower-priority trial is asked to give its slot back";
  EXPECT_EQ(Starts(*conn).size(), 1u) << "nothing starts until the slot is free";

  AckAndExit("a1", low_alloc);
  ASSERT_EQ(Starts(*conn).size(), 2u);
  api::StartTask high_start = Starts(*conn)[1];
  EXPECT_EQ(high_start.env.at("DET_EXPERIMENT_ID"), std::to_string(high));
  auto low_trial = (*store_->ListTrials(low))[0];
  EXPECT_EQ(low_trial.state, api::TrialState::kActive);
  EXPECT_EQ(low_trial.restarts, 0) << "a preemption is not a failure";
  EXPECT_EQ(low_trial.run_id, 2);

  Exit("a1", high_start.allocation_id, 0);
  ASSERT_EQ(Starts(*conn).size(), 3u);
  EXPECT_EQ(Starts(*conn)[2].env.at("DET_EXPERIMENT_ID"), std::to_string(low));
  Exit("a1", Starts(*conn)[2].allocation_id, 0);
  EXPECT_EQ(store_->GetExperiment(low)->state, api::ExperimentState::kCompleted);
  EXPECT_EQ(store_->GetExperiment(high)->state, api::ExperimentState::kCompleted);
}

TEST_F(ClusterSchedulingTest, APreemptedTrialKilledAfterTheTimeoutStillResumesWithoutARestart) {
  auto conn = ConnectAgent("a1", 1);
  int64_t low = CreateExperimentFrom(Yaml("{priority: 50}") + "preemption_timeout: 5\n");
  std::string low_alloc = Starts(*conn)[0].allocation_id;
  CreateExperimentFrom(Yaml("{priority: 10}"));
  loop_.AdvanceBy(std::chrono::seconds(6));
  auto kill = api::DecodeMasterMessage(conn->sent.back());
  ASSERT_TRUE(kill.ok() && std::holds_alternative<api::KillTask>(*kill));
  Exit("a1", low_alloc, 137);
  auto trial = (*store_->ListTrials(low))[0];
  EXPECT_EQ(trial.state, api::TrialState::kActive);
  EXPECT_EQ(trial.restarts, 0);
}

TEST_F(ClusterSchedulingTest, UnknownPoolsAndRequestsThatCanNeverFitAreRefusedAtSubmission) {
  ConnectAgent("a1", 2);
  absl::Status unknown = TryCreate(Yaml("{resource_pool: gpu}"));
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("no resource pool named \"gpu\"; the pools are: default, fair"), std::string::npos)
      << unknown;
  absl::Status too_big = TryCreate(Yaml("{slots_per_trial: 3}"));
  EXPECT_EQ(too_big.code(), absl::StatusCode::kInvalidArgument) << too_big;
  EXPECT_NE(too_big.message().find("slots_per_trial"), std::string::npos) << too_big;
  // A pool without agents yet may get some: the request waits.
  EXPECT_TRUE(TryCreate(Yaml("{resource_pool: fair, slots_per_trial: 3}")).ok());
}

TEST_F(ClusterSchedulingTest, AgentsOfAnUnknownPoolAreRefused) {
  auto refused = cluster_->ConnectAgent({.id = "x", .resource_pool = "gpu"}, std::make_shared<RecordingConnection>());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ClusterSchedulingTest, TheStoredConfigNamesTheResolvedPool) {
  int64_t id = CreateExperimentFrom(Yaml("{slots_per_trial: 1}"));
  auto config = nlohmann::json::parse(store_->GetExperiment(id)->config_json);
  EXPECT_EQ(config["resources"]["resource_pool"], "default");
}

TEST_F(ClusterSchedulingTest, ALiveExperimentKeepsANewGcPolicyThroughLaterJobChanges) {
  int64_t id = CreateExperimentFrom(Yaml("{slots_per_trial: 1}"));
  absl::Status set = absl::UnknownError("not run");
  cluster_->SetCheckpointPolicy(id, {.save_trial_latest = 0}, [&](absl::Status s) { set = s; });
  loop_.RunPending();
  ASSERT_TRUE(set.ok()) << set;
  ASSERT_TRUE(Update(JobId(id), {.priority = 7}).ok());
  auto config = nlohmann::json::parse(store_->GetExperiment(id)->config_json);
  EXPECT_EQ(config["checkpoint_storage"]["save_trial_latest"], 0) << "the job change wrote the live config back";
  EXPECT_EQ(config["checkpoint_storage"]["type"], "shared_fs") << "the rest of the storage config stays";
  EXPECT_EQ(config["resources"]["priority"], 7);

  cluster_->SetCheckpointPolicy(999, {.save_trial_latest = 0}, [&](absl::Status s) { set = s; });
  loop_.RunPending();
  EXPECT_EQ(set.code(), absl::StatusCode::kNotFound);
}

TEST_F(ClusterSchedulingTest, AGangStartsOneProcessPerAgentAtOnce) {
  auto c1 = ConnectAgent("a1", 1);
  auto c2 = ConnectAgent("a2", 1);
  CreateExperimentFrom(Yaml("{slots_per_trial: 2}"));
  ASSERT_EQ(Starts(*c1).size(), 1u);
  ASSERT_EQ(Starts(*c2).size(), 1u);
  api::StartTask s1 = Starts(*c1)[0];
  api::StartTask s2 = Starts(*c2)[0];
  EXPECT_EQ(s1.allocation_id, s2.allocation_id);
  EXPECT_NE(s1.env.at("DET_RESOURCES_ID"), s2.env.at("DET_RESOURCES_ID"));
  // Both learn where the chief is and their own rank.
  EXPECT_EQ(nlohmann::json::parse(s1.env.at("DET_RENDEZVOUS_INFO")),
            nlohmann::json::parse(R"({"container_addrs":["ip-a1","ip-a2"],"container_rank":0,
                                      "container_slot_counts":[1,1]})"));
  EXPECT_EQ(nlohmann::json::parse(s2.env.at("DET_RENDEZVOUS_INFO"))["container_rank"], 1);
  auto alloc = store_->GetAllocation(s1.allocation_id);
  ASSERT_TRUE(alloc.ok());
  // Each placement keeps the devices behind its slots, as the agent reported them.
  const api::SlotInfo cpu0{.id = 0, .type = "cpu", .device = "cpu", .uuid = ""};
  EXPECT_EQ(alloc->placements, (std::vector<AgentSlots>{{"a1", {0}, {cpu0}}, {"a2", {0}, {cpu0}}}));

  // One process failing stops the other; the allocation ends once both have exited.
  size_t before = c2->sent.size();
  Exit("a1", s1.allocation_id, 1);
  ASSERT_EQ(c2->sent.size(), before + 1);
  EXPECT_TRUE(std::holds_alternative<api::KillTask>(*api::DecodeMasterMessage(c2->sent.back())));
  EXPECT_EQ(store_->GetAllocation(s1.allocation_id)->state, AllocationState::kAssigned);
  Exit("a2", s2.allocation_id, 137);
  EXPECT_EQ(store_->GetAllocation(s1.allocation_id)->state, AllocationState::kTerminated);
  EXPECT_EQ(store_->GetAllocation(s1.allocation_id)->exit_code, 1) << "the first failure is reported";
}

TEST_F(ClusterSchedulingTest, DisablingAnAgentKillsItsWorkUnlessDrainingAndEnablingResumes) {
  auto conn = ConnectAgent("a1", 1);
  int64_t id = CreateExperimentFrom(Yaml("{slots_per_trial: 1}", /*max_restarts=*/0));
  std::string alloc = Starts(*conn)[0].allocation_id;

  absl::StatusOr<AgentSummary> summary = absl::UnknownError("not run");
  cluster_->SetAgentEnabled("a1", false, /*drain=*/false, [&](absl::StatusOr<AgentSummary> s) { summary = s; });
  loop_.RunPending();
  ASSERT_TRUE(summary.ok());
  EXPECT_FALSE(summary->enabled);
  EXPECT_FALSE(summary->draining);
  EXPECT_TRUE(std::holds_alternative<api::KillTask>(*api::DecodeMasterMessage(conn->sent.back())));
  Exit("a1", alloc, 137);
  auto trial = (*store_->ListTrials(id))[0];
  EXPECT_EQ(trial.state, api::TrialState::kActive) << "requeued, not failed, although max_restarts is 0";
  EXPECT_EQ(Starts(*conn).size(), 1u) << "nothing starts on a disabled agent";
  ASSERT_EQ(Jobs().size(), 1u);
  EXPECT_EQ(Jobs()[0].state, "STATE_QUEUED");

  cluster_->SetAgentEnabled("a1", true, false, [&](absl::StatusOr<AgentSummary> s) { summary = s; });
  loop_.RunPending();
  ASSERT_EQ(Starts(*conn).size(), 2u);
  std::string second = Starts(*conn)[1].allocation_id;

  // Draining: the running trial goes on, a new one waits.
  cluster_->SetAgentEnabled("a1", false, /*drain=*/true, [&](absl::StatusOr<AgentSummary> s) { summary = s; });
  loop_.RunPending();
  EXPECT_TRUE(summary->draining);
  EXPECT_TRUE(std::holds_alternative<api::StartTask>(*api::DecodeMasterMessage(conn->sent.back())));
  CreateExperimentFrom(Yaml("{slots_per_trial: 0}"));
  EXPECT_EQ(Starts(*conn).size(), 2u);
  Exit("a1", second, 0);
  EXPECT_EQ(store_->GetExperiment(id)->state, api::ExperimentState::kCompleted);

  cluster_->SetAgentEnabled("nope", false, false, [&](absl::StatusOr<AgentSummary> s) { summary = s; });
  loop_.RunPending();
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ClusterSchedulingTest, TheJobQueueShowsOrderStateAndJobsAheadAndUpdatesReorderIt) {
  auto conn = ConnectAgent("a1", 1);
  int64_t first = CreateExperimentFrom(Yaml("{priority: 30}"));
  int64_t second = CreateExperimentFrom(Yaml("{priority: 40}"));
  int64_t third = CreateExperimentFrom(Yaml("{}"));
  std::vector<JobInfo> jobs = Jobs();
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].entity_id, std::to_string(first));
  EXPECT_EQ(jobs[0].state, "STATE_SCHEDULED");
  EXPECT_EQ(jobs[0].allocated_slots, 1);
  EXPECT_EQ(jobs[1].entity_id, std::to_string(second));
  EXPECT_EQ(jobs[1].state, "STATE_QUEUED");
  EXPECT_EQ(jobs[1].jobs_ahead, 1);
  EXPECT_EQ(jobs[2].entity_id, std::to_string(third));
  EXPECT_EQ(jobs[2].priority, 42) << "the pool's default priority";

  // Preemption is on: raising the third job above the running one preempts it.
  ASSERT_TRUE(Update(JobId(third), {.priority = 5}).ok());
  EXPECT_EQ(Jobs()[0].entity_id, std::to_string(third));
  EXPECT_TRUE(Preempted(Starts(*conn)[0].allocation_id));
  auto config = nlohmann::json::parse(store_->GetExperiment(third)->config_json);
  EXPECT_EQ(config["resources"]["priority"], 5) << "stored, for a restarted master";

  ASSERT_TRUE(Update(JobId(second), {.behind_of = JobId(first)}).ok());
  jobs = Jobs();
  EXPECT_EQ(jobs[1].entity_id, std::to_string(first));
  EXPECT_EQ(jobs[2].entity_id, std::to_string(second));
  ASSERT_TRUE(Update(JobId(second), {.ahead_of = JobId(first)}).ok());
  jobs = Jobs();
  EXPECT_EQ(jobs[1].entity_id, std::to_string(second));
  EXPECT_EQ(jobs[1].priority, 30) << "moving ahead of a job takes its priority";

  // A restarted master restores the queue as it was, positions included.
  cluster_ = std::make_unique<Cluster>(*store_, loop_, Options());
  handlers_.clear();
  ASSERT_TRUE(cluster_->Recover().ok());
  loop_.RunPending();
  std::vector<JobInfo> restored = Jobs();
  ASSERT_EQ(restored.size(), jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(restored[i].entity_id, jobs[i].entity_id) << i;
    EXPECT_EQ(restored[i].priority, jobs[i].priority) << i;
  }

  EXPECT_EQ(Update("no-such-job", {.priority = 1}).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Update(JobId(first), {.priority = 100}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Update(JobId(first), {.weight = 0}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Update(JobId(first), {.resource_pool = "nope"}).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ClusterSchedulingTest, MovingAJobToAnotherPoolRequeuesItThere) {
  auto conn = ConnectAgent("a1", 1);
  auto fair = ConnectAgent("f1", 1, "fair");
  int64_t id = CreateExperimentFrom(Yaml("{}"));
  std::string alloc = Starts(*conn)[0].allocation_id;
  ASSERT_TRUE(Update(JobId(id), {.resource_pool = "fair"}).ok());
  EXPECT_TRUE(Preempted(alloc));
  AckAndExit("a1", alloc);
  ASSERT_EQ(Starts(*fair).size(), 1u);
  std::vector<JobInfo> jobs = Jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].resource_pool, "fair");
  EXPECT_EQ(jobs[0].jobs_ahead, -1) << "fair share has no queue order (upstream)";
}

TEST_F(ClusterSchedulingTest, ADisconnectedAgentKeepsItsWorkForItsPoolsReconnectWait) {
  auto conn = ConnectAgent("f1", 1, "fair");
  CreateExperimentFrom(Yaml("{resource_pool: fair}"));
  std::string alloc = Starts(*conn)[0].allocation_id;
  handlers_["f1"].on_close();
  loop_.RunPending();
  loop_.AdvanceBy(std::chrono::seconds(61));
  EXPECT_EQ(store_->GetAllocation(alloc)->state, AllocationState::kAssigned) << "the pool waits two minutes";
  loop_.AdvanceBy(std::chrono::seconds(60));
  EXPECT_EQ(store_->GetAllocation(alloc)->state, AllocationState::kTerminated);
}

TEST_F(ClusterSchedulingTest, LogPolicyCancelRetriesMakesAFailureFinal) {
  auto conn = ConnectAgent("a1", 1);
  int64_t id = CreateExperimentFrom(
      Yaml("{}", /*max_restarts=*/3) + "log_policies: [{name: fatal, pattern: 'FATAL: .*', action: cancel_retries}]\n");
  api::StartTask start = Starts(*conn)[0];
  api::TaskLog line{.task_id = start.task_id, .allocation_id = start.allocation_id, .agent_id = "a1",
                    .log = "FATAL: the data is corrupt\n"};
  cluster_->ObserveTaskLogs({line});
  loop_.RunPending();
  Exit("a1", start.allocation_id, 1);
  auto trial = (*store_->ListTrials(id))[0];
  EXPECT_EQ(trial.state, api::TrialState::kError);
  EXPECT_EQ(trial.restarts, 0);
  EXPECT_EQ(Starts(*conn).size(), 1u);
}

TEST_F(ClusterSchedulingTest, LogPolicyExcludeNodeMovesRetriesElsewhereUntilNoneIsLeft) {
  auto c1 = ConnectAgent("a1", 1);
  auto c2 = ConnectAgent("a2", 1);
  int64_t id = CreateExperimentFrom(
      Yaml("{}", /*max_restarts=*/5) + "log_policies: [{name: ecc, pattern: 'ECC error', action: exclude_node}]\n");
  ASSERT_EQ(Starts(*c1).size(), 1u);
  api::StartTask first = Starts(*c1)[0];
  cluster_->ObserveTaskLogs({{.task_id = first.task_id, .allocation_id = first.allocation_id, .agent_id = "a1",
                              .log = "uncorrectable ECC error encountered"}});
  loop_.RunPending();
  Exit("a1", first.allocation_id, 1);
  ASSERT_EQ(Starts(*c2).size(), 1u) << "the retry avoids a1";
  EXPECT_EQ(Starts(*c1).size(), 1u);
  api::StartTask second = Starts(*c2)[0];
  cluster_->ObserveTaskLogs({{.task_id = second.task_id, .allocation_id = second.allocation_id, .agent_id = "a2",
                              .log = "uncorrectable ECC error encountered"}});
  loop_.RunPending();
  Exit("a2", second.allocation_id, 1);
  auto trial = (*store_->ListTrials(id))[0];
  EXPECT_EQ(trial.state, api::TrialState::kError) << "no agent is left to retry on";
  auto logs = store_->GetTaskLogs(trial.task_id, 0, 100, {});
  bool explained = false;
  for (const api::TaskLog& l : *logs) explained = explained || l.log.find("excluded agent(s) a1, a2") != std::string::npos;
  EXPECT_TRUE(explained);
}

TEST_F(ClusterSchedulingTest, FairShareDividesSlotsByDemandAndWeight) {
  std::vector<std::shared_ptr<RecordingConnection>> agents;
  for (int i = 0; i < 8; ++i) agents.push_back(ConnectAgent("f" + std::to_string(i), 1, "fair"));
  auto grid = [](int n) {
    return "entrypoint: python3 train.py\nsearcher: {name: grid, metric: accuracy, max_concurrent_trials: 30}\n"
           "hyperparameters: {x: {type: int, minval: 1, maxval: " + std::to_string(n) + ", count: " +
           std::to_string(n) + "}}\nresources: {resource_pool: fair, weight: 3}\n";
  };
  // The product documents' example: weights 3 and 1 over 8 slots give 4 and 4 (demand permitting).
  int64_t a = CreateExperimentFrom(grid(10));
  std::string b_yaml = grid(30);
  b_yaml.replace(b_yaml.find("weight: 3"), 9, "weight: 1");
  int64_t b = CreateExperimentFrom(b_yaml);
  std::map<int64_t, int> slots;
  for (const JobInfo& job : Jobs()) slots[std::stoll(job.entity_id)] = job.allocated_slots;
  // The first experiment took all 8 slots before the second arrived; fair share preempts down to
  // its share as the second's requests wait.
  int running_a = 0;
  for (const auto& conn : agents) {
    for (const api::StartTask& s : Starts(*conn)) {
      if (s.env.at("DET_EXPERIMENT_ID") == std::to_string(a) && !Preempted(s.allocation_id)) running_a += 1;
    }
  }
  EXPECT_EQ(running_a, 4);
  EXPECT_EQ(slots[a], 8) << "until the preempted trials exit";
  EXPECT_EQ(slots[b], 0);
  EXPECT_EQ(Jobs()[1].requested_slots, 30);
}

}  // namespace
}  // namespace det::master
