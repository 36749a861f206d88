// The task core with two resource managers side by side: our agents' ("default" pool) and an in-memory
// one ("memory" pool). Work goes to the manager of its pool; pools, agents and the job queue show both.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "master/cluster/cluster_test_fixture.h"
#include "master/rm/in_memory_resource_manager.h"

namespace det::master {
namespace {

using nlohmann::json;

class TwoManagersTest : public ClusterTest {
 protected:
  ClusterOptions Options() override {
    ClusterOptions options = ClusterTest::Options();
    options.additional_resource_managers.push_back([this](EventLoop&, AllocationEvents& events) {
      auto manager = std::make_unique<InMemoryResourceManager>(
          events, "memory-cluster", std::vector<PoolOptions>{{.name = "memory"}});
      memory_ = manager.get();
      return manager;
    });
    return options;
  }

  absl::StatusOr<Task> LaunchIn(const std::string& pool, int slots) {
    absl::StatusOr<config::CommandConfig> parsed = config::ParseCommandConfig(
        {}, nullptr, json{{"entrypoint", {"sleep", "1"}}, {"resources", {{"resource_pool", pool}, {"slots", slots}}}});
    if (!parsed.ok()) return parsed.status();
    absl::StatusOr<Task> result = absl::UnknownError("not run");
    cluster_->LaunchTask({.type = TaskType::kCommand, .config = *parsed, .owner_id = 2, .owner_username = "determined"},
                         [&](absl::StatusOr<Task> t) { result = t; });
    loop_.RunPending();
    return result;
  }

  template <typename T>
  T Get(std::function<void(std::function<void(T)>)> call) {
    std::optional<T> out;
    call([&](T value) { out = std::move(value); });
    loop_.RunPending();
    return *out;
  }

  InMemoryResourceManager* memory_ = nullptr;
};

TEST_F(TwoManagersTest, WorkGoesToTheManagerOfItsPool) {
  auto agent = ConnectAgent("a1", 1);
  loop_.RunPending();
  memory_->AddNode("memory", "m1", 2);
  absl::StatusOr<Task> on_agents = LaunchIn("default", 1);
  absl::StatusOr<Task> in_memory = LaunchIn("memory", 2);
  ASSERT_TRUE(on_agents.ok()) << on_agents.status();
  ASSERT_TRUE(in_memory.ok()) << in_memory.status();
  EXPECT_EQ(Starts(*agent).size(), 1u) << "only the default pool's command reached the agent";
  EXPECT_EQ(Starts(*agent)[0].task_id, on_agents->task_id);

  // The in-memory node's process started, and its exit ends the command.
  loop_.RunPending();
  const std::string alloc = in_memory->task_id + ".1";
  EXPECT_EQ(store_->GetAllocation(alloc)->state, AllocationState::kRunning);
  memory_->ProcessExits(alloc, "m1", 0);
  loop_.RunPending();
  EXPECT_EQ(store_->GetTask(in_memory->task_id)->state, TaskState::kCompleted);
}

TEST_F(TwoManagersTest, PoolsAgentsAndTheQueueShowBothManagers) {
  auto agent = ConnectAgent("a1", 1);
  memory_->AddNode("memory", "m1", 1);
  loop_.RunPending();
  ASSERT_TRUE(LaunchIn("memory", 1).ok());
  ASSERT_TRUE(LaunchIn("memory", 1).ok());  // waits: the node has one slot

  auto pools = Get<std::vector<PoolSummary>>([&](auto done) { cluster_->ListResourcePools(done); });
  ASSERT_EQ(pools.size(), 2u);
  EXPECT_EQ(pools[0].options.name, "default");
  EXPECT_EQ(pools[0].cluster_name, "default");
  EXPECT_EQ(pools[1].options.name, "memory");
  EXPECT_EQ(pools[1].cluster_name, "memory-cluster");
  EXPECT_EQ(pools[1].slots_used, 1);

  auto agents = Get<std::vector<AgentSummary>>([&](auto done) { cluster_->ListAgents(done); });
  ASSERT_EQ(agents.size(), 2u);
  EXPECT_EQ(agents[0].identity.id, "a1");
  EXPECT_EQ(agents[1].identity.id, "m1");

  auto jobs = Get<std::vector<JobInfo>>([&](auto done) { cluster_->ListJobs(done); });
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].resource_pool, "memory");
  EXPECT_EQ(jobs[0].state, "STATE_SCHEDULED");
  EXPECT_EQ(jobs[1].state, "STATE_QUEUED");
}

TEST_F(TwoManagersTest, AnAgentCannotJoinAnotherManagersPoolAndUnknownPoolsNameEveryPool) {
  auto refused = cluster_->ConnectAgent({.id = "a2", .resource_pool = "memory"}, std::make_shared<RecordingConnection>());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("resource manager memory-cluster"), std::string::npos) << refused.status();
  absl::StatusOr<Task> unknown = LaunchIn("nowhere", 1);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("the pools are: default, memory"), std::string::npos) << unknown.status();
}

TEST_F(TwoManagersTest, AJobMovedToAnotherManagersPoolFollowsIt) {
  absl::StatusOr<Task> task = LaunchIn("default", 1);  // no agent: it waits
  ASSERT_TRUE(task.ok()) << task.status();
  memory_->AddNode("memory", "m1", 1);
  absl::Status moved = absl::UnknownError("not run");
  cluster_->UpdateJob(task->job_id, {.resource_pool = "memory"}, [&](absl::Status st) { moved = st; });
  loop_.RunPending();
  ASSERT_TRUE(moved.ok()) << moved;
  Allocation placed = *store_->GetAllocation(task->task_id + ".1");
  EXPECT_EQ(placed.state, AllocationState::kRunning);
  EXPECT_EQ(placed.resource_pool, "memory");
  ASSERT_EQ(placed.placements.size(), 1u);
  EXPECT_EQ(placed.placements[0].agent_id, "m1") << "placed by the in-memory manager";
}

}  // namespace
}  // namespace det::master
