#include "master/experiment_placement.h"

#include <gtest/gtest.h>

#include "master/db/temp_sqlite_store.h"

namespace det::master {
namespace {

class ExperimentPlacementTest : public ::testing::Test {
 protected:
  ExperimentPlacementTest() : store_("experiment_placement") {
    workspace_ = *store_->InsertWorkspace({.name = "vision", .user_id = 1});
    project_ = *store_->InsertProject({.name = "detection", .workspace_id = workspace_.id, .user_id = 1, .key = "DET"});
    other_ = *store_->InsertProject({.name = "segmentation", .workspace_id = workspace_.id, .user_id = 1, .key = "SEG"});
  }

  int64_t AddExperiment(int64_t project_id) {
    api::Experiment e{.name = "e", .state = api::ExperimentState::kCompleted, .config_json = "{}", .owner_id = 1};
    e.project_id = project_id;
    return *store_->InsertExperiment(e, "");
  }

  TempSqliteStore store_;
  Workspace workspace_;
  Project project_;
  Project other_;
};

TEST_F(ExperimentPlacementTest, ANewExperimentGoesToTheGivenProjectOrTheNamedOneOrUncategorized) {
  EXPECT_EQ(ProjectForNewExperiment(*store_, 0, "", "")->id, 1);
  EXPECT_EQ(ProjectForNewExperiment(*store_, project_.id, "", "")->id, project_.id);
  EXPECT_EQ(ProjectForNewExperiment(*store_, 0, "vision", "segmentation")->id, other_.id);
  EXPECT_EQ(ProjectForNewExperiment(*store_, other_.id, "vision", "segmentation")->id, other_.id);

  absl::Status one_name = ProjectForNewExperiment(*store_, 0, "vision", "").status();
  EXPECT_EQ(one_name.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ProjectForNewExperiment(*store_, project_.id, "vision", "segmentation").status().code(),
            absl::StatusCode::kInvalidArgument)
      << "the id and the names disagree";
  EXPECT_EQ(ProjectForNewExperiment(*store_, 0, "nope", "detection").status().message(),
            "workspace \"nope\" not found");
  EXPECT_EQ(ProjectForNewExperiment(*store_, 0, "vision", "nope").status().message(),
            "project: workspace \"vision\" has no project named \"nope\"");
  EXPECT_EQ(ProjectForNewExperiment(*store_, 99, "", "").status().code(), absl::StatusCode::kNotFound);

  ASSERT_TRUE(store_->SetWorkspaceArchived(workspace_.id, true).ok());
  EXPECT_EQ(ProjectForNewExperiment(*store_, project_.id, "", "").status().code(),
            absl::StatusCode::kFailedPrecondition)
      << "its workspace is archived";
}

TEST_F(ExperimentPlacementTest, ANewExperimentTakesItsWorkspacesStorageAndPoolUnderItsOwnConfig) {
  config::MasterConfig master;
  master.resource_pools.resize(2);
  master.resource_pools[0].pool_name = "default";
  master.resource_pools[1].pool_name = "gpu";
  ASSERT_TRUE(store_->PatchWorkspace(workspace_.id, {.checkpoint_storage_config_json = R"({"type":"s3"})",
                                                     .default_compute_pool = "gpu"})
                  .ok());
  nlohmann::json config = {{"workspace", "vision"}, {"project", "detection"}};
  std::string storage = R"({"type":"shared_fs"})";
  absl::StatusOr<Project> placed = PlaceNewExperiment(*store_, master, 0, config, storage);
  ASSERT_TRUE(placed.ok()) << placed.status();
  EXPECT_EQ(placed->id, project_.id);
  EXPECT_EQ(storage, R"({"type":"s3"})");
  EXPECT_EQ(config["resources"]["resource_pool"], "gpu");

  nlohmann::json own = {{"resources", {{"resource_pool", "default"}}}};
  storage = "";
  ASSERT_TRUE(PlaceNewExperiment(*store_, master, project_.id, own, storage).ok());
  EXPECT_EQ(own["resources"]["resource_pool"], "default") << "the config's own pool wins";
  nlohmann::json elsewhere = nlohmann::json::object();
  storage = R"({"type":"shared_fs"})";
  ASSERT_TRUE(PlaceNewExperiment(*store_, master, 0, elsewhere, storage).ok());
  EXPECT_FALSE(elsewhere.contains("resources")) << "Uncategorized has no default pool";
  EXPECT_EQ(storage, R"({"type":"shared_fs"})");

  ASSERT_TRUE(store_->BindPool("gpu", {workspace_.id}, false).ok());
  nlohmann::json bound = {{"resources", {{"resource_pool", "gpu"}}}};
  EXPECT_EQ(PlaceNewExperiment(*store_, master, 0, bound, storage).status().code(),
            absl::StatusCode::kInvalidArgument)
      << "gpu serves only workspace vision";
  nlohmann::json odd = {{"resources", {{"resource_pool", nullptr}}}};
  EXPECT_TRUE(PlaceNewExperiment(*store_, master, project_.id, odd, storage).ok()) << "no throw on a null pool";
}

TEST_F(ExperimentPlacementTest, AnExperimentMovesOnlyOutOfAndIntoUnarchivedProjects) {
  int64_t id = AddExperiment(1);
  ASSERT_TRUE(MoveExperimentChecked(*store_, id, project_.id).ok());
  EXPECT_EQ(store_->GetExperiment(id)->project_id, project_.id);
  EXPECT_TRUE(MoveExperimentChecked(*store_, id, project_.id).ok()) << "already there";

  ASSERT_TRUE(store_->SetProjectArchived(other_.id, true).ok());
  absl::Status into_archived = MoveExperimentChecked(*store_, id, other_.id);
  EXPECT_EQ(into_archived.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(into_archived.message().find("nothing moves into it"), std::string::npos) << into_archived;

  int64_t in_archived = AddExperiment(other_.id);
  EXPECT_EQ(MoveExperimentChecked(*store_, in_archived, 1).code(), absl::StatusCode::kFailedPrecondition)
      << "nothing moves out of an archived project";

  ASSERT_TRUE(store_->SetExperimentArchived(id, true, {api::ExperimentState::kCompleted}).ok());
  EXPECT_EQ(MoveExperimentChecked(*store_, id, 1).message(),
            absl::StrCat("experiment ", id, " is archived: unarchive it to move it"));
  EXPECT_EQ(MoveExperimentChecked(*store_, 999, 1).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(MoveExperimentChecked(*store_, AddExperiment(1), 999).code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace det::master
