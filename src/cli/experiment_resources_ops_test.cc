#include "cli/experiment_resources_ops.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/experiment_ops.h"
#include "cli/fake_master_test_fixture.h"

namespace det::cli {
namespace {

using nlohmann::json;

TEST(ExperimentResourcesTest, PatchBodies) {
  EXPECT_EQ(*ExperimentResourcesPatch(3, {.priority = 10}),
            json::parse(R"({"id": 3, "resources": {"priority": 10}})"));
  EXPECT_EQ(*ExperimentResourcesPatch(3, {.weight = 0.5}),
            json::parse(R"({"id": 3, "resources": {"weight": 0.5}})"));
  EXPECT_EQ(*ExperimentResourcesPatch(3, {.max_slots = 4}),
            json::parse(R"({"id": 3, "resources": {"maxSlots": 4}})"));
  EXPECT_FALSE(ExperimentResourcesPatch(3, {}).ok());
  EXPECT_FALSE(ExperimentResourcesPatch(3, {.priority = 1, .weight = 1}).ok());
}

// Experiment 3 is in pool "gpu" (priority scheduler) when `with_pool_`, 4 refuses the PATCH, 5 is in
// pool "shared" (fair share).
class ExperimentResourcesOpsTest : public FakeMasterTest {
 protected:
  FakeResponse Serve(const FakeRequest& r) override {
    if (r.target == "/api/v1/auth/login") return {200, R"({"token":"t","user":{"username":"u"}})"};
    if (r.method == "PATCH" && r.target == "/api/v1/experiments/3") {
      return {200, with_pool_ ? R"({"experiment": {"id": 3, "resourcePool": "gpu"}})" : R"({"experiment": {"id": 3}})"};
    }
    if (r.method == "PATCH" && r.target == "/api/v1/experiments/4") {
      return {400, R"({"error":{"code":3,"reason":"InvalidArgument",
               "error":"resources.priority: must be between 1 and 99 (smaller runs first), got 0"}})"};
    }
    if (r.method == "PATCH" && r.target == "/api/v1/experiments/5") {
      return {200, R"({"experiment": {"id": 5, "resourcePool": "shared"}})"};
    }
    if (r.method == "PUT" &&
        (r.target == "/api/v1/experiments/3/retain_logs" || r.target == "/api/v1/trials/7/retain_logs")) {
      return {200, "{}"};
    }
    if (r.target.rfind("/api/v1/resource-pools", 0) == 0) {
      return {200, R"({"resourcePools": [{"name": "gpu", "schedulerType": "SCHEDULER_TYPE_PRIORITY"},
                                         {"name": "shared", "schedulerType": "SCHEDULER_TYPE_FAIR_SHARE"}]})"};
    }
    return {404, R"({"error":{"code":5,"error":"no route"}})"};
  }

  bool with_pool_ = false;
};

TEST_F(ExperimentResourcesOpsTest, SendsPatchAndReportsErrors) {
  std::ostringstream out;
  ASSERT_TRUE(SetExperimentResources(*session_, 3, {.priority = 10}, out).ok());
  ASSERT_TRUE(SetExperimentResources(*session_, 3, {.weight = 2}, out).ok());
  ASSERT_TRUE(SetExperimentResources(*session_, 3, {.max_slots = 1}, out).ok());
  EXPECT_EQ(out.str(),
            "Set `priority` of experiment 3 to 10\nSet `weight` of experiment 3 to 2.0\n"
            "Set `max_slots` of experiment 3 to 1\n");
  absl::StatusOr<int> bad = SetExperimentResources(*session_, 4, {.priority = 0}, out);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("between 1 and 99"), std::string::npos);
  std::vector<FakeRequest> patches;
  for (const FakeRequest& r : server_->requests()) {
    if (r.method == "PATCH") patches.push_back(r);
  }
  ASSERT_EQ(patches.size(), 4u);
  EXPECT_EQ(json::parse(patches[1].body), json::parse(R"({"id": 3, "resources": {"weight": 2.0}})"));
}

TEST_F(ExperimentResourcesOpsTest, SaysWhenThePoolsSchedulerDoesNotEnforceTheValue) {
  with_pool_ = true;
  std::ostringstream out;
  ASSERT_TRUE(SetExperimentResources(*session_, 3, {.max_slots = 2}, out).ok());
  ASSERT_TRUE(SetExperimentResources(*session_, 3, {.priority = 5}, out).ok());
  ASSERT_TRUE(SetExperimentResources(*session_, 5, {.max_slots = 2}, out).ok());
  EXPECT_EQ(out.str(),
            "Set `max_slots` of experiment 3 to 2 (kept, but not enforced: resource pool \"gpu\" uses the "
            "priority scheduler, and only fair_share uses max_slots)\n"
            "Set `priority` of experiment 3 to 5\n"
            "Set `max_slots` of experiment 5 to 2\n");
}

TEST_F(ExperimentResourcesOpsTest, LogRetentionIsDaysOrForeverNeverBoth) {
  std::ostringstream out;
  ASSERT_TRUE(SetLogRetention(*session_, LogRetentionOf::kExperiment, 3, 50, false, out).ok());
  ASSERT_TRUE(SetLogRetention(*session_, LogRetentionOf::kTrial, 7, std::nullopt, true, out).ok());
  EXPECT_EQ(out.str(), "Set log retention of experiment 3 to 50 days\nSet log retention of trial 7 to forever\n");
  std::vector<json> puts;
  for (const FakeRequest& r : server_->requests()) {
    if (r.method == "PUT") puts.push_back(json::parse(r.body));
  }
  ASSERT_EQ(puts.size(), 2u);
  EXPECT_EQ(puts[0], (json{{"numDays", 50}}));
  EXPECT_EQ(puts[1], (json{{"numDays", -1}}));
  for (auto [days, forever] : {std::pair<std::optional<int>, bool>{std::nullopt, false}, {5, true}, {40000, false},
                               {-2, false}}) {
    EXPECT_EQ(SetLogRetention(*session_, LogRetentionOf::kExperiment, 3, days, forever, out).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace det::cli
