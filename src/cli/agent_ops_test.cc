#include "cli/agent_ops.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/fake_master_test_fixture.h"
#include "cli/session.h"

namespace det::cli {
namespace {

using nlohmann::json;

// Two agents as GET /api/v1/agents returns them: "b" (one slot busy) and "a" (disabled, draining).
const char* kAgents = R"({"agents": [
  {"id": "b", "version": "0.38.1", "registeredTime": "2024-05-01T10:00:00Z",
   "slots": {
     "/agents/b/slots/1": {"id": "1", "device": {"id": 1, "brand": "cpu", "uuid": "", "type": "TYPE_CPU"},
                           "enabled": true, "draining": false, "container": null},
     "/agents/b/slots/0": {"id": "0", "device": {"id": 0, "brand": "cpu", "uuid": "", "type": "TYPE_CPU"},
                           "enabled": true, "draining": false,
                           "container": {"id": "7.x.1", "state": "STATE_RUNNING"}}},
   "containers": {"7.x.1": {"id": "7.x.1"}}, "addresses": ["host-b"], "enabled": true,
   "draining": false, "resourcePools": ["default"]},
  {"id": "a", "version": "0.38.1", "registeredTime": "2024-05-01T09:00:00.5Z",
   "slots": {"/agents/a/slots/0": {"id": "0", "device": {"id": 0, "brand": "NVIDIA A100", "uuid": "GPU-a100",
             "type": "TYPE_CUDA"}, "enabled": false, "draining": true, "container": null}},
   "containers": {}, "addresses": ["host-a", "10.0.0.2"], "enabled": false, "draining": true,
   "resourcePools": ["gpu"]}],
  "pagination": {"offset": 0, "limit": 0, "startIndex": 0, "endIndex": 2, "total": 2}})";

class AgentOpsTest : public FakeMasterTest {
 protected:

  FakeResponse Serve(const FakeRequest& r) override {
    if (r.target == "/api/v1/auth/login")
      return {200, R"({"token":"t","user":{"username":"admin"}})"};
    if (r.target.rfind("/api/v1/agents?", 0) == 0) return {200, kAgents};
    if (r.target == "/api/v1/tasks") {
      return {200, R"j({"allocationIdToSummary": {"7.x.1": {"name": "Trial 9 (Experiment 7)"}}})j"};
    }
    if (r.method == "POST" && r.target == "/api/v1/agents/nope/disable") {
      return {404,
              R"({"error":{"code":5,"reason":"NotFound","error":"agent \"nope\" not found"}})"};
    }
    if (r.method == "POST" && r.target.rfind("/api/v1/agents/", 0) == 0) {
      bool busy = r.target.find("/b/") != std::string::npos;
      return {200, json{{"agent",
                         {{"id", "x"}, {"containers", busy ? json{{"c", {}}} : json::object()}}}}
                       .dump()};
    }
    return {404, R"({"error":{"code":5,"error":"no route"}})"};
  }

  std::vector<FakeRequest> Posts() {
    std::vector<FakeRequest> out;
    for (const FakeRequest& r : server_->requests()) {
      if (r.method == "POST" && r.target != "/api/v1/auth/login") out.push_back(r);
    }
    return out;
  }

};

TEST_F(AgentOpsTest, ListTableSortedById) {
  std::ostringstream out;
  ASSERT_TRUE(ListAgents(*session_, OutputFormat::kTable, out).ok());
  EXPECT_EQ(out.str(),
            " Agent ID | Version | Registered Time          | Slots | Containers | Resource Pool | "
            "Enabled | Draining | Addresses\n"
            "----------+---------+--------------------------+-------+------------+---------------+-"
            "--------+----------+------------------\n"
            " a        | 0.38.1  | 2024-05-01 09:00:00+0000 |     1 |          0 | gpu           | "
            "False   | True     | host-a, 10.0.0.2\n"
            " b        | 0.38.1  | 2024-05-01 10:00:00+0000 |     2 |          1 | default       | "
            "True    | False    | host-b\n");
}

TEST_F(AgentOpsTest, ListJsonAndCsv) {
  std::ostringstream js, csv;
  ASSERT_TRUE(ListAgents(*session_, OutputFormat::kJson, js).ok());
  json rows = json::parse(js.str());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1], json::parse(R"({"id": "b", "version": "0.38.1",
      "registered_time": "2024-05-01 10:00:00+0000", "num_slots": 2, "num_containers": 1,
      "resource_pools": "default", "enabled": true, "draining": false, "addresses": "host-b"})"));
  ASSERT_TRUE(ListAgents(*session_, OutputFormat::kCsv, csv).ok());
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')),
            "Agent ID,Version,Registered Time,Slots,Containers,Resource Pool,Enabled,Draining,"
            "Addresses");
}

TEST_F(AgentOpsTest, SlotListNamesTheTask) {
  std::ostringstream out, js;
  ASSERT_TRUE(ListSlots(*session_, OutputFormat::kTable, out).ok());
  EXPECT_EQ(
      out.str(),
      " Agent ID | Resource Pool | Slot ID | Enabled | Draining | Allocation ID | Task Name   "
      "           | Type      | Device      | UUID\n"
      "----------+---------------+---------+---------+----------+---------------+-------------"
      "-----------+-----------+-------------+----------\n"
      " a        | gpu           |       0 | False   | True     | FREE          | None        "
      "           | TYPE_CUDA | NVIDIA A100 | GPU-a100\n"
      " b        | default       |       0 | True    | False    | 7.x.1         | Trial 9 "
      "(Experiment 7) | TYPE_CPU  | cpu         |\n"
      " b        | default       |       1 | True    | False    | FREE          | None        "
      "           | TYPE_CPU  | cpu         |\n");
  ASSERT_TRUE(ListSlots(*session_, OutputFormat::kJson, js).ok());
  json rows = json::parse(js.str());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1]["allocation_id"], "7.x.1");
  EXPECT_EQ(rows[1]["slot_id"], "0");
  EXPECT_EQ(rows[0]["enabled"], false);
}

TEST_F(AgentOpsTest, SlotRowsWithoutTaskNames) {
  json rows = SlotRows(json::parse(kAgents)["agents"], json::object());
  EXPECT_EQ(rows[0]["allocation_id"], "7.x.1");
  EXPECT_EQ(rows[0]["task_name"], "");  // a master that does not serve GET /api/v1/tasks
  EXPECT_EQ(rows[1]["task_name"], "None");
}

TEST_F(AgentOpsTest, EnableDisableAndDrain) {
  std::ostringstream out;
  ASSERT_TRUE(
      SetAgentEnabled(*session_, {.agent_id = "b", .enabled = false, .drain = true}, out).ok());
  ASSERT_TRUE(SetAgentEnabled(*session_, {.agent_id = "a", .enabled = true}, out).ok());
  ASSERT_TRUE(SetAgentEnabled(*session_, {.agent_id = "a", .enabled = false}, out).ok());
  EXPECT_EQ(out.str(),
            "Disabled agent b.\nTasks still in progress on draining nodes.\n"
            "Enabled agent a.\nDisabled agent a.\n");
  std::vector<FakeRequest> posts = Posts();
  ASSERT_EQ(posts.size(), 3u);
  EXPECT_EQ(posts[0].target, "/api/v1/agents/b/disable");
  EXPECT_EQ(json::parse(posts[0].body), json::parse(R"({"drain": true})"));
  EXPECT_EQ(posts[1].target, "/api/v1/agents/a/enable");
  EXPECT_EQ(json::parse(posts[2].body), json::object());
}

TEST_F(AgentOpsTest, AllAgentsAndErrors) {
  std::ostringstream out;
  ASSERT_TRUE(SetAgentEnabled(*session_, {.all = true, .enabled = false}, out).ok());
  EXPECT_EQ(out.str(), "Disabled agent a.\nDisabled agent b.\n");
  EXPECT_FALSE(SetAgentEnabled(*session_, {.enabled = true}, out).ok());
  EXPECT_FALSE(SetAgentEnabled(*session_, {.agent_id = "a", .all = true}, out).ok());
  absl::StatusOr<int> missing =
      SetAgentEnabled(*session_, {.agent_id = "nope", .enabled = false}, out);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "cannot disable agent nope: agent \"nope\" not found");
}

}  // namespace
}  // namespace det::cli
