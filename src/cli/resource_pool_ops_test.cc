#include "cli/resource_pool_ops.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/fake_http_server_test_util.h"
#include "cli/session.h"
#include "common/test_temp_dir.h"

namespace det::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* kPoolsReply = R"({"resourcePools": [
  {"name": "default", "numAgents": 1, "slotsPerAgent": -1, "slotsAvailable": 2, "slotsUsed": 1,
   "defaultComputePool": true, "defaultAuxPool": true, "schedulerType": "SCHEDULER_TYPE_PRIORITY"},
  {"name": "fair", "numAgents": 0, "slotsPerAgent": -1, "slotsAvailable": 0, "slotsUsed": 0,
   "defaultComputePool": false, "defaultAuxPool": false, "schedulerType": "SCHEDULER_TYPE_FAIR_SHARE"}],
  "pagination": {"offset": 0, "limit": 0, "startIndex": 0, "endIndex": 2, "total": 2}})";

TEST(ResourcePoolOpsTest, ListTableJsonCsv) {
  TestTempDir tmp("det_cli_rp");
  const fs::path& dir = tmp.path();
  {
    FakeHttpServer server([](const FakeRequest& r) -> FakeResponse {
      if (r.target == "/api/v1/auth/login")
        return {200, R"({"token":"t","user":{"username":"u"}})"};
      if (r.target.rfind("/api/v1/resource-pools?", 0) == 0) return {200, kPoolsReply};
      return {404, R"({"error":{"code":5,"error":"no route"}})"};
    });
    SessionOptions o;
    o.master_url = server.url();
    o.auth_file = dir / "auth.json";
    Session session(o);
    std::ostringstream table, js, csv;
    ASSERT_TRUE(ListResourcePools(session, OutputFormat::kTable, table).ok());
    EXPECT_EQ(table.str(),
              " resource pool | Num of Agents | Slots per Agent | Slots Available | Slot Used | "
              "Default Compute Pool | Default Aux Pool | Scheduler\n"
              "---------------+---------------+-----------------+-----------------+-----------+-"
              "---------------------+------------------+------------\n"
              " default       |             1 |              -1 |               2 |         1 | "
              "True                 | True             | priority\n"
              " fair          |             0 |              -1 |               0 |         0 | "
              "False                | False            | fair_share\n");
    ASSERT_TRUE(ListResourcePools(session, OutputFormat::kJson, js).ok());
    EXPECT_EQ(json::parse(js.str()), json::parse(kPoolsReply)["resourcePools"]);
    ASSERT_TRUE(ListResourcePools(session, OutputFormat::kCsv, csv).ok());
    EXPECT_NE(csv.str().find("default,1,-1,2,1,True,True,priority\n"), std::string::npos);
  }
}

TEST(ResourcePoolOpsTest, SchedulerName) {
  EXPECT_EQ(SchedulerName("SCHEDULER_TYPE_ROUND_ROBIN"), "round_robin");
  EXPECT_EQ(SchedulerName(""), "");
}

}  // namespace
}  // namespace det::cli
