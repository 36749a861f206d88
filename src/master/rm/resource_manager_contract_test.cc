// The contract every ResourceManager keeps, run against each implementation: placing, gangs,
// preemption, kill, a lost node, restore after a master restart, the pending reason and the queue.
// Each implementation comes with a Driver that plays its nodes (our agents over their protocol; the
// in-memory manager's nodes; Kubernetes' nodes and pods over an in-memory API). Slurm joins by adding a
// Driver.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "absl/strings/str_cat.h"
#include "master/http/recording_connection.h"
#include "master/manual_loop.h"
#include "master/rm/agent_resource_manager.h"
#include "master/rm/in_memory_resource_manager.h"
#include "master/rm/kubernetes/fake_kube_api.h"
#include "master/rm/kubernetes/kubernetes_resource_manager.h"

namespace det::master {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// The task core, recorded: jobs are set by the test per allocation.
class RecordingEvents : public AllocationEvents {
 public:
  struct Exit {
    std::string allocation_id;
    int exit_code;
    ExitKind kind;
  };
  JobAttributes JobOf(const std::string& allocation_id) const override { return jobs.at(allocation_id); }
  bool MayStartWork() const override { return true; }
  void Placed(const std::string& allocation_id, const Placement& placement) override {
    placed[allocation_id] = placement;
  }
  void ReclaimRequested(const std::string& allocation_id, const std::string&, bool kill) override {
    reclaims.push_back(absl::StrCat(allocation_id, kill ? " kill" : " preempt"));
  }
  void ProcessStarted(const std::string& allocation_id, const std::string&, int) override {
    started.push_back(allocation_id);
  }
  void Exited(const std::string& allocation_id, int exit_code, ExitKind kind, const std::string&) override {
    exits.push_back({allocation_id, exit_code, kind});
    placed.erase(allocation_id);
  }
  void Log(const std::string& allocation_id, const std::string& text) override {
    logs.push_back(absl::StrCat(allocation_id, ": ", text));
  }

  std::map<std::string, JobAttributes> jobs;
  std::map<std::string, Placement> placed;
  std::vector<std::string> reclaims;
  std::vector<std::string> started;
  std::vector<Exit> exits;
  std::vector<std::string> logs;
};

// Plays the nodes of one implementation.
class Driver {
 public:
  virtual ~Driver() = default;
  virtual ResourceManager& manager() = 0;
  virtual void AddNode(const std::string& node, int slots) = 0;
  virtual void RemoveNode(const std::string& node) = 0;
  // The node's process of the allocation exits.
  virtual void Exit(const std::string& allocation_id, const std::string& node, int exit_code) = 0;
  // Kill requests that reached the node for the allocation.
  virtual int KillsSeen(const std::string& allocation_id, const std::string& node) = 0;
  // After a restore, the node comes back running `running`.
  virtual void NodeReturns(const std::string& node, int slots, const std::vector<std::string>& running) = 0;
  virtual void Settle() = 0;
};

std::vector<PoolOptions> ContractPools() {
  PoolOptions pool{.name = "default"};
  pool.scheduler.preemption = true;
  return {pool};
}

class AgentDriver : public Driver {
 public:
  static constexpr std::chrono::milliseconds kGrace{10000};
  explicit AgentDriver(AllocationEvents& events)
      : manager_(loop_, events, {.cluster_name = "agents", .pools = ContractPools(), .agent_reconnect_grace = kGrace}) {}
  ResourceManager& manager() override { return manager_; }
  void AddNode(const std::string& node, int slots) override { Connect(node, slots, {}); }
  void RemoveNode(const std::string& node) override {
    agents_.at(node).handlers.on_close();
    loop_.RunPending();
    loop_.AdvanceBy(kGrace + std::chrono::milliseconds(1));  // it does not come back in time
  }
  void Exit(const std::string& allocation_id, const std::string& node, int exit_code) override {
    agents_.at(node).handlers.on_message(api::Encode(api::AgentMessage(api::TaskExited{allocation_id, exit_code, ""})));
    Settle();
  }
  int KillsSeen(const std::string& allocation_id, const std::string& node) override {
    int kills = 0;
    for (const std::string& text : agents_.at(node).connection->sent) {
      absl::StatusOr<api::MasterMessage> msg = api::DecodeMasterMessage(text);
      if (auto* kill = std::get_if<api::KillTask>(&*msg); kill && kill->allocation_id == allocation_id) ++kills;
    }
    return kills;
  }
  void NodeReturns(const std::string& node, int slots, const std::vector<std::string>& running) override {
    Connect(node, slots, running);
  }
  void Settle() override { loop_.AdvanceBy(std::chrono::milliseconds(1)); }

 private:
  struct Agent {
    std::shared_ptr<RecordingConnection> connection;
    WebSocketHandlers handlers;
  };
  void Connect(const std::string& node, int slots, const std::vector<std::string>& running) {
    Agent agent{std::make_shared<RecordingConnection>(), {}};
    agent.handlers = *manager_.ConnectAgent({.id = node, .resource_pool = "default", .address = "ip-" + node},
                                            agent.connection);
    api::AgentHello hello;
    for (int s = 0; s < slots; ++s) hello.slots.push_back({.id = s});
    hello.running_allocations = running;
    agent.handlers.on_message(api::Encode(api::AgentMessage(hello)));
    agents_[node] = std::move(agent);
    Settle();
  }

  ManualLoop loop_;
  AgentResourceManager manager_;
  std::map<std::string, Agent> agents_;
};

class InMemoryDriver : public Driver {
 public:
  explicit InMemoryDriver(AllocationEvents& events) : manager_(events, "memory", ContractPools()) {}
  ResourceManager& manager() override { return manager_; }
  void AddNode(const std::string& node, int slots) override { manager_.AddNode("default", node, slots); }
  void RemoveNode(const std::string& node) override { manager_.RemoveNode(node); }
  void Exit(const std::string& allocation_id, const std::string& node, int exit_code) override {
    manager_.ProcessExits(allocation_id, node, exit_code);
  }
  int KillsSeen(const std::string& allocation_id, const std::string& node) override {
    return static_cast<int>(std::count(manager_.kills().begin(), manager_.kills().end(),
                                       absl::StrCat(allocation_id, "@", node)));
  }
  void NodeReturns(const std::string& node, int, const std::vector<std::string>& running) override {
    manager_.ReportRunning(node, {running.begin(), running.end()});
  }
  void Settle() override {}

 private:
  InMemoryResourceManager manager_;
};

// Kubernetes over the in-memory API (fake_kube_api.h): a node is a node of GPUs, a process a pod of the
// allocation's Job, a kill the Job's deletion. The API answers once the first node comes, so a restored
// master sees the cluster as it is when its nodes "return".
class KubernetesDriver : public Driver {
 public:
  explicit KubernetesDriver(AllocationEvents& events)
      : manager_(loop_, events, api_,
                 KubernetesOptions{.cluster_name = "kubernetes", .max_slots_per_pod = 2,
                                   .pools = {{.pool = ContractPools().front()}}}) {}
  ResourceManager& manager() override { return manager_; }
  void AddNode(const std::string& node, int slots) override {
    api_->AddNode(node, slots);
    api_->Open();
    Settle();
  }
  void RemoveNode(const std::string& node) override {
    api_->RemoveNode(node);
    Settle();
  }
  void Exit(const std::string& allocation_id, const std::string& node, int exit_code) override {
    for (const nlohmann::json& pod : api_->PodsOf(KubernetesResourceManager::JobName(allocation_id))) {
      if (pod["spec"]["nodeName"] == node) api_->EndPod(pod["metadata"]["name"], exit_code);
    }
    Settle();
  }
  int KillsSeen(const std::string& allocation_id, const std::string& node) override {
    Settle();  // the deletion is sent from the manager's request thread
    bool ran_there = false;
    for (const nlohmann::json& pod : api_->PodsOf(KubernetesResourceManager::JobName(allocation_id))) {
      ran_there = ran_there || pod["spec"]["nodeName"] == node;
    }
    const std::string kill = absl::StrCat("DELETE /apis/batch/v1/namespaces/default/jobs/",
                                          KubernetesResourceManager::JobName(allocation_id), "?propagationPolicy=Background");
    const std::vector<std::string> requests = api_->Requests();
    return ran_there ? static_cast<int>(std::count(requests.begin(), requests.end(), kill)) : 0;
  }
  void NodeReturns(const std::string& node, int slots, const std::vector<std::string>& running) override {
    api_->AddNode(node, slots);
    for (const std::string& id : running) {  // its Job runs on, made by the master before its restart
      nlohmann::json job = {{"metadata", {{"name", KubernetesResourceManager::JobName(id)}, {"namespace", "default"}}},
                            {"spec",
                             {{"parallelism", 1},
                              {"template",
                               {{"metadata", {{"labels", {{"determined.ai/allocation_id", id}}}}},
                                {"spec", {{"nodeSelector", {{"kubernetes.io/hostname", node}}}}}}}}}};
      api_->Create("/apis/batch/v1/namespaces/default/jobs", job).IgnoreError();
    }
    api_->Open();
    Settle();
  }
  // The manager's threads and the loop run until the API is quiet.
  void Settle() override { kube::RunUntilQuiet(loop_, *api_); }

 private:
  ManualLoop loop_;
  std::shared_ptr<kube::FakeKubeApi> api_ = std::make_shared<kube::FakeKubeApi>();
  KubernetesResourceManager manager_;
};

using DriverFactory = std::function<std::unique_ptr<Driver>(AllocationEvents&)>;

struct Implementation {
  std::string name;
  DriverFactory make;
};

class ResourceManagerContract : public ::testing::TestWithParam<Implementation> {
 protected:
  void SetUp() override { driver_ = GetParam().make(events_); }

  ResourceManager& rm() { return driver_->manager(); }

  // Queues allocation `id` of job `job` for `slots` at `priority` (smaller is more important).
  void Request(const std::string& id, int slots, int priority = 42, bool single_node = false) {
    events_.jobs[id] = JobAttributes{.job_id = "job-" + id,
                                     .submission_order = static_cast<int64_t>(events_.jobs.size()),
                                     .priority = priority,
                                     .resource_pool = "default",
                                     .slots = slots,
                                     .single_node = single_node};
    rm().Request({.allocation_id = id, .task_id = "task-" + id, .slots = slots});
    rm().Schedule();
    driver_->Settle();
  }
  void Start(const std::string& id) {
    rm().Start(id, ProcessLaunch{.task_type = "TRIAL", .entrypoint = {"true"}});
    driver_->Settle();
  }
  int PlacedSlots(const std::string& id) {
    int slots = 0;
    for (const AgentSlots& p : events_.placed.at(id).processes) slots += static_cast<int>(p.slot_ids.size());
    return slots;
  }

  RecordingEvents events_;
  std::unique_ptr<Driver> driver_;
};

TEST_P(ResourceManagerContract, PlacesARequestThatFitsAndReportsItsExit) {
  driver_->AddNode("n1", 2);
  Request("a.1", 1);
  ASSERT_TRUE(events_.placed.count("a.1"));
  EXPECT_EQ(events_.placed["a.1"].pool, "default");
  EXPECT_EQ(PlacedSlots("a.1"), 1);
  Start("a.1");
  driver_->Exit("a.1", "n1", 0);
  ASSERT_THAT(events_.exits, SizeIs(1));
  EXPECT_EQ(events_.exits[0].exit_code, 0);
  EXPECT_EQ(events_.exits[0].kind, ExitKind::kProcessExited);
  // Its slot is free again.
  Request("b.1", 2);
  EXPECT_TRUE(events_.placed.count("b.1"));
}

TEST_P(ResourceManagerContract, AGangSpansNodesAndEndsWithItsFirstFailure) {
  driver_->AddNode("n1", 2);
  driver_->AddNode("n2", 2);
  Request("g.1", 4);
  ASSERT_TRUE(events_.placed.count("g.1"));
  ASSERT_THAT(events_.placed["g.1"].processes, SizeIs(2));
  EXPECT_EQ(PlacedSlots("g.1"), 4);
  Start("g.1");
  const std::string first = events_.placed["g.1"].processes[0].agent_id;
  const std::string second = events_.placed["g.1"].processes[1].agent_id;
  driver_->Exit("g.1", first, 3);
  EXPECT_GE(driver_->KillsSeen("g.1", second), 1) << "the rest of the gang is stopped";
  EXPECT_TRUE(events_.exits.empty()) << "not over until every process ended";
  driver_->Exit("g.1", second, 137);
  ASSERT_THAT(events_.exits, SizeIs(1));
  EXPECT_EQ(events_.exits[0].exit_code, 3) << "the first failure is the allocation's";
}

TEST_P(ResourceManagerContract, ASingleNodeRequestNeverSpansNodes) {
  driver_->AddNode("n1", 2);
  driver_->AddNode("n2", 2);
  EXPECT_FALSE(rm().CheckFits("default", 3, true, {}).ok());
  EXPECT_TRUE(rm().CheckFits("default", 4, false, {}).ok());
  EXPECT_FALSE(rm().CheckFits("default", 4, false, {"n2"}).ok()) << "blocked nodes do not count";
}

TEST_P(ResourceManagerContract, MoreImportantWorkPreemptsLessImportantWork) {
  driver_->AddNode("n1", 2);
  Request("low.1", 2, /*priority=*/50);
  Start("low.1");
  Request("high.1", 2, /*priority=*/10);
  EXPECT_FALSE(events_.placed.count("high.1"));
  EXPECT_THAT(events_.reclaims, ElementsAre("low.1 preempt"));
  driver_->Exit("low.1", "n1", 0);
  EXPECT_TRUE(events_.placed.count("high.1")) << "placed once the slots are back";
}

TEST_P(ResourceManagerContract, KillReachesEveryProcessAndExitFollows) {
  driver_->AddNode("n1", 1);
  driver_->AddNode("n2", 1);
  Request("k.1", 2);
  Start("k.1");
  rm().Kill("k.1");
  EXPECT_EQ(driver_->KillsSeen("k.1", "n1"), 1);
  EXPECT_EQ(driver_->KillsSeen("k.1", "n2"), 1);
  driver_->Exit("k.1", "n1", 137);
  driver_->Exit("k.1", "n2", 137);
  ASSERT_THAT(events_.exits, SizeIs(1));
  EXPECT_EQ(events_.exits[0].exit_code, 137);
}

TEST_P(ResourceManagerContract, ALostNodeEndsWhatRanOnIt) {
  driver_->AddNode("n1", 1);
  Request("l.1", 1);
  Start("l.1");
  driver_->RemoveNode("n1");
  ASSERT_THAT(events_.exits, SizeIs(1));
  EXPECT_EQ(events_.exits[0].kind, ExitKind::kAgentLost);
}

TEST_P(ResourceManagerContract, RestoredWorkKeepsItsSlotsAndEndsWhenItsNodeNoLongerRunsIt) {
  Allocation kept{.allocation_id = "r.1", .task_id = "task-r", .state = AllocationState::kRunning, .slots = 1,
                  .resource_pool = "default", .placements = {{"n1", {0}, {}}}};
  Allocation gone = kept;
  gone.allocation_id = "r.2";
  gone.placements = {{"n1", {1}, {}}};
  events_.jobs["r.1"] = events_.jobs["r.2"] = JobAttributes{.job_id = "job-r", .resource_pool = "default", .slots = 1};
  rm().Restore(kept);
  rm().Restore(gone);
  rm().RestoreDone();
  driver_->NodeReturns("n1", 2, {"r.1"});
  ASSERT_THAT(events_.exits, SizeIs(1));
  EXPECT_EQ(events_.exits[0].allocation_id, "r.2");
  EXPECT_EQ(events_.exits[0].kind, ExitKind::kAgentLost);
  // r.1 still holds its slot: a 2-slot request waits.
  Request("w.1", 2, 42, true);
  EXPECT_FALSE(events_.placed.count("w.1"));
  rm().Kill("r.1");
  EXPECT_EQ(driver_->KillsSeen("r.1", "n1"), 1) << "restored work can be killed";
}

TEST_P(ResourceManagerContract, WorkThatCannotFitWaitsAndSaysWhy) {
  driver_->AddNode("n1", 1);
  Request("big.1", 2, 42, /*single_node=*/true);
  EXPECT_FALSE(events_.placed.count("big.1"));
  ASSERT_THAT(events_.logs, SizeIs(1));
  EXPECT_THAT(events_.logs[0], HasSubstr("cannot hold 2 slot(s)"));
  rm().Schedule();
  EXPECT_THAT(events_.logs, SizeIs(1)) << "said once";
  std::vector<QueuedJobView> queue = rm().JobQueue();
  ASSERT_THAT(queue, SizeIs(1));
  EXPECT_EQ(queue[0].job_id, "job-big.1");
  EXPECT_EQ(queue[0].state, "STATE_QUEUED");
  EXPECT_EQ(queue[0].requested_slots, 2);
  driver_->AddNode("n2", 2);
  rm().Schedule();
  driver_->Settle();
  EXPECT_TRUE(events_.placed.count("big.1")) << "placed when a node that holds it comes";
}

TEST_P(ResourceManagerContract, ReleaseDropsQueuedWorkAndFreesPlacedWork) {
  driver_->AddNode("n1", 1);
  Request("p.1", 1);
  Request("q.1", 1);
  EXPECT_FALSE(events_.placed.count("q.1"));
  rm().Release("q.1");
  Start("p.1");
  rm().Release("p.1");
  EXPECT_EQ(driver_->KillsSeen("p.1", "n1"), 1) << "its process is stopped";
  EXPECT_TRUE(events_.exits.empty()) << "no event after a release";
  Request("s.1", 1);
  EXPECT_TRUE(events_.placed.count("s.1"));
  EXPECT_FALSE(events_.placed.count("q.1"));
}

TEST_P(ResourceManagerContract, RequeuedWorkWaitsAtTheFrontAndIsPlacedAgain) {
  driver_->AddNode("n1", 1);
  Request("a.1", 1);
  Request("b.1", 1);
  ASSERT_TRUE(events_.placed.count("a.1"));
  events_.placed.clear();
  rm().Requeue("a.1");
  rm().Schedule();
  driver_->Settle();
  EXPECT_TRUE(events_.placed.count("a.1"));
  EXPECT_FALSE(events_.placed.count("b.1"));
}

INSTANTIATE_TEST_SUITE_P(
    Implementations, ResourceManagerContract,
    ::testing::Values(
        Implementation{"Agents", [](AllocationEvents& e) -> std::unique_ptr<Driver> { return std::make_unique<AgentDriver>(e); }},
        Implementation{"InMemory",
                       [](AllocationEvents& e) -> std::unique_ptr<Driver> { return std::make_unique<InMemoryDriver>(e); }},
        Implementation{"Kubernetes",
                       [](AllocationEvents& e) -> std::unique_ptr<Driver> { return std::make_unique<KubernetesDriver>(e); }}),
    [](const ::testing::TestParamInfo<Implementation>& info) { return info.param.name; });

}  // namespace
}  // namespace det::master
