#include "master/workspace_rules.h"

#include <gtest/gtest.h>

#include "master/db/temp_sqlite_store.h"

namespace det::master {
namespace {

TEST(WorkspaceRulesTest, NamesAreOneToEightyCharactersAndNotBlank) {
  EXPECT_TRUE(CheckWorkspaceOrProjectName("vision", "name").ok());
  EXPECT_TRUE(CheckWorkspaceOrProjectName(std::string(80, 'a'), "name").ok());
  absl::Status blank = CheckWorkspaceOrProjectName("  ", "name");
  EXPECT_EQ(blank.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(blank.message(), "name: a name is required (1 to 80 characters)");
  EXPECT_EQ(CheckWorkspaceOrProjectName(std::string(81, 'a'), "name").code(), absl::StatusCode::kInvalidArgument);
}

TEST(WorkspaceRulesTest, AGivenKeyIsOneToFiveLettersOrDigitsUpperCased) {
  EXPECT_EQ(*ProjectKey("ab1"), "AB1");
  EXPECT_EQ(*ProjectKey("Z9Z9Z"), "Z9Z9Z");
  for (const char* bad : {"", "abcdef", "a-b", "é"}) {
    EXPECT_EQ(ProjectKey(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_EQ(ProjectKey("a b").status().message(), "key: 1 to 5 letters or digits, got \"a b\"");
}

TEST(WorkspaceRulesTest, AGeneratedKeyStartsWithTheNamesFirstLettersOrDigits) {
  auto x = [] { return 'x'; };
  EXPECT_EQ(GeneratedProjectKey("my project", x), "MYPXX");
  EXPECT_EQ(GeneratedProjectKey("a-1", x), "A1XXX");
  EXPECT_EQ(GeneratedProjectKey("---", x), "XXXXX");
}

TEST(WorkspaceRulesTest, AWorkspacesCreatorMayBeGivenARoleInIt) {
  TempSqliteStore store("det_workspace_rules");
  absl::StatusOr<api::User> ann = store->InsertUser({.username = "ann", .active = true});
  ASSERT_TRUE(ann.ok()) << ann.status();
  absl::StatusOr<Workspace> plain = CreateWorkspaceChecked(*store, {.name = "plain", .user_id = ann->id}, std::nullopt);
  ASSERT_TRUE(plain.ok()) << plain.status();
  absl::StatusOr<Workspace> managed = CreateWorkspaceChecked(*store, {.name = "managed", .user_id = ann->id}, 2);
  ASSERT_TRUE(managed.ok()) << managed.status();
  absl::StatusOr<std::vector<rbac::Assignment>> held = store->ListUserRoleAssignments(ann->id);
  ASSERT_TRUE(held.ok());
  ASSERT_EQ(held->size(), 1u) << "a role in `managed` only";
  EXPECT_EQ(held->front().role_id, 2);
  EXPECT_EQ(held->front().workspace_id, managed->id);

  EXPECT_EQ(CreateWorkspaceChecked(*store, {.name = "managed", .user_id = ann->id}, 2).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(CreateWorkspaceChecked(*store, {.name = " ", .user_id = ann->id}, 2).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store->ListUserRoleAssignments(ann->id)->size(), 1u) << "refused creations assign nothing";
}

TEST(WorkspaceRulesTest, AProjectIsCreatedOnlyWhereItsNameAndKeyAreFree) {
  TempSqliteStore store("workspace_rules");
  const auto x = [] { return 'x'; };
  Project p{.name = "abc one", .workspace_id = 1, .user_id = 2};
  absl::StatusOr<Project> first = CreateProjectChecked(*store, p, "", x);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->key, "ABCXX");

  // The same generated key again: drawn anew while taken, then refused.
  p.name = "abc two";
  EXPECT_EQ(CreateProjectChecked(*store, p, "", x).status().code(), absl::StatusCode::kAlreadyExists);
  char next = 'a';
  absl::StatusOr<Project> drawn = CreateProjectChecked(*store, p, "", [&] { return next++; });
  ASSERT_TRUE(drawn.ok()) << drawn.status();
  EXPECT_EQ(drawn->key, "ABCAB");

  p.name = "ABC ONE";
  EXPECT_EQ(CreateProjectChecked(*store, p, "", x).status().message(),
            "workspace Uncategorized already has a project named \"ABC ONE\"");
  p.name = "keyed";
  EXPECT_EQ(CreateProjectChecked(*store, p, "abcxx", x).status().message(),
            "key ABCXX is another project's; choose another");
  EXPECT_EQ(CreateProjectChecked(*store, p, "k-1", x).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CreateProjectChecked(*store, p, "k1", x)->key, "K1");
  p.workspace_id = 9;
  EXPECT_EQ(CreateProjectChecked(*store, p, "", x).status().message(), "workspace 9 not found");
}

TEST(WorkspaceRulesTest, TheBuiltInWorkspaceAndProjectCannotBeChangedArchivedMovedOrDeleted) {
  TempSqliteStore store("workspace_rules");
  for (absl::Status refused :
       {PatchWorkspaceChecked(*store, 1, {.name = "x"}).status(), SetWorkspaceArchivedChecked(*store, 1, true),
        PatchProjectChecked(*store, 1, {.name = "x"}).status(), SetProjectArchivedChecked(*store, 1, true),
        ProjectDeletion(*store, 1).status(), WorkspaceDeletion(*store, 1).status()}) {
    EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  }
  EXPECT_EQ(SetWorkspaceArchivedChecked(*store, 1, true).message(),
            "workspace 1 is the built-in Uncategorized workspace: it cannot be archived");
  Workspace ws = *store->InsertWorkspace({.name = "vision", .user_id = 1});
  EXPECT_EQ(MoveProjectChecked(*store, 1, ws.id).status().code(), absl::StatusCode::kFailedPrecondition);
  Project p = *store->InsertProject({.name = "p", .workspace_id = ws.id, .user_id = 1, .key = "P"});
  EXPECT_EQ(MoveProjectChecked(*store, p.id, 1).status().message(),
            "workspace 1 is the built-in Uncategorized workspace: it cannot be moved into");
}

TEST(WorkspaceRulesTest, ArchivingIsRefusedTwiceAndAnArchivedWorkspaceHoldsItsProjects) {
  TempSqliteStore store("workspace_rules");
  Workspace ws = *store->InsertWorkspace({.name = "vision", .user_id = 1});
  Project p = *store->InsertProject({.name = "p", .workspace_id = ws.id, .user_id = 1, .key = "P"});
  ASSERT_TRUE(SetWorkspaceArchivedChecked(*store, ws.id, true).ok());
  EXPECT_EQ(SetWorkspaceArchivedChecked(*store, ws.id, true).message(),
            absl::StrCat("workspace ", ws.id, " (vision) is already archived"));
  EXPECT_EQ(SetProjectArchivedChecked(*store, p.id, false).code(), absl::StatusCode::kFailedPrecondition)
      << "its workspace is archived";
  EXPECT_EQ(PatchProjectChecked(*store, p.id, {.description = "d"}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(SetWorkspaceArchivedChecked(*store, ws.id, false).ok());
  ASSERT_TRUE(SetProjectArchivedChecked(*store, p.id, true).ok());
  EXPECT_EQ(SetProjectArchivedChecked(*store, p.id, true).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(SetProjectArchivedChecked(*store, p.id, false).ok());
  absl::StatusOr<Project> patched = PatchProjectChecked(*store, p.id, {.name = "q", .key = "q1"});
  ASSERT_TRUE(patched.ok()) << patched.status();
  EXPECT_EQ(patched->key, "Q1");
  EXPECT_EQ(PatchProjectChecked(*store, p.id, {.key = "bad-key"}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PatchWorkspaceChecked(*store, ws.id, {.name = " "}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PatchWorkspaceChecked(*store, ws.id, {.name = "Uncategorized"}).status().code(),
            absl::StatusCode::kAlreadyExists);
}

TEST(WorkspaceRulesTest, AProjectMovesOnlyIntoAnUnarchivedWorkspaceWhereItsNameIsFree) {
  TempSqliteStore store("workspace_rules");
  Workspace a = *store->InsertWorkspace({.name = "a", .user_id = 1});
  Workspace b = *store->InsertWorkspace({.name = "b", .user_id = 1});
  Project p = *store->InsertProject({.name = "p", .workspace_id = a.id, .user_id = 1, .key = "P"});
  ASSERT_TRUE(store->InsertProject({.name = "P", .workspace_id = b.id, .user_id = 1, .key = "P2"}).ok());
  EXPECT_EQ(MoveProjectChecked(*store, p.id, b.id).status().code(), absl::StatusCode::kAlreadyExists);
  Workspace c = *store->InsertWorkspace({.name = "c", .user_id = 1});
  ASSERT_TRUE(store->SetWorkspaceArchived(c.id, true).ok());
  EXPECT_EQ(MoveProjectChecked(*store, p.id, c.id).status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(store->SetWorkspaceArchived(c.id, false).ok());
  absl::StatusOr<Project> moved = MoveProjectChecked(*store, p.id, c.id);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(moved->workspace_name, "c");
  EXPECT_EQ(MoveProjectChecked(*store, p.id, 99).status().code(), absl::StatusCode::kNotFound);
}

TEST(WorkspaceRulesTest, DeletingTakesTheFinishedExperimentsAndIsRefusedWhileOneRuns) {
  TempSqliteStore store("workspace_rules");
  Workspace ws = *store->InsertWorkspace({.name = "vision", .user_id = 1});
  Project p = *store->InsertProject({.name = "p", .workspace_id = ws.id, .user_id = 1, .key = "P"});
  Project q = *store->InsertProject({.name = "q", .workspace_id = ws.id, .user_id = 1, .key = "Q"});
  auto add = [&](int64_t project_id, api::ExperimentState state) {
    api::Experiment e{.name = "e", .state = state, .config_json = "{}", .owner_id = 1};
    e.project_id = project_id;
    return *store->InsertExperiment(e, "");
  };
  int64_t done = add(p.id, api::ExperimentState::kCompleted);
  add(p.id, api::ExperimentState::kDeleting);  // already on its way
  int64_t failed = add(q.id, api::ExperimentState::kError);
  EXPECT_EQ(*ProjectDeletion(*store, p.id), std::vector<int64_t>{done});
  EXPECT_EQ(*WorkspaceDeletion(*store, ws.id), (std::vector<int64_t>{done, failed}));
  add(1, api::ExperimentState::kActive);  // elsewhere: no matter
  int64_t running = add(q.id, api::ExperimentState::kActive);
  EXPECT_EQ(WorkspaceDeletion(*store, ws.id).status().message(),
            absl::StrCat("project ", q.id, " holds experiment ", running,
                         " in state ACTIVE: kill it or wait until it finishes, then delete again"));
  EXPECT_TRUE(ProjectDeletion(*store, p.id).ok());
}

}  // namespace
}  // namespace det::master
