#include "cli/job_ops.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/format.h"
#include "cli/paging.h"
#include "cli/session.h"

namespace det::cli {
namespace {

using nlohmann::json;

// The pool's scheduler type; `pool` "" = the default compute pool.
absl::StatusOr<std::string> SchedulerTypeOf(Session& session, const std::string& pool) {
  absl::StatusOr<json> pools = GetAllPages(session, "/api/v1/resource-pools", "resourcePools");
  if (!pools.ok()) return pools.status();
  std::vector<std::string> names;
  for (const json& p : *pools) {
    const json& is_default = Field(p, "defaultComputePool");
    if (pool.empty() ? is_default.is_boolean() && is_default.get<bool>() : Str(p, "name") == pool) {
      return Str(p, "schedulerType");
    }
    names.push_back(Str(p, "name"));
  }
  if (pool.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the cluster has no default compute pool; pick one with --resource-pool (",
                     absl::StrJoin(names, ", "), ")"));
  }
  return absl::NotFoundError(absl::StrCat(
      "resource pool \"", pool, "\" not found; the pools are: ", absl::StrJoin(names, ", ")));
}

std::string IntText(const json& v) {
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return PythonFloat(v.get<double>());
  return Cell(v);
}

std::string Describe(const UpdateJobArgs& a) {
  if (a.priority) return absl::StrCat("priority ", *a.priority);
  if (a.weight) return absl::StrCat("weight ", PythonFloat(*a.weight));
  if (a.resource_pool) return absl::StrCat("moved to resource pool ", *a.resource_pool);
  if (a.ahead_of) return absl::StrCat("moved ahead of job ", *a.ahead_of);
  return absl::StrCat("moved behind job ", a.behind_of.value_or(""));
}

}  // namespace

std::string PythonFloat(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e16) {
    return absl::StrCat(static_cast<int64_t>(v), ".0");
  }
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

Table JobTable(const json& jobs, bool priority_scheduler) {
  Table t({"#", "ID", "Type", "Job Name", priority_scheduler ? "Priority" : "Weight", "Submitted",
           "Slots (acquired/needed)", "Status", "User"});
  if (!jobs.is_array()) return t;
  for (const json& j : jobs) {
    const json& summary = Field(j, "summary");
    const json& ahead = Field(summary, "jobsAhead");
    std::string position = ahead.is_number() && ahead.get<int64_t>() > -1 ? IntText(ahead) : "N/A";
    std::string name = Str(j, "name");
    if (Str(j, "type") == "TYPE_EXPERIMENT")
      name = absl::StrCat(name, " (", Str(j, "entityId"), ")");
    std::string order = priority_scheduler ? IntText(Field(j, "priority"))
                                           : (Field(j, "weight").is_number()
                                                  ? PythonFloat(Field(j, "weight").get<double>())
                                                  : Cell(Field(j, "weight")));
    std::string status = summary.is_object() ? Str(summary, "state") : "N/A";
    // Where the resource manager knows why a job waits (Slurm): said beside its state.
    if (std::string reason = Str(j, "pendingReason"); !reason.empty()) absl::StrAppend(&status, " (", reason, ")");
    t.AddRow({position, Str(j, "jobId"), Str(j, "type"), name, order,
              FormatTime(Field(j, "submissionTime")),
              absl::StrCat(IntText(Field(j, "allocatedSlots")), "/",
                           IntText(Field(j, "requestedSlots"))),
              status, Str(j, "username")});
  }
  return t;
}

absl::StatusOr<int> ListJobs(Session& session, const ListJobsArgs& args, std::ostream& out) {
  absl::StatusOr<std::string> scheduler = SchedulerTypeOf(session, args.resource_pool);
  if (!scheduler.ok()) return scheduler.status();
  std::string path = "/api/v1/job-queues-v2";
  if (!args.resource_pool.empty()) path = AddQuery(path, "resourcePool", args.resource_pool);
  path = AddQuery(path, "orderBy", args.reverse ? "ORDER_BY_DESC" : "ORDER_BY_ASC");
  absl::StatusOr<json> rbac_jobs =
      GetAllPages(session, path, "jobs", args.offset, args.limit, args.pages);
  if (!rbac_jobs.ok()) return rbac_jobs.status();
  json jobs = json::array();
  for (const json& j : *rbac_jobs) {
    const json& full = Field(j, "full");
    jobs.push_back(full.is_object() ? full : Field(j, "limited"));
  }
  if (args.format == OutputFormat::kJson) {
    out << json{{"jobs", jobs}}.dump(4) << "\n";
    return 0;
  }
  out << Render(JobTable(jobs, *scheduler == "SCHEDULER_TYPE_PRIORITY"), args.format);
  return 0;
}

absl::StatusOr<json> QueueControl(const UpdateJobArgs& args) {
  if (args.job_id.empty()) {
    return absl::InvalidArgumentError("name the job to update (`det job list` shows the job IDs)");
  }
  int set = args.priority.has_value() + args.weight.has_value() + args.resource_pool.has_value() +
            args.ahead_of.has_value() + args.behind_of.has_value();
  if (set != 1) {
    return absl::InvalidArgumentError(
        "give exactly one of --priority, --weight, --resource-pool, --ahead-of or --behind-of");
  }
  json control = {{"jobId", args.job_id}};
  if (args.priority) control["priority"] = *args.priority;
  if (args.weight) control["weight"] = *args.weight;
  if (args.resource_pool) control["resourcePool"] = *args.resource_pool;
  if (args.ahead_of) control["aheadOf"] = *args.ahead_of;
  if (args.behind_of) control["behindOf"] = *args.behind_of;
  return control;
}

absl::StatusOr<int> UpdateJob(Session& session, const UpdateJobArgs& args, std::ostream& out) {
  absl::StatusOr<json> control = QueueControl(args);
  if (!control.ok()) return control.status();
  absl::StatusOr<json> resp =
      session.Post("/api/v1/job-queues", json{{"updates", json::array({*control})}});
  if (!resp.ok()) return resp.status();
  out << "Updated job " << args.job_id << ": " << Describe(args) << "\n";
  return 0;
}

}  // namespace det::cli
