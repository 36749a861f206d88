#include "cli/workspace_ops.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "cli/agent_ops.h"
#include "cli/format.h"
#include "cli/paging.h"
#include "cli/session.h"

namespace det::cli {

using nlohmann::json;

absl::StatusOr<json> FindWorkspace(Session& session, const std::string& name) {
  absl::StatusOr<json> all = GetAllPages(session, "/api/v1/workspaces", "workspaces");
  if (!all.ok()) return all.status();
  std::string names;
  for (const json& w : *all) {
    if (Str(w, "name") == name) return w;
    absl::StrAppend(&names, names.empty() ? "" : ", ", "\"", Str(w, "name"), "\"");
  }
  return absl::NotFoundError(absl::StrCat("no workspace named \"", name, "\" (there are: ", names, ")"));
}

namespace {

absl::StatusOr<json> WorkspaceProjects(Session& session, const json& workspace) {
  return GetAllPages(session, absl::StrCat("/api/v1/workspaces/", Cell(workspace["id"]), "/projects"), "projects");
}

// The project named `project` in the workspace named `workspace`, else NotFound.
absl::StatusOr<json> FindProject(Session& session, const std::string& workspace, const std::string& project) {
  absl::StatusOr<json> found = FindWorkspace(session, workspace);
  if (!found.ok()) return found.status();
  absl::StatusOr<json> projects = WorkspaceProjects(session, *found);
  if (!projects.ok()) return projects.status();
  for (const json& p : *projects) {
    if (Str(p, "name") == project) return p;
  }
  return absl::NotFoundError(absl::StrCat("workspace \"", workspace, "\" has no project named \"", project, "\""));
}

// `action` on `path`: DELETE for "delete", else POST path/action (archive, unarchive); prints what
// was done.
absl::StatusOr<int> Change(Session& session, const std::string& path, const std::string& action,
                           const std::string& what, std::ostream& out) {
  absl::StatusOr<json> done = action == "delete" ? session.Delete(path)
                                                 : session.Post(absl::StrCat(path, "/", action), json::object());
  if (!done.ok()) return done.status();
  if (action != "delete") {
    out << "Successfully " << action << "d " << what << ".\n";
  } else if (done->value("completed", true)) {
    out << "Successfully deleted " << what << ".\n";
  } else {
    out << "Started deleting " << what << ": its experiments and their checkpoints are being deleted.\n";
  }
  return 0;
}

}  // namespace

Table WorkspaceTable(const json& workspaces) {
  Table t({"ID", "Name", "# Projects", "# Experiments", "Archived"});
  if (!workspaces.is_array()) return t;
  for (const json& w : workspaces) {
    t.AddRow({Cell(Field(w, "id")), Str(w, "name"), Cell(Field(w, "numProjects")), Cell(Field(w, "numExperiments")),
              BoolCell(Field(w, "archived"))});
  }
  return t;
}

// What a workspace sets for its work: the OS user its tasks run as, its default pools and storage.
Table WorkspaceSettingsTable(const json& workspace) {
  Table t({"Agent User Group", "Default Compute Pool", "Default Aux Pool", "Checkpoint Storage"});
  const json& group = Field(workspace, "agentUserGroup");
  std::string user;
  if (group.is_object() && !group.empty()) {
    user = absl::StrCat(Str(group, "agentUser"), " (", Cell(Field(group, "agentUid")), "), group ",
                        Str(group, "agentGroup"), " (", Cell(Field(group, "agentGid")), ")");
  }
  const json& storage = Field(workspace, "checkpointStorageConfig");
  t.AddRow({user, Str(workspace, "defaultComputePool"), Str(workspace, "defaultAuxPool"),
            storage.is_object() && !storage.empty() ? Cell(storage) : ""});
  return t;
}

Table ProjectTable(const json& projects) {
  Table t({"ID", "Name", "Key", "Description", "# Experiments", "# Active Experiments", "Archived"});
  if (!projects.is_array()) return t;
  for (const json& p : projects) {
    t.AddRow({Cell(Field(p, "id")), Str(p, "name"), Str(p, "key"), Str(p, "description"),
              Cell(Field(p, "numExperiments")), Cell(Field(p, "numActiveExperiments")),
              BoolCell(Field(p, "archived"))});
  }
  return t;
}

absl::StatusOr<int> ListWorkspaces(Session& session, OutputFormat format, std::ostream& out) {
  absl::StatusOr<json> workspaces = GetAllPages(session, "/api/v1/workspaces", "workspaces");
  if (!workspaces.ok()) return workspaces.status();
  out << RenderJsonOrTable(*workspaces, WorkspaceTable, format);
  return 0;
}

absl::StatusOr<int> ListWorkspaceProjects(Session& session, const std::string& workspace, OutputFormat format,
                                          std::ostream& out) {
  absl::StatusOr<json> found = FindWorkspace(session, workspace);
  if (!found.ok()) return found.status();
  absl::StatusOr<json> projects = WorkspaceProjects(session, *found);
  if (!projects.ok()) return projects.status();
  out << RenderJsonOrTable(*projects, ProjectTable, format);
  return 0;
}

absl::StatusOr<int> DescribeWorkspace(Session& session, const std::string& workspace, OutputFormat format,
                                      std::ostream& out) {
  absl::StatusOr<json> found = FindWorkspace(session, workspace);
  if (!found.ok()) return found.status();
  absl::StatusOr<json> projects = WorkspaceProjects(session, *found);
  if (!projects.ok()) return projects.status();
  if (format == OutputFormat::kJson) {
    out << json{{"workspace", *found}, {"projects", *projects}}.dump(4) << "\n";
    return 0;
  }
  out << Render(WorkspaceTable(json::array({*found})), format);
  if (format == OutputFormat::kTable) out << "\n";
  out << Render(WorkspaceSettingsTable(*found), format);
  if (format == OutputFormat::kTable) out << "\n";
  out << Render(ProjectTable(*projects), format);
  return 0;
}

absl::StatusOr<int> DescribeProject(Session& session, const std::string& workspace, const std::string& project,
                                    OutputFormat format, std::ostream& out) {
  absl::StatusOr<json> found = FindProject(session, workspace, project);
  if (!found.ok()) return found.status();
  out << RenderJsonOrTable(*found, ProjectTable, format);
  return 0;
}

absl::StatusOr<int> CreateWorkspace(Session& session, const std::string& name, const json& settings,
                                    OutputFormat format, std::ostream& out) {
  json body = settings.is_object() ? settings : json::object();
  body["name"] = name;
  absl::StatusOr<json> created = session.Post("/api/v1/workspaces", body);
  if (!created.ok()) return created.status();
  const json& w = (*created)["workspace"];
  out << RenderJsonOrTable(w, WorkspaceTable, format);
  return 0;
}

absl::StatusOr<int> CreateProject(Session& session, const std::string& workspace, const std::string& name,
                                  const std::string& description, const std::string& key, OutputFormat format,
                                  std::ostream& out) {
  absl::StatusOr<json> found = FindWorkspace(session, workspace);
  if (!found.ok()) return found.status();
  json body = {{"name", name}, {"description", description}, {"workspaceId", (*found)["id"]}};
  if (!key.empty()) body["key"] = key;
  absl::StatusOr<json> created =
      session.Post(absl::StrCat("/api/v1/workspaces/", Cell((*found)["id"]), "/projects"), body);
  if (!created.ok()) return created.status();
  const json& p = (*created)["project"];
  out << RenderJsonOrTable(p, ProjectTable, format);
  return 0;
}

absl::StatusOr<int> EditWorkspace(Session& session, const std::string& workspace, const json& changes,
                                  OutputFormat format, std::ostream& out) {
  absl::StatusOr<json> found = FindWorkspace(session, workspace);
  if (!found.ok()) return found.status();
  absl::StatusOr<json> patched = session.Patch(absl::StrCat("/api/v1/workspaces/", Cell((*found)["id"])), changes);
  if (!patched.ok()) return patched.status();
  out << RenderJsonOrTable((*patched)["workspace"], WorkspaceTable, format);
  return 0;
}

absl::StatusOr<int> ChangeWorkspace(Session& session, const std::string& workspace, const std::string& action,
                                    std::ostream& out) {
  absl::StatusOr<json> found = FindWorkspace(session, workspace);
  if (!found.ok()) return found.status();
  return Change(session, absl::StrCat("/api/v1/workspaces/", Cell((*found)["id"])), action,
                absl::StrCat("workspace \"", workspace, "\""), out);
}

absl::StatusOr<int> ListWorkspacePools(Session& session, const std::string& workspace, OutputFormat format,
                                       std::ostream& out) {
  absl::StatusOr<json> found = FindWorkspace(session, workspace);
  if (!found.ok()) return found.status();
  absl::StatusOr<json> pools =
      session.Get(absl::StrCat("/api/v1/workspaces/", Cell((*found)["id"]), "/available-resource-pools"));
  if (!pools.ok()) return pools.status();
  const json& names = (*pools)["resourcePools"];
  if (format == OutputFormat::kJson) {
    out << names.dump(4) << "\n";
    return 0;
  }
  Table t({"Resource Pool"});
  for (const json& name : names) t.AddRow({Cell(name)});
  out << Render(t, format);
  return 0;
}

absl::StatusOr<int> EditProject(Session& session, const std::string& workspace, const std::string& project,
                                const json& changes, OutputFormat format, std::ostream& out) {
  absl::StatusOr<json> found = FindProject(session, workspace, project);
  if (!found.ok()) return found.status();
  absl::StatusOr<json> patched = session.Patch(absl::StrCat("/api/v1/projects/", Cell((*found)["id"])), changes);
  if (!patched.ok()) return patched.status();
  out << RenderJsonOrTable((*patched)["project"], ProjectTable, format);
  return 0;
}

absl::StatusOr<int> ChangeProject(Session& session, const std::string& workspace, const std::string& project,
                                  const std::string& action, std::ostream& out) {
  absl::StatusOr<json> found = FindProject(session, workspace, project);
  if (!found.ok()) return found.status();
  return Change(session, absl::StrCat("/api/v1/projects/", Cell((*found)["id"])), action,
                absl::StrCat("project \"", project, "\" in workspace \"", workspace, "\""), out);
}

absl::StatusOr<int> ListProjectExperiments(Session& session, const std::string& workspace, const std::string& project,
                                           bool all, OutputFormat format, std::ostream& out) {
  absl::StatusOr<json> found = FindProject(session, workspace, project);
  if (!found.ok()) return found.status();
  std::string path = absl::StrCat("/api/v1/experiments?project_id=", Cell((*found)["id"]), all ? "" : "&archived=false");
  absl::StatusOr<json> experiments = GetAllPages(session, path, "experiments");
  if (!experiments.ok()) return experiments.status();
  if (format == OutputFormat::kJson) {
    out << experiments->dump(4) << "\n";
  } else {
    out << Render(ExperimentListTable(*experiments, all), format);
  }
  return 0;
}

absl::StatusOr<int> MoveExperiment(Session& session, int64_t experiment_id, const std::string& workspace,
                                   const std::string& project, std::ostream& out) {
  absl::StatusOr<json> found = FindProject(session, workspace, project);
  if (!found.ok()) return found.status();
  absl::StatusOr<json> moved = session.Post(absl::StrCat("/api/v1/experiments/", experiment_id, "/move"),
                                            {{"destinationProjectId", (*found)["id"]}});
  if (!moved.ok()) return moved.status();
  out << "Moved experiment " << experiment_id << " to project \"" << project << "\" in workspace \"" << workspace
      << "\".\n";
  return 0;
}

}  // namespace det::cli
