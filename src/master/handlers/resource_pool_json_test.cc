#include "master/handlers/resource_pool_json.h"
#include "scheduler/schedule.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::master {
namespace {

using nlohmann::json;

PoolSummary Pool(const std::string& name) {
  PoolSummary p;
  p.options.name = name;
  p.options.description = "the " + name + " pool";
  p.num_agents = 1;
  p.slots_available = 4;
  p.slots_used = 1;
  p.aux_capacity = 100;
  p.aux_running = 2;
  return p;
}

TEST(ResourcePoolJsonTest, PriorityPoolHasEveryField) {
  PoolSummary p = Pool("default");
  p.default_compute = true;
  p.default_aux = true;
  p.options.scheduler.preemption = true;
  p.options.scheduler.default_priority = 40;
  json j = ResourcePoolJson(p, {.queued = 2, .scheduled = 1}, "default");
  EXPECT_EQ(j["name"], "default");
  EXPECT_EQ(j["description"], "the default pool");
  EXPECT_EQ(j["type"], "RESOURCE_POOL_TYPE_STATIC");
  EXPECT_EQ(j["numAgents"], 1);
  EXPECT_EQ(j["slotsAvailable"], 4);
  EXPECT_EQ(j["slotsUsed"], 1);
  EXPECT_EQ(j["slotType"], "TYPE_CPU");
  EXPECT_EQ(j["auxContainerCapacity"], 100);
  EXPECT_EQ(j["auxContainersRunning"], 2);
  EXPECT_EQ(j["defaultComputePool"], true);
  EXPECT_EQ(j["defaultAuxPool"], true);
  EXPECT_EQ(j["slotsPerAgent"], -1);
  EXPECT_EQ(j["auxContainerCapacityPerAgent"], 100);
  EXPECT_EQ(j["schedulerType"], "SCHEDULER_TYPE_PRIORITY");
  EXPECT_EQ(j["schedulerFittingPolicy"], "FITTING_POLICY_BEST");
  EXPECT_EQ(j["location"], "on-prem");
  EXPECT_EQ(j["details"]["priorityScheduler"],
            json::parse(R"({"preemption":true,"defaultPriority":40,"k8Priorities":[]})"));
  EXPECT_TRUE(j["details"]["aws"].is_null());
  EXPECT_EQ(j["stats"], json::parse(R"({"queuedCount":2,"scheduledCount":1})"));
  EXPECT_EQ(j["clusterName"], "default");
  for (const char* key :
       {"preemptible", "minAgents", "maxAgents", "imageId", "instanceType", "masterUrl",
        "masterCertName", "startupScript", "containerStartupScript", "agentDockerNetwork",
        "agentDockerRuntime", "agentDockerImage", "agentFluentImage", "maxIdleAgentPeriod",
        "maxAgentStartingPeriod", "accelerator", "resourceManagerMetadata"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
}

TEST(ResourcePoolJsonTest, FairSharePoolWithoutAgents) {
  PoolSummary p = Pool("fs");
  p.num_agents = 0;
  p.options.scheduler.type = scheduler::SchedulerType::kFairShare;
  p.options.scheduler.fitting_policy = scheduler::FittingPolicy::kWorst;
  json j = ResourcePoolJson(p, {}, "c");
  EXPECT_EQ(j["schedulerType"], "SCHEDULER_TYPE_FAIR_SHARE");
  EXPECT_EQ(j["schedulerFittingPolicy"], "FITTING_POLICY_WORST");
  EXPECT_EQ(j["slotType"], "TYPE_UNSPECIFIED");
  EXPECT_TRUE(j["details"]["priorityScheduler"].is_null());
  EXPECT_EQ(SchedulerTypeName(scheduler::SchedulerType::kRoundRobin), "SCHEDULER_TYPE_ROUND_ROBIN");
}

TEST(ResourcePoolJsonTest, ResolveAndStats) {
  PoolSummary a = Pool("a");
  PoolSummary b = Pool("b");
  b.default_compute = true;
  std::vector<PoolSummary> pools = {a, b};
  EXPECT_EQ(*ResolvePoolName(pools, ""), "b");
  EXPECT_EQ(*ResolvePoolName(pools, "a"), "a");
  absl::StatusOr<std::string> missing = ResolvePoolName(pools, "gpu");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("the pools are: a, b"), std::string::npos);
  EXPECT_FALSE(ResolvePoolName({a}, "").ok());

  JobInfo q{.job_id = "j1", .resource_pool = "a", .state = "STATE_QUEUED"};
  JobInfo s{.job_id = "j2", .resource_pool = "a", .state = "STATE_SCHEDULED"};
  JobInfo other{.job_id = "j3", .resource_pool = "b", .state = "STATE_QUEUED"};
  PoolQueueStats st = QueueStatsOf({q, s, other}, "a");
  EXPECT_EQ(st.queued, 1);
  EXPECT_EQ(st.scheduled, 1);
}

TEST(ResourcePoolJsonTest, SchedulerNamesOfTheConfigAndTheEnum) {
  EXPECT_EQ(SchedulerTypeName(scheduler::SchedulerType::kFairShare), "SCHEDULER_TYPE_FAIR_SHARE");
  EXPECT_EQ(scheduler::ConfigName(scheduler::SchedulerType::kFairShare), "fair_share");
  EXPECT_EQ(scheduler::ConfigName(scheduler::SchedulerType::kRoundRobin), "round_robin");
  EXPECT_EQ(scheduler::ConfigName(scheduler::SchedulerType::kPriority), "priority");
}

}  // namespace
}  // namespace det::master
