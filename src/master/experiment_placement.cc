#include "master/experiment_placement.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::master {
namespace {

absl::StatusOr<Project> ProjectByNames(WorkspaceStore& store, const std::string& workspace_name,
                                       const std::string& project_name) {
  ASSIGN_OR_RETURN(WorkspacePage workspaces, store.ListWorkspaces({.name = workspace_name, .name_case_sensitive = true}));
  if (workspaces.workspaces.empty()) {
    return absl::NotFoundError(absl::StrCat("workspace: no workspace is named \"", workspace_name, "\""));
  }
  const Workspace& workspace = workspaces.workspaces.front();
  ASSIGN_OR_RETURN(ProjectPage projects, store.ListProjects({.workspace_id = workspace.id, .name = project_name}));
  for (const Project& p : projects.projects) {
    if (p.name == project_name) return p;
  }
  return absl::NotFoundError(
      absl::StrCat("project: workspace \"", workspace_name, "\" has no project named \"", project_name, "\""));
}

absl::Status RefuseArchived(const Project& p, const char* what) {
  if (!p.archived) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("project ", p.id, " (", p.name, ") is archived (or its workspace ",
                                                    p.workspace_name, " is): ", what));
}

}  // namespace

absl::StatusOr<Project> ProjectForNewExperiment(WorkspaceStore& store, int64_t project_id,
                                                const std::string& workspace_name, const std::string& project_name) {
  if (workspace_name.empty() != project_name.empty()) {
    return absl::InvalidArgumentError(
        "workspace and project: name both (the project in that workspace) or neither; only one was given");
  }
  Project project;
  if (!workspace_name.empty()) {
    ASSIGN_OR_RETURN(project, ProjectByNames(store, workspace_name, project_name));
    // 1 is the default some clients always send: the names say more.
    if (project_id > 1 && project_id != project.id) {
      return absl::InvalidArgumentError(absl::StrCat("projectId ", project_id, " differs from the config's workspace \"",
                                                     workspace_name, "\" and project \"", project_name,
                                                     "\" (project ", project.id, "): give one place"));
    }
  } else {
    ASSIGN_OR_RETURN(project, store.GetProject(project_id != 0 ? project_id : 1));
  }
  RETURN_IF_ERROR(RefuseArchived(project, "experiments cannot be created in it"));
  return project;
}

absl::Status MoveExperimentChecked(Store& store, int64_t experiment_id, int64_t destination_project_id) {
  ASSIGN_OR_RETURN(api::Experiment experiment, store.GetExperiment(experiment_id));
  if (experiment.project_id == destination_project_id) return absl::OkStatus();
  if (experiment.archived) {
    return absl::FailedPreconditionError(
        absl::StrCat("experiment ", experiment_id, " is archived: unarchive it to move it"));
  }
  if (experiment.parent_archived) {
    return absl::FailedPreconditionError(absl::StrCat("experiment ", experiment_id, "'s project ",
                                                      experiment.project_id, " (", experiment.project_name,
                                                      ") is archived: nothing moves out of it"));
  }
  ASSIGN_OR_RETURN(Project destination, store.GetProject(destination_project_id));
  RETURN_IF_ERROR(RefuseArchived(destination, "nothing moves into it"));
  return store.SetExperimentProject(experiment_id, destination_project_id);
}

}  // namespace det::master
