// POST /api/v1/preview-hp-search: what the searcher of a config will do, without running anything.
#include <nlohmann/json.hpp>

#include "api/wire.h"
#include "common/status_macros.h"
#include "config/experiment_config.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "searcher/preview.h"

namespace det::master {
namespace {

using nlohmann::json;

absl::StatusOr<json> Preview(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* config = api::FindField(body, "config");
  if (config == nullptr || !(config->is_object() || config->is_string())) {
    return absl::InvalidArgumentError("config is required: the experiment configuration (an object or YAML text)");
  }
  config::ExperimentDefaults defaults{
      .checkpoint_storage_json = ctx.default_checkpoint_storage_json, .seed = 0, .name = "preview"};
  ASSIGN_OR_RETURN(config::ExperimentConfig parsed,
                   config->is_string() ? config::ParseExperimentConfig(config->get<std::string>(), defaults)
                                       : config::ParseExperimentConfigJson(*config, defaults));
  json full = json::parse(parsed.full_json);
  ASSIGN_OR_RETURN(json preview, searcher::PreviewSearch(full));
  return json{{"summary", {{"config", full["searcher"]}, {"trials", searcher::SearchSummaryTrials(preview, parsed.time_metric)}}},
              {"preview", preview}};
}

}  // namespace

void RegisterPreviewSearchRoutes(Router& router, MasterContext& ctx) {
  router.Add("POST", "/api/v1/preview-hp-search", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, Preview(ctx, req)); });
}

}  // namespace det::master
