#include "master/experiment_placement.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "master/pool_bindings.h"
#include "master/workspace_rules.h"

namespace det::master {
namespace {

absl::StatusOr<Project> ProjectByNames(WorkspaceStore& store, const std::string& workspace_name,
                                       const std::string& project_name) {
  ASSIGN_OR_RETURN(Workspace workspace, WorkspaceByName(store, workspace_name));
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

absl::StatusOr<Project> PlaceNewExperiment(Store& store, const config::MasterConfig& master, int64_t project_id,
                                           nlohmann::json& config, std::string& default_checkpoint_storage_json) {
  std::string workspace_name, project_name;
  if (config.is_object()) {
    for (auto [field, out] : {std::pair{"workspace", &workspace_name}, std::pair{"project", &project_name}}) {
      const nlohmann::json& name = config.value(field, nlohmann::json());
      if (name.is_string()) *out = name.get<std::string>();
    }
  }
  ASSIGN_OR_RETURN(Project project, ProjectForNewExperiment(store, project_id, workspace_name, project_name));
  ASSIGN_OR_RETURN(Workspace workspace, store.GetWorkspace(project.workspace_id, 0));
  if (!workspace.checkpoint_storage_config_json.empty()) {
    default_checkpoint_storage_json = workspace.checkpoint_storage_config_json;
  }
  std::string pool;  // the config's (a malformed one is the config parser's to refuse)
  if (config.is_object()) {
    const nlohmann::json resources = config.value("resources", nlohmann::json::object());
    const nlohmann::json given = resources.is_object() ? resources.value("resource_pool", nlohmann::json()) : nullptr;
    if (given.is_string()) pool = given.get<std::string>();
    if (pool.empty() && !workspace.default_compute_pool.empty() && (resources.is_object() || resources.is_null())) {
      pool = workspace.default_compute_pool;
      config["resources"]["resource_pool"] = pool;
    }
  }
  RETURN_IF_ERROR(CheckPoolAvailable(store, master, workspace, pool));
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
