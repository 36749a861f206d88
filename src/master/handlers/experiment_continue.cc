// POST /api/v1/experiments/continue {id, overrideConfig} (upstream's ContinueExperiment, `det experiment
// continue`): a finished single-trial experiment trains again, its config the stored one under the
// user's overrides (YAML text), its trial resuming from its latest checkpoint.
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/types_json.h"
#include "api/wire.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "config/experiment_config.h"
#include "config/merge.h"
#include "master/experiment_rules.h"
#include "master/handlers/experiment_access.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"

namespace det::master {
namespace {

using nlohmann::json;

absl::StatusOr<ContinuedExperiment> ParseContinueRequest(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* id_field = api::FindField(body, "id");
  if (id_field == nullptr) return absl::InvalidArgumentError("id is required: the experiment to continue");
  ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(*id_field, "id"));
  ASSIGN_OR_RETURN(api::Experiment experiment, ExperimentForChange(ctx.store, req, id, rbac::Permission::kUpdateExperiment));
  json overrides = json::object();
  if (const json* text = api::FindField(body, "override_config"); text != nullptr && !text->is_null()) {
    if (!text->is_string()) return absl::InvalidArgumentError("overrideConfig: expected the overrides as YAML text");
    ASSIGN_OR_RETURN(overrides, ParseYaml(text->get<std::string>()));
    if (overrides.is_null()) overrides = json::object();
    if (!overrides.is_object()) return absl::InvalidArgumentError("overrideConfig: must be a YAML mapping");
  }
  ASSIGN_OR_RETURN(json stored, ParseJson(experiment.config_json));
  ASSIGN_OR_RETURN(json merged, ContinuedConfig(stored, overrides));
  ContinuedExperiment out;
  // The stored config is complete (merged and defaulted): the overrides need no defaults either.
  ASSIGN_OR_RETURN(out.config, config::ParseExperimentConfigJson(merged, {}));
  // The stored config holds every default, deprecated fields' too: the warnings are of what the user
  // set, in the experiment's original config and in these overrides.
  absl::StatusOr<json> original = ParseYaml(experiment.original_config);
  json user_set = original.ok() && original->is_object() ? *original : json::object();
  out.config.warnings = config::ExperimentConfigWarnings(config::MergeExperimentConfig(overrides, user_set));
  ASSIGN_OR_RETURN(std::vector<api::Trial> trials, ctx.store.ListTrials(id));
  ASSIGN_OR_RETURN(out.trial, TrialToContinue(id, std::move(trials)));
  ASSIGN_OR_RETURN(out.task, ctx.store.GetTask(out.trial.task_id));
  out.experiment = std::move(experiment);
  return out;
}

// POST /api/v1/experiments/continue: the cluster continues the experiment; the reply is the
// experiment afterwards, read off the cluster's loop.
absl::Status ContinueExperiment(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  if (!req.principal->allocation_id.empty()) {
    return absl::PermissionDeniedError("tasks cannot continue experiments");
  }
  ASSIGN_OR_RETURN(ContinuedExperiment request, ParseContinueRequest(ctx, req));
  std::vector<std::string> warnings = request.config.warnings;
  LaunchWarnings launch_warnings = request.warnings;
  const int64_t id = request.experiment.id;
  ctx.cluster.ContinueExperiment(
      std::move(request),
      ReplyWithOn(ctx.stream_loop, r, [&ctx, id, warnings, launch_warnings]() -> absl::StatusOr<json> {
        ASSIGN_OR_RETURN(api::Experiment e, ctx.store.GetExperiment(id));
        json resp = {{"experiment", api::ToJson(e)}, {"warnings", *launch_warnings}};
        if (!warnings.empty()) resp["configWarnings"] = warnings;
        return resp;
      }));
  return absl::OkStatus();
}

}  // namespace

void RegisterExperimentContinueRoutes(Router& router, MasterContext& ctx) {
  router.Add("POST", "/api/v1/experiments/continue", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, ContinueExperiment(ctx, req, r)); });
}

}  // namespace det::master
