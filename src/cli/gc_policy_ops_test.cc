#include "cli/gc_policy_ops.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/fake_master_test_fixture.h"

namespace det::cli {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

// A master whose experiment 3 would lose one checkpoint under any policy; it records the PATCHes.
class GcPolicyOpsTest : public FakeMasterTest {
 protected:
  FakeResponse Serve(const FakeRequest& r) override {
    if (r.target == "/api/v1/auth/login") return {200, R"({"token":"t","user":{"username":"u"}})"};
    if (r.target.rfind("/experiments/3/preview_gc?", 0) == 0) {
      previews_.push_back(r.target);
      json c = {{"UUID", "u-1"},
                {"TrialID", 7},
                {"StepsCompleted", 200},
                {"State", "COMPLETED"},
                {"Resources", {{"a", 1000}, {"b", 24}}},
                {"ValidationMetrics", {{"loss", 0.25}}}};
      return {200, json{{"checkpoints", {c}}, {"metric_name", "loss"}}.dump()};
    }
    if (r.method == "PATCH" && r.target == "/api/v1/experiments/3") {
      patches_.push_back(json::parse(r.body));
      return {200, R"({"experiment":{"id":3}})"};
    }
    return {404, R"({"error":{"code":5,"reason":"NotFound","error":"not found"}})"};
  }

  std::vector<std::string> previews_;
  std::vector<json> patches_;
};

TEST_F(GcPolicyOpsTest, ShowsWhatGoesAsksThenPatches) {
  std::ostringstream out;
  std::string asked;
  auto yes = [&asked](const std::string& q) {
    asked = q;
    return true;
  };
  ASSERT_TRUE(SetGcPolicy(*session_, 3, {1, 0, 2}, false, yes, out).ok());
  EXPECT_EQ(previews_,
            std::vector<std::string>{"/experiments/3/preview_gc?save_experiment_best=1&save_trial_best=0&save_trial_latest=2"});
  EXPECT_THAT(out.str(), HasSubstr("Validation Metric (loss)"));
  EXPECT_THAT(out.str(), HasSubstr("u-1"));
  EXPECT_THAT(out.str(), HasSubstr("0.25"));
  EXPECT_THAT(out.str(), HasSubstr("2 files"));
  EXPECT_FALSE(asked.empty());
  ASSERT_EQ(patches_.size(), 1u);
  EXPECT_EQ(patches_[0], (json{{"id", 3},
                               {"checkpointStorage", {{"saveExperimentBest", 1}, {"saveTrialBest", 0}, {"saveTrialLatest", 2}}}}));
  EXPECT_THAT(out.str(), HasSubstr("Set GC policy of experiment 3 to\n{'save_experiment_best': 1, "
                                   "'save_trial_best': 0, 'save_trial_latest': 2}\n"));
}

TEST_F(GcPolicyOpsTest, ANoChangesNothingAndYesSkipsThePreview) {
  std::ostringstream out;
  ASSERT_TRUE(SetGcPolicy(*session_, 3, {1, 1, 1}, false, [](const std::string&) { return false; }, out).ok());
  EXPECT_THAT(out.str(), HasSubstr("Aborting operations."));
  EXPECT_TRUE(patches_.empty());
  previews_.clear();
  ASSERT_TRUE(SetGcPolicy(*session_, 3, {1, 1, 1}, true, [](const std::string&) { return false; }, out).ok());
  EXPECT_TRUE(previews_.empty());
  EXPECT_EQ(patches_.size(), 1u);
}

}  // namespace
}  // namespace det::cli
