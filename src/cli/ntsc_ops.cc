#include "cli/ntsc_ops.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/config_override.h"
#include "cli/context_dir.h"
#include "cli/format.h"
#include "cli/paging.h"
#include "cli/session.h"
#include "cli/workspace_ops.h"
#include "cli/trial_ops.h"
#include "client/rest_client.h"
#include "common/file_util.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::cli {
namespace {

using nlohmann::json;

// The config file as a JSON object; no file gives {}, and so does an empty one.
absl::StatusOr<json> ReadLaunchConfig(const std::optional<std::string>& file) {
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

// Upstream prints states without their "STATE_" prefix.
json ShortenStates(json tasks) {
  if (!tasks.is_array()) return json::array();
  for (json& t : tasks) {
    if (t.is_object() && t.contains("state") && t["state"].is_string()) {
      t["state"] = StripStatePrefix(t["state"].get<std::string>());
    }
  }
  return tasks;
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

absl::Status PlaceInWorkspace(Session& session, const LaunchArgs& args, json& body) {
  if (args.workspace_name.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(json found, FindWorkspace(session, args.workspace_name));
  body["workspaceId"] = found["id"];
  return absl::OkStatus();
}

absl::StatusOr<json> BuildLaunchRequest(const LaunchArgs& args,
                                        const std::function<absl::Status(json& config)>& adjust,
                                        std::vector<std::string>* warnings) {
  ASSIGN_OR_RETURN(json config, ReadLaunchConfig(args.config_file));
  for (const std::string& o : args.overrides) RETURN_IF_ERROR(ApplyConfigOverride(config, o));
  if (adjust) RETURN_IF_ERROR(adjust(config));
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

std::string NtscPath(const TaskListing& kind, const std::string& id) {
  return absl::StrCat(kind.path, "/", client::UrlEncode(id));
}

Table NtscTable(const json& tasks) {
  Table t({"ID", "Owner", "Description", "State", "Exit Status", "Resource Pool"});
  if (!tasks.is_array()) return t;
  for (const json& c : tasks) {
    t.AddRow({Str(c, "id"), Str(c, "username"), Str(c, "description"),
              StripStatePrefix(Str(c, "state")), Str(c, "exitStatus"), Str(c, "resourcePool")});
  }
  return t;
}

absl::StatusOr<int> ListNtsc(Session& session, const TaskListing& kind, const ListNtscArgs& args,
                             std::ostream& out) {
  std::string path = kind.path;
  if (!args.all) {
    RETURN_IF_ERROR(session.EnsureLoggedIn());
    path = AddQuery(path, "users", session.username());
  }
  ASSIGN_OR_RETURN(json tasks, GetAllPages(session, path, kind.key));
  if (args.quiet) {
    for (const json& c : tasks) out << Str(c, "id") << "\n";
    return 0;
  }
  if (args.format == OutputFormat::kJson) {
    out << ShortenStates(std::move(tasks)).dump(4, ' ', false, json::error_handler_t::replace)
        << "\n";
    return 0;
  }
  out << Render(NtscTable(tasks), args.format);
  return 0;
}

absl::StatusOr<int> PrintNtscConfig(Session& session, const TaskListing& kind,
                                    const std::string& id_or_prefix, std::ostream& out) {
  ASSIGN_OR_RETURN(std::string id, ResolveTaskId(session, kind, id_or_prefix));
  ASSIGN_OR_RETURN(json resp, session.Get(NtscPath(kind, id)));
  const json& config = Field(resp, "config");
  out << ToYaml(config.is_null() ? json::object() : config);
  return 0;
}

absl::StatusOr<int> PrintNtscLogs(Session& session, const TaskListing& kind,
                                  const std::string& id_or_prefix, const TrialLogsArgs& args,
                                  std::ostream& out) {
  ASSIGN_OR_RETURN(std::string id, ResolveTaskId(session, kind, id_or_prefix));
  return PrintTaskLogs(session, id, args, out);
}

absl::StatusOr<int> KillNtsc(Session& session, const TaskListing& kind,
                             const std::vector<std::string>& ids_or_prefixes, std::ostream& out,
                             bool force) {
  std::vector<absl::Status> failures;
  for (const std::string& given : ids_or_prefixes) {
    absl::StatusOr<std::string> id = ResolveTaskId(session, kind, given);
    absl::Status s = id.status();
    if (id.ok())
      s = session.Post(absl::StrCat(NtscPath(kind, *id), "/kill"), json::object()).status();
    if (!s.ok()) {
      if (force) {
        out << "Skipping: " << s.message() << "\n";
      } else {
        failures.push_back(s);
      }
      continue;
    }
    out << "Killed " << kind.noun << " " << *id << "\n";
  }
  if (failures.empty()) return 0;
  if (failures.size() == 1) return failures.front();
  std::vector<std::string> messages;
  for (const absl::Status& s : failures) messages.emplace_back(s.message());
  return absl::Status(failures.front().code(),
                      absl::StrCat(failures.size(), " ", kind.key,
                                   " were not killed: ", absl::StrJoin(messages, "; ")));
}

absl::StatusOr<int> SetNtscPriority(Session& session, const TaskListing& kind,
                                    const std::string& id_or_prefix, int priority,
                                    std::ostream& out) {
  ASSIGN_OR_RETURN(std::string id, ResolveTaskId(session, kind, id_or_prefix));
  RETURN_IF_ERROR(
      session.Post(absl::StrCat(NtscPath(kind, id), "/set_priority"), json{{"priority", priority}})
          .status());
  out << "Set priority of " << kind.noun << " " << id << " to " << priority << "\n";
  return 0;
}

}  // namespace det::cli
