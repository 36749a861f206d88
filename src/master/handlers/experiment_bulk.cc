// Upstream's bulk experiment actions of a project (project_bulk.h picks the experiments: `experimentIds`
// or `filters`; project -1 is every project):
//   POST /api/v1/projects/{id}/experiments/{activate,pause,cancel,kill,archive,unarchive}
//   DELETE /api/v1/projects/{id}/experiments/delete
// Each answers {results: [{error, id}]}, "" where the action succeeded; one experiment's failure does
// not stop the others. The experiment rules apply to each (experiment_rules.h), with a bulk action's
// own: as upstream's, a state change of an experiment that has ended is an error in its result.
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "master/experiment_rules.h"
#include "master/handlers/experiment_access.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/project_bulk.h"
#include "master/handlers/routes.h"
#include "master/task/authz.h"

namespace det::master {
namespace {

using nlohmann::json;

// The path's project: a project id, or kAllProjects (-1).
absl::StatusOr<int64_t> BulkProjectId(const HttpRequest& req) {
  auto it = req.path_params.find("project_id");
  if (it != req.path_params.end() && it->second == absl::StrCat(kAllProjects)) return kAllProjects;
  return PathId(req, "project_id");
}

absl::StatusOr<std::vector<BulkTarget>> Targets(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t project_id, BulkProjectId(req));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> visible,
                   VisibleWorkspaces(*req.principal, rbac::Permission::kViewExperimentMetadata));
  return ProjectBulkTargets(ctx.store, project_id, body, visible);
}

// The results of state changes that end on the cluster's loop: the reply goes once the last has.
class PendingResults {
 public:
  PendingResults(std::vector<BulkTarget> targets, ResponderPtr r)
      : targets_(std::move(targets)), waiting_(targets_.size()), r_(std::move(r)) {}

  // Records target `i`'s outcome; the last one replies. Safe from any thread.
  void Done(size_t i, absl::Status status) {
    bool last = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      targets_[i].status = std::move(status);
      last = --waiting_ == 0;
    }
    if (last) ReplyJson(r_, BulkResults(targets_));
  }

 private:
  std::mutex mu_;
  std::vector<BulkTarget> targets_;
  size_t waiting_;
  ResponderPtr r_;
};

// The state changes: those of live experiments end on the cluster's loop, whose last callback replies.
absl::Status ChangeStates(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r,
                          api::ExperimentState target) {
  if (!req.principal->allocation_id.empty()) {
    return absl::PermissionDeniedError("tasks cannot change experiment states");
  }
  ASSIGN_OR_RETURN(std::vector<BulkTarget> targets, Targets(ctx, req));
  if (targets.empty()) {
    Reply(r, json{{"results", json::array()}});
    return absl::OkStatus();
  }
  // Copies: once the last change is dispatched, its callback may reply (and take the targets) at once.
  const std::vector<BulkTarget> all = targets;
  auto pending = std::make_shared<PendingResults>(std::move(targets), r);
  for (size_t i = 0; i < all.size(); ++i) {
    const BulkTarget& t = all[i];
    if (!t.status.ok()) {
      pending->Done(i, t.status);
      continue;
    }
    absl::StatusOr<api::Experiment> stored = ExperimentForChange(ctx.store, req, t.id, rbac::Permission::kUpdateExperiment);
    if (!stored.ok()) {
      pending->Done(i, stored.status());
    } else if (std::optional<absl::Status> ended =
                   StateChangeOfEndedExperiment(t.id, stored->state, target, StateChangeScope::kBulk)) {
      pending->Done(i, *ended);
    } else {
      ctx.cluster.SetExperimentState(t.id, target, [pending, i](absl::Status st) { pending->Done(i, st); });
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<json> Archive(MasterContext& ctx, const HttpRequest& req, bool archived) {
  ASSIGN_OR_RETURN(std::vector<BulkTarget> targets, Targets(ctx, req));
  return RunBulk(std::move(targets), [&](int64_t id) {
    RETURN_IF_ERROR(ExperimentForChange(ctx.store, req, id, rbac::Permission::kUpdateExperimentMetadata).status());
    return ArchiveExperiment(ctx.store, id, archived);
  });
}

absl::StatusOr<json> Delete(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(std::vector<BulkTarget> targets, Targets(ctx, req));
  return RunBulk(std::move(targets), [&](int64_t id) {
    RETURN_IF_ERROR(ExperimentForChange(ctx.store, req, id, rbac::Permission::kDeleteExperiment).status());
    RETURN_IF_ERROR(StartDeletingExperiment(ctx.store, id));
    ctx.cluster.DeleteExperiment(id);
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterExperimentBulkRoutes(Router& router, MasterContext& ctx) {
  for (auto [verb, target] : std::vector<std::pair<std::string, api::ExperimentState>>{
           {"activate", api::ExperimentState::kActive},
           {"pause", api::ExperimentState::kPaused},
           {"cancel", api::ExperimentState::kStoppingCanceled},
           {"kill", api::ExperimentState::kStoppingKilled}}) {
    router.Add("POST", "/api/v1/projects/{project_id}/experiments/" + verb, Access::kAuthenticated,
               [&ctx, target = target](HttpRequest& req, ResponderPtr r) {
                 ReplyIfError(r, ChangeStates(ctx, req, r, target));
               });
  }
  for (auto [verb, archived] : std::vector<std::pair<std::string, bool>>{{"archive", true}, {"unarchive", false}}) {
    router.Add("POST", "/api/v1/projects/{project_id}/experiments/" + verb, Access::kAuthenticated,
               [&ctx, archived = archived](HttpRequest& req, ResponderPtr r) { Reply(r, Archive(ctx, req, archived)); });
  }
  router.Add("DELETE", "/api/v1/projects/{project_id}/experiments/delete", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, Delete(ctx, req)); });
}

}  // namespace det::master
