#pragma once
// What `det cmd`, `det notebook`, `det shell` and `det tensorboard` share (upstream's "NTSC" tasks:
// cli/ntsc.py): the launch flags and the request body they make, and list, config, logs, kill and
// set priority on /api/v1/{commands|notebooks|shells|tensorboards}. A kind is named by its
// TaskListing (task_id_prefix.h): `path` is the collection, `key` its list field and `noun` both
// the word in messages and the object field of single answers ({"notebook": {...}}). Ids may be
// given by a unique prefix. Each operation returns the process exit code, or an error for main() to
// print as "Error: <message>" (exit 1).
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/experiment_view.h"
#include "cli/table.h"
#include "cli/task_id_prefix.h"

namespace det::cli {

class Session;
struct TrialLogsArgs;

inline const TaskListing kNotebookListing{"/api/v1/notebooks", "notebooks", "notebook"};
inline const TaskListing kShellListing{"/api/v1/shells", "shells", "shell"};
inline const TaskListing kTensorboardListing{"/api/v1/tensorboards", "tensorboards", "tensorboard"};

// The start flags every kind takes (`det cmd run`, `det notebook|shell|tensorboard start`).
struct LaunchArgs {
  std::optional<std::string> config_file;  // --config-file: a YAML mapping
  std::vector<std::string> overrides;      // --config KEY=VALUE, applied in order
  std::optional<std::string> context_dir;  // -c/--context
  std::vector<std::string> includes;       // -i/--include
  std::string template_name;               // --template; "" = none
  bool detach = false;                     // -d/--detach: print the id, do not wait
  std::vector<std::string> volumes;        // -v/--volume HOST:CONTAINER[:ro]
  std::string workspace_name;              // -w/--workspace-name; "" = the default workspace
};

// Sets the launch body's `workspaceId` to the workspace named `args.workspace_name` (nothing when it
// is ""); NotFound when no workspace has that name.
absl::Status PlaceInWorkspace(Session& session, const LaunchArgs& args, nlohmann::json& body);

// One -v/--volume as a bind mount: "HOST:CONTAINER" or "HOST:CONTAINER:ro" (":rw" is accepted too)
// -> {"host_path", "container_path", "read_only"}. InvalidArgument when a path is missing.
absl::StatusOr<nlohmann::json> ParseVolume(const std::string& spec);

// The launch body {"config": {...}, "templateName"?: T, "files"?: [File...]}: the config file (or
// {}), then the overrides, then `adjust` (a kind's own settings, e.g. a command's entrypoint; may
// be empty), then the volumes appended to `bind_mounts`. `files` is sent only when a context or an
// include is given. No network. Unreadable context files are skipped with a message in `warnings`.
absl::StatusOr<nlohmann::json> BuildLaunchRequest(
    const LaunchArgs& args, const std::function<absl::Status(nlohmann::json& config)>& adjust,
    std::vector<std::string>* warnings);

// "/api/v1/notebooks/ID" (the id percent-encoded).
std::string NtscPath(const TaskListing& kind, const std::string& id);

struct ListNtscArgs {
  bool all = false;    // -a/--all: every user's tasks, not just the session user's
  bool quiet = false;  // -q/--quiet: ids only, one per line
  OutputFormat format = OutputFormat::kTable;
};
// GET `kind.path` (all pages; without `all`, users=<session user>). Table: ID, Owner, Description,
// State (without "STATE_"), Exit Status, Resource Pool. --json: the objects, with the states
// shortened the same way, as upstream prints them.
absl::StatusOr<int> ListNtsc(Session& session, const TaskListing& kind, const ListNtscArgs& args,
                             std::ostream& out);
// The rows of ListNtsc for an array of task objects, exposed for tests.
Table NtscTable(const nlohmann::json& tasks);

// GET kind/{id}; prints its `config` as YAML.
absl::StatusOr<int> PrintNtscConfig(Session& session, const TaskListing& kind,
                                    const std::string& id_or_prefix, std::ostream& out);
// `det task logs` for the task's id.
absl::StatusOr<int> PrintNtscLogs(Session& session, const TaskListing& kind,
                                  const std::string& id_or_prefix, const TrialLogsArgs& args,
                                  std::ostream& out);
// POST kind/{id}/kill for each; prints "Killed <noun> ID" for each one killed. Every id is tried;
// the error of a failed one (all of them, joined, when several failed) is returned, unless `force`
// (upstream's -f, "ignore errors"): then each failure is printed as "Skipping: <message>" and the
// result is 0.
absl::StatusOr<int> KillNtsc(Session& session, const TaskListing& kind,
                             const std::vector<std::string>& ids_or_prefixes, std::ostream& out,
                             bool force = false);
// POST kind/{id}/set_priority {"priority": N}; says "Set priority of <noun> ID to N".
absl::StatusOr<int> SetNtscPriority(Session& session, const TaskListing& kind,
                                    const std::string& id_or_prefix, int priority,
                                    std::ostream& out);

}  // namespace det::cli
