// Commands (upstream's /api/v1/commands) and generic tasks (/api/v1/generic-tasks, /api/v1/tasks/{id}/
// config|kill|pause|unpause, GET /api/v1/tasks/{id}): tasks started, killed and changed through the
// cluster actor; read from the store.
#include <memory>
#include <set>
#include <nlohmann/json.hpp>

#include "absl/algorithm/container.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "master/handlers/command_request.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/job_queue_request.h"
#include "master/handlers/path_scope.h"
#include "master/handlers/routes.h"
#include "master/handlers/task_json.h"
#include "master/task/authz.h"

namespace det::master {
namespace {

using nlohmann::json;

std::optional<Allocation> LatestAllocation(Store& store, const std::string& task_id) {
  absl::StatusOr<std::vector<Allocation>> all = store.ListAllocations(task_id);
  if (!all.ok() || all->empty()) return std::nullopt;
  return all->back();
}

// Commands and the interactive kinds share their routes: /api/v1/{plural}[/{id}[/kill|set_priority]].
struct Kind {
  TaskType type;
  const char* plural;    // the path and the list's key
  const char* singular;  // the object's key and messages
};
constexpr Kind kCommandKind{TaskType::kCommand, "commands", "command"};
constexpr Kind kGenericKind{TaskType::kGeneric, "generic-tasks", "task"};
constexpr Kind kNotebookKind{TaskType::kNotebook, "notebooks", "notebook"};
constexpr Kind kKinds[] = {kCommandKind,
                           kNotebookKind,
                           {TaskType::kShell, "shells", "shell"},
                           {TaskType::kTensorboard, "tensorboards", "tensorboard"}};

const char* SingularOf(TaskType type) {
  for (const Kind& k : kKinds) {
    if (k.type == type) return k.singular;
  }
  return "task";
}

OwnedResource ResourceOf(const Task& task) {
  return {SingularOf(task.type), task.task_id, task.owner_id, task.workspace_id};
}

// The task `id` of `kind`; NotFound names the kind ("command abc not found").
absl::StatusOr<Task> TaskOfKind(Store& store, const std::string& id, const Kind& kind) {
  absl::StatusOr<Task> task = store.GetTask(id);
  if (!task.ok() || task->type != kind.type) return absl::NotFoundError(absl::StrCat(kind.singular, " ", id, " not found"));
  return task;
}

json ObjectJson(Store& store, const Task& task) {
  std::optional<Allocation> latest = LatestAllocation(store, task.task_id);
  return task.type == TaskType::kCommand ? CommandJson(task, latest) : ServiceTaskJson(task, latest);
}

json KindResponse(Store& store, const Kind& kind, const Task& task) {
  json config = json::parse(task.config_json, nullptr, false);
  return {{kind.singular, ObjectJson(store, task)}, {"config", config}};
}

// {"<kind>": ...} as it is after a change through the cluster.
absl::StatusOr<json> ObjectAfterChange(MasterContext& ctx, const Kind& kind, const std::string& id) {
  ASSIGN_OR_RETURN(Task task, ctx.store.GetTask(id));
  return json{{kind.singular, ObjectJson(ctx.store, task)}};
}

absl::StatusOr<TaskFilter> ParseListQuery(const HttpRequest& req, TaskType type) {
  TaskFilter f;
  f.types = {type};
  f.usernames = req.QueryAll("users");
  for (const std::string& raw : req.QueryAll("user_ids")) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(raw, &v)) {
      return absl::InvalidArgumentError(absl::StrCat("userIds: expected a user id, got \"", raw, "\""));
    }
    f.owner_ids.push_back(v);
  }
  std::string sort = req.Query("sort_by").value_or("SORT_BY_ID");
  if (sort == "SORT_BY_ID" || sort == "1" || sort == "SORT_BY_UNSPECIFIED" || sort == "0") {
    f.sort = TaskSort::kId;
  } else if (sort == "SORT_BY_DESCRIPTION" || sort == "2") {
    f.sort = TaskSort::kDescription;
  } else if (sort == "SORT_BY_START_TIME" || sort == "4") {
    f.sort = TaskSort::kStartTime;
  } else if (sort == "SORT_BY_WORKSPACE_ID" || sort == "5") {
    f.sort = TaskSort::kWorkspaceId;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "sortBy: unknown order \"", sort,
        "\"; use SORT_BY_ID, SORT_BY_DESCRIPTION, SORT_BY_START_TIME or SORT_BY_WORKSPACE_ID"));
  }
  ASSIGN_OR_RETURN(f.descending, QueryOrderDescending(req));
  ASSIGN_OR_RETURN(f.offset, QueryInt(req, "offset", 0));
  ASSIGN_OR_RETURN(f.limit, QueryInt(req, "limit", 0));
  if (f.offset < 0) return absl::InvalidArgumentError(absl::StrCat("offset: must be >= 0, got ", f.offset));
  if (f.limit < 0) return absl::InvalidArgumentError(absl::StrCat("limit: must be >= 0, got ", f.limit));
  return f;
}

absl::StatusOr<json> ListKind(MasterContext& ctx, const HttpRequest& req, const Kind& kind) {
  ASSIGN_OR_RETURN(TaskFilter filter, ParseListQuery(req, kind.type));
  ASSIGN_OR_RETURN(filter.visible_workspaces, VisibleWorkspaces(*req.principal, rbac::Permission::kViewNsc));
  ASSIGN_OR_RETURN(std::vector<Task> page, ctx.store.ListTasks(filter));
  ASSIGN_OR_RETURN(int64_t total, ctx.store.CountTasks(filter));
  json objects = json::array();
  for (const Task& t : page) objects.push_back(ObjectJson(ctx.store, t));
  return json{{kind.plural, objects},
              {"pagination", Pagination(filter.offset, filter.limit, static_cast<int64_t>(page.size()), total)}};
}

// A task the caller may change, of `kind`.
absl::StatusOr<Task> TaskForChange(MasterContext& ctx, const HttpRequest& req, const std::string& id, const Kind& kind) {
  ASSIGN_OR_RETURN(Task task, TaskOfKind(ctx.store, id, kind));
  RETURN_IF_ERROR(DefaultAuthz().Check(*req.principal, rbac::Permission::kUpdateNsc, ResourceOf(task)));
  return task;
}

// A TensorBoard shows its experiments' event files: each must be one the caller may read the artifacts of
// (NotFound otherwise, as for any experiment the caller may not see).
absl::Status CheckTensorboardSources(Store& store, const Principal& who, const NewTask& request) {
  json service = json::parse(request.service_json, nullptr, false);
  std::set<int64_t> experiments;
  for (const json& source : service.value("sources", json::array())) {
    experiments.insert(source.value("experiment_id", int64_t{0}));
  }
  for (int64_t id : experiments) {
    RETURN_IF_ERROR(CheckExperimentVisible(store, who, id, rbac::Permission::kViewExperimentArtifacts));
  }
  return absl::OkStatus();
}

// Launches a command or an interactive task; the cluster replies (a notebook's preview is answered
// at once: nothing is launched).
absl::Status Launch(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r, const Kind& kind) {
  RETURN_IF_ERROR(RequireUserToken(*req.principal, "launch work"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(NewTask request, ParseLaunchCommand(ctx.store, ctx.config, body, ctx.max_context_bytes, kind.type));
  RETURN_IF_ERROR(DefaultAuthz().Check(*req.principal, rbac::Permission::kCreateNsc,
                                       {kind.singular, "", req.principal->user_id, request.workspace_id}));
  if (const json* preview = api::FindField(body, "preview"); preview != nullptr && preview->is_boolean() &&
                                                             preview->get<bool>() && kind.type == TaskType::kNotebook) {
    // Nothing is launched: the notebook is upstream's empty Notebook message, every field its zero.
    json empty = {{"id", ""}, {"description", ""}, {"state", "STATE_UNSPECIFIED"}, {"startTime", nullptr},
                  {"container", nullptr}, {"displayName", ""}, {"userId", 0}, {"username", ""},
                  {"serviceAddress", ""}, {"resourcePool", ""}, {"exitStatus", ""}, {"jobId", ""},
                  {"workspaceId", 0}};
    Reply(r, json{{kind.singular, empty}, {"config", request.config.full}, {"warnings", json::array()}});
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(request.service_json, ServiceDataFor(ctx.store, kind.type, body));
  if (kind.type == TaskType::kTensorboard) RETURN_IF_ERROR(CheckTensorboardSources(ctx.store, *req.principal, request));
  request.owner_id = req.principal->user_id;
  request.owner_username = req.principal->username;
  LaunchWarnings warnings = request.warnings;
  ctx.cluster.LaunchTask(std::move(request), ReplyWithOn(ctx.stream_loop, r, [&ctx, kind, warnings](const Task& task) {
                           json out = KindResponse(ctx.store, kind, task);
                           out["warnings"] = *warnings;
                           return out;
                         }));
  return absl::OkStatus();
}

// POST /api/v1/{plural}/{id}/kill and .../set_priority: the cluster changes the task and replies.
absl::Status KillOfKind(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r, const Kind& kind) {
  std::string id = req.path_params.at("id");
  RETURN_IF_ERROR(TaskForChange(ctx, req, id, kind).status());
  ctx.cluster.KillTask(id, ReplyWithOn(ctx.stream_loop, r, [&ctx, kind, id] { return ObjectAfterChange(ctx, kind, id); }));
  return absl::OkStatus();
}

absl::Status SetPriority(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r, const Kind& kind) {
  std::string id = req.path_params.at("id");
  ASSIGN_OR_RETURN(Task task, TaskForChange(ctx, req, id, kind));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* priority = api::FindField(body, "priority");
  if (priority == nullptr || !priority->is_number_integer()) {
    return absl::InvalidArgumentError("priority: required, an integer from 1 to 99");
  }
  JobChange change;
  change.priority = priority->get<int>();
  RETURN_IF_ERROR(CheckQueueControl(ctx.config.security.authz.strict_job_queue_control, *req.principal, change));
  ctx.cluster.UpdateJob(task.job_id, change,
                        ReplyWithOn(ctx.stream_loop, r, [&ctx, kind, id] { return ObjectAfterChange(ctx, kind, id); }));
  return absl::OkStatus();
}

void RegisterKindRoutes(Router& router, MasterContext& ctx, const Kind& kind) {
  const std::string base = absl::StrCat("/api/v1/", kind.plural);
  router.Add("POST", base, Access::kAuthenticated,
             [&ctx, kind](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, Launch(ctx, req, r, kind)); });
  router.Add("GET", base, Access::kAuthenticated,
             [&ctx, kind](HttpRequest& req, ResponderPtr r) { Reply(r, ListKind(ctx, req, kind)); });
  router.Add("GET", base + "/{id}", Access::kAuthenticated, [&ctx, kind](HttpRequest& req, ResponderPtr r) {
    Reply(r, [&]() -> absl::StatusOr<json> {
      ASSIGN_OR_RETURN(Task task, TaskOfKind(ctx.store, req.path_params.at("id"), kind));
      return KindResponse(ctx.store, kind, task);
    }());
  });
  router.Add("POST", base + "/{id}/kill", Access::kAuthenticated,
             [&ctx, kind](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, KillOfKind(ctx, req, r, kind)); });
  router.Add("POST", base + "/{id}/set_priority", Access::kAuthenticated,
             [&ctx, kind](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, SetPriority(ctx, req, r, kind)); });
}

absl::Status CreateGenericTask(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  RETURN_IF_ERROR(RequireUserToken(*req.principal, "launch work"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(NewTask request, ParseCreateGenericTask(ctx.store, ctx.config, body, ctx.max_context_bytes));
  RETURN_IF_ERROR(DefaultAuthz().Check(*req.principal, rbac::Permission::kCreateNsc,
                                       {"generic task", "", req.principal->user_id, request.workspace_id}));
  request.owner_id = req.principal->user_id;
  request.owner_username = req.principal->username;
  LaunchWarnings warnings = request.warnings;
  ctx.cluster.LaunchTask(std::move(request), ReplyWith(r, [warnings](const Task& task) {
                           return json{{"taskId", task.task_id}, {"warnings", *warnings}};
                         }));
  return absl::OkStatus();
}

// PUT /api/v1/notebooks/{id}/report_idle: from inside the notebook (its allocation token), or its
// owner; the cluster replies.
absl::Status ReportIdle(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  std::string id = req.path_params.at("id");
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* idle = api::FindField(body, "idle");
  if (idle == nullptr || !idle->is_boolean()) return absl::InvalidArgumentError("idle: required, true or false");
  ASSIGN_OR_RETURN(Task task, TaskOfKind(ctx.store, id, kNotebookKind));
  const Principal& who = *req.principal;
  if (who.allocation_id.empty()) {
    RETURN_IF_ERROR(DefaultAuthz().Check(who, rbac::Permission::kUpdateNsc, ResourceOf(task)));
  } else if (absl::StatusOr<Allocation> a = ctx.store.GetAllocation(who.allocation_id);
             !a.ok() || a->task_id != id) {
    return absl::PermissionDeniedError(absl::StrCat("allocation token is not valid for notebook ", id));
  }
  ctx.cluster.ReportIdle(id, idle->get<bool>(), ReplyWith(r));
  return absl::OkStatus();
}

// GET /api/v1/tasks/count: the running commands, notebooks, shells and tensorboards the caller may see.
absl::StatusOr<json> CountRunningTasks(MasterContext& ctx, const Principal& who) {
  ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> visible, VisibleWorkspaces(who, rbac::Permission::kViewNsc));
  ASSIGN_OR_RETURN(std::vector<Task> live, ctx.store.ListTasks({.live_only = true}));
  if (visible) std::erase_if(live, [&](const Task& t) { return !absl::c_linear_search(*visible, t.workspace_id); });
  json counts = {{"commands", 0}, {"notebooks", 0}, {"shells", 0}, {"tensorboards", 0}};
  for (const Task& t : live) {
    std::optional<Allocation> latest = LatestAllocation(ctx.store, t.task_id);
    if (TaskDisplayState(t, latest) != "STATE_RUNNING") continue;
    if (t.type == TaskType::kCommand) counts["commands"] = counts["commands"].get<int>() + 1;
    if (t.type == TaskType::kNotebook) counts["notebooks"] = counts["notebooks"].get<int>() + 1;
    if (t.type == TaskType::kShell) counts["shells"] = counts["shells"].get<int>() + 1;
    if (t.type == TaskType::kTensorboard) counts["tensorboards"] = counts["tensorboards"].get<int>() + 1;
  }
  return counts;
}

}  // namespace

void RegisterCommandRoutes(Router& router, MasterContext& ctx) {
  for (const Kind& kind : kKinds) RegisterKindRoutes(router, ctx, kind);
  router.Add("PUT", "/api/v1/notebooks/{id}/report_idle", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, ReportIdle(ctx, req, r)); });

  router.Add("POST", "/api/v1/generic-tasks", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, CreateGenericTask(ctx, req, r)); });
  router.Add("GET", "/api/v1/tasks/{task_id}/config", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    Reply(r, [&]() -> absl::StatusOr<json> {
      ASSIGN_OR_RETURN(Task task, ctx.store.GetTask(req.path_params.at("task_id")));
      // Upstream's GetGenericTaskConfigResponse.config is the config as JSON text (clients json.loads it).
      json config = json::parse(task.config_json, nullptr, false);
      return json{{"config", config.dump()}};
    }());
  });
  router.Add("POST", "/api/v1/tasks/{task_id}/kill", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    ReplyIfError(r, [&]() -> absl::Status {
      std::string id = req.path_params.at("task_id");
      ASSIGN_OR_RETURN(Task task, ctx.store.GetTask(id));
      RETURN_IF_ERROR(DefaultAuthz().Check(*req.principal, rbac::Permission::kUpdateNsc, ResourceOf(task)));
      ctx.cluster.KillTask(id, ReplyWith(r));
      return absl::OkStatus();
    }());
  });
  for (const char* verb : {"pause", "unpause"}) {
    bool pause = std::string(verb) == "pause";
    router.Add("POST", absl::StrCat("/api/v1/tasks/{task_id}/", verb), Access::kAuthenticated,
               [&ctx, pause](HttpRequest& req, ResponderPtr r) {
                 ReplyIfError(r, [&]() -> absl::Status {
                   std::string id = req.path_params.at("task_id");
                   RETURN_IF_ERROR(TaskForChange(ctx, req, id, kGenericKind).status());
                   ctx.cluster.SetTaskPaused(id, pause, ReplyWith(r));
                   return absl::OkStatus();
                 }());
               });
  }
  router.Add("GET", "/api/v1/tasks/count", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, CountRunningTasks(ctx, *req.principal)); });
  router.Add("GET", "/api/v1/tasks/{task_id}", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    Reply(r, [&]() -> absl::StatusOr<json> {
      ASSIGN_OR_RETURN(Task task, ctx.store.GetTask(req.path_params.at("task_id")));
      ASSIGN_OR_RETURN(std::vector<Allocation> allocations, ctx.store.ListAllocations(task.task_id));
      return json{{"task", TaskJson(task, allocations)}};
    }());
  });
}

}  // namespace det::master
