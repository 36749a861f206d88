// What a path names must be visible to the caller, under the rbac rule over a real (SQLite) store.
#include "master/handlers/path_scope.h"

#include <gtest/gtest.h>

#include "master/db/store_test_backends.h"
#include "master/db/temp_sqlite_store.h"
#include "master/rbac/rbac_authz.h"
#include "master/rbac/roles.h"
#include "master/task/authz.h"

namespace det::master {
namespace {

class PathScopeTest : public ::testing::Test {
 protected:
  PathScopeTest() {
    experiment_ = AddExperimentWithTrial(*store_, &trial_);  // in workspace 1
    absl::StatusOr<api::User> eve = store_->InsertUser({.username = "eve", .active = true});
    EXPECT_TRUE(eve.ok()) << eve.status();
    eve_ = Principal{.user_id = eve->id, .username = "eve"};
    InstallAuthz(std::make_shared<rbac::RbacAuthz>(*store_));
  }
  ~PathScopeTest() override { InstallAuthz(std::make_shared<BasicAuthz>()); }

  void GiveEditorIn(int64_t workspace) {
    absl::StatusOr<int64_t> personal = store_->PersonalGroupOf(eve_.user_id);
    ASSERT_TRUE(personal.ok());
    ASSERT_TRUE(store_->AddRoleAssignments({{.group_id = *personal, .role_id = rbac::kEditorRole, .workspace_id = workspace}})
                    .ok());
  }

  absl::Status Visit(const std::string& pattern, std::map<std::string, std::string> params) {
    HttpRequest request{.method = "POST", .path_params = std::move(params), .principal = eve_};
    return CheckPathVisible(*store_, trial_facts_, request, pattern);
  }

  TempSqliteStore store_{"det_path_scope"};
  TrialFactsCache trial_facts_{*store_};
  int64_t experiment_ = 0;
  int64_t trial_ = 0;
  Principal eve_;
};

TEST_F(PathScopeTest, WhatTheCallerMayNotSeeDoesNotExistWhateverTheMethod) {
  GiveEditorIn(2);
  const std::string exp = std::to_string(experiment_), trial = std::to_string(trial_);
  absl::Status hidden = Visit("/api/v1/experiments/{experiment_id}/kill", {{"experiment_id", exp}});
  EXPECT_TRUE(absl::IsNotFound(hidden)) << hidden;
  EXPECT_EQ(hidden.message(), "experiment " + exp + " not found");
  EXPECT_EQ(Visit("/api/v1/trials/{trial_id}/logs", {{"trial_id", trial}}).message(), "trial " + trial + " not found");
  EXPECT_EQ(Visit("/api/v1/workspaces/{id}", {{"id", "1"}}).message(), "workspace 1 not found");
  EXPECT_EQ(CheckTrialVisible(*store_, eve_, trial_).message(), "trial " + trial + " not found");

  GiveEditorIn(1);
  EXPECT_TRUE(Visit("/api/v1/experiments/{experiment_id}/kill", {{"experiment_id", exp}}).ok());
  EXPECT_TRUE(Visit("/api/v1/trials/{trial_id}/logs", {{"trial_id", trial}}).ok());
  EXPECT_TRUE(Visit("/api/v1/workspaces/{id}", {{"id", "1"}}).ok());
  EXPECT_TRUE(CheckExperimentVisible(*store_, eve_, experiment_).ok());
}

TEST_F(PathScopeTest, WhatDoesNotExistOrIsNoThingOfACollectionIsLeftToTheHandler) {
  EXPECT_TRUE(Visit("/api/v1/experiments/{experiment_id}", {{"experiment_id", "999"}}).ok());
  EXPECT_TRUE(Visit("/api/v1/experiments/{experiment_id}", {{"experiment_id", "not-a-number"}}).ok());
  EXPECT_TRUE(Visit("/api/v1/users/{user_id}", {{"user_id", "1"}}).ok());
  EXPECT_TRUE(Visit("/api/v1/models/{model_name}", {{"model_name", "none"}}).ok());
}

TEST_F(PathScopeTest, ATaskReachesItsOwnTrialAndTaskAndOtherwiseReadsAsItsOwner) {
  const std::string task = store_->GetTrial(trial_)->task_id;
  ASSERT_TRUE(store_->InsertAllocation({.allocation_id = task + ".1", .task_id = task, .token_hash = "h"}).ok());
  eve_.allocation_id = task + ".1";  // eve's task, though eve may not see workspace 1 (any more)
  EXPECT_TRUE(Visit("/api/v1/trials/{trial_id}/metrics", {{"trial_id", std::to_string(trial_)}}).ok());
  EXPECT_TRUE(Visit("/api/v1/tasks/{task_id}/logs", {{"task_id", task}}).ok());
  EXPECT_TRUE(absl::IsNotFound(Visit("/api/v1/experiments/{experiment_id}", {{"experiment_id", std::to_string(experiment_)}})))
      << "not its own trial: read as its owner";
}

TEST_F(PathScopeTest, TheBasicRuleSeesEverything) {
  InstallAuthz(std::make_shared<BasicAuthz>());
  EXPECT_TRUE(Visit("/api/v1/experiments/{experiment_id}", {{"experiment_id", std::to_string(experiment_)}}).ok());
}

}  // namespace
}  // namespace det::master
