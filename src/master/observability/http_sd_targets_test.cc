#include "master/observability/http_sd_targets.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::master {
namespace {

TEST(HttpSdTargetsTest, OneGroupPerAgentWithUpstreamPortsAndLabels) {
  nlohmann::json j = nlohmann::json::parse(
      HttpSdTargetsJson({{.id = "a1", .resource_pool = "gpu", .address = "10.0.0.5"},
                         {.id = "a2", .resource_pool = "cpu", .address = "::1"},
                         {.id = "a3", .resource_pool = "cpu", .address = ""}}));
  ASSERT_EQ(j.size(), 2u);  // a3's address is unknown
  EXPECT_EQ(j[0]["targets"], nlohmann::json({"10.0.0.5:9400", "10.0.0.5:8080"}));
  EXPECT_EQ(j[0]["labels"], nlohmann::json({{"det_agent_id", "a1"}, {"det_resource_pool", "gpu"}}));
  EXPECT_EQ(j[1]["targets"], nlohmann::json({"[::1]:9400", "[::1]:8080"}));
  EXPECT_EQ(j[1]["labels"]["det_agent_id"], "a2");
}

TEST(HttpSdTargetsTest, NoAgentsIsAnEmptyList) { EXPECT_EQ(HttpSdTargetsJson({}), "[]"); }

}  // namespace
}  // namespace det::master
