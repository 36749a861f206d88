// Commands and generic tasks on the task core, with a fake agent: start and exit, sharing slots with
// trials, kill, priorities, pause/unpause, and a master restart.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "master/cluster/cluster_test_fixture.h"
#include "master/proxy/service_registry.h"

#include <thread>

namespace det::master {
namespace {

using nlohmann::json;

class ClusterTasksTest : public ClusterTest {
 protected:
  absl::StatusOr<Task> Launch(const json& config, TaskType type = TaskType::kCommand, int64_t workspace_id = 1) {
    absl::StatusOr<config::CommandConfig> parsed = config::ParseCommandConfig({}, nullptr, config);
    if (!parsed.ok()) return parsed.status();
    absl::StatusOr<Task> result = absl::UnknownError("not run");
    cluster_->LaunchTask({.type = type,
                          .config = *parsed,
                          .owner_id = 2,
                          .owner_username = "determined",
                          .workspace_id = workspace_id},
                         [&](absl::StatusOr<Task> t) { result = t; });
    loop_.RunPending();
    return result;
  }

  Task Stored(const std::string& id) { return *store_->GetTask(id); }

  absl::Status Kill(const std::string& id) {
    absl::Status result = absl::UnknownError("not run");
    cluster_->KillTask(id, [&](absl::Status s) { result = s; });
    loop_.RunPending();
    return result;
  }

  absl::Status Pause(const std::string& id, bool pause) {
    absl::Status result = absl::UnknownError("not run");
    cluster_->SetTaskPaused(id, pause, [&](absl::Status s) { result = s; });
    loop_.RunPending();
    return result;
  }
};

TEST_F(ClusterTasksTest, ACommandRunsItsEntrypointAndItsExitEndsIt) {
  auto conn = ConnectAgent("a1", 2);
  absl::StatusOr<Task> ok = Launch({{"entrypoint", {"echo", "hello"}}});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->description.rfind("Command (", 0), 0u) << ok->description;
  ASSERT_EQ(Starts(*conn).size(), 1u);
  api::StartTask start = Starts(*conn)[0];
  EXPECT_EQ(start.task_type, "COMMAND");
  EXPECT_EQ(start.entrypoint, (std::vector<std::string>{"echo", "hello"}));
  EXPECT_EQ(start.env.at("DET_TASK_TYPE"), "COMMAND");
  EXPECT_EQ(start.env.at("DET_TASK_ID"), ok->task_id);
  EXPECT_FALSE(start.env.contains("DET_TRIAL_ID"));
  EXPECT_FALSE(start.download_context) << "no context was sent";
  EXPECT_EQ(start.slot_ids.size(), 1u);
  Exit("a1", start.allocation_id, 0);
  EXPECT_EQ(Stored(ok->task_id).state, TaskState::kCompleted);
  EXPECT_EQ(Stored(ok->task_id).exit_code, 0);

  absl::StatusOr<Task> failing = Launch({{"entrypoint", "exit 3"}, {"resources", {{"slots", 0}}}});
  ASSERT_TRUE(failing.ok());
  api::StartTask second = Starts(*conn).back();
  EXPECT_TRUE(second.slot_ids.empty()) << "0 slots: an aux task";
  Exit("a1", second.allocation_id, 3);
  Task failed = Stored(failing->task_id);
  EXPECT_EQ(failed.state, TaskState::kError);
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_EQ(failed.exit_status, "exited with code 3");
}

class ClusterDefaultTaskUserTest : public ClusterTasksTest {
 protected:
  ClusterOptions Options() override {
    ClusterOptions options = ClusterTasksTest::Options();
    options.default_task_user = api::TaskUser{.uid = 65534, .gid = 65534, .user = "nobody", .group = "nogroup"};
    return options;
  }
};

TEST_F(ClusterDefaultTaskUserTest, TasksRunAsTheDefaultUserUnlessTheirWorkspaceNamesOne) {
  auto conn = ConnectAgent("a1", 2);
  const json aux = {{"entrypoint", "true"}, {"resources", {{"slots", 0}}}};
  ASSERT_TRUE(Launch(aux).ok());
  ASSERT_EQ(Starts(*conn).size(), 1u);
  EXPECT_EQ(Starts(*conn)[0].user, (api::TaskUser{.uid = 65534, .gid = 65534, .user = "nobody", .group = "nogroup"}));

  absl::StatusOr<Workspace> plain = store_->InsertWorkspace({.name = "plain", .user_id = 1});
  absl::StatusOr<Workspace> own = store_->InsertWorkspace(
      {.name = "own",
       .user_id = 1,
       .agent_user_group_json = R"({"agentUid": 1000, "agentGid": 100, "agentUser": "ml", "agentGroup": "users"})"});
  ASSERT_TRUE(plain.ok() && own.ok());
  ASSERT_TRUE(Launch(aux, TaskType::kCommand, plain->id).ok());
  ASSERT_TRUE(Launch(aux, TaskType::kCommand, own->id).ok());
  ASSERT_EQ(Starts(*conn).size(), 3u);
  EXPECT_EQ(Starts(*conn)[1].user->user, "nobody") << "a workspace without a group: the default";
  EXPECT_EQ(Starts(*conn)[2].user, (api::TaskUser{.uid = 1000, .gid = 100, .user = "ml", .group = "users"}));
}

TEST_F(ClusterTasksTest, WithoutADefaultTaskUserTasksRunAsTheAgentsUser) {
  auto conn = ConnectAgent("a1", 1);
  ASSERT_TRUE(Launch({{"entrypoint", "true"}}).ok());
  ASSERT_EQ(Starts(*conn).size(), 1u);
  EXPECT_FALSE(Starts(*conn)[0].user.has_value());
}

TEST_F(ClusterTasksTest, ACommandWaitsForTheSlotARunningTrialHolds) {
  auto conn = ConnectAgent("a1", 1);
  CreateExperiment();
  ASSERT_EQ(Starts(*conn).size(), 1u);
  api::StartTask trial = Starts(*conn)[0];
  absl::StatusOr<Task> cmd = Launch({{"entrypoint", {"true"}}});
  ASSERT_TRUE(cmd.ok());
  EXPECT_EQ(Starts(*conn).size(), 1u) << "the one slot is the trial's";
  std::vector<JobInfo> jobs;
  cluster_->ListJobs([&](std::vector<JobInfo> j) { jobs = std::move(j); });
  loop_.RunPending();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[1].type, "TYPE_COMMAND");
  EXPECT_EQ(jobs[1].entity_id, cmd->task_id);
  EXPECT_EQ(jobs[1].state, "STATE_QUEUED");
  EXPECT_FALSE(jobs[1].preemptible);
  Exit("a1", trial.allocation_id, 0);
  ASSERT_EQ(Starts(*conn).size(), 2u);
  EXPECT_EQ(Starts(*conn)[1].task_id, cmd->task_id);
  EXPECT_EQ(Starts(*conn)[1].slot_ids, trial.slot_ids);
}

TEST_F(ClusterTasksTest, KillEndsAQueuedCommandAtOnceAndARunningOneWhenItsProcessStops) {
  auto conn = ConnectAgent("a1", 1);
  absl::StatusOr<Task> running = Launch({{"entrypoint", {"sleep", "100"}}});
  absl::StatusOr<Task> queued = Launch({{"entrypoint", {"sleep", "100"}}});
  ASSERT_TRUE(running.ok() && queued.ok());
  ASSERT_TRUE(Kill(queued->task_id).ok());
  EXPECT_EQ(Stored(queued->task_id).state, TaskState::kCanceled);
  EXPECT_EQ(Starts(*conn).size(), 1u);

  ASSERT_TRUE(Kill(running->task_id).ok());
  ASSERT_EQ(Kills(*conn).size(), 1u);
  EXPECT_EQ(Stored(running->task_id).state, TaskState::kStoppingCanceled);
  Exit("a1", Starts(*conn)[0].allocation_id, 143);
  EXPECT_EQ(Stored(running->task_id).state, TaskState::kCanceled);
  EXPECT_EQ(Stored(running->task_id).exit_status, "killed by request");
  EXPECT_TRUE(Kill(running->task_id).ok()) << "killing an ended task does nothing";
}

TEST_F(ClusterTasksTest, PrioritiesReorderQueuedCommands) {
  auto conn = ConnectAgent("a1", 1);
  absl::StatusOr<Task> first = Launch({{"entrypoint", {"a"}}});
  absl::StatusOr<Task> low = Launch({{"entrypoint", {"b"}}, {"resources", {{"priority", 60}}}});
  absl::StatusOr<Task> high = Launch({{"entrypoint", {"c"}}, {"resources", {{"priority", 40}}}});
  absl::StatusOr<Task> later = Launch({{"entrypoint", {"d"}}, {"resources", {{"priority", 60}}}});
  ASSERT_TRUE(first.ok() && low.ok() && high.ok() && later.ok());
  // `later` jumps ahead of everything through a job update (det cmd set priority).
  absl::Status updated = absl::UnknownError("not run");
  cluster_->UpdateJob(later->job_id, JobChange{.priority = 10}, [&](absl::Status s) { updated = s; });
  loop_.RunPending();
  ASSERT_TRUE(updated.ok()) << updated;
  std::vector<std::string> order;
  for (int i = 0; i < 4; ++i) {
    api::StartTask start = Starts(*conn).back();
    order.push_back(start.entrypoint.back());  // /bin/sh -c NAME
    Exit("a1", start.allocation_id, 0);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"a", "d", "c", "b"}));
  EXPECT_NE(Stored(later->task_id).config_json.find("\"priority\":10"), std::string::npos);
}

TEST_F(ClusterTasksTest, AGenericTaskPausesAndUnpauses) {
  auto conn = ConnectAgent("a1", 1);
  absl::StatusOr<Task> task = Launch({{"entrypoint", {"python3", "t.py"}}, {"preemption_timeout", 5}}, TaskType::kGeneric);
  ASSERT_TRUE(task.ok());
  api::StartTask first = Starts(*conn)[0];
  EXPECT_EQ(first.task_type, "GENERIC");
  ASSERT_TRUE(Pause(task->task_id, true).ok());
  EXPECT_TRUE(Preempted(first.allocation_id));
  EXPECT_EQ(Stored(task->task_id).state, TaskState::kStoppingPaused);
  loop_.AdvanceBy(std::chrono::seconds(6));  // it ignores the signal: killed after preemption_timeout
  EXPECT_EQ(Kills(*conn).size(), 1u);
  Exit("a1", first.allocation_id, 137);
  EXPECT_EQ(Stored(task->task_id).state, TaskState::kPaused);
  EXPECT_TRUE(Pause(task->task_id, true).ok()) << "pausing a paused task does nothing";

  ASSERT_TRUE(Pause(task->task_id, false).ok());
  ASSERT_EQ(Starts(*conn).size(), 2u);
  EXPECT_EQ(Starts(*conn)[1].allocation_id, task->task_id + ".2");
  Exit("a1", Starts(*conn)[1].allocation_id, 0);
  EXPECT_EQ(Stored(task->task_id).state, TaskState::kCompleted);
  EXPECT_TRUE(absl::IsFailedPrecondition(Pause(task->task_id, false)));

  absl::StatusOr<Task> command = Launch({{"entrypoint", {"true"}}});
  EXPECT_TRUE(absl::IsFailedPrecondition(Pause(command->task_id, true))) << "only generic tasks pause";
}

TEST_F(ClusterTasksTest, BadRequestsStoreAndStartNothing) {
  ConnectAgent("a1", 2);
  absl::Status pool = Launch({{"entrypoint", {"x"}}, {"resources", {{"resource_pool", "gpu"}}}}).status();
  EXPECT_TRUE(absl::IsInvalidArgument(pool));
  EXPECT_NE(pool.message().find("no resource pool named \"gpu\""), std::string::npos) << pool;
  absl::Status slots = Launch({{"entrypoint", {"x"}}, {"resources", {{"slots", 3}}}}).status();
  EXPECT_FALSE(slots.ok());
  EXPECT_NE(slots.message().find("3"), std::string::npos) << slots;
  EXPECT_TRUE(store_->ListTasks({.types = {TaskType::kCommand}})->empty());
}

TEST_F(ClusterTasksTest, AForkIsStoredWithItsParentAndTheContextItIsGiven) {
  ConnectAgent("a1", 2);
  auto parsed = config::ParseCommandConfig({}, nullptr, {{"entrypoint", {"true"}}});
  ASSERT_TRUE(parsed.ok());
  auto launch = [&](std::string context, std::string parent) {
    absl::StatusOr<Task> result = absl::UnknownError("not run");
    cluster_->LaunchTask({.type = TaskType::kGeneric, .config = *parsed, .context_tgz = std::move(context),
                          .owner_id = 2, .owner_username = "determined", .forked_from = std::move(parent)},
                         [&](absl::StatusOr<Task> t) { result = t; });
    loop_.RunPending();
    return result;
  };
  absl::StatusOr<Task> parent = launch("parent-tgz", "");
  ASSERT_TRUE(parent.ok()) << parent.status();
  // The handler gives a fork its parent's context when it brings none (command_request.h).
  absl::StatusOr<Task> fork = launch("parent-tgz", parent->task_id);
  ASSERT_TRUE(fork.ok()) << fork.status();
  EXPECT_EQ(*store_->GetTaskContext(fork->task_id), "parent-tgz");
  EXPECT_EQ(fork->forked_from, parent->task_id);
  EXPECT_EQ(Stored(fork->task_id).forked_from, parent->task_id);
  EXPECT_EQ(Stored(fork->task_id).username, "determined");
}

TEST_F(ClusterTasksTest, ARestartedMasterKeepsARunningCommandAndItsQueue) {
  auto conn = ConnectAgent("a1", 1);
  absl::StatusOr<Task> running = Launch({{"entrypoint", {"sleep", "5"}}});
  absl::StatusOr<Task> queued1 = Launch({{"entrypoint", {"q1"}}});
  absl::StatusOr<Task> queued2 = Launch({{"entrypoint", {"q2"}}});
  ASSERT_TRUE(running.ok() && queued1.ok() && queued2.ok());
  api::StartTask start = Starts(*conn)[0];

  RestartMaster();
  auto conn2 = ReconnectAgent("a1", 1, {start.allocation_id});
  EXPECT_TRUE(Starts(*conn2).empty()) << "the running command is not started again";
  EXPECT_EQ(Stored(running->task_id).state, TaskState::kActive);
  Exit("a1", start.allocation_id, 0);
  EXPECT_EQ(Stored(running->task_id).state, TaskState::kCompleted);
  ASSERT_EQ(Starts(*conn2).size(), 1u);
  EXPECT_EQ(Starts(*conn2)[0].entrypoint.back(), "q1") << "queued commands keep their order";
  Exit("a1", Starts(*conn2)[0].allocation_id, 0);
  EXPECT_EQ(Starts(*conn2).back().entrypoint.back(), "q2");
}

TEST_F(ClusterTasksTest, AnExperimentThatCannotBeRecoveredGivesItsSlotBack) {
  auto conn = ConnectAgent("a1", 1);
  int64_t exp_id = CreateExperiment();
  api::StartTask trial = Starts(*conn)[0];
  ASSERT_TRUE(store_->SaveSearcherSnapshot(exp_id, "not a snapshot").ok());

  RestartMaster();
  EXPECT_EQ(store_->GetExperiment(exp_id)->state, api::ExperimentState::kError);
  auto conn2 = ReconnectAgent("a1", 1, {trial.allocation_id});
  ASSERT_EQ(Kills(*conn2).size(), 1u) << "the agent is told to stop the orphaned trial";
  EXPECT_EQ(Kills(*conn2)[0].allocation_id, trial.allocation_id);
  ASSERT_TRUE(Launch({{"entrypoint", {"true"}}}).ok());
  EXPECT_EQ(Starts(*conn2).size(), 1u) << "its slot is free for other work";
}

class ClusterServicesTest : public ClusterTasksTest {
 protected:
  ClusterOptions Options() override {
    ClusterOptions options = ClusterTasksTest::Options();
    options.services = &services_;
    options.idle_check_interval = std::chrono::milliseconds(10);
    return options;
  }

  absl::Status Ready(const std::string& allocation_id, int port) {
    absl::Status result = absl::UnknownError("not run");
    cluster_->AllocationReady(allocation_id, port, "someone", [&](absl::Status s) { result = s; });
    loop_.RunPending();
    return result;
  }

  ServiceRegistry services_{[this] { return loop_.SteadyNow(); }};
};

TEST_F(ClusterServicesTest, AReadyNotebookIsServedUntilItEndsAndAgainAfterARestart) {
  auto conn = ConnectAgent("a1", 1);
  absl::StatusOr<Task> nb = Launch({{"entrypoint", {"x"}}}, TaskType::kNotebook);
  ASSERT_TRUE(nb.ok()) << nb.status();
  EXPECT_EQ(nb->description.rfind("Notebook (", 0), 0u) << nb->description;
  api::StartTask start = Starts(*conn)[0];
  EXPECT_EQ(start.env.at("DET_NOTEBOOK_IDLE_TYPE"), "kernels_or_terminals");
  EXPECT_FALSE(services_.Use(nb->task_id)) << "not before it is ready";
  ASSERT_TRUE(Ready(start.allocation_id, 2900).ok());
  std::optional<Service> service = services_.Use(nb->task_id);
  ASSERT_TRUE(service);
  EXPECT_EQ(service->host, "ip-a1");
  EXPECT_EQ(service->port, 2900);
  EXPECT_FALSE(service->tcp);
  Allocation stored = *store_->GetAllocation(start.allocation_id);
  EXPECT_TRUE(stored.ready);
  EXPECT_EQ(stored.service_address, "ip-a1:2900");
  EXPECT_EQ(stored.service_user, "someone");

  services_.Unregister(nb->task_id);  // what a master that died forgets
  RestartMaster();
  EXPECT_TRUE(services_.Use(nb->task_id)) << "registered again from the store";
  ReconnectAgent("a1", 1, {start.allocation_id});
  Exit("a1", start.allocation_id, 0);
  EXPECT_FALSE(services_.Use(nb->task_id)) << "gone with its allocation";
  EXPECT_EQ(Ready("no-such-allocation", 1).code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(ClusterServicesTest, AnUnusedNotebookIsKilledAfterItsIdleTimeoutAndAUsedOneIsNot) {
  auto conn = ConnectAgent("a1", 2);
  absl::StatusOr<Task> unused = Launch({{"entrypoint", {"x"}}, {"idle_timeout", "150ms"}}, TaskType::kNotebook);
  absl::StatusOr<Task> used = Launch({{"entrypoint", {"x"}}, {"idle_timeout", "150ms"}}, TaskType::kNotebook);
  ASSERT_TRUE(unused.ok() && used.ok());
  ASSERT_EQ(Starts(*conn).size(), 2u);
  ASSERT_TRUE(Ready(Starts(*conn)[0].allocation_id, 2900).ok());
  ASSERT_TRUE(Ready(Starts(*conn)[1].allocation_id, 2901).ok());
  for (int i = 0; i < 6; ++i) {
    cluster_->ReportIdle(used->task_id, false, [](absl::Status) {});
    loop_.AdvanceBy(std::chrono::milliseconds(60));
  }
  ASSERT_EQ(Kills(*conn).size(), 1u);
  EXPECT_EQ(Kills(*conn)[0].allocation_id, Starts(*conn)[0].allocation_id);
  Exit("a1", Starts(*conn)[0].allocation_id, 143);
  Task ended = Stored(unused->task_id);
  EXPECT_EQ(ended.state, TaskState::kCanceled);
  EXPECT_NE(ended.exit_status.find("without use (idle_timeout 150ms)"), std::string::npos) << ended.exit_status;
  EXPECT_EQ(Stored(used->task_id).state, TaskState::kActive);
}

TEST_F(ClusterServicesTest, AShellIsATcpServiceAndGetsItsKey) {
  auto conn = ConnectAgent("a1", 1);
  config::CommandConfig config = *config::ParseCommandConfig({}, nullptr, {{"entrypoint", {"x"}}});
  absl::StatusOr<Task> shell = absl::UnknownError("not run");
  cluster_->LaunchTask({.type = TaskType::kShell, .config = config, .owner_id = 2,
                        .service_json = R"({"public_key": "ssh-rsa AAAA k"})"},
                       [&](absl::StatusOr<Task> t) { shell = t; });
  loop_.RunPending();
  ASSERT_TRUE(shell.ok()) << shell.status();
  api::StartTask start = Starts(*conn)[0];
  EXPECT_EQ(start.env.at("DET_SHELL_AUTHORIZED_KEY"), "ssh-rsa AAAA k");
  ASSERT_TRUE(Ready(start.allocation_id, 3200).ok());
  std::optional<Service> service = services_.Use(shell->task_id);
  ASSERT_TRUE(service);
  EXPECT_TRUE(service->tcp);
}

}  // namespace
}  // namespace det::master
