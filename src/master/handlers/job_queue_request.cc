#include "master/handlers/job_queue_request.h"
#include "master/task/authz.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/wire.h"
#include "common/status_macros.h"
#include "common/time_util.h"
#include "master/handlers/handler_util.h"

namespace det::master {
namespace {

using nlohmann::json;

constexpr const char* kActions = "priority, weight, resourcePool, aheadOf or behindOf";

absl::StatusOr<std::string> ParseJobState(const std::string& raw) {
  static const char* kNames[] = {"STATE_UNSPECIFIED", "STATE_QUEUED", "STATE_SCHEDULED",
                                 "STATE_SCHEDULED_BACKFILLED"};
  for (int i = 0; i < 4; ++i) {
    if (raw == kNames[i] || raw == std::string(kNames[i]).substr(6) || raw == std::to_string(i)) {
      return std::string(kNames[i]);
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "states: expected STATE_QUEUED, STATE_SCHEDULED or STATE_SCHEDULED_BACKFILLED, got \"", raw,
      "\""));
}

// `status` with `prefix` before its message ("updates[1]: ", "resources.").
absl::Status Prefixed(const absl::Status& status, const std::string& prefix) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
}

absl::StatusOr<QueueUpdate> ParseQueueControl(const json& control) {
  if (!control.is_object()) return absl::InvalidArgumentError("expected a QueueControl object");
  QueueUpdate u;
  ASSIGN_OR_RETURN(std::optional<std::string> job_id, api::OptionalStringField(control, "job_id"));
  if (!job_id || job_id->empty()) {
    return absl::InvalidArgumentError("jobId: required (the job to change; `det job list` shows the ids)");
  }
  u.job_id = *job_id;
  JobChange& c = u.change;
  if (const json* p = api::FindField(control, "priority")) {
    ASSIGN_OR_RETURN(c.priority, api::ReadInt32(*p, "priority"));
  }
  if (const json* w = api::FindField(control, "weight")) {
    ASSIGN_OR_RETURN(c.weight, api::ReadDouble(*w, "weight"));
  }
  ASSIGN_OR_RETURN(c.resource_pool, api::OptionalStringField(control, "resource_pool"));
  ASSIGN_OR_RETURN(c.ahead_of, api::OptionalStringField(control, "ahead_of"));
  ASSIGN_OR_RETURN(c.behind_of, api::OptionalStringField(control, "behind_of"));
  int actions = c.priority.has_value() + c.weight.has_value() + c.resource_pool.has_value() +
                c.ahead_of.has_value() + c.behind_of.has_value();
  if (actions == 0) {
    return absl::InvalidArgumentError(absl::StrCat("no action for job ", u.job_id, ": set one of ", kActions));
  }
  if (actions > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("several actions for job ", u.job_id, ": set only one of ", kActions,
                     " per update (send several updates to change several things)"));
  }
  RETURN_IF_ERROR(ValidateJobChange(c));
  if ((c.ahead_of && *c.ahead_of == u.job_id) || (c.behind_of && *c.behind_of == u.job_id)) {
    return absl::InvalidArgumentError(absl::StrCat("job ", u.job_id, " cannot be moved relative to itself"));
  }
  return u;
}

}  // namespace

absl::StatusOr<JobListQuery> ParseJobListQuery(const HttpRequest& request) {
  JobListQuery q;
  ASSIGN_OR_RETURN(q.offset, QueryInt(request, "offset", 0));
  ASSIGN_OR_RETURN(q.limit, QueryInt(request, "limit", 0));
  q.resource_pool = request.Query("resource_pool").value_or("");
  ASSIGN_OR_RETURN(q.descending, QueryOrderDescending(request));
  for (const std::string& raw : request.QueryAll("states")) {
    ASSIGN_OR_RETURN(std::string state, ParseJobState(raw));
    if (state == "STATE_UNSPECIFIED") continue;
    if (std::find(q.states.begin(), q.states.end(), state) == q.states.end())
      q.states.push_back(state);
  }
  return q;
}

std::vector<JobInfo> SelectJobs(const std::vector<JobInfo>& jobs, const std::string& pool,
                                const JobListQuery& query) {
  std::vector<JobInfo> out;
  for (const JobInfo& j : jobs) {
    if (j.resource_pool != pool) continue;
    if (!query.states.empty() &&
        std::find(query.states.begin(), query.states.end(), j.state) == query.states.end()) {
      continue;
    }
    out.push_back(j);
  }
  if (query.descending) std::reverse(out.begin(), out.end());
  return out;
}

json JobSummaryJson(const JobInfo& job) {
  return {{"state", job.state}, {"jobsAhead", job.jobs_ahead}};
}

json JobJson(const JobInfo& job) {
  json out = {{"summary", JobSummaryJson(job)},
          {"type", job.type},
          {"submissionTime", FormatRfc3339(job.submission_time)},
          {"username", job.username},
          {"userId", job.user_id},
          {"resourcePool", job.resource_pool},
          {"isPreemptible", job.preemptible},
          {"priority", job.priority},
          {"weight", job.weight},
          {"entityId", job.entity_id},
          {"jobId", job.job_id},
          {"requestedSlots", job.requested_slots},
          {"allocatedSlots", job.allocated_slots},
          {"name", job.name},
          {"progress", job.progress},
          {"workspaceId", job.workspace_id}};
  // Not in upstream's v1Job (its clients ignore it): why the resource manager says the job waits.
  if (!job.pending_reason.empty()) out["pendingReason"] = job.pending_reason;
  return out;
}

json LimitedJobJson(const JobInfo& job) {
  json full = JobJson(job);
  json limited = json::object();
  for (const char* field : {"summary", "type", "resourcePool", "isPreemptible", "priority", "weight", "jobId",
                            "requestedSlots", "allocatedSlots", "progress", "workspaceId"}) {
    limited[field] = std::move(full[field]);
  }
  return limited;
}

absl::StatusOr<std::vector<QueueUpdate>> ParseQueueUpdates(const json& body) {
  const json* updates = api::FindField(body, "updates");
  if (updates == nullptr || !updates->is_array() || updates->empty()) {
    return absl::InvalidArgumentError(
        "updates: expected a non-empty list of QueueControl {jobId, and one of priority, weight, "
        "resourcePool, aheadOf, behindOf}");
  }
  std::vector<QueueUpdate> out;
  std::vector<absl::Status> errors;
  for (size_t i = 0; i < updates->size(); ++i) {
    absl::StatusOr<QueueUpdate> u = ParseQueueControl((*updates)[i]);
    if (u.ok()) {
      out.push_back(std::move(*u));
    } else {
      errors.push_back(Prefixed(u.status(), absl::StrCat("updates[", i, "]: ")));
    }
  }
  RETURN_IF_ERROR(JoinErrors(errors));
  return out;
}

absl::StatusOr<std::optional<JobChange>> ParseResourcesPatch(const json& body) {
  const json* r = api::FindField(body, "resources");
  if (r == nullptr) return std::optional<JobChange>();
  if (!r->is_object()) {
    return absl::InvalidArgumentError(
        "resources: expected an object {priority, weight, max_slots}");
  }
  JobChange c;
  if (const json* p = api::FindField(*r, "priority")) {
    ASSIGN_OR_RETURN(c.priority, api::ReadInt32(*p, "resources.priority"));
  }
  if (const json* w = api::FindField(*r, "weight")) {
    ASSIGN_OR_RETURN(c.weight, api::ReadDouble(*w, "resources.weight"));
  }
  if (const json* m = api::FindField(*r, "max_slots")) {
    ASSIGN_OR_RETURN(c.max_slots, api::ReadInt32(*m, "resources.max_slots"));
  }
  for (const auto& [key, value] : r->items()) {
    if (value.is_null()) continue;
    if (key != "priority" && key != "weight" && key != "max_slots" && key != "maxSlots") {
      return absl::InvalidArgumentError(absl::StrCat(
          "resources.", key, ": cannot be changed; only priority, weight and max_slots can"));
    }
  }
  if (!c.priority && !c.weight && !c.max_slots) return std::optional<JobChange>();
  RETURN_IF_ERROR(Prefixed(ValidateJobChange(c), "resources."));
  return std::optional<JobChange>(c);
}

absl::Status JoinErrors(const std::vector<absl::Status>& errors) {
  if (errors.empty()) return absl::OkStatus();
  if (errors.size() == 1) return errors[0];
  std::vector<std::string> messages;
  for (const absl::Status& e : errors) messages.emplace_back(e.message());
  return absl::Status(errors[0].code(), absl::StrCat("encountered the following errors: ",
                                                     absl::StrJoin(messages, ", ")));
}

absl::Status CheckCanModifyJob(const Principal& who, const JobInfo& job) {
  return DefaultAuthz().Check(who, rbac::Permission::kUpdateExperiment,
                              {"job", job.job_id, job.user_id, job.workspace_id});
}

absl::Status CheckQueueControl(bool strict, const Principal& who, const JobChange& change) {
  if (!strict || (!change.priority && !change.weight && !change.ahead_of && !change.behind_of)) return absl::OkStatus();
  return DefaultAuthz().CheckCluster(who, rbac::Permission::kControlStrictJobQueue,
                                     "change priorities or the queue's order (security.authz.strict_job_queue_control)");
}

absl::StatusOr<JobInfo> FindJob(const std::vector<JobInfo>& jobs, const std::string& job_id) {
  for (const JobInfo& j : jobs) {
    if (j.job_id == job_id) return j;
  }
  return absl::NotFoundError(
      absl::StrCat("job \"", job_id,
                   "\" not found among the queued and running jobs; `det job list` shows them"));
}

}  // namespace det::master
