// Usage history (issue 46): GET /api/v1/resources/allocation/raw and .../aggregated. The store gives
// the allocations overlapping the window; each is attributed to its task's owner, workspace and type
// and, for trials, its experiment's labels; usage_history.h clips and splits the time. Anyone who may
// view cluster usage (VIEW_CLUSTER_USAGE; everyone in basic mode) may read it.
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/task/authz.h"
#include "master/usage_history.h"

namespace det::master {
namespace {

using nlohmann::json;

// Reads what an allocation is attributed to, once per task and experiment.
class UsageAttribution {
 public:
  UsageAttribution(Store& store, int64_t viewer_id) : store_(store), viewer_id_(viewer_id) {}

  absl::StatusOr<UsageRecord> Record(const Allocation& a) {
    ASSIGN_OR_RETURN(const Task* task, TaskOf(a.task_id));
    UsageRecord r{.allocation_id = a.allocation_id, .kind = std::string(Name(task->type)),
                  .username = task->username, .user_id = task->owner_id, .resource_pool = a.resource_pool,
                  .slots = a.slots, .start_time = a.start_time, .end_time = a.end_time};
    if (task->type == TaskType::kTrial) {
      ASSIGN_OR_RETURN(const api::Experiment* exp, ExperimentOf(a.task_id));
      r.labels = exp->labels;
      r.experiment_id = exp->id;
      r.workspace = exp->workspace_name;
    } else {
      ASSIGN_OR_RETURN(r.workspace, WorkspaceName(task->workspace_id));
    }
    return r;
  }

 private:
  absl::StatusOr<const Task*> TaskOf(const std::string& task_id) {
    auto it = tasks_.find(task_id);
    if (it == tasks_.end()) {
      ASSIGN_OR_RETURN(Task t, store_.GetTask(task_id));
      it = tasks_.emplace(task_id, std::move(t)).first;
    }
    return &it->second;
  }

  absl::StatusOr<const api::Experiment*> ExperimentOf(const std::string& task_id) {
    ASSIGN_OR_RETURN(api::Trial trial, store_.GetTrialByTaskId(task_id));
    auto it = experiments_.find(trial.experiment_id);
    if (it == experiments_.end()) {
      ASSIGN_OR_RETURN(api::Experiment e, store_.GetExperiment(trial.experiment_id));
      it = experiments_.emplace(trial.experiment_id, std::move(e)).first;
    }
    return &it->second;
  }

  absl::StatusOr<std::string> WorkspaceName(int64_t id) {
    auto it = workspaces_.find(id);
    if (it == workspaces_.end()) {
      ASSIGN_OR_RETURN(Workspace w, store_.GetWorkspace(id, viewer_id_));
      it = workspaces_.emplace(id, w.name).first;
    }
    return it->second;
  }

  Store& store_;
  int64_t viewer_id_;
  std::map<std::string, Task> tasks_;
  std::map<int64_t, api::Experiment> experiments_;
  std::map<int64_t, std::string> workspaces_;
};

absl::StatusOr<std::vector<UsageRecord>> RecordsIn(MasterContext& ctx, const HttpRequest& req,
                                                   const UsageWindow& window) {
  RETURN_IF_ERROR(DefaultAuthz().CheckCluster(*req.principal, rbac::Permission::kViewClusterUsage,
                                              "view cluster usage"));
  ASSIGN_OR_RETURN(std::vector<Allocation> allocations, ctx.store.ListAllocationsOverlapping(window.begin, window.end));
  UsageAttribution attribution(ctx.store, req.principal->user_id);
  std::vector<UsageRecord> records;
  records.reserve(allocations.size());
  for (const Allocation& a : allocations) {
    ASSIGN_OR_RETURN(UsageRecord r, attribution.Record(a));
    records.push_back(std::move(r));
  }
  return records;
}

absl::StatusOr<std::string> RequiredQuery(const HttpRequest& req, const std::string& snake, const std::string& camel,
                                          const std::string& what) {
  std::optional<std::string> value = req.Query(snake);
  if (!value || value->empty()) return absl::InvalidArgumentError(absl::StrCat(camel, ": required, ", what));
  return *value;
}

absl::StatusOr<WallTime> QueryTimestamp(const HttpRequest& req, const std::string& snake, const std::string& camel) {
  constexpr char kWhat[] = "an RFC 3339 timestamp such as 2024-03-01T00:00:00Z";
  ASSIGN_OR_RETURN(std::string text, RequiredQuery(req, snake, camel, kWhat));
  absl::StatusOr<WallTime> t = ParseRfc3339(text);
  if (!t.ok()) return absl::InvalidArgumentError(absl::StrCat(camel, ": expected ", kWhat, ", got \"", text, "\""));
  return *t;
}

json RawEntryJson(const UsageRecord& r, const UsageWindow& window, WallTime now) {
  return {{"allocationId", r.allocation_id},
          {"kind", r.kind},
          {"username", r.username},
          {"userId", r.user_id},
          {"labels", r.labels},
          {"slots", r.slots},
          {"seconds", UsageSeconds(ClippedMicros(r, window, now))},
          {"startTime", FormatRfc3339(r.start_time)},
          {"endTime", r.end_time ? json(FormatRfc3339(*r.end_time)) : json(nullptr)},
          {"experimentId", r.experiment_id.value_or(0)},
          {"resourcePool", r.resource_pool},
          {"workspace", r.workspace}};
}

absl::StatusOr<json> Raw(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(WallTime after, QueryTimestamp(req, "timestamp_after", "timestampAfter"));
  ASSIGN_OR_RETURN(WallTime before, QueryTimestamp(req, "timestamp_before", "timestampBefore"));
  if (before <= after) {
    return absl::InvalidArgumentError("timestampBefore: must be later than timestampAfter");
  }
  UsageWindow window{after, before};
  ASSIGN_OR_RETURN(std::vector<UsageRecord> records, RecordsIn(ctx, req, window));
  WallTime now = std::chrono::system_clock::now();
  json entries = json::array();
  for (const UsageRecord& r : records) entries.push_back(RawEntryJson(r, window, now));
  return json{{"resourceEntries", entries}};
}

json SecondsMap(const std::map<std::string, int64_t>& split) {
  json out = json::object();
  for (const auto& [key, micros] : split) out[key] = UsageSeconds(micros);
  return out;
}

absl::StatusOr<json> Aggregated(MasterContext& ctx, const HttpRequest& req) {
  constexpr char kDate[] = "a date as YYYY-MM-DD (UTC)";
  ASSIGN_OR_RETURN(std::string start_text, RequiredQuery(req, "start_date", "startDate", kDate));
  ASSIGN_OR_RETURN(std::string end_text, RequiredQuery(req, "end_date", "endDate", kDate));
  ASSIGN_OR_RETURN(absl::CivilDay first, ParseUsageDate("startDate", start_text));
  ASSIGN_OR_RETURN(absl::CivilDay last, ParseUsageDate("endDate", end_text));
  if (last < first) return absl::InvalidArgumentError("endDate: must not be before startDate");
  ASSIGN_OR_RETURN(UsagePeriod period, ParseUsagePeriod(req.Query("period").value_or("")));
  ASSIGN_OR_RETURN(std::vector<UsageRecord> records, RecordsIn(ctx, req, DaysWindow(first, last)));
  json entries = json::array();
  for (const UsageBucket& b :
       AggregateUsage(records, first, last, period, std::chrono::system_clock::now())) {
    entries.push_back({{"periodStart", absl::FormatCivilTime(b.period_start)},
                       {"period", UsagePeriodName(period)},
                       {"seconds", UsageSeconds(b.slot_micros)},
                       {"byUsername", SecondsMap(b.by_username)},
                       {"byExperimentLabel", SecondsMap(b.by_label)},
                       {"byResourcePool", SecondsMap(b.by_pool)},
                       {"byWorkspace", SecondsMap(b.by_workspace)},
                       {"byTaskType", SecondsMap(b.by_kind)}});
  }
  return json{{"resourceEntries", entries}};
}

}  // namespace

void RegisterResourceUsageRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/resources/allocation/raw", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, Raw(ctx, req)); });
  router.Add("GET", "/api/v1/resources/allocation/aggregated", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, Aggregated(ctx, req)); });
}

}  // namespace det::master
