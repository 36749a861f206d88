// Cluster::Observe: the snapshot behind the Prometheus endpoints.
#include "master/cluster/cluster_test_fixture.h"

namespace det::master {
namespace {

ClusterObservation ObserveNow(Cluster& cluster, ManualLoop& loop) {
  ClusterObservation out;
  cluster.Observe([&out](ClusterObservation o) { out = std::move(o); });
  loop.RunPending();
  return out;
}

TEST_F(ClusterTest, ObserveShowsRunningAndWaitingAllocationsWithTheirJoins) {
  int64_t exp_id = CreateExperimentFrom(
      "entrypoint: python3 train.py\nsearcher: {name: single, metric: accuracy}\nhyperparameters: "
      "{lr: 0.1}\n"
      "labels: [nightly, resnet]\nresources: {slots_per_trial: 2}\n");
  ClusterObservation before = ObserveNow(*cluster_, loop_);
  ASSERT_EQ(before.allocations.size(), 1u);
  EXPECT_FALSE(before.allocations[0].running);  // no agent yet
  EXPECT_TRUE(before.allocations[0].processes.empty());
  ASSERT_EQ(before.pools.size(), 1u);
  EXPECT_EQ(before.pools[0].name, "default");
  EXPECT_EQ(before.pools[0].pending_allocations, 1);
  EXPECT_EQ(before.pools[0].queued_jobs, 1);

  auto conn = ConnectAgent("agent-1", 3, "", "cuda");
  ASSERT_EQ(Starts(*conn).size(), 1u);
  const api::StartTask start = Starts(*conn)[0];
  handlers_["agent-1"].on_message(
      api::Encode(api::AgentMessage(api::TaskStarted{start.allocation_id, 4242})));
  loop_.RunPending();

  ClusterObservation c = ObserveNow(*cluster_, loop_);
  ASSERT_EQ(c.allocations.size(), 1u);
  const ObservedAllocation& a = c.allocations[0];
  EXPECT_EQ(a.allocation_id, start.allocation_id);
  EXPECT_EQ(a.task_type, "TRIAL");
  EXPECT_EQ(a.experiment_id, exp_id);
  EXPECT_EQ(a.job_id, store_->GetExperiment(exp_id)->job_id);
  EXPECT_FALSE(a.job_id.empty());
  EXPECT_TRUE(a.running);
  EXPECT_EQ(a.resource_pool, "default");
  ASSERT_EQ(a.processes.size(), 1u);
  EXPECT_EQ(a.processes[0].container_id, start.allocation_id);
  EXPECT_EQ(a.processes[0].agent_id, "agent-1");
  EXPECT_EQ(a.processes[0].runtime_id, "agent agent-1 pid 4242");
  EXPECT_EQ(a.processes[0].gpu_uuids, (std::vector<std::string>{"GPU-0", "GPU-1"}));

  ASSERT_EQ(c.experiments.size(), 1u);
  EXPECT_EQ(c.experiments[0].id, exp_id);
  EXPECT_EQ(c.experiments[0].labels, (std::vector<std::string>{"nightly", "resnet"}));
  cluster_->ExperimentLabelsChanged(exp_id, {"resnet", "v2"});
  EXPECT_EQ(ObserveNow(*cluster_, loop_).experiments[0].labels, (std::vector<std::string>{"resnet", "v2"}))
      << "a label change reaches observers at once";
  ASSERT_EQ(c.agents.size(), 1u);
  EXPECT_EQ(c.agents[0].address, "ip-agent-1");
  EXPECT_EQ(c.agents[0].resource_pool, "default");
  ASSERT_EQ(c.pools.size(), 1u);
  EXPECT_EQ(c.pools[0].slot_type, "cuda");
  EXPECT_EQ(c.pools[0].slots_total, 3);
  EXPECT_EQ(c.pools[0].slots_used, 2);
  EXPECT_EQ(c.pools[0].running_allocations, 1);
  EXPECT_EQ(c.pools[0].pending_allocations, 0);
  EXPECT_EQ(c.pools[0].queued_jobs, 0);
  EXPECT_GT(c.scheduling.passes, before.scheduling.passes);

  Exit("agent-1", start.allocation_id);
  ClusterObservation after = ObserveNow(*cluster_, loop_);
  EXPECT_TRUE(after.allocations.empty());
  EXPECT_TRUE(after.experiments.empty());  // the experiment completed
  EXPECT_EQ(after.pools[0].slots_used, 0);
}

}  // namespace
}  // namespace det::master
