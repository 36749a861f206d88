#include "cli/command_ops.h"

#include <nlohmann/json.hpp>
#include <thread>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "cli/experiment_create.h"
#include "cli/format.h"
#include "cli/log_printer.h"
#include "cli/session.h"
#include "cli/trial_ops.h"
#include "client/rest_client.h"
#include "common/status_macros.h"

namespace det::cli {
namespace {

using nlohmann::json;

constexpr char kTerminated[] = "STATE_TERMINATED";

std::string CommandPath(const std::string& id) { return NtscPath(kCommandListing, id); }

bool HasEntrypoint(const json& config) {
  const json& e = Field(config, "entrypoint");
  return (e.is_string() && !e.get<std::string>().empty()) || (e.is_array() && !e.empty());
}

// GETs the command until it is terminated.
absl::StatusOr<json> WaitUntilTerminated(Session& session, const std::string& id,
                                         std::chrono::milliseconds poll_interval) {
  while (true) {
    ASSIGN_OR_RETURN(json resp, session.Get(CommandPath(id)));
    const json& command = Field(resp, "command");
    if (Str(command, "state") == kTerminated) return command;
    std::this_thread::sleep_for(poll_interval);
  }
}

}  // namespace

absl::StatusOr<json> BuildRunCommandRequest(const RunCommandArgs& args,
                                            std::vector<std::string>* warnings) {
  return BuildLaunchRequest(
      args,
      [&args](json& config) -> absl::Status {
        if (!args.entrypoint.empty()) {
          config["entrypoint"] = args.entrypoint;
        } else if (!HasEntrypoint(config)) {
          return absl::InvalidArgumentError(
              "det cmd run: give the command to run (`det cmd run CMD ARGS...`, or `entrypoint` "
              "in --config-file)");
        }
        return absl::OkStatus();
      },
      warnings);
}

int CommandExitCode(const json& command, std::ostream& err) {
  std::string id = Str(command, "id");
  const json& code = Field(command, "exitCode");
  if (!code.is_null()) {
    absl::StatusOr<int64_t> n = api::ReadInt64(code, "command.exitCode");
    if (n.ok() && *n >= 0 && *n <= 255) return static_cast<int>(*n);
    err << "Command " << id << " exited with code " << (n.ok() ? std::to_string(*n) : Cell(code))
        << "\n";
    return 1;
  }
  std::string status = Str(command, "exitStatus");
  if (status.empty()) {
    status = absl::StrCat("no exit code reported (state ", Str(command, "state"), ")");
  }
  err << "Command " << id << " ended: " << status << "\n";
  return 1;
}

absl::StatusOr<int> RunCommand(Session& session, const RunCommandArgs& args, std::ostream& out,
                               std::ostream& err) {
  std::vector<std::string> warnings;
  ASSIGN_OR_RETURN(json body, BuildRunCommandRequest(args, &warnings));
  RETURN_IF_ERROR(PlaceInWorkspace(session, args, body));
  for (const std::string& w : warnings) err << w << "\n";

  ASSIGN_OR_RETURN(json resp, session.Post("/api/v1/commands", body));
  std::string id = Str(Field(resp, "command"), "id");
  if (id.empty()) {
    return absl::InternalError("the master launched the command but did not return its id");
  }
  PrintLaunchWarnings(resp, err);
  if (args.detach) {
    out << id << "\n";
    return 0;
  }
  err << "Launched command (id " << id << ")\n";
  err.flush();

  TrialLogsArgs follow;
  follow.follow = true;
  ASSIGN_OR_RETURN(
      std::string logs,
      LogsPath(absl::StrCat("/api/v1/tasks/", client::UrlEncode(id), "/logs"), follow));
  absl::Status streamed = session.Stream(logs, [&](const json& entry) {
    out << LogEntryText(entry);
    out.flush();
    return true;
  });
  if (!streamed.ok()) {
    // The stream broke (master restart, network); the command's outcome is still worth waiting for.
    err << "Warning: the log stream of command " << id << " ended early: " << streamed.message()
        << "\n";
  }
  ASSIGN_OR_RETURN(json command, WaitUntilTerminated(session, id, args.poll_interval));
  return CommandExitCode(command, err);
}

}  // namespace det::cli
