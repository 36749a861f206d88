#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/types_json.h"
#include "api/wire.h"
#include "common/base64.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/log_stream.h"
#include "master/handlers/routes.h"
#include "master/handlers/task_access.h"

namespace det::master {
namespace {

using nlohmann::json;

absl::StatusOr<json> ContextDirectory(MasterContext& ctx, const HttpRequest& req) {
  const std::string& task_id = req.path_params.at("task_id");
  RETURN_IF_ERROR(CheckTaskOwnsTask(ctx.store, req, task_id));
  ASSIGN_OR_RETURN(Task task, ctx.store.GetTask(task_id));
  std::string tgz;
  if (task.type == TaskType::kTrial) {
    ASSIGN_OR_RETURN(api::Trial trial, ctx.store.GetTrialByTaskId(task_id));
    ASSIGN_OR_RETURN(tgz, ctx.store.GetModelDefinition(trial.experiment_id));
  } else {
    ASSIGN_OR_RETURN(tgz, ctx.store.GetTaskContext(task_id));
  }
  return json{{"b64Tgz", Base64Encode(tgz)}};
}

absl::StatusOr<json> PostTaskLogs(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* logs = api::FindField(body, "logs");
  if (logs == nullptr || !logs->is_array() || logs->empty()) {
    return absl::InvalidArgumentError("logs must be a non-empty list");
  }
  std::vector<api::TaskLog> parsed;
  parsed.reserve(logs->size());
  for (const json& entry : *logs) {
    ASSIGN_OR_RETURN(api::TaskLog l, api::TaskLogFromJson(entry));
    if (!parsed.empty() && l.task_id != parsed.front().task_id) {
      return absl::InvalidArgumentError("all logs in one request must share one taskId");
    }
    parsed.push_back(std::move(l));
  }
  RETURN_IF_ERROR(CheckTaskOwnsTask(ctx.store, req, parsed.front().task_id));
  RETURN_IF_ERROR(ctx.store.AddTaskLogs(parsed));
  ctx.cluster.ObserveTaskLogs(std::move(parsed));
  return json::object();
}

// `det task cleanup-logs`: one pass of log retention now (the logs of tasks that ended longer ago than
// their retention days, as the scheduled pass deletes them). Admins only: it deletes what others own.
absl::StatusOr<json> CleanupLogs(MasterContext& ctx, const HttpRequest& req) {
  if (!req.principal->admin) {
    return absl::PermissionDeniedError(
        absl::StrCat("user ", req.principal->username, " may not clean up task logs: only admins may"));
  }
  ASSIGN_OR_RETURN(int64_t removed, ctx.store.DeleteExpiredTaskLogs(std::chrono::system_clock::now(),
                                                                    ctx.config.retention_policy.log_retention_days));
  return json{{"removedCount", std::to_string(removed)}};  // an int64: a JSON string
}

std::function<bool()> TaskIsTerminal(MasterContext& ctx, const std::string& task_id) {
  return [&ctx, task_id] {
    absl::StatusOr<Task> t = ctx.store.GetTask(task_id);
    return !t.ok() || IsTerminal(t->state);
  };
}

// Any failure to read the task is its absence, for the log routes.
absl::Status CheckTaskExists(MasterContext& ctx, const std::string& task_id) {
  if (!ctx.store.GetTask(task_id).ok()) return absl::NotFoundError(absl::StrCat("task ", task_id, " not found"));
  return absl::OkStatus();
}

// GET /api/v1/tasks/{task_id}/logs and .../logs/fields: NDJSON streams, which answer.
absl::Status StreamLogs(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  std::string task_id = req.path_params.at("task_id");
  RETURN_IF_ERROR(CheckTaskExists(ctx, task_id));
  ASSIGN_OR_RETURN(LogStreamOptions options, LogStreamOptionsFromRequest(req, task_id, 0));
  StreamTaskLogs(ctx, std::move(options), TaskIsTerminal(ctx, task_id), r);
  return absl::OkStatus();
}

absl::Status StreamLogFields(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  std::string task_id = req.path_params.at("task_id");
  RETURN_IF_ERROR(CheckTaskExists(ctx, task_id));
  StreamTaskLogFields(ctx, req, task_id, /*with_allocations=*/true, TaskIsTerminal(ctx, task_id), r);
  return absl::OkStatus();
}

}  // namespace

void RegisterTaskRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/tasks/{task_id}/context_directory", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, ContextDirectory(ctx, req)); });
  router.Add("POST", "/api/v1/cleanup_logs", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, CleanupLogs(ctx, req)); });
  router.Add("POST", "/api/v1/task/logs", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, PostTaskLogs(ctx, req)); });
  router.Add("GET", "/api/v1/tasks/{task_id}/logs", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, StreamLogs(ctx, req, r)); });
  router.Add("GET", "/api/v1/tasks/{task_id}/logs/fields", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, StreamLogFields(ctx, req, r)); });
}

}  // namespace det::master
