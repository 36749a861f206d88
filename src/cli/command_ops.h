#pragma once
// `det cmd` (alias `det command`): commands, one-off tasks that run an entrypoint in a container
// (upstream's commandv1.Command, GET/POST /api/v1/commands). Each function returns the process exit
// code, or an error for main() to print as "Error: <message>" (exit 1). Ids may be given by a
// unique prefix (task_id_prefix.h).
#include <chrono>
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
struct TrialLogsArgs;

struct RunCommandArgs {
  std::optional<std::string> config_file;  // --config-file: a YAML mapping
  std::vector<std::string> overrides;      // --config KEY=VALUE, applied in order
  std::optional<std::string> context_dir;  // -c/--context
  std::vector<std::string> includes;       // -i/--include
  std::string template_name;               // --template; "" = none
  bool detach = false;                     // -d/--detach: print the id, do not wait
  std::vector<std::string> volumes;        // -v/--volume HOST:CONTAINER[:ro]
  std::vector<std::string> entrypoint;     // CMD ARGS...; empty = the config's entrypoint
  // Between checks of the command's state once its log stream has ended.
  std::chrono::milliseconds poll_interval{500};
};

// One -v/--volume as a bind mount: "HOST:CONTAINER" or "HOST:CONTAINER:ro" (":rw" is accepted too)
// -> {"host_path", "container_path", "read_only"}. InvalidArgument when a path is missing.
absl::StatusOr<nlohmann::json> ParseVolume(const std::string& spec);

// The LaunchCommand body {"config": {...}, "templateName"?: T, "files"?: [File...]}: the config
// file (or {}), then the overrides, then the entrypoint (argv list), then the volumes appended to
// `bind_mounts`. `files` is sent only when a context or an include is given. No network.
// Unreadable context files are skipped with a message in `warnings`.
absl::StatusOr<nlohmann::json> BuildRunCommandRequest(const RunCommandArgs& args,
                                                      std::vector<std::string>* warnings);

// POST /api/v1/commands. With `detach` prints just the id on `out` and returns 0. Otherwise says
// "Launched command (id ID)" on `err`, streams GET /api/v1/tasks/{id}/logs?follow=true to `out`
// (log text only), then polls GET /api/v1/commands/{id} until the command is terminated and
// returns CommandExitCode. A broken log stream is reported on `err` and the wait goes on.
absl::StatusOr<int> RunCommand(Session& session, const RunCommandArgs& args, std::ostream& out,
                               std::ostream& err);

// The process exit code for a terminated command (a Command object): its `exitCode` when that is
// 0..255; 1 otherwise (no exit code: killed, never started; or one no process can exit with),
// after telling why on `err` (the command's exitStatus when it has one).
int CommandExitCode(const nlohmann::json& command, std::ostream& err);

struct ListCommandsArgs {
  bool all = false;    // -a/--all: every user's commands, not just the session user's
  bool quiet = false;  // -q/--quiet: ids only, one per line
  OutputFormat format = OutputFormat::kTable;
};
// GET /api/v1/commands (all pages; without `all`, users=<session user>). Table: ID, Owner,
// Description, State (without "STATE_"), Exit Status, Resource Pool. --json: the commands, with
// the states shortened the same way, as upstream prints them.
absl::StatusOr<int> ListCommands(Session& session, const ListCommandsArgs& args, std::ostream& out);
// The rows of ListCommands for a `commands` array, exposed for tests.
Table CommandTable(const nlohmann::json& commands);

// GET /api/v1/commands/{id}; prints its `config` as YAML.
absl::StatusOr<int> PrintCommandConfig(Session& session, const std::string& id_or_prefix,
                                       std::ostream& out);
// `det task logs` for the command's id.
absl::StatusOr<int> PrintCommandLogs(Session& session, const std::string& id_or_prefix,
                                     const TrialLogsArgs& args, std::ostream& out);
// POST /api/v1/commands/{id}/kill for each; prints "Killed command ID" for each one killed. Every
// id is tried; the error of a failed one (all of them, joined, when several failed) is returned.
absl::StatusOr<int> KillCommands(Session& session, const std::vector<std::string>& ids_or_prefixes,
                                 std::ostream& out);
// POST /api/v1/commands/{id}/set_priority {"priority": N}; says "Set priority of command ID to N".
absl::StatusOr<int> SetCommandPriority(Session& session, const std::string& id_or_prefix,
                                       int priority, std::ostream& out);

}  // namespace det::cli
