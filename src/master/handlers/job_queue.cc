// The job queue (reference §1e): GET /api/v1/job-queues (v1: jobs[] of Job, those the caller may
// see), GET /api/v1/job-queues-v2 (jobs[] of {"full": Job}, or {"limited": LimitedJob} for a job the
// caller may not see) and POST /api/v1/job-queues (QueueControl updates). Unlike upstream 0.38, aheadOf/behindOf are carried
// out (the product docs promise them). Updates are all checked (input, jobs, permissions) before
// any is applied; then they are applied in order and their errors joined.
#include <memory>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/job_queue_request.h"
#include "master/handlers/page.h"
#include "master/handlers/resource_pool_json.h"
#include "master/handlers/routes.h"
#include "master/task/authz.h"

namespace det::master {
namespace {

using nlohmann::json;

// Which jobs a caller sees in full: those of workspaces where it may view experiments or tasks
// (upstream's rule).
struct JobSight {
  rbac::Reach experiments;
  rbac::Reach tasks;

  bool Full(const JobInfo& job) const {
    return experiments.Covers(job.workspace_id) || tasks.Covers(job.workspace_id);
  }
};

absl::StatusOr<JobSight> SightOf(const Principal& who) {
  JobSight sight;
  ASSIGN_OR_RETURN(sight.experiments, DefaultAuthz().ReachOf(who, rbac::Permission::kViewExperimentMetadata));
  ASSIGN_OR_RETURN(sight.tasks, DefaultAuthz().ReachOf(who, rbac::Permission::kViewNsc));
  return sight;
}

// The cluster's job list (after its pools: `resourcePool` must name one) replies.
absl::Status ListJobs(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r, bool v2) {
  ASSIGN_OR_RETURN(JobListQuery q, ParseJobListQuery(req));
  ASSIGN_OR_RETURN(JobSight sight, SightOf(*req.principal));
  ctx.cluster.ListResourcePools([&ctx, r, v2, q, sight](std::vector<PoolSummary> pools) {
    ReplyIfError(r, [&]() -> absl::Status {
      ASSIGN_OR_RETURN(std::string pool, ResolvePoolName(pools, q.resource_pool));
      ctx.cluster.ListJobs([r, v2, q, pool, sight](std::vector<JobInfo> all) {
        std::vector<JobInfo> jobs = SelectJobs(all, pool, q);
        if (!v2) std::erase_if(jobs, [&](const JobInfo& job) { return !sight.Full(job); });
        int64_t total = static_cast<int64_t>(jobs.size());
        PageRange range = PageOf(total, q.offset, q.limit);
        json out = json::array();
        for (int64_t i = range.begin; i < range.end; ++i) {
          const JobInfo& job = jobs[static_cast<size_t>(i)];
          if (!v2) {
            out.push_back(JobJson(job));
          } else {
            out.push_back(sight.Full(job) ? json{{"full", JobJson(job)}} : json{{"limited", LimitedJobJson(job)}});
          }
        }
        ReplyJson(r, {{"jobs", out}, {"pagination", PagePagination(q.offset, q.limit, range, total)}});
      });
      return absl::OkStatus();
    }());
  });
  return absl::OkStatus();
}

// Every update names a live job the caller may change, a pool that exists, and a live job to move
// relative to.
absl::Status CheckUpdates(const std::vector<QueueUpdate>& updates, const std::vector<JobInfo>& jobs,
                          const std::vector<PoolSummary>& pools, const Principal& who, bool strict) {
  std::vector<absl::Status> errors;
  for (size_t i = 0; i < updates.size(); ++i) {
    const QueueUpdate& u = updates[i];
    std::string where = updates.size() > 1 ? absl::StrCat("updates[", i, "]: ") : "";
    absl::StatusOr<JobInfo> job = FindJob(jobs, u.job_id);
    absl::Status st = job.ok() ? CheckCanModifyJob(who, *job) : job.status();
    if (st.ok()) st = CheckQueueControl(strict, who, u.change);
    if (st.ok() && u.change.resource_pool)
      st = ResolvePoolName(pools, *u.change.resource_pool).status();
    for (const auto* other : {&u.change.ahead_of, &u.change.behind_of}) {
      if (st.ok() && *other) st = FindJob(jobs, **other).status();
    }
    if (!st.ok()) errors.push_back(absl::Status(st.code(), absl::StrCat(where, st.message())));
  }
  return JoinErrors(errors);
}

struct UpdateRun {
  Cluster* cluster = nullptr;
  std::vector<QueueUpdate> updates;
  std::vector<absl::Status> errors;
  ResponderPtr responder;
};

// Applies updates[i..] one after the other, then replies {} or their errors joined.
void ApplyFrom(std::shared_ptr<UpdateRun> run, size_t i) {
  if (i == run->updates.size()) {
    return Reply(run->responder, [&]() -> absl::StatusOr<json> {
      RETURN_IF_ERROR(JoinErrors(run->errors));
      return json::object();
    }());
  }
  const QueueUpdate& u = run->updates[i];
  run->cluster->UpdateJob(u.job_id, u.change, [run, i](absl::Status st) {
    if (!st.ok()) run->errors.push_back(st);
    ApplyFrom(run, i + 1);
  });
}

// Every update is checked against the cluster's pools and jobs before any is applied.
absl::Status UpdateJobQueue(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(std::vector<QueueUpdate> updates, ParseQueueUpdates(body));
  auto run = std::make_shared<UpdateRun>();
  run->cluster = &ctx.cluster;
  run->updates = std::move(updates);
  run->responder = r;
  Principal who = *req.principal;
  const bool strict = ctx.config.security.authz.strict_job_queue_control;
  ctx.cluster.ListResourcePools([&ctx, run, who, strict](std::vector<PoolSummary> pools) {
    ctx.cluster.ListJobs([run, who, strict, pools = std::move(pools)](std::vector<JobInfo> jobs) {
      ReplyIfError(run->responder, [&]() -> absl::Status {
        RETURN_IF_ERROR(CheckUpdates(run->updates, jobs, pools, who, strict));
        ApplyFrom(run, 0);
        return absl::OkStatus();
      }());
    });
  });
  return absl::OkStatus();
}

}  // namespace

void RegisterJobQueueRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/job-queues", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, ListJobs(ctx, req, r, /*v2=*/false)); });
  router.Add("GET", "/api/v1/job-queues-v2", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, ListJobs(ctx, req, r, /*v2=*/true)); });
  router.Add("POST", "/api/v1/job-queues", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, UpdateJobQueue(ctx, req, r)); });
}

}  // namespace det::master
