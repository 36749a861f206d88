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
#include "cli/ntsc_ops.h"

namespace det::cli {

class Session;
struct TrialLogsArgs;

struct RunCommandArgs : LaunchArgs {
  std::vector<std::string> entrypoint;  // CMD ARGS...; empty = the config's entrypoint
  // Between checks of the command's state once its log stream has ended.
  std::chrono::milliseconds poll_interval{500};
};

// The LaunchCommand body (BuildLaunchRequest) with the entrypoint (argv list) set after the
// overrides; InvalidArgument when neither the arguments nor the config give one. No network.
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

// The shared operations (ntsc_ops.h) on /api/v1/commands.
using ListCommandsArgs = ListNtscArgs;
inline absl::StatusOr<int> ListCommands(Session& session, const ListCommandsArgs& args,
                                        std::ostream& out) {
  return ListNtsc(session, kCommandListing, args, out);
}
inline Table CommandTable(const nlohmann::json& commands) { return NtscTable(commands); }
inline absl::StatusOr<int> PrintCommandConfig(Session& session, const std::string& id_or_prefix,
                                              std::ostream& out) {
  return PrintNtscConfig(session, kCommandListing, id_or_prefix, out);
}
inline absl::StatusOr<int> PrintCommandLogs(Session& session, const std::string& id_or_prefix,
                                            const TrialLogsArgs& args, std::ostream& out) {
  return PrintNtscLogs(session, kCommandListing, id_or_prefix, args, out);
}
inline absl::StatusOr<int> KillCommands(Session& session,
                                        const std::vector<std::string>& ids_or_prefixes,
                                        std::ostream& out) {
  return KillNtsc(session, kCommandListing, ids_or_prefixes, out);
}
inline absl::StatusOr<int> SetCommandPriority(Session& session, const std::string& id_or_prefix,
                                              int priority, std::ostream& out) {
  return SetNtscPriority(session, kCommandListing, id_or_prefix, priority, out);
}

}  // namespace det::cli
