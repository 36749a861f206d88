#include "cli/model_ops.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "cli/fake_master_test_fixture.h"

namespace det::cli {
namespace {

using nlohmann::json;

const char* kModel = R"({"id": 3, "name": "mnist cnn", "description": "digits", "workspaceId": 1, "numVersions": 2,
  "labels": ["cv", "prod"], "lastUpdatedTime": "2026-11-27T05:00:00Z", "archived": false})";
const char* kVersion = R"({"version": 2, "name": "v2", "comment": "best", "labels": [],
  "creationTime": "2026-11-27T05:01:00Z",
  "checkpoint": {"uuid": "ck-2", "training": {"experimentId": 7, "trialId": 9}}})";

class ModelOpsTest : public FakeMasterTest {
 protected:
  FakeResponse Serve(const FakeRequest& r) override {
    targets_.push_back(r.method + " " + r.target);
    if (r.target == "/api/v1/auth/login") return {200, R"({"token":"t","user":{"username":"u"}})"};
    if (r.target == "/api/v1/models/mnist%20cnn") return {200, absl::StrCat(R"({"model": )", kModel, "}")};
    if (r.target.rfind("/api/v1/models/mnist%20cnn/versions?", 0) == 0) {
      return {200, absl::StrCat(R"({"modelVersions": [)", versions_ ? kVersion : "", "]}")};
    }
    if (r.method == "POST" && r.target == "/api/v1/models/mnist%20cnn/versions") {
      posted_ = json::parse(r.body);
      return {200, absl::StrCat(R"({"modelVersion": )", kVersion, "}")};
    }
    return {404, R"({"error":{"code":5,"error":"model \"x\" not found"}})"};
  }

  bool versions_ = true;
  std::vector<std::string> targets_;
  json posted_;
};

TEST_F(ModelOpsTest, DescribeShowsTheModelAndItsLatestVersion) {
  std::ostringstream out;
  ASSERT_TRUE(DescribeModel(*session_, "mnist cnn", std::nullopt, OutputFormat::kCsv, out).ok());
  EXPECT_EQ(out.str(),
            "ID,Name,Description,Workspace ID,# Versions,Labels,Last Updated,Archived\n"
            "3,mnist cnn,digits,1,2,\"cv, prod\",2026-11-27T05:00:00Z,False\n"
            "Version,Name,Checkpoint UUID,Experiment ID,Trial ID,Creation Time,Labels,Comment\n"
            "2,v2,ck-2,7,9,2026-11-27T05:01:00Z,,best\n");
  EXPECT_NE(targets_.back().find("order_by=ORDER_BY_DESC&limit=1"), std::string::npos) << targets_.back();

  versions_ = false;
  std::ostringstream js;
  ASSERT_TRUE(DescribeModel(*session_, "mnist cnn", std::nullopt, OutputFormat::kJson, js).ok());
  EXPECT_TRUE(json::parse(js.str())["modelVersion"].is_null()) << "a model without versions is described too";
  std::ostringstream ignored;
  absl::StatusOr<int> download = DownloadModelVersion(*session_, "mnist cnn", std::nullopt, "", ignored);
  EXPECT_EQ(download.status().message(), "model \"mnist cnn\" has no versions yet");
}

TEST_F(ModelOpsTest, RegisterVersionPostsTheCheckpoint) {
  std::ostringstream out;
  ASSERT_TRUE(RegisterModelVersion(*session_, "mnist cnn", "ck-2", OutputFormat::kJson, out).ok());
  EXPECT_EQ(posted_, json::parse(R"({"checkpointUuid": "ck-2"})"));
  EXPECT_EQ(json::parse(out.str())["version"], 2);
  EXPECT_EQ(RegisterModelVersion(*session_, "x", "ck-2", OutputFormat::kJson, out).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace det::cli
