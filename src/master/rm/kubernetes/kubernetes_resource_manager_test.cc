// The Kubernetes resource manager over an in-memory API (fake_kube_api.h): gangs are created whole or
// not at all, two gangs never deadlock, kill deletes the Job, a failed pod ends its gang, and a restarted
// master re-adopts its Jobs. The wire and real pods are the end-to-end tests' (tests/e2e/test_kubernetes.py).
#include "master/rm/kubernetes/kubernetes_resource_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>


#include "absl/strings/str_cat.h"
#include "master/manual_loop.h"
#include "master/rm/recording_allocation_events.h"
#include "master/rm/kubernetes/fake_kube_api.h"

namespace det::master {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

class KubernetesResourceManagerTest : public ::testing::Test {
 protected:
  void SetUp() override { MakeManager(); }

  void MakeManager() {
    api_->Open();
    manager_ = std::make_unique<KubernetesResourceManager>(
        loop_, events_, api_,
        KubernetesOptions{.max_slots_per_pod = 1, .master_url = "http://master:8080",
                          .write_logs = [this](std::vector<api::TaskLog> logs) {
                            std::lock_guard lock(mu_);
                            for (auto& l : logs) pod_logs_.push_back(l.log);
                          }});
    Settle();
  }

  // The manager's threads and the loop run until the API is quiet.
  void Settle() { kube::RunUntilQuiet(loop_, *api_); }

  void Request(const std::string& id, int slots) {
    events_.jobs[id] = JobAttributes{.job_id = "job-" + id, .submission_order = static_cast<int64_t>(events_.jobs.size()),
                                     .resource_pool = "default", .slots = slots};
    manager_->Request({.allocation_id = id, .task_id = "task-" + id, .slots = slots});
    manager_->Schedule();
    Settle();
  }

  void Start(const std::string& id) {
    manager_->Start(id, ProcessLaunch{.task_type = "TRIAL", .entrypoint = {"python3", "train.py"},
                                      .env = {{"DET_USER", "determined"}}});
    Settle();
  }

  std::vector<nlohmann::json> Pods(const std::string& id) { return api_->PodsOf(KubernetesResourceManager::JobName(id)); }

  ManualLoop loop_;
  RecordingAllocationEvents events_;
  std::shared_ptr<kube::FakeKubeApi> api_ = std::make_shared<kube::FakeKubeApi>();
  std::unique_ptr<KubernetesResourceManager> manager_;
  std::mutex mu_;
  std::vector<std::string> pod_logs_;
};

TEST_F(KubernetesResourceManagerTest, NodesAreAgentsAndTheirGpusSlots) {
  api_->AddNode("n1", 2);
  api_->AddNode("n2", 4);
  Settle();
  std::vector<AgentSummary> agents = manager_->Agents();
  ASSERT_THAT(agents, SizeIs(2));
  EXPECT_EQ(agents[0].identity.id, "n1");
  EXPECT_THAT(agents[1].slots, SizeIs(4));
  EXPECT_EQ(agents[1].slots[0].type, "cuda");
  std::vector<PoolSummary> pools = manager_->Pools();
  ASSERT_THAT(pools, SizeIs(1));
  EXPECT_EQ(pools[0].slots_available, 6);
  EXPECT_EQ(pools[0].num_agents, 2);
}

TEST_F(KubernetesResourceManagerTest, AGangIsCreatedOnlyWhenAllItsPodsFit) {
  api_->AddNode("n1", 1);
  api_->AddNode("n2", 1);
  api_->AddForeignPod("theirs", "n2", 1);  // someone else's pod holds n2's GPU
  Settle();
  Request("a", 2);
  EXPECT_THAT(events_.placed, IsEmpty()) << "one of two pods would fit: none is created";
  EXPECT_THAT(api_->JobNames(), IsEmpty());
  EXPECT_THAT(events_.logs, Contains(HasSubstr("Waiting for 2 slot(s) in pool default (1 of 2 free")));

  api_->DeletePod("theirs");
  Settle();
  ASSERT_TRUE(events_.placed.count("a"));
  EXPECT_THAT(events_.placed["a"].processes, SizeIs(2));
  Start("a");
  ASSERT_THAT(api_->JobNames(), ElementsAre("det-a"));
  std::vector<nlohmann::json> pods = Pods("a");
  ASSERT_THAT(pods, SizeIs(2));
  std::set<std::string> nodes = {pods[0]["spec"]["nodeName"], pods[1]["spec"]["nodeName"]};
  EXPECT_EQ(nodes, (std::set<std::string>{"n1", "n2"})) << "the pods go where the master placed them";
  EXPECT_THAT(events_.started, ElementsAre("a"));
  std::optional<Rendezvous> where = manager_->RendezvousOf("a");
  ASSERT_TRUE(where.has_value());
  EXPECT_THAT(where->addresses, SizeIs(2));
  EXPECT_EQ(where->slots, (std::vector<int>{1, 1}));

  api_->EndPod(pods[0]["metadata"]["name"], 0);
  Settle();
  EXPECT_THAT(events_.exits, IsEmpty()) << "one pod of two has ended";
  api_->EndPod(pods[1]["metadata"]["name"], 0);
  Settle();
  EXPECT_THAT(events_.exits, ElementsAre("a 0"));
  Settle();
  EXPECT_THAT(api_->JobNames(), IsEmpty()) << "an ended allocation's Job is deleted";
  std::lock_guard lock(mu_);
  EXPECT_THAT(pod_logs_, Contains("hello from the pod\n")) << "pod logs become task logs";
}

TEST_F(KubernetesResourceManagerTest, TwoGangsOnACLusterWithRoomForOneNeverDeadlock) {
  for (const char* node : {"n1", "n2", "n3", "n4"}) api_->AddNode(node, 1);
  Settle();
  Request("a", 3);
  Request("b", 3);
  ASSERT_TRUE(events_.placed.count("a"));
  EXPECT_FALSE(events_.placed.count("b")) << "b waits whole, holding nothing";
  Start("a");
  EXPECT_THAT(api_->JobNames(), ElementsAre("det-a"));
  EXPECT_THAT(events_.logs, Contains(HasSubstr("b: Waiting for 3 slot(s)")));
  for (const nlohmann::json& pod : Pods("a")) api_->EndPod(pod["metadata"]["name"], 0);
  Settle();
  EXPECT_THAT(events_.exits, ElementsAre("a 0"));
  manager_->Schedule();
  Settle();
  ASSERT_TRUE(events_.placed.count("b"));
  Start("b");
  EXPECT_THAT(Pods("b"), SizeIs(3));
}

TEST_F(KubernetesResourceManagerTest, KillDeletesTheJobAndItsPods) {
  api_->AddNode("n1", 1);
  Settle();
  Request("a", 1);
  Start("a");
  manager_->Kill("a");
  Settle();
  EXPECT_THAT(api_->Requests(), Contains("DELETE /apis/batch/v1/namespaces/default/jobs/det-a?propagationPolicy=Background"));
  EXPECT_THAT(events_.exits, IsEmpty()) << "over once its pod's process has ended";
  api_->EndPod(Pods("a")[0]["metadata"]["name"], 143);
  Settle();
  EXPECT_THAT(Pods("a"), IsEmpty());
  EXPECT_THAT(events_.exits, ElementsAre("a 143"));
}

TEST_F(KubernetesResourceManagerTest, AFailedPodEndsItsGangWithItsExitCode) {
  api_->AddNode("n1", 1);
  api_->AddNode("n2", 1);
  Settle();
  Request("a", 2);
  Start("a");
  std::vector<nlohmann::json> pods = Pods("a");
  ASSERT_THAT(pods, SizeIs(2));
  api_->EndPod(pods[1]["metadata"]["name"], 3);
  Settle();
  EXPECT_THAT(events_.logs, Contains(HasSubstr("exited with code 3; deleting the allocation's other pods")));
  api_->EndPod(pods[0]["metadata"]["name"], 143);  // the other pod stops
  Settle();
  EXPECT_THAT(events_.exits, ElementsAre("a 3")) << "the first failure is the gang's";
  EXPECT_THAT(api_->JobNames(), IsEmpty());
}

TEST_F(KubernetesResourceManagerTest, ARestartedMasterReadoptsItsJobsAndDeletesOrphans) {
  api_->AddNode("n1", 1);
  api_->AddNode("n2", 1);
  Settle();
  Request("a", 1);
  Start("a");
  Request("z", 1);
  Start("z");
  ASSERT_THAT(api_->JobNames(), ElementsAre("det-a", "det-z"));
  Allocation a{.allocation_id = "a", .task_id = "task-a", .state = AllocationState::kRunning, .slots = 1,
               .resource_pool = "default", .placements = events_.placed["a"].processes};
  Allocation gone{.allocation_id = "gone", .task_id = "task-gone", .state = AllocationState::kRunning, .slots = 1,
                  .resource_pool = "default", .placements = {{"n2", {0}, {}}}};

  manager_.reset();  // the master dies; its Jobs run on
  events_ = RecordingAllocationEvents();
  events_.jobs["a"] = JobAttributes{.job_id = "job-a", .resource_pool = "default", .slots = 1};
  events_.jobs["gone"] = JobAttributes{.job_id = "job-gone", .resource_pool = "default", .slots = 1};
  MakeManager();
  manager_->Restore(a);
  manager_->Restore(gone);
  manager_->RestoreDone();
  Settle();
  EXPECT_THAT(events_.exits, ElementsAre("gone -1 lost")) << "its pods were gone when the master came back";
  EXPECT_THAT(api_->JobNames(), ElementsAre("det-a")) << "z is no allocation of the master's any more";
  EXPECT_THAT(Pods("a"), SizeIs(1));
  api_->EndPod(Pods("a")[0]["metadata"]["name"], 0);
  Settle();
  EXPECT_THAT(events_.exits, ElementsAre("gone -1 lost", "a 0"));
}

TEST_F(KubernetesResourceManagerTest, SlotsMustSplitIntoPods) {
  api_->AddNode("n1", 4);
  Settle();
  manager_ = std::make_unique<KubernetesResourceManager>(loop_, events_, api_,
                                                         KubernetesOptions{.max_slots_per_pod = 2});
  Settle();
  absl::Status fits = manager_->CheckFits("default", 3, false, {});
  EXPECT_THAT(fits.message(), HasSubstr("max_slots_per_pod is 2, so a task asks for at most 2 slots or a multiple of 2"));
  EXPECT_TRUE(manager_->CheckFits("default", 4, false, {}).ok());
  EXPECT_THAT(manager_->ConnectAgent({.id = "x", .resource_pool = "default"}, nullptr).status().message(),
              HasSubstr("agents cannot join it"));
}

}  // namespace
}  // namespace det::master
