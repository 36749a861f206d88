// POST /api/v1/preview-hp-search: what the searcher of a config will do, without running anything.
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "config/experiment_config.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "searcher/preview.h"

namespace det::master {
namespace {

using nlohmann::json;

// Upstream's SearchSummary.trials: how many trials train for how long, longest last.
json TrialSummaries(const json& preview, const json& searcher) {
  json out = json::array();
  std::string unit = searcher.value("time_metric", "");
  if (const json& brackets = preview.value("brackets", json()); brackets.is_array()) {
    for (const json& bracket : brackets) {
      const json& rungs = bracket.value("rungs", json::array());
      for (size_t i = 0; i < rungs.size(); ++i) {
        int64_t reach = rungs[i].value("trials", 0);
        int64_t next = i + 1 < rungs.size() ? rungs[i + 1].value("trials", 0) : 0;
        if (reach - next <= 0) continue;
        out.push_back({{"count", reach - next},
                       {"unit", {{"name", unit}, {"value", rungs[i].value("units", 0)}, {"maxLength", false}}}});
      }
    }
    return out;
  }
  out.push_back({{"count", preview.value("trials", 0)}, {"unit", {{"name", nullptr}, {"value", 0}, {"maxLength", true}}}});
  return out;
}

absl::StatusOr<json> Preview(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* config = api::FindField(body, "config");
  if (config == nullptr || !(config->is_object() || config->is_string())) {
    return absl::InvalidArgumentError("config is required: the experiment configuration (an object or YAML text)");
  }
  std::string yaml = config->is_string() ? config->get<std::string>() : ToYaml(*config);
  ASSIGN_OR_RETURN(config::ExperimentConfig parsed,
                   config::ParseExperimentConfig(
                       yaml, {.checkpoint_storage_json = ctx.default_checkpoint_storage_json, .seed = 0, .name = "preview"}));
  json full = json::parse(parsed.full_json);
  ASSIGN_OR_RETURN(json preview, searcher::PreviewSearch(full));
  return json{{"summary", {{"config", full["searcher"]}, {"trials", TrialSummaries(preview, full["searcher"])}}},
              {"preview", preview}};
}

}  // namespace

void RegisterPreviewSearchRoutes(Router& router, MasterContext& ctx) {
  router.Add("POST", "/api/v1/preview-hp-search", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, Preview(ctx, req)); });
}

}  // namespace det::master
