// What a running trial reports besides metrics: progress, early exit, status text; and the experiment's
// best validation so far (core.train.get_experiment_best_validation).
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/handlers/task_access.h"
#include "master/metric_summary.h"

namespace det::master {
namespace {

using nlohmann::json;

constexpr const char* kEarlyExitReasons[] = {"EXITED_REASON_UNSPECIFIED", "EXITED_REASON_INVALID_HP",
                                             "EXITED_REASON_INIT_INVALID_HP"};

// Parses the trial id and body and checks ownership; on error replies and returns nullopt.
std::optional<std::pair<int64_t, json>> Prepare(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  absl::StatusOr<int64_t> id = PathId(req, "trial_id");
  if (!id.ok()) return ReplyError(r, id.status()), std::nullopt;
  absl::StatusOr<json> body = JsonBody(req);
  if (!body.ok()) return ReplyError(r, body.status()), std::nullopt;
  if (absl::Status st = ctx.store.GetTrial(*id).status(); !st.ok()) return ReplyError(r, st), std::nullopt;
  if (absl::Status st = CheckTaskOwnsTrial(ctx.trial_facts, req, *id); !st.ok()) return ReplyError(r, st), std::nullopt;
  return std::make_pair(*id, std::move(*body));
}

std::function<void(absl::Status)> EmptyReply(ResponderPtr r) {
  return [r](absl::Status st) {
    if (!st.ok()) return ReplyError(r, st);
    ReplyJson(r, json::object());
  };
}

// POST /api/v1/runs/start (upstream's RunPrepareForReporting, which upstream's Core API calls before it
// reports): the trial (a "run") names the checkpoint storage it will write to; the reply is that
// storage's id, which its checkpoints then carry (storageId is a proto3 optional: absent without one).
absl::StatusOr<json> PrepareRunForReporting(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* run = api::FindField(body, "run_id");
  if (run == nullptr || run->is_null()) return absl::InvalidArgumentError("runId is required: the trial's id");
  ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(*run, "runId"));
  RETURN_IF_ERROR(ctx.store.GetTrial(id).status());
  RETURN_IF_ERROR(CheckTaskOwnsTrial(ctx.trial_facts, req, id));
  const json* storage = api::FindField(body, "checkpoint_storage");
  if (storage == nullptr || storage->is_null()) return json::object();
  if (!storage->is_object()) return absl::InvalidArgumentError("checkpointStorage must be a JSON object");
  ASSIGN_OR_RETURN(int64_t storage_id, ctx.store.CheckpointStorageId(storage->dump()));
  return json{{"storageId", storage_id}};
}

}  // namespace

void RegisterTrialReportRoutes(Router& router, MasterContext& ctx) {
  router.Add("POST", "/api/v1/runs/start", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, PrepareRunForReporting(ctx, req)); });
  router.Add("POST", "/api/v1/trials/{trial_id}/progress", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    auto in = Prepare(ctx, req, r);
    if (!in) return;
    const json* p = api::FindField(in->second, "progress");
    if (p == nullptr || !p->is_number() || p->get<double>() < 0 || p->get<double>() > 1) {
      return ReplyError(r, absl::InvalidArgumentError("progress must be a number between 0 and 1"));
    }
    ctx.cluster.ReportProgress(in->first, p->get<double>(), EmptyReply(r));
  });
  router.Add("POST", "/api/v1/trials/{trial_id}/early_exit", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    auto in = Prepare(ctx, req, r);
    if (!in) return;
    const json* early = api::FindField(in->second, "early_exit");
    std::string reason = api::StringField(early != nullptr ? *early : in->second, "reason");
    if (std::find(std::begin(kEarlyExitReasons), std::end(kEarlyExitReasons), reason) == std::end(kEarlyExitReasons)) {
      return ReplyError(r, absl::InvalidArgumentError(absl::StrCat(
                               "reason \"", reason, "\" is not one of EXITED_REASON_UNSPECIFIED, "
                               "EXITED_REASON_INVALID_HP, EXITED_REASON_INIT_INVALID_HP")));
    }
    ctx.cluster.ReportEarlyExit(in->first, reason, EmptyReply(r));
  });
  router.Add("POST", "/api/v1/trials/{trial_id}/runner/metadata", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               auto in = Prepare(ctx, req, r);
               if (!in) return;
               const json* md = api::FindField(in->second, "metadata");
               std::string state = api::StringField(md != nullptr ? *md : in->second, "state");
               ctx.cluster.SetRunnerState(in->first, state, EmptyReply(r));
             });
  router.Add("GET", "/api/v1/experiments/{experiment_id}/searcher/best_searcher_validation_metric",
             Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
               absl::StatusOr<int64_t> id = PathId(req, "experiment_id");
               if (!id.ok()) return ReplyError(r, id.status());
               absl::StatusOr<api::Experiment> exp = ctx.store.GetExperiment(*id);
               if (!exp.ok()) return ReplyError(r, exp.status());
               absl::StatusOr<std::vector<api::Trial>> trials = ctx.store.ListTrials(*id);
               if (!trials.ok()) return ReplyError(r, trials.status());
               std::optional<double> best;
               for (const api::Trial& t : *trials) {
                 if (t.searcher_metric_value && IsBetterMetric(*t.searcher_metric_value, best, exp->smaller_is_better)) {
                   best = t.searcher_metric_value;
                 }
               }
               if (!best) {
                 return ReplyError(r, absl::NotFoundError(absl::StrCat("experiment ", *id, " has no validation metrics yet")));
               }
               ReplyJson(r, {{"metric", *best}});
             });
}

}  // namespace det::master
