#pragma once
// `det workspace` (alias w), `det project` (alias p) and `det experiment move`: /api/v1/workspaces,
// /api/v1/projects and /api/v1/experiments/{id}/move. Workspaces and projects are named on the command
// line, as upstream's CLI does.
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "cli/experiment_view.h"
#include "cli/table.h"

namespace det::cli {

class Session;

// The workspace named `name` (exactly), else NotFound naming the ones there are.
absl::StatusOr<nlohmann::json> FindWorkspace(Session& session, const std::string& name);

// `det workspace list`: ID, Name, # Projects, # Experiments, Archived.
absl::StatusOr<int> ListWorkspaces(Session& session, OutputFormat format, std::ostream& out);
// `det workspace list-projects WS` and `det project list WS`.
absl::StatusOr<int> ListWorkspaceProjects(Session& session, const std::string& workspace, OutputFormat format,
                                          std::ostream& out);
// `det workspace describe WS`: the workspace, then its projects (--json: both as the master gives them).
absl::StatusOr<int> DescribeWorkspace(Session& session, const std::string& workspace, OutputFormat format,
                                      std::ostream& out);
// `det project describe WS PROJECT`.
absl::StatusOr<int> DescribeProject(Session& session, const std::string& workspace, const std::string& project,
                                    OutputFormat format, std::ostream& out);

// `det workspace create NAME`: POST /api/v1/workspaces with `settings` (defaultComputePool,
// defaultAuxPool, checkpointStorageConfig) merged in; prints the new workspace.
absl::StatusOr<int> CreateWorkspace(Session& session, const std::string& name, const nlohmann::json& settings,
                                    OutputFormat format, std::ostream& out);
// `det project create WS NAME [--description D] [--key K]`; prints the new project.
absl::StatusOr<int> CreateProject(Session& session, const std::string& workspace, const std::string& name,
                                  const std::string& description, const std::string& key, OutputFormat format,
                                  std::ostream& out);

// `det workspace edit WS`: PATCH with `changes` (name, defaultComputePool, defaultAuxPool,
// checkpointStorageConfig); prints the workspace afterwards.
absl::StatusOr<int> EditWorkspace(Session& session, const std::string& workspace, const nlohmann::json& changes,
                                  OutputFormat format, std::ostream& out);
// `det workspace archive|unarchive|delete WS` (`action` is one of those words).
absl::StatusOr<int> ChangeWorkspace(Session& session, const std::string& workspace, const std::string& action,
                                    std::ostream& out);
// `det workspace list-pools WS`: the pools its work may use.
absl::StatusOr<int> ListWorkspacePools(Session& session, const std::string& workspace, OutputFormat format,
                                       std::ostream& out);

// `det project edit WS P`: PATCH with `changes` (name, description, key); prints the project.
absl::StatusOr<int> EditProject(Session& session, const std::string& workspace, const std::string& project,
                                const nlohmann::json& changes, OutputFormat format, std::ostream& out);
// `det project archive|unarchive|delete WS P`.
absl::StatusOr<int> ChangeProject(Session& session, const std::string& workspace, const std::string& project,
                                  const std::string& action, std::ostream& out);
// `det project list-experiments WS P [--all]`: its experiments, archived ones only with `all`.
absl::StatusOr<int> ListProjectExperiments(Session& session, const std::string& workspace,
                                           const std::string& project, bool all, OutputFormat format,
                                           std::ostream& out);

// `det experiment move EXP WS PROJ`.
absl::StatusOr<int> MoveExperiment(Session& session, int64_t experiment_id, const std::string& workspace,
                                   const std::string& project, std::ostream& out);

// Exposed for tests.
Table WorkspaceTable(const nlohmann::json& workspaces);
Table ProjectTable(const nlohmann::json& projects);

}  // namespace det::cli
