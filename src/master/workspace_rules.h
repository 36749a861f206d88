#pragma once
// Upstream's rules for workspaces and projects: names, project keys, what the built-in "Uncategorized"
// ones and archived ones refuse, and what deleting takes with it (the store stores; these check).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "master/db/store.h"

namespace det::master {

// A workspace or project name: 1 to 80 characters, not blank. InvalidArgument names `field`.
absl::Status CheckWorkspaceOrProjectName(const std::string& name, const std::string& field);

// A key the user gave: 1 to 5 letters or digits, returned upper-cased; InvalidArgument otherwise.
absl::StatusOr<std::string> ProjectKey(const std::string& given);

// A key made from the project's name: its first (up to 3) letters or digits, upper-cased, then
// characters drawn by `random_char` (each a letter or digit) up to 5.
std::string GeneratedProjectKey(const std::string& name, const std::function<char()>& random_char);

// The workspace named `name` exactly; NotFound `workspace "NAME" not found`.
absl::StatusOr<Workspace> WorkspaceByName(WorkspaceStore& store, const std::string& name);
// Workspace `id`, which new work (`what`: "projects", "models", "templates", "tasks") may go into: it
// exists (NotFound) and is not archived (FailedPrecondition).
absl::StatusOr<Workspace> WorkspaceForNewWork(WorkspaceStore& store, int64_t id, const std::string& what);

// Creates `workspace` (its name checked; AlreadyExists when taken). With `creator_role` (rbac's
// security.authz.workspace_creator_assign_role), its creator holds that role in it: a workspace whose
// assignment cannot be made is not kept.
absl::StatusOr<Workspace> CreateWorkspaceChecked(Store& store, const Workspace& workspace,
                                                 std::optional<int32_t> creator_role);

// Creates `project` in its workspace under upstream's rules: the workspace exists and is not archived,
// the name is valid and not taken there (case-insensitively), and the key is `given_key` checked, or
// generated (with `random_char`) and drawn again while another project has it.
absl::StatusOr<Project> CreateProjectChecked(WorkspaceStore& store, Project project, const std::string& given_key,
                                             const std::function<char()>& random_char);

// PATCH /api/v1/workspaces/{id}: the built-in workspace is refused (FailedPrecondition), a new name
// is checked; AlreadyExists when another workspace has it.
absl::StatusOr<Workspace> PatchWorkspaceChecked(WorkspaceStore& store, int64_t id, const WorkspacePatch& patch);
// Archives or unarchives a workspace; the built-in one and one already so are FailedPrecondition.
absl::Status SetWorkspaceArchivedChecked(WorkspaceStore& store, int64_t id, bool archived);

// PATCH /api/v1/projects/{id} (name, description, key): the built-in project and archived ones are
// refused; the name and key are checked as at creation.
absl::StatusOr<Project> PatchProjectChecked(WorkspaceStore& store, int64_t id, ProjectPatch patch);
// Archives or unarchives a project: not the built-in one, not one already so, not one whose
// workspace is archived.
absl::Status SetProjectArchivedChecked(WorkspaceStore& store, int64_t id, bool archived);
// Moves a project to another workspace: not the built-in project, not into the built-in workspace,
// nothing archived on either side, and no project of the same name there.
absl::StatusOr<Project> MoveProjectChecked(WorkspaceStore& store, int64_t id, int64_t destination_workspace_id);

// What deleting a project or workspace deletes: the experiments of `project_ids`. The built-in
// workspace and project are refused, and so is anything holding an experiment that has not finished
// (FailedPrecondition naming it) or one whose checkpoint a model version holds, or a workspace
// holding models.
absl::StatusOr<std::vector<int64_t>> ProjectDeletion(Store& store, int64_t project_id);
absl::StatusOr<std::vector<int64_t>> WorkspaceDeletion(Store& store, int64_t workspace_id);

}  // namespace det::master
