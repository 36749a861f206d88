#include "master/workspace_rules.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "master/model_rules.h"

namespace det::master {

namespace {
constexpr size_t kMaxNameLength = 80;
constexpr size_t kKeyLength = 5;

absl::Status RefuseBuiltIn(bool immutable, const char* kind, int64_t id, const char* what) {
  if (!immutable) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(kind, " ", id, " is the built-in Uncategorized ", kind,
                                                    ": it cannot be ", what));
}

absl::Status RefuseArchivedProject(const Project& p, const char* what) {
  if (!p.archived) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("project ", p.id, " (", p.name, ") is archived",
                                                    " (or its workspace is): unarchive it to ", what));
}

// No other project in `workspace_id` is named `name` (case-insensitively).
absl::Status CheckProjectNameFree(WorkspaceStore& store, int64_t workspace_id, const std::string& name,
                                  int64_t except_id) {
  ASSIGN_OR_RETURN(ProjectPage same_name, store.ListProjects({.workspace_id = workspace_id, .name = name}));
  for (const Project& other : same_name.projects) {
    if (other.id != except_id) {
      return absl::AlreadyExistsError(absl::StrCat("workspace ", other.workspace_name,
                                                   " already has a project named \"", name, "\""));
    }
  }
  return absl::OkStatus();
}

// The experiments of one project, all finished and none holding a registered checkpoint: deleting
// takes them along, so each is checked before any is deleted.
absl::Status AddDeletableExperiments(Store& store, int64_t project_id, std::vector<int64_t>& out) {
  ASSIGN_OR_RETURN(std::vector<api::Experiment> experiments, store.ListExperiments({.project_id = project_id}));
  for (const api::Experiment& e : experiments) {
    if (!api::IsTerminal(e.state)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "project ", project_id, " holds experiment ", e.id, " in state ", api::Name(e.state),
          ": kill it or wait until it finishes, then delete again"));
    }
    if (e.state == api::ExperimentState::kDeleting) continue;  // already on its way
    RETURN_IF_ERROR(RefuseRegisteredCheckpoints(store, {}, e.id));
    out.push_back(e.id);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckWorkspaceOrProjectName(const std::string& name, const std::string& field) {
  if (absl::StripAsciiWhitespace(name).empty()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": a name is required (1 to 80 characters)"));
  }
  if (name.size() > kMaxNameLength) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": at most 80 characters, got ", name.size(), " (\"", name.substr(0, 20), "...\")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ProjectKey(const std::string& given) {
  bool alnum = !given.empty() && given.size() <= kKeyLength;
  for (char c : given) alnum = alnum && absl::ascii_isalnum(static_cast<unsigned char>(c));
  if (!alnum) {
    return absl::InvalidArgumentError(
        absl::StrCat("key: 1 to 5 letters or digits, got \"", given, "\""));
  }
  return absl::AsciiStrToUpper(given);
}

std::string GeneratedProjectKey(const std::string& name, const std::function<char()>& random_char) {
  std::string key;
  for (char c : name) {
    if (key.size() == 3) break;
    if (absl::ascii_isalnum(static_cast<unsigned char>(c))) key += absl::ascii_toupper(static_cast<unsigned char>(c));
  }
  while (key.size() < kKeyLength) key += absl::ascii_toupper(static_cast<unsigned char>(random_char()));
  return key;
}

absl::StatusOr<Workspace> WorkspaceByName(WorkspaceStore& store, const std::string& name) {
  ASSIGN_OR_RETURN(WorkspacePage found, store.ListWorkspaces({.name = name, .name_case_sensitive = true}));
  if (found.workspaces.empty()) return absl::NotFoundError(absl::StrCat("workspace \"", name, "\" not found"));
  return found.workspaces.front();
}

absl::StatusOr<Workspace> WorkspaceForNewWork(WorkspaceStore& store, int64_t id, const std::string& what) {
  ASSIGN_OR_RETURN(Workspace workspace, store.GetWorkspace(id, 0));
  if (workspace.archived) {
    return absl::FailedPreconditionError(absl::StrCat("workspace ", id, " (", workspace.name,
                                                      ") is archived: unarchive it to add ", what));
  }
  return workspace;
}

absl::StatusOr<Workspace> CreateWorkspaceChecked(Store& store, const Workspace& workspace,
                                                 std::optional<int32_t> creator_role) {
  RETURN_IF_ERROR(CheckWorkspaceOrProjectName(workspace.name, "name"));
  std::optional<int64_t> creator_group;
  if (creator_role) {
    ASSIGN_OR_RETURN(creator_group, store.PersonalGroupOf(workspace.user_id));
  }
  ASSIGN_OR_RETURN(Workspace created, store.InsertWorkspace(workspace));
  if (!creator_group) return created;
  absl::Status assigned =
      store.AddRoleAssignments({{.group_id = *creator_group, .role_id = *creator_role, .workspace_id = created.id}});
  if (assigned.ok()) return created;
  if (absl::Status undone = store.DeleteWorkspace(created.id); !undone.ok()) {
    return absl::Status(assigned.code(), absl::StrCat(assigned.message(), "; workspace ", created.id,
                                                      " was made and could not be removed: ", undone.message()));
  }
  return assigned;
}

absl::StatusOr<Project> CreateProjectChecked(WorkspaceStore& store, Project project, const std::string& given_key,
                                             const std::function<char()>& random_char) {
  absl::StatusOr<Workspace> workspace = WorkspaceForNewWork(store, project.workspace_id, "projects");
  if (!workspace.ok()) return workspace.status();
  if (absl::Status name = CheckWorkspaceOrProjectName(project.name, "name"); !name.ok()) return name;
  RETURN_IF_ERROR(CheckProjectNameFree(store, workspace->id, project.name, 0));
  if (!given_key.empty()) {
    absl::StatusOr<std::string> key = ProjectKey(given_key);
    if (!key.ok()) return key.status();
    project.key = *key;
    absl::StatusOr<Project> created = store.InsertProject(project);
    if (absl::IsAlreadyExists(created.status())) {
      return absl::AlreadyExistsError(absl::StrCat("key ", project.key, " is another project's; choose another"));
    }
    return created;
  }
  constexpr int kKeyDraws = 20;
  for (int draw = 1;; ++draw) {
    project.key = GeneratedProjectKey(project.name, random_char);
    absl::StatusOr<Project> created = store.InsertProject(project);
    if (created.ok() || !absl::IsAlreadyExists(created.status()) || draw == kKeyDraws) return created;
  }
}


absl::StatusOr<Workspace> PatchWorkspaceChecked(WorkspaceStore& store, int64_t id, const WorkspacePatch& patch) {
  ASSIGN_OR_RETURN(Workspace workspace, store.GetWorkspace(id, 0));
  RETURN_IF_ERROR(RefuseBuiltIn(workspace.immutable, "workspace", id, "changed"));
  if (patch.name) RETURN_IF_ERROR(CheckWorkspaceOrProjectName(*patch.name, "name"));
  return store.PatchWorkspace(id, patch);
}

absl::Status SetWorkspaceArchivedChecked(WorkspaceStore& store, int64_t id, bool archived) {
  ASSIGN_OR_RETURN(Workspace workspace, store.GetWorkspace(id, 0));
  RETURN_IF_ERROR(RefuseBuiltIn(workspace.immutable, "workspace", id, archived ? "archived" : "unarchived"));
  if (workspace.archived == archived) {
    return absl::FailedPreconditionError(
        absl::StrCat("workspace ", id, " (", workspace.name, ") is already ", archived ? "archived" : "unarchived"));
  }
  return store.SetWorkspaceArchived(id, archived);
}

absl::StatusOr<Project> PatchProjectChecked(WorkspaceStore& store, int64_t id, ProjectPatch patch) {
  ASSIGN_OR_RETURN(Project project, store.GetProject(id));
  if (patch.name || patch.key || patch.description) {
    RETURN_IF_ERROR(RefuseBuiltIn(project.immutable, "project", id, "renamed or changed"));
  }
  RETURN_IF_ERROR(RefuseArchivedProject(project, "change it"));
  if (patch.name) {
    RETURN_IF_ERROR(CheckWorkspaceOrProjectName(*patch.name, "name"));
    RETURN_IF_ERROR(CheckProjectNameFree(store, project.workspace_id, *patch.name, id));
  }
  if (patch.key) {
    ASSIGN_OR_RETURN(patch.key, ProjectKey(*patch.key));
  }
  return store.PatchProject(id, patch);
}

absl::Status SetProjectArchivedChecked(WorkspaceStore& store, int64_t id, bool archived) {
  ASSIGN_OR_RETURN(Project project, store.GetProject(id));
  RETURN_IF_ERROR(RefuseBuiltIn(project.immutable, "project", id, archived ? "archived" : "unarchived"));
  ASSIGN_OR_RETURN(Workspace workspace, store.GetWorkspace(project.workspace_id, 0));
  if (workspace.archived) {
    return absl::FailedPreconditionError(absl::StrCat("project ", id, "'s workspace ", workspace.name,
                                                      " is archived: unarchive the workspace first"));
  }
  if (project.archived == archived) {
    return absl::FailedPreconditionError(
        absl::StrCat("project ", id, " (", project.name, ") is already ", archived ? "archived" : "unarchived"));
  }
  return store.SetProjectArchived(id, archived);
}

absl::StatusOr<Project> MoveProjectChecked(WorkspaceStore& store, int64_t id, int64_t destination_workspace_id) {
  ASSIGN_OR_RETURN(Project project, store.GetProject(id));
  RETURN_IF_ERROR(RefuseBuiltIn(project.immutable, "project", id, "moved"));
  RETURN_IF_ERROR(RefuseArchivedProject(project, "move it"));
  ASSIGN_OR_RETURN(Workspace destination, store.GetWorkspace(destination_workspace_id, 0));
  RETURN_IF_ERROR(RefuseBuiltIn(destination.immutable, "workspace", destination.id, "moved into"));
  if (destination.archived) {
    return absl::FailedPreconditionError(
        absl::StrCat("workspace ", destination.id, " (", destination.name, ") is archived: nothing moves into it"));
  }
  if (destination.id == project.workspace_id) return project;
  RETURN_IF_ERROR(CheckProjectNameFree(store, destination.id, project.name, id));
  return store.PatchProject(id, {.workspace_id = destination.id});
}

absl::StatusOr<std::vector<int64_t>> ProjectDeletion(Store& store, int64_t project_id) {
  ASSIGN_OR_RETURN(Project project, store.GetProject(project_id));
  RETURN_IF_ERROR(RefuseBuiltIn(project.immutable, "project", project_id, "deleted"));
  std::vector<int64_t> experiments;
  RETURN_IF_ERROR(AddDeletableExperiments(store, project_id, experiments));
  return experiments;
}

absl::StatusOr<std::vector<int64_t>> WorkspaceDeletion(Store& store, int64_t workspace_id) {
  ASSIGN_OR_RETURN(Workspace workspace, store.GetWorkspace(workspace_id, 0));
  RETURN_IF_ERROR(RefuseBuiltIn(workspace.immutable, "workspace", workspace_id, "deleted"));
  ASSIGN_OR_RETURN(ModelPage models, store.ListModels({.workspace_ids = {workspace_id}, .limit = 1}));
  if (models.total > 0) {
    return absl::FailedPreconditionError(absl::StrCat("workspace ", workspace_id, " (", workspace.name, ") holds ",
                                                      models.total, " model(s), \"", models.models.front().name,
                                                      "\" among them: move or delete them first"));
  }
  ASSIGN_OR_RETURN(ProjectPage projects, store.ListProjects({.workspace_id = workspace_id}));
  std::vector<int64_t> experiments;
  for (const Project& p : projects.projects) RETURN_IF_ERROR(AddDeletableExperiments(store, p.id, experiments));
  return experiments;
}

}  // namespace det::master
