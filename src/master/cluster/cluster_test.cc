#include "master/cluster/cluster.h"

#include <gtest/gtest.h>

#include <future>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "master/checkpoint_gc.h"
#include "master/cluster/cluster_test_fixture.h"
#include "master/experiment_rules.h"

namespace det::master {
namespace {

TEST_F(ClusterTest, RunsASingleTrialToCompletion) {
  int64_t exp_id = CreateExperiment();
  auto trials = store_->ListTrials(exp_id);
  ASSERT_EQ(trials->size(), 1u);
  EXPECT_EQ((*trials)[0].run_id, 1);

  auto conn = ConnectAgent("agent-1", 2);
  ASSERT_EQ(conn->sent.size(), 1u);
  auto msg = api::DecodeMasterMessage(conn->sent[0]);
  ASSERT_TRUE(msg.ok());
  const auto& start = std::get<api::StartTask>(*msg);
  EXPECT_EQ(start.entrypoint, (std::vector<std::string>{"sh", "-c", "python3 train.py"}));
  EXPECT_EQ(start.env.at("DET_TRIAL_ID"), std::to_string((*trials)[0].id));
  EXPECT_EQ(start.env.at("DET_HPARAMS"), R"({"lr":0.1})");
  EXPECT_EQ(start.env.at("DET_TRIAL_SEED"), std::to_string((*trials)[0].seed));
  EXPECT_EQ(start.env.at("DET_TASK_TYPE"), "TRIAL");
  EXPECT_EQ(start.slot_ids, std::vector<int>{0});
  EXPECT_EQ(start.env.at("DET_SESSION_TOKEN"), start.session_token);
  EXPECT_FALSE(start.env.count("DET_LATEST_CHECKPOINT"));

  handlers_["agent-1"].on_message(api::Encode(api::AgentMessage(api::TaskExited{start.allocation_id, 0, ""})));
  loop_.RunPending();
  EXPECT_EQ(store_->GetTrial((*trials)[0].id)->state, api::TrialState::kCompleted);
  auto exp = store_->GetExperiment(exp_id);
  EXPECT_EQ(exp->state, api::ExperimentState::kCompleted);
  EXPECT_TRUE(exp->end_time.has_value());
  EXPECT_EQ(exp->progress, 1.0);
  // The master wrote its own lifecycle lines into the trial's log.
  auto logs = store_->GetTaskLogs((*trials)[0].task_id, 0, 100, {});
  ASSERT_FALSE(logs->empty());
  EXPECT_EQ((*logs)[0].source, "master");
}

TEST_F(ClusterTest, NonZeroExitErrorsTheTrialAndExperiment) {
  int64_t exp_id = CreateExperiment();
  auto conn = ConnectAgent("agent-1", 1);
  api::StartTask start = std::get<api::StartTask>(*api::DecodeMasterMessage(conn->sent.at(0)));
  handlers_["agent-1"].on_message(api::Encode(api::AgentMessage(api::TaskExited{start.allocation_id, 3, ""})));
  loop_.RunPending();
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kError);
}

TEST_F(ClusterTest, WaitsForSlotsAndPlacesWhenAnAgentArrives) {
  int64_t exp_id = CreateExperiment();
  std::vector<AgentSummary> agents;
  cluster_->ListAgents([&](std::vector<AgentSummary> a) { agents = std::move(a); });
  loop_.RunPending();
  EXPECT_TRUE(agents.empty());
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kActive);
  auto conn = ConnectAgent("agent-1", 1);
  EXPECT_EQ(conn->sent.size(), 1u);
  cluster_->ListAgents([&](std::vector<AgentSummary> a) { agents = std::move(a); });
  loop_.RunPending();
  ASSERT_EQ(agents.size(), 1u);
  EXPECT_EQ(agents[0].slot_allocations.size(), 1u);
}

TEST_F(ClusterTest, LostAgentRequeuesItsTrialWithoutCountingARestart) {
  int64_t exp_id = CreateExperiment();
  ConnectAgent("agent-1", 1);
  handlers_["agent-1"].on_close();
  loop_.RunPending();
  EXPECT_EQ(store_->GetTrial(store_->ListTrials(exp_id)->at(0).id)->run_id, 1);  // waiting for a reconnect
  loop_.AdvanceBy(std::chrono::seconds(61));
  auto trial = store_->GetTrial(store_->ListTrials(exp_id)->at(0).id);
  EXPECT_EQ(trial->state, api::TrialState::kActive);
  EXPECT_EQ(trial->restarts, 0);
  EXPECT_EQ(trial->run_id, 2);  // queued again for whichever agent comes next
  auto conn = ConnectAgent("agent-2", 1);
  ASSERT_EQ(conn->sent.size(), 1u);
  EXPECT_EQ(std::get<api::StartTask>(*api::DecodeMasterMessage(conn->sent[0])).env.at("DET_TRIAL_RUN_ID"), "2");
}

TEST_F(ClusterTest, FailingTrialRestartsFromItsLatestCheckpointUpToMaxRestarts) {
  int64_t exp_id = CreateExperiment(/*max_restarts=*/1);
  auto conn = ConnectAgent("agent-1", 1);
  api::StartTask first = std::get<api::StartTask>(*api::DecodeMasterMessage(conn->sent.at(0)));
  int64_t trial_id = store_->ListTrials(exp_id)->at(0).id;
  api::Checkpoint ckpt;
  ckpt.uuid = "ckpt-1";
  ckpt.task_id = first.task_id;
  ckpt.trial_id = trial_id;
  ckpt.experiment_id = exp_id;
  ckpt.steps_completed = 45;
  ASSERT_TRUE(store_->AddCheckpoint(ckpt, 10).ok());

  handlers_["agent-1"].on_message(api::Encode(api::AgentMessage(api::TaskExited{first.allocation_id, 1, ""})));
  loop_.RunPending();
  ASSERT_EQ(conn->sent.size(), 2u);
  api::StartTask second = std::get<api::StartTask>(*api::DecodeMasterMessage(conn->sent[1]));
  EXPECT_NE(second.allocation_id, first.allocation_id);
  EXPECT_EQ(second.env.at("DET_LATEST_CHECKPOINT"), "ckpt-1");
  EXPECT_EQ(second.env.at("DET_STEPS_COMPLETED"), "45");
  EXPECT_EQ(store_->GetTrial(trial_id)->restarts, 1);

  handlers_["agent-1"].on_message(api::Encode(api::AgentMessage(api::TaskExited{second.allocation_id, 1, ""})));
  loop_.RunPending();
  EXPECT_EQ(store_->GetTrial(trial_id)->state, api::TrialState::kError);
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kError);
}

TEST_F(ClusterTest, AnAgentWhoseSlotTypeDiffersFromItsPoolsIsRefused) {
  ConnectAgent("cpu-agent", 2);
  auto gpu = ConnectAgent("gpu-agent", 4, "", "cuda");
  auto refused = Sent<api::AgentRefused>(*gpu);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].reason,
            "agent gpu-agent offers cuda slots but resource pool \"default\" has cpu slots (agent cpu-agent); a pool's "
            "slots are of one type: start it with --resource-pool naming a pool of cuda agents");
  EXPECT_TRUE(gpu->closed);
  std::vector<std::string> ids;
  cluster_->ListAgents([&](std::vector<AgentSummary> agents) {
    for (const AgentSummary& a : agents) ids.push_back(a.identity.id);
  });
  loop_.RunPending();
  EXPECT_EQ(ids, std::vector<std::string>{"cpu-agent"});
  // Agents of the same type, and zero-slot agents, are welcome.
  auto cpu2 = ConnectAgent("cpu-agent-2", 1);
  auto none = ConnectAgent("no-slots", 0, "", "cuda");
  EXPECT_TRUE(Sent<api::AgentRefused>(*cpu2).empty());
  EXPECT_TRUE(Sent<api::AgentRefused>(*none).empty());
}

TEST_F(ClusterTest, ReconnectingAgentKeepsItsTaskAndOrphansAreKilled) {
  int64_t exp_id = CreateExperiment();
  auto first = ConnectAgent("agent-1", 1);
  api::StartTask start = std::get<api::StartTask>(*api::DecodeMasterMessage(first->sent.at(0)));
  handlers_["agent-1"].on_close();
  loop_.RunPending();

  auto second = std::make_shared<RecordingConnection>();
  auto handlers = cluster_->ConnectAgent({.id = "agent-1", .resource_pool = "", .hostname = "h", .version = "v"}, second);
  ASSERT_TRUE(handlers.ok());
  api::AgentHello hello{.slots = {{0, "cpu", "cpu"}}, .running_allocations = {start.allocation_id, "stale.1"}};
  handlers->on_message(api::Encode(api::AgentMessage(hello)));
  loop_.RunPending();
  loop_.AdvanceBy(std::chrono::seconds(61));
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kActive);
  ASSERT_EQ(second->sent.size(), 1u);
  auto kill = std::get<api::KillTask>(*api::DecodeMasterMessage(second->sent[0]));
  EXPECT_EQ(kill.allocation_id, "stale.1");

  handlers->on_message(api::Encode(api::AgentMessage(api::TaskExited{start.allocation_id, 0, ""})));
  loop_.RunPending();
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kCompleted);
}

TEST_F(ClusterTest, PreemptionLongPollTimesOutFalseAndEndsTrueAfterExit) {
  CreateExperiment();
  auto conn = ConnectAgent("agent-1", 1);
  api::StartTask start = std::get<api::StartTask>(*api::DecodeMasterMessage(conn->sent.at(0)));
  std::optional<bool> first, second;
  cluster_->WaitForPreemption(start.allocation_id, std::chrono::seconds(60), [&](absl::StatusOr<bool> p) { first = *p; });
  loop_.RunPending();
  EXPECT_FALSE(first.has_value());  // parked, not answered
  loop_.AdvanceBy(std::chrono::seconds(61));
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE(*first);
  cluster_->WaitForPreemption(start.allocation_id, std::chrono::seconds(60), [&](absl::StatusOr<bool> p) { second = *p; });
  loop_.RunPending();
  handlers_["agent-1"].on_message(api::Encode(api::AgentMessage(api::TaskExited{start.allocation_id, 0, ""})));
  loop_.RunPending();
  ASSERT_TRUE(second.has_value());
  EXPECT_TRUE(*second);
}

TEST_F(ClusterTest, ATrialThatFinishesItsWorkBeforeHeedingAPauseIsCompleted) {
  int64_t exp_id = CreateExperiment();
  auto conn = ConnectAgent("agent-1", 1);
  api::StartTask first = std::get<api::StartTask>(*api::DecodeMasterMessage(conn->sent.at(0)));
  cluster_->SetExperimentState(exp_id, api::ExperimentState::kPaused, [](absl::Status) {});
  loop_.RunPending();
  // The process never asked whether to stop: it trained to the end and exited 0.
  handlers_["agent-1"].on_message(api::Encode(api::AgentMessage(api::TaskExited{first.allocation_id, 0, ""})));
  loop_.RunPending();
  int64_t trial_id = store_->ListTrials(exp_id)->at(0).id;
  EXPECT_EQ(store_->GetTrial(trial_id)->state, api::TrialState::kCompleted);
  EXPECT_EQ(conn->sent.size(), 1u);
}

TEST_F(ClusterTest, PauseSignalsPreemptionAndActivateResumes) {
  int64_t exp_id = CreateExperiment();
  auto conn = ConnectAgent("agent-1", 1);
  api::StartTask first = std::get<api::StartTask>(*api::DecodeMasterMessage(conn->sent.at(0)));
  std::optional<bool> preempt;
  cluster_->WaitForPreemption(first.allocation_id, std::chrono::seconds(60), [&](absl::StatusOr<bool> p) { preempt = *p; });
  std::vector<absl::Status> results;
  cluster_->SetExperimentState(exp_id, api::ExperimentState::kPaused, [&](absl::Status st) { results.push_back(st); });
  loop_.RunPending();
  ASSERT_TRUE(preempt.has_value());
  EXPECT_TRUE(*preempt);
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kPaused);
  cluster_->AckPreemption(first.allocation_id, [&](absl::Status st) { results.push_back(st); });
  loop_.RunPending();
  handlers_["agent-1"].on_message(api::Encode(api::AgentMessage(api::TaskExited{first.allocation_id, 0, ""})));
  loop_.RunPending();
  int64_t trial_id = store_->ListTrials(exp_id)->at(0).id;
  EXPECT_EQ(store_->GetTrial(trial_id)->state, api::TrialState::kPaused);
  EXPECT_EQ(conn->sent.size(), 1u);  // nothing restarted while paused

  // A no-op:
  cluster_->SetExperimentState(exp_id, api::ExperimentState::kPaused, [&](absl::Status st) { results.push_back(st); });
  cluster_->SetExperimentState(exp_id, api::ExperimentState::kActive, [&](absl::Status st) { results.push_back(st); });
  loop_.RunPending();
  ASSERT_EQ(conn->sent.size(), 2u);
  api::StartTask second = std::get<api::StartTask>(*api::DecodeMasterMessage(conn->sent[1]));
  EXPECT_EQ(second.env.at("DET_TRIAL_RUN_ID"), "2");
  handlers_["agent-1"].on_message(api::Encode(api::AgentMessage(api::TaskExited{second.allocation_id, 0, ""})));
  loop_.RunPending();
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kCompleted);
  for (const absl::Status& st : results) EXPECT_TRUE(st.ok()) << st;
  // A finished experiment can be neither paused nor activated; cancel and kill do nothing.
  absl::Status late;
  cluster_->SetExperimentState(exp_id, api::ExperimentState::kPaused, [&](absl::Status st) { late = st; });
  loop_.RunPending();
  EXPECT_EQ(late.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(late.message().find("experiment 1 has ended"), std::string::npos) << late;
  cluster_->SetExperimentState(exp_id, api::ExperimentState::kStoppingKilled, [&](absl::Status st) { late = st; });
  loop_.RunPending();
  EXPECT_TRUE(late.ok());
}

TEST_F(ClusterTest, KillKillsTheProcessAndCancelsTheExperiment) {
  int64_t exp_id = CreateExperiment(/*max_restarts=*/3);
  auto conn = ConnectAgent("agent-1", 1);
  api::StartTask start = std::get<api::StartTask>(*api::DecodeMasterMessage(conn->sent.at(0)));
  cluster_->SetExperimentState(exp_id, api::ExperimentState::kStoppingKilled, [](absl::Status) {});
  loop_.RunPending();
  ASSERT_EQ(conn->sent.size(), 2u);
  EXPECT_EQ(std::get<api::KillTask>(*api::DecodeMasterMessage(conn->sent[1])).allocation_id, start.allocation_id);
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kStoppingKilled);
  handlers_["agent-1"].on_message(api::Encode(api::AgentMessage(api::TaskExited{start.allocation_id, 143, ""})));
  loop_.RunPending();
  EXPECT_EQ(store_->GetTrial(store_->ListTrials(exp_id)->at(0).id)->state, api::TrialState::kCanceled)
      << "not restarted";
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kCanceled);
}

TEST_F(ClusterTest, CancelOfAQueuedExperimentEndsItAtOnce) {
  int64_t exp_id = CreateExperiment();
  cluster_->SetExperimentState(exp_id, api::ExperimentState::kStoppingCanceled, [](absl::Status) {});
  loop_.RunPending();
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kCanceled);
  auto conn = ConnectAgent("agent-1", 1);
  EXPECT_TRUE(conn->sent.empty());  // the queued allocation was dropped
}

TEST_F(ClusterTest, EarlyExitProgressAndRunnerState) {
  int64_t exp_id = CreateExperiment();
  ConnectAgent("agent-1", 1);
  int64_t trial_id = store_->ListTrials(exp_id)->at(0).id;
  std::map<std::string, absl::Status> results;
  auto record = [&](std::string what) { return [&results, what](absl::Status st) { results[what] = st; }; };
  cluster_->ReportProgress(trial_id, 0.25, record("progress"));
  cluster_->SetRunnerState(trial_id, "training", record("runner state"));
  cluster_->ReportEarlyExit(trial_id, "EXITED_REASON_INVALID_HP", record("early exit"));
  cluster_->ReportEarlyExit(trial_id, "EXITED_REASON_INVALID_HP", record("early exit again"));
  cluster_->ReportProgress(999, 0.5, record("progress of an unknown trial"));
  loop_.RunPending();
  ASSERT_EQ(results.size(), 5u);
  EXPECT_TRUE(results["progress"].ok() && results["runner state"].ok() && results["early exit"].ok());
  EXPECT_EQ(results["early exit again"].code(), absl::StatusCode::kInvalidArgument);  // already reported
  EXPECT_EQ(results["progress of an unknown trial"].code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->GetExperiment(exp_id)->progress, 0.25);
  EXPECT_EQ(store_->GetTrial(trial_id)->runner_state, "training");
}

TEST_F(ClusterTest, TheLoopGoesOnWhileTheDatabaseIsBusyAndAnswersOnceTheChangeIsDurable) {
  int64_t exp_id = CreateExperiment();
  ConnectAgent("agent-1", 1);
  int64_t trial_id = store_->ListTrials(exp_id)->at(0).id;
  auto busy = std::make_unique<HeldDatabase>(store_->database());
  std::optional<absl::Status> runner_state_saved;
  std::optional<absl::Status> paused;
  std::vector<AgentSummary> agents;
  cluster_->SetRunnerState(trial_id, "validating", [&](absl::Status st) { runner_state_saved = st; });
  cluster_->SetExperimentState(exp_id, api::ExperimentState::kPaused, [&](absl::Status st) { paused = st; });
  cluster_->ListAgents([&](std::vector<AgentSummary> listed) { agents = std::move(listed); });
  loop_.RunReady();
  EXPECT_EQ(agents.size(), 1u) << "the loop went on";
  EXPECT_FALSE(runner_state_saved.has_value()) << "not answered before it is durable";
  EXPECT_FALSE(paused.has_value()) << "not answered before it is durable";

  busy.reset();
  loop_.RunPending();
  ASSERT_TRUE(runner_state_saved.has_value() && paused.has_value());
  EXPECT_TRUE(runner_state_saved->ok()) << *runner_state_saved;
  EXPECT_TRUE(paused->ok()) << *paused;
  EXPECT_EQ(store_->GetTrial(trial_id)->runner_state, "validating");
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kPaused);
}

TEST_F(ClusterTest, ARetriedTrialIsQueuedBehindTheLoopAndStartsOnceItsAllocationIsDurable) {
  int64_t exp_id = CreateExperiment(/*max_restarts=*/1);
  auto conn = ConnectAgent("agent-1", 1);
  ASSERT_EQ(Starts(*conn).size(), 1u);
  int64_t trial_id = store_->ListTrials(exp_id)->at(0).id;
  auto busy = std::make_unique<HeldDatabase>(store_->database());
  handlers_["agent-1"].on_message(
      api::Encode(api::AgentMessage(api::TaskExited{Starts(*conn)[0].allocation_id, 1, ""})));
  std::vector<AgentSummary> agents;
  cluster_->ListAgents([&](std::vector<AgentSummary> listed) { agents = std::move(listed); });
  loop_.RunReady();
  EXPECT_EQ(agents.size(), 1u) << "the loop went on";
  EXPECT_EQ(Starts(*conn).size(), 1u) << "the second run waits for its allocation's row";

  busy.reset();
  loop_.RunPending();
  std::vector<api::StartTask> starts = Starts(*conn);
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_EQ(starts[1].env.at("DET_TRIAL_RUN_ID"), "2");
  absl::StatusOr<Allocation> stored = store_->GetAllocation(starts[1].allocation_id);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->state, AllocationState::kAssigned);
  EXPECT_EQ(store_->GetTrial(trial_id)->restarts, 1);
}

TEST_F(ClusterTest, ANewExperimentIsStoredBehindTheLoopAndAnsweredOnceDurable) {
  auto conn = ConnectAgent("agent-1", 1);
  auto busy = std::make_unique<HeldDatabase>(store_->database());
  auto cfg = config::ParseExperimentConfig(
      "entrypoint: python3 train.py\nsearcher: {name: single, metric: accuracy}\n",
      {.checkpoint_storage_json = R"({"type":"shared_fs","host_path":"/tmp"})", .seed = 3, .name = "n"});
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  std::optional<absl::StatusOr<int64_t>> created;
  size_t trials_when_answered = 0;
  cluster_->CreateExperiment({.config = *cfg, .owner_id = 2, .activate = true}, [&](absl::StatusOr<int64_t> id) {
    created = id;
    if (id.ok()) trials_when_answered = store_->ListTrials(*id)->size();
  });
  std::vector<AgentSummary> agents;
  cluster_->ListAgents([&](std::vector<AgentSummary> listed) { agents = std::move(listed); });
  loop_.RunReady();
  EXPECT_EQ(agents.size(), 1u) << "the loop went on";
  EXPECT_FALSE(created.has_value()) << "not answered before it is durable";

  busy.reset();
  loop_.RunPending();
  ASSERT_TRUE(created.has_value() && created->ok());
  EXPECT_EQ(trials_when_answered, 1u) << "answered once its first trial is stored too";
  EXPECT_EQ(store_->GetExperiment(**created)->state, api::ExperimentState::kActive);
  ASSERT_EQ(Starts(*conn).size(), 1u);
  EXPECT_EQ(Starts(*conn)[0].env.at("DET_EXPERIMENT_ID"), std::to_string(**created));
}

TEST_F(ClusterTest, AnExperimentTheDatabaseRefusesIsAnsweredWithTheErrorAndLeavesNothing) {
  ASSERT_TRUE(store_->database()
                  .Writer()
                  ->Exec("CREATE TRIGGER refuse BEFORE INSERT ON experiments BEGIN SELECT RAISE(ABORT, 'refused'); END")
                  .ok());
  auto cfg = config::ParseExperimentConfig(
      "entrypoint: python3 train.py\nsearcher: {name: single, metric: accuracy}\n",
      {.checkpoint_storage_json = R"({"type":"shared_fs","host_path":"/tmp"})", .seed = 3, .name = "n"});
  std::optional<absl::StatusOr<int64_t>> created;
  cluster_->CreateExperiment({.config = *cfg, .owner_id = 2, .activate = true},
                             [&](absl::StatusOr<int64_t> id) { created = id; });
  loop_.RunPending();
  ASSERT_TRUE(created.has_value());
  EXPECT_FALSE(created->ok());
  EXPECT_NE(created->status().message().find("refused"), std::string_view::npos) << created->status();
  std::vector<JobInfo> jobs;
  cluster_->ListJobs([&](std::vector<JobInfo> listed) { jobs = std::move(listed); });
  loop_.RunPending();
  EXPECT_TRUE(jobs.empty()) << "nothing went live";
  EXPECT_TRUE(store_->ListExperiments({})->empty());
}

TEST_F(ClusterTest, NewExperimentsAndTrialsGetIdsAboveEveryIdEverGivenEvenAfterARestart) {
  int64_t first = CreateExperiment();
  int64_t first_trial = store_->ListTrials(first)->at(0).id;
  ASSERT_TRUE(store_->DeleteExperiment(first, {api::ExperimentState::kActive}).ok());
  RestartMaster();
  int64_t second = CreateExperiment();
  EXPECT_EQ(second, first + 1);
  EXPECT_EQ(store_->ListTrials(second)->at(0).id, first_trial + 1);
}

constexpr char kAsha[] =
    "entrypoint: python3 train.py\n"
    "hyperparameters: {lr: {type: double, minval: 0.1, maxval: 1.0}}\n"
    "searcher: {name: async_halving, metric: loss, num_rungs: 2, max_trials: 2, divisor: 2,\n"
    "           max_time: 100, time_metric: batches, max_concurrent_trials: 2}\n"
    "max_restarts: 0\n";

TEST_F(ClusterTest, TrialsTheSearcherStopsArePreemptedAndComplete) {
  int64_t exp_id = CreateExperimentFrom(kAsha);
  auto conn = ConnectAgent("agent-1", 2);
  std::vector<api::StartTask> starts = Starts(*conn);
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_NE(starts[0].env.at("DET_HPARAMS"), starts[1].env.at("DET_HPARAMS"));  // sampled per trial
  int64_t good = std::stoll(starts[0].env.at("DET_TRIAL_ID"));
  int64_t bad = std::stoll(starts[1].env.at("DET_TRIAL_ID"));

  cluster_->ReportValidation(good, R"({"loss": 1.0, "batches": 50})");
  cluster_->ReportValidation(bad, R"({"loss": 2.0, "batches": 50})");
  loop_.RunPending();
  EXPECT_FALSE(Preempted(starts[0].allocation_id));  // promoted
  EXPECT_TRUE(Preempted(starts[1].allocation_id));   // worse half of rung 0: stopped
  EXPECT_EQ(store_->GetTrial(bad)->state, api::TrialState::kStoppingCompleted);
  Exit("agent-1", starts[1].allocation_id);
  EXPECT_EQ(store_->GetTrial(bad)->state, api::TrialState::kCompleted);
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kActive);

  cluster_->ReportValidation(good, R"({"loss": 0.5, "batches": 100})");  // the top rung: done
  loop_.RunPending();
  EXPECT_TRUE(Preempted(starts[0].allocation_id));
  Exit("agent-1", starts[0].allocation_id);
  EXPECT_EQ(store_->GetTrial(good)->state, api::TrialState::kCompleted);
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kCompleted);
  EXPECT_TRUE(store_->GetSearcher(exp_id).ok());
}

TEST_F(ClusterTest, ValidationWithoutTheSearcherMetricIsLoggedAndIgnoredBySingle) {
  int64_t exp_id = CreateExperiment();  // searcher: single, metric accuracy
  auto conn = ConnectAgent("agent-1", 1);
  api::StartTask start = Starts(*conn).at(0);
  int64_t trial_id = std::stoll(start.env.at("DET_TRIAL_ID"));
  cluster_->ReportValidation(trial_id, R"({"loss": 1.0})");
  loop_.RunPending();
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kActive);
  EXPECT_FALSE(Preempted(start.allocation_id));
  auto logs = store_->GetTaskLogs(start.task_id, 0, 100, {});
  bool said = false;
  for (const api::TaskLog& l : *logs) {
    said |= l.log.find("do not include the searcher metric \"accuracy\"; the single searcher goes on") !=
            std::string::npos;
  }
  EXPECT_TRUE(said) << "the trial's log says the metric was missing";
}

TEST_F(ClusterTest, ValidationWithoutTheSearcherMetricErrorsAHalvingSearch) {
  int64_t exp_id = CreateExperimentFrom(kAsha);  // metric loss
  auto conn = ConnectAgent("agent-1", 1);
  api::StartTask start = Starts(*conn).at(0);
  int64_t trial_id = std::stoll(start.env.at("DET_TRIAL_ID"));
  cluster_->ReportValidation(trial_id, R"({"accuracy": 1.0, "batches": 50})");
  loop_.RunPending();
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kStoppingError);
  EXPECT_TRUE(Preempted(start.allocation_id));
  Exit("agent-1", start.allocation_id);
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kError);
  auto logs = store_->GetTaskLogs(start.task_id, 0, 100, {});
  bool named = false;
  for (const api::TaskLog& l : *logs) named |= l.log.find("searcher metric \"loss\"") != std::string::npos;
  EXPECT_TRUE(named) << "the trial's log names the missing metric";
}

TEST_F(ClusterTest, ARestartedMasterFinishesADeletionAnEarlierOneBegan) {
  int64_t exp_id = CreateExperiment();
  ASSERT_TRUE(
      store_->UpdateExperimentState(exp_id, api::ExperimentState::kCanceled, std::chrono::system_clock::now(), 0).ok());
  ASSERT_TRUE(StartDeletingExperiment(*store_, exp_id).ok());

  // The master died while deleting: a new cluster actor, with a GC worker, over the same database.
  CheckpointGc gc(*store_);
  cluster_ = std::make_unique<Cluster>(*store_, loop_,
                                       ClusterOptions{.cluster_id = "c", .master_id = "m2", .checkpoint_gc = &gc});
  ASSERT_TRUE(cluster_->Recover().ok());
  loop_.RunPending();
  gc.WaitIdle();
  EXPECT_EQ(store_->GetExperiment(exp_id).status().code(), absl::StatusCode::kNotFound);
  cluster_.reset();  // before the GC worker it points at
}

// What the continue handler reads from the store, with the config from `yaml`.
ContinuedExperiment Continued(Store& store, int64_t exp_id, const std::string& yaml) {
  ContinuedExperiment out;
  out.experiment = *store.GetExperiment(exp_id);
  out.trial = store.ListTrials(exp_id)->at(0);
  out.task = *store.GetTask(out.trial.task_id);
  auto cfg = config::ParseExperimentConfig(
      yaml, {.checkpoint_storage_json = R"({"type":"shared_fs","host_path":"/tmp"})", .seed = 3, .name = "n"});
  EXPECT_TRUE(cfg.ok()) << cfg.status();
  out.config = *cfg;
  return out;
}

TEST_F(ClusterTest, AContinuedExperimentResumesItsTrialFromItsLatestCheckpointAndSurvivesARestart) {
  const std::string yaml =
      "entrypoint: python3 train.py\nsearcher: {name: single, metric: accuracy, max_length: {batches: 100}}\n"
      "hyperparameters: {lr: 0.1}\nmax_restarts: 0\n";
  int64_t exp_id = CreateExperimentFrom(yaml);
  auto conn = ConnectAgent("agent-1", 1);
  api::StartTask first = Starts(*conn).at(0);
  const api::Trial before = store_->ListTrials(exp_id)->at(0);
  api::Checkpoint ckpt;
  ckpt.uuid = "ckpt-100";
  ckpt.task_id = first.task_id;
  ckpt.trial_id = before.id;
  ckpt.experiment_id = exp_id;
  ckpt.steps_completed = 100;
  ASSERT_TRUE(store_->AddCheckpoint(ckpt, 10).ok());
  Exit("agent-1", first.allocation_id);
  ASSERT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kCompleted);

  // Refused while it runs, and with a searcher other than single.
  absl::Status refused = absl::UnknownError("not run");
  std::string longer = yaml;
  longer.replace(longer.find("batches: 100"), 12, "batches: 300");
  ContinuedExperiment request = Continued(*store_, exp_id, longer);
  request.experiment.state = api::ExperimentState::kActive;
  cluster_->ContinueExperiment(request, [&](absl::Status st) { refused = st; });
  loop_.RunPending();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  std::string grid = longer;
  grid.replace(grid.find("name: single"), 12, "name: grid");
  cluster_->ContinueExperiment(Continued(*store_, exp_id, grid), [&](absl::Status st) { refused = st; });
  loop_.RunPending();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << refused;
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kCompleted) << "a refusal changes nothing";

  absl::Status continued = absl::UnknownError("not run");
  cluster_->ContinueExperiment(Continued(*store_, exp_id, longer), [&](absl::Status st) { continued = st; });
  loop_.RunPending();
  ASSERT_TRUE(continued.ok()) << continued;
  api::Experiment live = *store_->GetExperiment(exp_id);
  EXPECT_EQ(live.state, api::ExperimentState::kActive);
  EXPECT_FALSE(live.end_time.has_value());
  EXPECT_NE(live.config_json.find("\"batches\":300"), std::string::npos) << live.config_json;
  api::Trial resumed = *store_->GetTrial(before.id);
  EXPECT_EQ(resumed.state, api::TrialState::kActive);
  api::StartTask second = Starts(*conn).at(1);
  EXPECT_EQ(second.env.at("DET_TRIAL_ID"), std::to_string(before.id));
  EXPECT_EQ(second.env.at("DET_LATEST_CHECKPOINT"), "ckpt-100");
  EXPECT_EQ(second.env.at("DET_STEPS_COMPLETED"), "100");
  EXPECT_NE(second.env.at("DET_EXPERIMENT_CONFIG").find("\"batches\":300"), std::string::npos);
  EXPECT_NE(second.allocation_id, first.allocation_id);

  // The master dies while the continued trial runs: it comes back with the trial and the search.
  RestartMaster();
  ReconnectAgent("agent-1", 1, {second.allocation_id});
  Exit("agent-1", second.allocation_id);
  EXPECT_EQ(store_->GetTrial(before.id)->state, api::TrialState::kCompleted);
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kCompleted);
  EXPECT_EQ(store_->ListTrials(exp_id)->size(), 1u) << "no second trial";
}

TEST_F(ClusterTest, ARestartedMasterKeepsRunningTrialsAndTheSearch) {
  int64_t exp_id = CreateExperimentFrom(kAsha);
  auto conn = ConnectAgent("agent-1", 2);
  std::vector<api::StartTask> starts = Starts(*conn);
  ASSERT_EQ(starts.size(), 2u);
  int64_t first = std::stoll(starts[0].env.at("DET_TRIAL_ID"));
  absl::StatusOr<SavedSearcher> created = store_->GetSearcher(exp_id);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_TRUE(created->events.empty()) << "a new search is saved whole";
  cluster_->ReportProgress(first, 0.25, [](absl::Status) {});
  cluster_->ReportValidation(first, R"({"loss": 1.0, "batches": 50})");
  loop_.RunPending();
  absl::StatusOr<SavedSearcher> saved = store_->GetSearcher(exp_id);
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(saved->snapshot, created->snapshot) << "events are appended; the snapshot is not written again";
  EXPECT_EQ(saved->events.size(), 2u);

  // The master dies: a new cluster actor over the same database.
  cluster_ = std::make_unique<Cluster>(*store_, loop_, ClusterOptions{.cluster_id = "c", .master_id = "m2"});
  handlers_.clear();
  ASSERT_TRUE(cluster_->Recover().ok());
  loop_.RunPending();
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kActive);

  // The agent reconnects still running both processes: nothing is restarted or started again.
  auto conn2 = std::make_shared<RecordingConnection>();
  auto handlers = cluster_->ConnectAgent({.id = "agent-1", .resource_pool = "", .hostname = "h", .version = "v"}, conn2);
  ASSERT_TRUE(handlers.ok());
  handlers_["agent-1"] = *handlers;
  api::AgentHello hello;
  hello.slots = {{0, "cpu", "cpu"}, {1, "cpu", "cpu"}};
  hello.running_allocations = {starts[0].allocation_id, starts[1].allocation_id};
  handlers->on_message(api::Encode(api::AgentMessage(hello)));
  loop_.RunPending();
  loop_.AdvanceBy(std::chrono::seconds(61));  // past the grace period
  EXPECT_TRUE(Starts(*conn2).empty());
  EXPECT_TRUE(conn2->sent.empty()) << conn2->sent.at(0);

  // The restored searcher remembers rung 0: a worse second trial is stopped.
  int64_t second = std::stoll(starts[1].env.at("DET_TRIAL_ID"));
  cluster_->ReportValidation(second, R"({"loss": 2.0, "batches": 50})");
  loop_.RunPending();
  EXPECT_TRUE(Preempted(starts[1].allocation_id));
  Exit("agent-1", starts[1].allocation_id);
  cluster_->ReportValidation(first, R"({"loss": 0.5, "batches": 100})");
  loop_.RunPending();
  Exit("agent-1", starts[0].allocation_id);
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kCompleted);
  EXPECT_EQ(store_->GetTrial(first)->restarts, 0);
  EXPECT_EQ(store_->GetTrial(first)->run_id, 1);
}

TEST_F(ClusterTest, ARestartedMasterPlacesNewTrialsOnTheReconnectedAgent) {
  int64_t exp_id = CreateExperimentFrom(
      "entrypoint: python3 train.py\nhyperparameters: {x: {type: int, minval: 1, maxval: 9}}\n"
      "searcher: {name: random, metric: loss, max_trials: 2, max_concurrent_trials: 1}\n");
  auto conn = ConnectAgent("agent-1", 1);
  api::StartTask first = Starts(*conn).at(0);

  cluster_ = std::make_unique<Cluster>(*store_, loop_, ClusterOptions{.cluster_id = "c", .master_id = "m2"});
  handlers_.clear();
  ASSERT_TRUE(cluster_->Recover().ok());
  auto conn2 = std::make_shared<RecordingConnection>();
  auto handlers = cluster_->ConnectAgent({.id = "agent-1", .resource_pool = "", .hostname = "h", .version = "v"}, conn2);
  ASSERT_TRUE(handlers.ok());
  handlers_["agent-1"] = *handlers;
  api::AgentHello hello;
  hello.slots = {{0, "cpu", "cpu"}};
  hello.running_allocations = {first.allocation_id};
  handlers->on_message(api::Encode(api::AgentMessage(hello)));
  loop_.RunPending();

  Exit("agent-1", first.allocation_id);
  std::vector<api::StartTask> starts = Starts(*conn2);
  ASSERT_EQ(starts.size(), 1u) << "the searcher's next trial runs on the agent that came back";
  Exit("agent-1", starts[0].allocation_id);
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kCompleted);
  EXPECT_EQ(store_->ListTrials(exp_id)->size(), 2u);
}

TEST_F(ClusterTest, ARestartedMasterRequeuesWorkOfAnAgentThatNeverReturns) {
  int64_t exp_id = CreateExperiment();
  auto conn = ConnectAgent("agent-1", 1);
  api::StartTask start = Starts(*conn).at(0);
  int64_t trial_id = std::stoll(start.env.at("DET_TRIAL_ID"));

  cluster_ = std::make_unique<Cluster>(*store_, loop_, ClusterOptions{.cluster_id = "c", .master_id = "m2"});
  handlers_.clear();
  ASSERT_TRUE(cluster_->Recover().ok());
  loop_.AdvanceBy(std::chrono::seconds(61));
  auto trial = store_->GetTrial(trial_id);
  EXPECT_EQ(trial->state, api::TrialState::kActive);
  EXPECT_EQ(trial->restarts, 0);  // a lost agent is not the trial's fault
  EXPECT_EQ(trial->run_id, 2);
  auto conn2 = ConnectAgent("agent-2", 1);
  ASSERT_EQ(Starts(*conn2).size(), 1u);
  Exit("agent-2", Starts(*conn2)[0].allocation_id);
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kCompleted);
}

TEST_F(ClusterTest, WarmStartedTrialsBeginFromTheirCheckpoint) {
  int64_t source_exp = CreateExperiment();
  auto conn = ConnectAgent("agent-1", 1);
  api::StartTask first = Starts(*conn).at(0);
  api::Checkpoint ckpt{.uuid = "ckpt-1", .task_id = first.task_id, .allocation_id = first.allocation_id,
                       .trial_id = std::stoll(first.env.at("DET_TRIAL_ID")), .experiment_id = source_exp,
                       .report_time = std::chrono::system_clock::now()};
  ASSERT_TRUE(store_->AddCheckpoint(ckpt, 10).ok());
  Exit("agent-1", first.allocation_id);

  // The handler resolves the source (warm_start.h); the cluster starts every trial from it.
  auto cfg = config::ParseExperimentConfig(
      "entrypoint: python3 train.py\nsearcher: {name: single, metric: accuracy, source_checkpoint_uuid: ckpt-1}\n",
      {.checkpoint_storage_json = R"({"type":"shared_fs","host_path":"/tmp"})", .seed = 3, .name = "n"});
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  absl::StatusOr<int64_t> created = absl::UnknownError("not run");
  cluster_->CreateExperiment({.config = *cfg, .owner_id = 2, .warm_start_checkpoint = "ckpt-1"},
                             [&](absl::StatusOr<int64_t> r) { created = r; });
  loop_.RunPending();
  ASSERT_TRUE(created.ok()) << created.status();
  std::vector<api::StartTask> starts = Starts(*conn);
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_EQ(starts[1].env.at("DET_LATEST_CHECKPOINT"), "ckpt-1");
}

TEST_F(ClusterTest, ATrialThatIgnoresPreemptionIsKilledAfterPreemptionTimeout) {
  int64_t exp_id = CreateExperimentFrom(
      "entrypoint: python3 train.py\nsearcher: {name: single, metric: accuracy}\npreemption_timeout: 30\n");
  auto conn = ConnectAgent("agent-1", 1);
  api::StartTask start = Starts(*conn).at(0);
  absl::Status paused = absl::UnknownError("not run");
  cluster_->SetExperimentState(exp_id, api::ExperimentState::kPaused, [&](absl::Status st) { paused = st; });
  loop_.RunPending();
  ASSERT_TRUE(paused.ok()) << paused;
  auto kills = [&] {
    int n = 0;
    for (const std::string& text : conn->sent) {
      auto msg = api::DecodeMasterMessage(text);
      n += msg.ok() && std::holds_alternative<api::KillTask>(*msg);
    }
    return n;
  };
  loop_.AdvanceBy(std::chrono::seconds(29));
  EXPECT_EQ(kills(), 0) << "still within preemption_timeout";
  loop_.AdvanceBy(std::chrono::seconds(2));
  EXPECT_EQ(kills(), 1);
  Exit("agent-1", start.allocation_id, 137);
  int64_t trial_id = store_->ListTrials(exp_id)->at(0).id;
  EXPECT_EQ(store_->GetTrial(trial_id)->restarts, 0) << "stopping for a pause is not a failure";
  EXPECT_EQ(store_->GetTrial(trial_id)->state, api::TrialState::kPaused);
}

TEST_F(ClusterTest, AShutdownPreemptsRunningTrialsWhichResumeWithTheNextMasterWithoutARestart) {
  int64_t exp_id = CreateExperimentFrom("entrypoint: python3 train.py\nsearcher: {name: single, metric: accuracy}\n");
  auto conn = ConnectAgent("agent-1", 1);
  api::StartTask start = Starts(*conn).at(0);
  bool done = false;
  cluster_->Shutdown(std::chrono::seconds(60), [&] { done = true; });
  loop_.RunPending();
  EXPECT_TRUE(Preempted(start.allocation_id));
  EXPECT_FALSE(done) << "the trial still runs";
  cluster_->AckPreemption(start.allocation_id, [](absl::Status st) { EXPECT_TRUE(st.ok()) << st; });
  loop_.RunPending();
  Exit("agent-1", start.allocation_id, 0);  // it checkpointed and exited
  EXPECT_TRUE(done);
  EXPECT_EQ(Starts(*conn).size(), 1u) << "nothing starts while the master shuts down";
  int64_t trial_id = store_->ListTrials(exp_id)->at(0).id;
  EXPECT_EQ(store_->GetTrial(trial_id)->restarts, 0);
  EXPECT_EQ(store_->GetTrial(trial_id)->state, api::TrialState::kActive);

  RestartMaster();
  auto again = ReconnectAgent("agent-1", 1, {});
  ASSERT_EQ(Starts(*again).size(), 1u) << "the trial resumes with the next master";
  EXPECT_EQ(store_->GetTrial(trial_id)->restarts, 0);
}

TEST_F(ClusterTest, AShutdownEndsAfterItsGraceWhenATrialDoesNotExit) {
  CreateExperimentFrom("entrypoint: python3 train.py\nsearcher: {name: single, metric: accuracy}\n");
  ConnectAgent("agent-1", 1);
  bool done = false;
  cluster_->Shutdown(std::chrono::seconds(30), [&] { done = true; });
  loop_.RunPending();
  loop_.AdvanceBy(std::chrono::seconds(29));
  EXPECT_FALSE(done);
  loop_.AdvanceBy(std::chrono::seconds(2));
  EXPECT_TRUE(done);
}

TEST_F(ClusterTest, NothingStartsOnADisabledSlotAndDisablingKillsWhatRunsThere) {
  auto conn = ConnectAgent("agent-1", 2);
  absl::StatusOr<AgentSummary> summary = absl::UnknownError("not run");
  cluster_->SetSlotEnabled("agent-1", 0, /*enabled=*/false, /*drain=*/true, [&](auto s) { summary = s; });
  loop_.RunPending();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->disabled_slots, std::set<int>{0});
  CreateExperiment();
  ASSERT_EQ(Starts(*conn).size(), 1u);
  EXPECT_EQ(Starts(*conn)[0].slot_ids, std::vector<int>{1}) << "slot 0 is disabled";

  cluster_->SetSlotEnabled("agent-1", 1, false, /*drain=*/false, [&](auto s) { summary = s; });
  loop_.RunPending();
  EXPECT_EQ(Kills(*conn).size(), 1u) << "disabled without drain: its work is killed";
  cluster_->SetSlotEnabled("agent-1", 7, false, false, [&](auto s) { summary = s; });
  loop_.RunPending();
  EXPECT_TRUE(absl::IsNotFound(summary.status())) << summary.status();
}

// Creates an experiment whose trials need two slots; returns its outcome and launch warnings.
std::pair<absl::StatusOr<int64_t>, std::vector<std::string>> CreateTwoSlotExperiment(Cluster& cluster,
                                                                                       ManualLoop& loop) {
  auto cfg = config::ParseExperimentConfig(
      "entrypoint: python3 train.py\nsearcher: {name: single, metric: accuracy}\nresources: {slots_per_trial: 2}\n",
      {.checkpoint_storage_json = R"({"type":"shared_fs","host_path":"/tmp"})", .seed = 3, .name = "n"});
  EXPECT_TRUE(cfg.ok()) << cfg.status();
  NewExperiment req{.config = *cfg, .owner_id = 2};
  LaunchWarnings warnings = req.warnings;
  absl::StatusOr<int64_t> id = absl::UnknownError("not run");
  cluster.CreateExperiment(req, [&](absl::StatusOr<int64_t> r) { id = r; });
  loop.RunPending();
  return {id, *warnings};
}

TEST_F(ClusterTest, WorkLargerThanItsPoolIsRefusedByDefault) {
  ConnectAgent("agent-1", 1);
  auto [id, warnings] = CreateTwoSlotExperiment(*cluster_, loop_);
  EXPECT_FALSE(id.ok());
  EXPECT_TRUE(warnings.empty());
}

class LaunchErrorOffTest : public ClusterTest {
 protected:
  ClusterOptions Options() override {
    ClusterOptions options = ClusterTest::Options();
    options.launch_error = false;
    return options;
  }
};

TEST_F(LaunchErrorOffTest, WorkLargerThanItsPoolIsQueuedWithAWarningUntilThePoolGrows) {
  auto small = ConnectAgent("agent-1", 1);
  auto [id, warnings] = CreateTwoSlotExperiment(*cluster_, loop_);
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(warnings, std::vector<std::string>{kSlotsExceeded});
  EXPECT_TRUE(Starts(*small).empty());
  auto big = ConnectAgent("agent-2", 2);
  ASSERT_EQ(Starts(*big).size(), 1u) << "the queued trial starts once an agent can hold it";
  EXPECT_EQ(Starts(*big)[0].slot_ids.size(), 2u);
}

}  // namespace
}  // namespace det::master
