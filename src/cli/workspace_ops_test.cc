#include "cli/workspace_ops.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/fake_master_test_fixture.h"

namespace det::cli {
namespace {

using nlohmann::json;

const char* kWorkspacesReply = R"({"workspaces": [
  {"id": 1, "name": "Uncategorized", "numProjects": 1, "numExperiments": 3, "archived": false, "immutable": true},
  {"id": 7, "name": "vision", "numProjects": 2, "numExperiments": 0, "archived": true, "immutable": false,
   "agentUserGroup": {"agentUid": 65534, "agentGid": 65533, "agentUser": "nobody", "agentGroup": "nogroup"},
   "defaultComputePool": "gpus", "defaultAuxPool": "", "checkpointStorageConfig": null}],
  "pagination": {"offset": 0, "limit": 0, "startIndex": 0, "endIndex": 2, "total": 2}})";

const char* kProjectsReply = R"({"projects": [
  {"id": 1, "name": "Uncategorized", "key": "UNCAT", "description": "", "numExperiments": 3,
   "numActiveExperiments": 1, "archived": false, "workspaceId": 1}],
  "pagination": {"offset": 0, "limit": 0, "startIndex": 0, "endIndex": 1, "total": 1}})";

class WorkspaceOpsTest : public FakeMasterTest {
 protected:
  FakeResponse Serve(const FakeRequest& r) override {
    if (r.method == "POST" && r.target == "/api/v1/workspaces/1/projects") {
      posted_ = json::parse(r.body);
      return {200, R"({"project": {"id": 4, "name": "p", "key": "K1", "workspaceId": 1}})"};
    }
    if (r.target == "/api/v1/experiments/5/move" || r.target == "/api/v1/projects/1") {
      methods_.push_back(r.method);
      posted_ = r.body.empty() ? json() : json::parse(r.body);
      if (r.method == "DELETE") return {200, R"({"completed": false})"};
      return {200, R"({"project": {"id": 1, "name": "Renamed", "key": "K2", "workspaceId": 1}})"};
    }
    if (r.target == "/api/v1/auth/login") return {200, R"({"token":"t","user":{"username":"u"}})"};
    if (r.target.rfind("/api/v1/workspaces?", 0) == 0) return {200, kWorkspacesReply};
    if (r.target.rfind("/api/v1/workspaces/1/projects?", 0) == 0) return {200, kProjectsReply};
    if (r.target.rfind("/api/v1/workspaces/7/projects?", 0) == 0) {
      return {200, R"({"projects": [], "pagination": {"offset": 0, "limit": 0, "startIndex": 0, "endIndex": 0, "total": 0}})"};
    }
    return {404, R"({"error":{"code":5,"error":"no route"}})"};
  }

  json posted_;
  std::vector<std::string> methods_;
};

TEST_F(WorkspaceOpsTest, ListShowsEachWorkspaceWithItsCounts) {
  std::ostringstream table, js;
  ASSERT_TRUE(ListWorkspaces(*session_, OutputFormat::kTable, table).ok());
  EXPECT_EQ(table.str(),
            " ID | Name          | # Projects | # Experiments | Archived\n"
            "----+---------------+------------+---------------+----------\n"
            "  1 | Uncategorized |          1 |             3 | False\n"
            "  7 | vision        |          2 |             0 | True\n");
  ASSERT_TRUE(ListWorkspaces(*session_, OutputFormat::kJson, js).ok());
  EXPECT_EQ(json::parse(js.str()), json::parse(kWorkspacesReply)["workspaces"]);
}

TEST_F(WorkspaceOpsTest, DescribeShowsTheUserItsTasksRunAsAndItsDefaults) {
  std::ostringstream csv;
  ASSERT_TRUE(DescribeWorkspace(*session_, "vision", OutputFormat::kCsv, csv).ok());
  EXPECT_NE(csv.str().find("Agent User Group,Default Compute Pool,Default Aux Pool,Checkpoint Storage\n"
                           "\"nobody (65534), group nogroup (65533)\",gpus,,\n"),
            std::string::npos)
      << csv.str();
  std::ostringstream uncategorized;
  ASSERT_TRUE(DescribeWorkspace(*session_, "Uncategorized", OutputFormat::kCsv, uncategorized).ok());
  EXPECT_NE(uncategorized.str().find("Checkpoint Storage\n,,,\n"), std::string::npos) << uncategorized.str();
}

TEST_F(WorkspaceOpsTest, AWorkspaceIsNamedAndItsProjectsListed) {
  std::ostringstream table;
  ASSERT_TRUE(ListWorkspaceProjects(*session_, "Uncategorized", OutputFormat::kCsv, table).ok());
  EXPECT_EQ(table.str(),
            "ID,Name,Key,Description,# Experiments,# Active Experiments,Archived\n"
            "1,Uncategorized,UNCAT,,3,1,False\n");
  std::ostringstream project;
  ASSERT_TRUE(DescribeProject(*session_, "Uncategorized", "Uncategorized", OutputFormat::kJson, project).ok());
  EXPECT_EQ(json::parse(project.str())["key"], "UNCAT");

  std::ostringstream ignored;
  absl::StatusOr<int> unknown = ListWorkspaceProjects(*session_, "nope", OutputFormat::kTable, ignored);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(unknown.status().message(), R"(no workspace named "nope" (there are: "Uncategorized", "vision"))");
  absl::StatusOr<int> no_project = DescribeProject(*session_, "Uncategorized", "x", OutputFormat::kTable, ignored);
  EXPECT_EQ(no_project.status().message(), R"(workspace "Uncategorized" has no project named "x")");
}

TEST_F(WorkspaceOpsTest, AProjectIsCreatedInTheNamedWorkspace) {
  std::ostringstream out;
  ASSERT_TRUE(CreateProject(*session_, "Uncategorized", "p", "about p", "k1", OutputFormat::kJson, out).ok());
  EXPECT_EQ(posted_, json::parse(R"({"name": "p", "description": "about p", "workspaceId": 1, "key": "k1"})"));
  EXPECT_EQ(json::parse(out.str())["id"], 4);
}

TEST_F(WorkspaceOpsTest, AnExperimentMovesToTheProjectNamedInTheWorkspaceNamed) {
  std::ostringstream out;
  ASSERT_TRUE(MoveExperiment(*session_, 5, "Uncategorized", "Uncategorized", out).ok());
  EXPECT_EQ(posted_, json::parse(R"({"destinationProjectId": 1})"));
  EXPECT_EQ(out.str(), "Moved experiment 5 to project \"Uncategorized\" in workspace \"Uncategorized\".\n");
  EXPECT_EQ(MoveExperiment(*session_, 5, "Uncategorized", "x", out).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(WorkspaceOpsTest, AProjectIsEditedAndDeletedByName) {
  std::ostringstream out;
  ASSERT_TRUE(EditProject(*session_, "Uncategorized", "Uncategorized", {{"name", "Renamed"}}, OutputFormat::kJson, out)
                  .ok());
  EXPECT_EQ(posted_, json::parse(R"({"name": "Renamed"})"));
  EXPECT_EQ(json::parse(out.str())["key"], "K2");
  std::ostringstream deleted;
  ASSERT_TRUE(ChangeProject(*session_, "Uncategorized", "Uncategorized", "delete", deleted).ok());
  EXPECT_EQ(methods_, (std::vector<std::string>{"PATCH", "DELETE"}));
  EXPECT_EQ(deleted.str(),
            "Started deleting project \"Uncategorized\" in workspace \"Uncategorized\": its experiments and their "
            "checkpoints are being deleted.\n");
}

}  // namespace
}  // namespace det::cli
