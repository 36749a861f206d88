#include "master/handlers/project_bulk.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "master/db/temp_sqlite_store.h"

namespace det::master {
namespace {

using nlohmann::json;

class ProjectBulkTest : public ::testing::Test {
 protected:
  ProjectBulkTest() : store_("project_bulk") {
    Workspace ws = *store_->InsertWorkspace({.name = "vision", .user_id = 1});
    project_ = *store_->InsertProject({.name = "detection", .workspace_id = ws.id, .user_id = 1, .key = "DET"});
    mine_ = AddExperiment(project_.id, "mine");
    elsewhere_ = AddExperiment(1, "elsewhere");
  }

  int64_t AddExperiment(int64_t project_id, const std::string& name) {
    api::Experiment e{.name = name, .state = api::ExperimentState::kCompleted, .config_json = "{}", .owner_id = 1};
    e.project_id = project_id;
    return *store_->InsertExperiment(e, "");
  }

  std::vector<std::pair<int64_t, bool>> Targets(int64_t project_id, const std::string& body) {
    absl::StatusOr<std::vector<BulkTarget>> got = ProjectBulkTargets(*store_, project_id, json::parse(body));
    EXPECT_TRUE(got.ok()) << got.status();
    std::vector<std::pair<int64_t, bool>> out;
    for (const BulkTarget& t : got.value_or(std::vector<BulkTarget>{})) out.emplace_back(t.id, t.status.ok());
    return out;
  }

  TempSqliteStore store_;
  Project project_;
  int64_t mine_ = 0;
  int64_t elsewhere_ = 0;
};

TEST_F(ProjectBulkTest, IdsStayInTheirProjectUnlessTheProjectIsAll) {
  EXPECT_EQ(Targets(project_.id, absl::StrCat(R"({"experimentIds": [)", mine_, ",", elsewhere_, "]}")),
            (std::vector<std::pair<int64_t, bool>>{{mine_, true}, {elsewhere_, false}}));
  EXPECT_EQ(Targets(kAllProjects, absl::StrCat(R"({"experimentIds": [)", mine_, ",", elsewhere_, "]}")),
            (std::vector<std::pair<int64_t, bool>>{{mine_, true}, {elsewhere_, true}}));
  EXPECT_EQ(ProjectBulkTargets(*store_, 999, json::parse(R"({"experimentIds": [1]})")).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(ProjectBulkTest, FiltersMatchInTheProjectOrInAllOrInTheOneTheyName) {
  EXPECT_EQ(Targets(project_.id, R"({"filters": {"name": "e"}})"),
            (std::vector<std::pair<int64_t, bool>>{{mine_, true}}));
  EXPECT_EQ(Targets(kAllProjects, R"({"filters": {"name": "e"}})"),
            (std::vector<std::pair<int64_t, bool>>{{mine_, true}, {elsewhere_, true}}));
  EXPECT_EQ(Targets(kAllProjects, R"({"filters": {"projectId": 1}})"),
            (std::vector<std::pair<int64_t, bool>>{{elsewhere_, true}}));
  EXPECT_EQ(ProjectBulkTargets(*store_, project_.id, json::parse(R"({"filters": {"projectId": 1}})")).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace det::master
