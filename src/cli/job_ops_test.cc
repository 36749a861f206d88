#include "cli/job_ops.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/fake_master_test_fixture.h"
#include "cli/session.h"

namespace det::cli {
namespace {

using nlohmann::json;

const char* kPools = R"({"resourcePools": [
  {"name": "default", "defaultComputePool": true, "schedulerType": "SCHEDULER_TYPE_PRIORITY"},
  {"name": "fs", "defaultComputePool": false, "schedulerType": "SCHEDULER_TYPE_FAIR_SHARE"}],
  "pagination": {"offset": 0, "limit": 0, "startIndex": 0, "endIndex": 2, "total": 2}})";

json Job(const std::string& id, int exp, const std::string& state, int ahead, int priority,
         double weight) {
  return {{"summary", {{"state", state}, {"jobsAhead", ahead}}},
          {"type", "TYPE_EXPERIMENT"},
          {"submissionTime", "2024-05-01T10:00:00.123456Z"},
          {"username", "alice"},
          {"userId", 2},
          {"resourcePool", "default"},
          {"isPreemptible", true},
          {"priority", priority},
          {"weight", weight},
          {"entityId", std::to_string(exp)},
          {"jobId", id},
          {"requestedSlots", 1},
          {"allocatedSlots", state == "STATE_QUEUED" ? 0 : 1},
          {"name", "noop"},
          {"progress", 0},
          {"workspaceId", 1}};
}

class JobOpsTest : public FakeMasterTest {
 protected:

  FakeResponse Serve(const FakeRequest& r) override {
    if (r.target == "/api/v1/auth/login")
      return {200, R"({"token":"t","user":{"username":"alice"}})"};
    if (r.target.rfind("/api/v1/resource-pools?", 0) == 0) return {200, kPools};
    if (r.target.rfind("/api/v1/job-queues-v2?", 0) == 0) {
      json jobs = json::array({{{"full", Job("j1", 1, "STATE_SCHEDULED", 0, 42, 1)}},
                               {{"full", Job("j2", 2, "STATE_QUEUED", 1, 10, 2.5)}}});
      return {
          200,
          json{{"jobs", jobs},
               {"pagination",
                {{"offset", 0}, {"limit", 100}, {"startIndex", 0}, {"endIndex", 2}, {"total", 2}}}}
              .dump()};
    }
    if (r.method == "POST" && r.target == "/api/v1/job-queues") {
      json body = json::parse(r.body);
      if (body["updates"][0]["jobId"] == "missing") {
        return {404,
                R"({"error":{"code":5,"reason":"NotFound","error":"job \"missing\" not found"}})"};
      }
      return {200, "{}"};
    }
    return {404, R"({"error":{"code":5,"error":"no route"}})"};
  }

  std::vector<FakeRequest> Requests(const std::string& prefix) {
    std::vector<FakeRequest> out;
    for (const FakeRequest& r : server_->requests()) {
      if (r.target.rfind(prefix, 0) == 0) out.push_back(r);
    }
    return out;
  }

};

TEST_F(JobOpsTest, ListTableForPriorityPool) {
  std::ostringstream out;
  ASSERT_TRUE(ListJobs(*session_, {}, out).ok());
  EXPECT_EQ(out.str(),
            " # | ID | Type            | Job Name | Priority | Submitted                | Slots "
            "(acquired/needed) | Status          | User\n"
            "---+----+-----------------+----------+----------+--------------------------+-------"
            "------------------+-----------------+-------\n"
            " 0 | j1 | TYPE_EXPERIMENT | noop (1) |       42 | 2024-05-01 10:00:00+0000 | 1/1   "
            "                  | STATE_SCHEDULED | alice\n"
            " 1 | j2 | TYPE_EXPERIMENT | noop (2) |       10 | 2024-05-01 10:00:00+0000 | 0/1   "
            "                  | STATE_QUEUED    | alice\n");
  std::vector<FakeRequest> gets = Requests("/api/v1/job-queues-v2");
  ASSERT_EQ(gets.size(), 1u);
  EXPECT_EQ(gets[0].target, "/api/v1/job-queues-v2?orderBy=ORDER_BY_ASC&offset=0&limit=100");
}

TEST_F(JobOpsTest, FairSharePoolShowsWeightsAndJsonKeepsJobsAhead) {
  std::ostringstream out, js;
  ASSERT_TRUE(ListJobs(*session_, {.resource_pool = "fs", .reverse = true}, out).ok());
  EXPECT_NE(out.str().find("Weight"), std::string::npos);
  EXPECT_NE(out.str().find("2.5"), std::string::npos);
  EXPECT_NE(out.str().find("1.0"), std::string::npos);
  EXPECT_EQ(Requests("/api/v1/job-queues-v2")[0].target,
            "/api/v1/job-queues-v2?resourcePool=fs&orderBy=ORDER_BY_DESC&offset=0&limit=100");
  ASSERT_TRUE(ListJobs(*session_, {.format = OutputFormat::kJson}, js).ok());
  json j = json::parse(js.str());
  ASSERT_EQ(j["jobs"].size(), 2u);
  EXPECT_EQ(j["jobs"][1]["summary"]["jobsAhead"], 1);
  EXPECT_EQ(j["jobs"][1]["jobId"], "j2");
}

TEST_F(JobOpsTest, UnknownPoolIsAClearError) {
  std::ostringstream out;
  absl::StatusOr<int> r = ListJobs(*session_, {.resource_pool = "gpu"}, out);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "resource pool \"gpu\" not found; the pools are: default, fs");
}

TEST_F(JobOpsTest, UpdateSendsOneQueueControl) {
  std::ostringstream out;
  ASSERT_TRUE(UpdateJob(*session_, {.job_id = "j2", .priority = 10}, out).ok());
  ASSERT_TRUE(UpdateJob(*session_, {.job_id = "j2", .weight = 2}, out).ok());
  ASSERT_TRUE(UpdateJob(*session_, {.job_id = "j2", .resource_pool = "fs"}, out).ok());
  ASSERT_TRUE(UpdateJob(*session_, {.job_id = "j2", .ahead_of = "j1"}, out).ok());
  ASSERT_TRUE(UpdateJob(*session_, {.job_id = "j2", .behind_of = "j1"}, out).ok());
  EXPECT_EQ(out.str(),
            "Updated job j2: priority 10\nUpdated job j2: weight 2.0\n"
            "Updated job j2: moved to resource pool fs\nUpdated job j2: moved ahead of job j1\n"
            "Updated job j2: moved behind job j1\n");
  std::vector<FakeRequest> posts = Requests("/api/v1/job-queues");
  ASSERT_EQ(posts.size(), 5u);
  EXPECT_EQ(json::parse(posts[0].body),
            json::parse(R"({"updates": [{"jobId": "j2", "priority": 10}]})"));
  EXPECT_EQ(json::parse(posts[1].body),
            json::parse(R"({"updates": [{"jobId": "j2", "weight": 2.0}]})"));
  EXPECT_EQ(json::parse(posts[2].body)["updates"][0]["resourcePool"], "fs");
  EXPECT_EQ(json::parse(posts[3].body)["updates"][0]["aheadOf"], "j1");
  EXPECT_EQ(json::parse(posts[4].body)["updates"][0]["behindOf"], "j1");
}

TEST_F(JobOpsTest, UpdateErrors) {
  std::ostringstream out;
  absl::StatusOr<int> missing = UpdateJob(*session_, {.job_id = "missing", .priority = 3}, out);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(UpdateJob(*session_, {.job_id = "j2"}, out).ok());
  absl::StatusOr<json> two = QueueControl({.job_id = "j2", .priority = 1, .weight = 1});
  EXPECT_NE(two.status().message().find("exactly one of --priority"), std::string::npos);
  EXPECT_FALSE(QueueControl({.priority = 1}).ok());
  EXPECT_TRUE(Requests("/api/v1/job-queues").size() == 1);  // only the valid one was sent
}

TEST(PythonFloatTest, LikePython) {
  EXPECT_EQ(PythonFloat(1), "1.0");
  EXPECT_EQ(PythonFloat(2.5), "2.5");
  EXPECT_EQ(PythonFloat(0.1), "0.1");
  EXPECT_EQ(PythonFloat(-3), "-3.0");
}

}  // namespace
}  // namespace det::cli
