#include "master/handlers/agent_json.h"
#include "master/handlers/query_request_test_util.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::master {
namespace {

using nlohmann::json;

AgentSummary Agent(const std::string& id, int seconds) {
  AgentSummary a;
  a.identity = {
      .id = id, .resource_pool = "default", .hostname = "host-" + id, .version = "0.38.1"};
  a.registered_time = WallTime(std::chrono::seconds(seconds));
  a.slots = {{.id = 0, .type = "cpu", .device = "cpu"}, {.id = 1, .type = "cpu", .device = "cpu"}};
  return a;
}

TEST(AgentJsonTest, UpstreamShapeWithSlotsAndContainers) {
  AgentSummary a = Agent("a1", 0);
  a.slot_allocations[1] = "3.abc.1";
  a.enabled = false;
  a.draining = true;
  json j = AgentJson(a);
  EXPECT_EQ(j["id"], "a1");
  EXPECT_EQ(j["registeredTime"], "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(j["addresses"], json::array({"host-a1"}));
  EXPECT_EQ(j["enabled"], false);
  EXPECT_EQ(j["draining"], true);
  EXPECT_EQ(j["version"], "0.38.1");
  EXPECT_EQ(j["resourcePools"], json::array({"default"}));
  ASSERT_EQ(j["slots"].size(), 2u);
  const json& free = j["slots"]["/agents/a1/slots/0"];
  EXPECT_EQ(free["id"], "0");
  EXPECT_TRUE(free["container"].is_null());
  EXPECT_EQ(free["enabled"], false);
  EXPECT_EQ(free["draining"], true);
  EXPECT_EQ(free["device"], json::parse(R"({"id":0,"brand":"cpu","uuid":"","type":"TYPE_CPU"})"));
  const json& used = j["slots"]["/agents/a1/slots/1"];
  EXPECT_EQ(used["container"]["id"], "3.abc.1");
  EXPECT_EQ(used["container"]["state"], "STATE_RUNNING");
  // containerv1.Container's fields, all emitted (reference §1d, §0.2).
  EXPECT_EQ(used["container"]["permissionDenied"], false);
  EXPECT_EQ(used["container"].size(), 5u);
  ASSERT_EQ(j["containers"].size(), 1u);
  EXPECT_EQ(j["containers"]["3.abc.1"]["devices"].size(), 1u);
  const json& cpu = j["slotStats"]["typeStats"]["TYPE_CPU"];
  EXPECT_EQ(cpu["total"], 2);
  EXPECT_EQ(cpu["disabled"], 2);
  EXPECT_EQ(cpu["draining"], 2);
  EXPECT_EQ(cpu["states"]["STATE_RUNNING"], 1);
  EXPECT_EQ(j["slotStats"]["brandStats"]["cpu"]["total"], 2);

  json slim = AgentJson(a, /*exclude_slots=*/true, /*exclude_containers=*/true);
  EXPECT_TRUE(slim["slots"].empty());
  EXPECT_TRUE(slim["containers"].empty());
}

TEST(AgentJsonTest, SlotJsonForGpus) {
  AgentSummary a = Agent("g", 0);
  a.slots = {{.id = 3, .type = "cuda", .device = "NVIDIA H100", .uuid = "GPU-6f1d"}};
  json s = SlotJson(a, a.slots[0]);
  EXPECT_EQ(s["id"], "3");
  EXPECT_EQ(s["device"]["type"], "TYPE_CUDA");
  EXPECT_EQ(s["device"]["brand"], "NVIDIA H100");
  EXPECT_EQ(s["device"]["uuid"], "GPU-6f1d");
  EXPECT_EQ(s["enabled"], true);
}

TEST(AgentJsonTest, QuerySortAndOrder) {
  auto q = ParseAgentListQuery(WithQuery({{"sortBy", "SORT_BY_TIME"},
                                          {"orderBy", "ORDER_BY_DESC"},
                                          {"offset", "1"},
                                          {"limit", "2"},
                                          {"excludeSlots", "true"}}));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_TRUE(q->by_time);
  EXPECT_TRUE(q->descending);
  EXPECT_EQ(q->offset, 1);
  EXPECT_EQ(q->limit, 2);
  EXPECT_TRUE(q->exclude_slots);
  EXPECT_FALSE(q->exclude_containers);
  std::vector<AgentSummary> sorted = SortAgents({Agent("b", 1), Agent("a", 2), Agent("c", 0)}, *q);
  EXPECT_EQ(sorted[0].identity.id, "a");
  EXPECT_EQ(sorted[1].identity.id, "b");
  EXPECT_EQ(sorted[2].identity.id, "c");
  auto by_id = ParseAgentListQuery(WithQuery({}));
  ASSERT_TRUE(by_id.ok());
  sorted = SortAgents({Agent("b", 1), Agent("a", 2), Agent("c", 0)}, *by_id);
  EXPECT_EQ(sorted[0].identity.id, "a");
  EXPECT_EQ(sorted[2].identity.id, "c");
  EXPECT_FALSE(ParseAgentListQuery(WithQuery({{"sortBy", "SORT_BY_NAME"}})).ok());
  EXPECT_FALSE(ParseAgentListQuery(WithQuery({{"excludeSlots", "maybe"}})).ok());
}

TEST(AgentJsonTest, FindAgentNamesTheMissingOne) {
  std::vector<AgentSummary> agents = {Agent("a", 0)};
  EXPECT_TRUE(FindAgent(agents, "a").ok());
  absl::StatusOr<AgentSummary> missing = FindAgent(agents, "zz");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("\"zz\""), std::string::npos);
  EXPECT_NE(missing.status().message().find("det agent list"), std::string::npos);
}

}  // namespace
}  // namespace det::master
