// GET /api/v1/experiments/{experiment_id}/trials (GetExperimentTrials): filtered by state, sorted and
// paged.
#include <nlohmann/json.hpp>

#include "api/types_json.h"
#include "common/status_macros.h"
#include "master/handlers/experiment_query.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/page.h"
#include "master/handlers/routes.h"
#include "master/trial_list.h"
#include "master/warm_start.h"

namespace det::master {
namespace {

using nlohmann::json;

absl::StatusOr<json> ListExperimentTrials(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "experiment_id"));
  TrialListQuery query{.now = std::chrono::system_clock::now()};
  ASSIGN_OR_RETURN(query.sort, ParseTrialSort(req.Query("sort_by").value_or("")));
  ASSIGN_OR_RETURN(query.descending, QueryOrderDescending(req));
  for (const std::string& raw : req.QueryAll("states")) {
    ASSIGN_OR_RETURN(api::ExperimentState state, ParseExperimentStateQuery(raw));
    query.states.push_back(state);
  }
  ASSIGN_OR_RETURN(int64_t offset, QueryInt(req, "offset", 0));
  ASSIGN_OR_RETURN(int64_t limit, QueryInt(req, "limit", 0));
  ASSIGN_OR_RETURN(api::Experiment experiment, ctx.store.GetExperiment(id));
  query.searcher_metric = experiment.searcher_metric;
  ASSIGN_OR_RETURN(std::vector<api::Trial> trials, ctx.store.ListTrials(id));
  trials = ListTrialsFor(std::move(trials), query);
  int64_t total = static_cast<int64_t>(trials.size());
  PageRange range = PageOf(total, offset, limit);
  json page = json::array();
  std::string warm_start = TrialsWarmStartCheckpoint(ctx.store, ctx.store, experiment);
  for (int64_t i = range.begin; i < range.end; ++i) page.push_back(TrialJson(trials[i], warm_start));
  return json{{"trials", std::move(page)}, {"pagination", PagePagination(offset, limit, range, total)}};
}

}  // namespace

void RegisterExperimentTrialRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/experiments/{experiment_id}/trials", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, ListExperimentTrials(ctx, req)); });
}

}  // namespace det::master
