#pragma once
// `det task create|config|kill|pause|unpause|list`: generic tasks (upstream 0.38's `det task`),
// a config and a context directory run as one task that may be paused, resumed and forked.
// Each function returns the process exit code, or an error for main() to print as
// "Error: <message>" (exit 1).
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/experiment_view.h"
#include "cli/table.h"

namespace det::cli {

class Session;

struct CreateGenericTaskArgs {
  std::string config_file;             // a YAML mapping
  std::string context_dir;             // sent as the task's context directory
  std::vector<std::string> includes;   // -i/--include
  std::vector<std::string> overrides;  // --config KEY=VALUE
  std::optional<int> project_id;       // --project_id; unset = the master's default
  std::string fork;                    // --fork PARENT_TASK_ID; "" = a new task
};

// The CreateGenericTask body: {"config": YAML text (the file's own text without overrides, else
// re-dumped), "contextDirectory": [File...], "projectId"?: N, "forkedFrom"?: PARENT}. No network.
// Unreadable context files are skipped with a message in `warnings`.
absl::StatusOr<nlohmann::json> BuildCreateGenericTaskRequest(const CreateGenericTaskArgs& args,
                                                             std::vector<std::string>* warnings);
// POST /api/v1/generic-tasks; prints "Created task ID" on `out`, warnings on `err`.
absl::StatusOr<int> CreateGenericTask(Session& session, const CreateGenericTaskArgs& args,
                                      std::ostream& out, std::ostream& err);

// GET /api/v1/tasks/{id}/config; prints the YAML text the master returns.
absl::StatusOr<int> PrintGenericTaskConfig(Session& session, const std::string& task_id,
                                           std::ostream& out);

enum class GenericTaskAction { kKill, kPause, kUnpause };
// POST /api/v1/tasks/{id}/kill|pause|unpause with {}; prints "Killed task ID" (Paused, Unpaused).
absl::StatusOr<int> ActOnGenericTask(Session& session, const std::string& task_id,
                                     GenericTaskAction action, std::ostream& out);

// GET /api/v1/tasks: the allocations the master is running, oldest registration first. Table:
// Task ID, Allocation ID, Name, Slots Needed, Registered Time, Resource Pool. --json: the
// response's allocationIdToSummary object.
absl::StatusOr<int> ListTasks(Session& session, OutputFormat format, std::ostream& out);
// The rows of ListTasks for an allocationIdToSummary object, exposed for tests.
Table TaskTable(const nlohmann::json& allocation_id_to_summary);

}  // namespace det::cli
