#include "cli/generic_task_ops.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "cli/config_override.h"
#include "cli/context_dir.h"
#include "cli/experiment_create.h"
#include "cli/format.h"
#include "cli/session.h"
#include "client/rest_client.h"
#include "common/file_util.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::cli {
namespace {

using nlohmann::json;

std::string GenericTaskPath(const std::string& task_id) {
  return absl::StrCat("/api/v1/tasks/", client::UrlEncode(task_id));
}

}  // namespace

absl::StatusOr<json> BuildCreateGenericTaskRequest(const CreateGenericTaskArgs& args,
                                                   std::vector<std::string>* warnings) {
  absl::StatusOr<std::string> text = ReadFile(args.config_file);
  if (!text.ok()) {
    return absl::NotFoundError(absl::StrCat("cannot read task config file ", args.config_file));
  }
  ASSIGN_OR_RETURN(
      std::string config,
      ConfigTextWithOverrides(*text, args.overrides, args.config_file, "task config file"));
  std::vector<std::filesystem::path> includes(args.includes.begin(), args.includes.end());
  ASSIGN_OR_RETURN(ContextResult context,
                   ReadContext(std::filesystem::path(args.context_dir), includes));
  if (warnings != nullptr) {
    warnings->insert(warnings->end(), context.warnings.begin(), context.warnings.end());
  }
  json body = {{"config", std::move(config)}, {"contextDirectory", ContextToJson(context.files)}};
  if (args.project_id.has_value()) body["projectId"] = *args.project_id;
  if (!args.fork.empty()) body["forkedFrom"] = args.fork;
  return body;
}

absl::StatusOr<int> CreateGenericTask(Session& session, const CreateGenericTaskArgs& args,
                                      std::ostream& out, std::ostream& err) {
  std::vector<std::string> warnings;
  ASSIGN_OR_RETURN(json body, BuildCreateGenericTaskRequest(args, &warnings));
  for (const std::string& w : warnings) err << w << "\n";
  ASSIGN_OR_RETURN(json resp, session.Post("/api/v1/generic-tasks", body));
  std::string id = Str(resp, "taskId");
  if (id.empty()) {
    return absl::InternalError("the master created the task but did not return its id");
  }
  out << "Created task " << id << "\n";
  PrintLaunchWarnings(resp, err);
  return 0;
}

absl::StatusOr<int> PrintGenericTaskConfig(Session& session, const std::string& task_id,
                                           std::ostream& out) {
  ASSIGN_OR_RETURN(json resp, session.Get(absl::StrCat(GenericTaskPath(task_id), "/config")));
  // The master sends the config as JSON text (upstream's GetGenericTaskConfigResponse); it is shown
  // as YAML, as upstream's `det task config` shows it. Text that is not JSON is shown as it is.
  std::string config = Str(resp, "config");
  if (absl::StatusOr<json> parsed = ParseJson(config); parsed.ok() && parsed->is_object()) config = ToYaml(*parsed);
  out << config;
  if (!config.empty() && config.back() != '\n') out << "\n";
  return 0;
}

absl::StatusOr<int> ActOnGenericTask(Session& session, const std::string& task_id,
                                     GenericTaskAction action, std::ostream& out) {
  const char* verb = "kill";
  const char* done = "Killed";
  if (action == GenericTaskAction::kPause) {
    verb = "pause";
    done = "Paused";
  } else if (action == GenericTaskAction::kUnpause) {
    verb = "unpause";
    done = "Unpaused";
  }
  RETURN_IF_ERROR(
      session.Post(absl::StrCat(GenericTaskPath(task_id), "/", verb), json::object()).status());
  out << done << " task " << task_id << "\n";
  return 0;
}

Table TaskTable(const json& allocation_id_to_summary) {
  Table t({"Task ID", "Allocation ID", "Name", "Slots Needed", "Registered Time", "Resource Pool"});
  if (!allocation_id_to_summary.is_object()) return t;
  std::vector<std::pair<std::string, const json*>> rows;
  for (const auto& [allocation_id, summary] : allocation_id_to_summary.items()) {
    rows.emplace_back(allocation_id, &summary);
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    std::string ta = Str(*a.second, "registeredTime");
    std::string tb = Str(*b.second, "registeredTime");
    return ta != tb ? ta < tb : a.first < b.first;
  });
  for (const auto& [allocation_id, summary] : rows) {
    std::string shown = Str(*summary, "allocationId");
    t.AddRow({Str(*summary, "taskId"), shown.empty() ? allocation_id : shown, Str(*summary, "name"),
              Cell(Field(*summary, "slotsNeeded")), FormatTime(Field(*summary, "registeredTime")),
              Str(*summary, "resourcePool")});
  }
  return t;
}

absl::StatusOr<int> ListTasks(Session& session, OutputFormat format, std::ostream& out) {
  ASSIGN_OR_RETURN(json resp, session.Get("/api/v1/tasks"));
  const json& summaries = Field(resp, "allocationIdToSummary");
  if (format == OutputFormat::kJson) {
    const json& shown = summaries.is_object() ? summaries : json::object();
    out << shown.dump(4, ' ', false, json::error_handler_t::replace) << "\n";
    return 0;
  }
  out << Render(TaskTable(summaries), format);
  return 0;
}

}  // namespace det::cli
