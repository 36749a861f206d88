#include "cli/command_ops.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/wire.h"
#include "cli/config_override.h"
#include "cli/context_dir.h"
#include "cli/experiment_create.h"
#include "cli/format.h"
#include "cli/log_printer.h"
#include "cli/paging.h"
#include "cli/session.h"
#include "cli/task_id_prefix.h"
#include "cli/trial_ops.h"
#include "client/rest_client.h"
#include "common/file_util.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::cli {
namespace {

using nlohmann::json;

constexpr char kTerminated[] = "STATE_TERMINATED";

std::string CommandPath(const std::string& id) {
  return absl::StrCat("/api/v1/commands/", client::UrlEncode(id));
}

// The config file as a JSON object; no file gives {}, and so does an empty one.
absl::StatusOr<json> ReadCommandConfig(const std::optional<std::string>& file) {
  if (!file.has_value()) return json::object();
  absl::StatusOr<std::string> text = ReadFile(*file);
  if (!text.ok()) return absl::NotFoundError(absl::StrCat("cannot read config file ", *file));
  absl::StatusOr<json> config = ParseYaml(*text);
  if (!config.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid config file ", *file, ": ", config.status().message()));
  }
  if (config->is_null()) return json::object();
  if (!config->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid config file ", *file, ": expected a YAML mapping of settings"));
  }
  return *config;
}

bool HasEntrypoint(const json& config) {
  const json& e = Field(config, "entrypoint");
  return (e.is_string() && !e.get<std::string>().empty()) || (e.is_array() && !e.empty());
}

absl::Status AppendBindMounts(json& config, const std::vector<std::string>& volumes) {
  if (volumes.empty()) return absl::OkStatus();
  json& mounts = config["bind_mounts"];
  if (mounts.is_null()) mounts = json::array();
  if (mounts.is_object()) mounts = json::array({mounts});  // one mount written without a list
  if (!mounts.is_array()) {
    return absl::InvalidArgumentError(
        "bind_mounts: must be a list of {host_path, container_path} mounts to add -v/--volume "
        "mounts to");
  }
  for (const std::string& v : volumes) {
    ASSIGN_OR_RETURN(json mount, ParseVolume(v));
    mounts.push_back(std::move(mount));
  }
  return absl::OkStatus();
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

// Upstream prints states without their "STATE_" prefix.
json ShortenStates(json commands) {
  if (!commands.is_array()) return json::array();
  for (json& c : commands) {
    if (c.is_object() && c.contains("state") && c["state"].is_string()) {
      c["state"] = StripStatePrefix(c["state"].get<std::string>());
    }
  }
  return commands;
}

}  // namespace

absl::StatusOr<json> ParseVolume(const std::string& spec) {
  std::string rest = spec;
  bool read_only = false;
  size_t colons = static_cast<size_t>(std::count(spec.begin(), spec.end(), ':'));
  if (colons >= 2 && (absl::EndsWith(rest, ":ro") || absl::EndsWith(rest, ":rw"))) {
    read_only = absl::EndsWith(rest, ":ro");
    rest.resize(rest.size() - 3);
  }
  size_t colon = rest.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "-v/--volume \"", spec, "\": expected HOST_PATH:CONTAINER_PATH, optionally with :ro"));
  }
  return json{{"host_path", rest.substr(0, colon)},
              {"container_path", rest.substr(colon + 1)},
              {"read_only", read_only}};
}

absl::StatusOr<json> BuildRunCommandRequest(const RunCommandArgs& args,
                                            std::vector<std::string>* warnings) {
  ASSIGN_OR_RETURN(json config, ReadCommandConfig(args.config_file));
  for (const std::string& o : args.overrides) RETURN_IF_ERROR(ApplyConfigOverride(config, o));
  if (!args.entrypoint.empty()) {
    config["entrypoint"] = args.entrypoint;
  } else if (!HasEntrypoint(config)) {
    return absl::InvalidArgumentError(
        "det cmd run: give the command to run (`det cmd run CMD ARGS...`, or `entrypoint` in "
        "--config-file)");
  }
  RETURN_IF_ERROR(AppendBindMounts(config, args.volumes));

  json body = {{"config", std::move(config)}};
  if (!args.template_name.empty()) body["templateName"] = args.template_name;
  if (args.context_dir.has_value() || !args.includes.empty()) {
    std::optional<std::filesystem::path> root;
    if (args.context_dir.has_value()) root = *args.context_dir;
    std::vector<std::filesystem::path> includes(args.includes.begin(), args.includes.end());
    ASSIGN_OR_RETURN(ContextResult context, ReadContext(root, includes));
    if (warnings != nullptr) {
      warnings->insert(warnings->end(), context.warnings.begin(), context.warnings.end());
    }
    body["files"] = ContextToJson(context.files);
  }
  return body;
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

Table CommandTable(const json& commands) {
  Table t({"ID", "Owner", "Description", "State", "Exit Status", "Resource Pool"});
  if (!commands.is_array()) return t;
  for (const json& c : commands) {
    t.AddRow({Str(c, "id"), Str(c, "username"), Str(c, "description"),
              StripStatePrefix(Str(c, "state")), Str(c, "exitStatus"), Str(c, "resourcePool")});
  }
  return t;
}

absl::StatusOr<int> ListCommands(Session& session, const ListCommandsArgs& args,
                                 std::ostream& out) {
  std::string path = kCommandListing.path;
  if (!args.all) {
    RETURN_IF_ERROR(session.EnsureLoggedIn());
    path = AddQuery(path, "users", session.username());
  }
  ASSIGN_OR_RETURN(json commands, GetAllPages(session, path, kCommandListing.key));
  if (args.quiet) {
    for (const json& c : commands) out << Str(c, "id") << "\n";
    return 0;
  }
  if (args.format == OutputFormat::kJson) {
    out << ShortenStates(std::move(commands)).dump(4, ' ', false, json::error_handler_t::replace)
        << "\n";
    return 0;
  }
  out << Render(CommandTable(commands), args.format);
  return 0;
}

absl::StatusOr<int> PrintCommandConfig(Session& session, const std::string& id_or_prefix,
                                       std::ostream& out) {
  ASSIGN_OR_RETURN(std::string id, ResolveTaskId(session, kCommandListing, id_or_prefix));
  ASSIGN_OR_RETURN(json resp, session.Get(CommandPath(id)));
  const json& config = Field(resp, "config");
  out << ToYaml(config.is_null() ? json::object() : config);
  return 0;
}

absl::StatusOr<int> PrintCommandLogs(Session& session, const std::string& id_or_prefix,
                                     const TrialLogsArgs& args, std::ostream& out) {
  ASSIGN_OR_RETURN(std::string id, ResolveTaskId(session, kCommandListing, id_or_prefix));
  return PrintTaskLogs(session, id, args, out);
}

absl::StatusOr<int> KillCommands(Session& session, const std::vector<std::string>& ids_or_prefixes,
                                 std::ostream& out) {
  std::vector<absl::Status> failures;
  for (const std::string& given : ids_or_prefixes) {
    absl::StatusOr<std::string> id = ResolveTaskId(session, kCommandListing, given);
    absl::Status s = id.status();
    if (id.ok()) s = session.Post(absl::StrCat(CommandPath(*id), "/kill"), json::object()).status();
    if (!s.ok()) {
      failures.push_back(s);
      continue;
    }
    out << "Killed command " << *id << "\n";
  }
  if (failures.empty()) return 0;
  if (failures.size() == 1) return failures.front();
  std::vector<std::string> messages;
  for (const absl::Status& s : failures) messages.emplace_back(s.message());
  return absl::Status(
      failures.front().code(),
      absl::StrCat(failures.size(), " commands were not killed: ", absl::StrJoin(messages, "; ")));
}

absl::StatusOr<int> SetCommandPriority(Session& session, const std::string& id_or_prefix,
                                       int priority, std::ostream& out) {
  ASSIGN_OR_RETURN(std::string id, ResolveTaskId(session, kCommandListing, id_or_prefix));
  RETURN_IF_ERROR(
      session.Post(absl::StrCat(CommandPath(id), "/set_priority"), json{{"priority", priority}})
          .status());
  out << "Set priority of command " << id << " to " << priority << "\n";
  return 0;
}

}  // namespace det::cli
