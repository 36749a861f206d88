// Resource pools (reference §1f): GET /api/v1/resource-pools (offset, limit, unbound: only the pools
// bound to no workspace). Every pool is a static pool of the agent resource manager.
#include <set>
#include <string>
#include <nlohmann/json.hpp>

#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/page.h"
#include "master/handlers/resource_pool_json.h"
#include "master/handlers/routes.h"

namespace det::master {

using nlohmann::json;

namespace {

// GET /api/v1/resource-pools: the cluster's pools (less those bound to a workspace, with `unbound`)
// with their queues; the cluster replies.
absl::Status ListResourcePools(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  ASSIGN_OR_RETURN(int64_t offset, QueryInt(req, "offset", 0));
  ASSIGN_OR_RETURN(int64_t limit, QueryInt(req, "limit", 0));
  std::string cluster_name = ctx.config.resource_manager.cluster_name;
  std::set<std::string> bound;  // read here, off the cluster's loop
  if (QueryBool(req, "unbound")) {
    ASSIGN_OR_RETURN(std::vector<PoolBinding> bindings, ctx.store.ListPoolBindings());
    for (const PoolBinding& b : bindings) bound.insert(b.pool);
  }
  ctx.cluster.ListResourcePools([&ctx, r, offset, limit, cluster_name,
                                 bound = std::move(bound)](std::vector<PoolSummary> pools) {
    std::erase_if(pools, [&bound](const PoolSummary& p) { return bound.contains(p.options.name); });
    ctx.cluster.ListJobs([r, offset, limit, cluster_name,
                          pools = std::move(pools)](std::vector<JobInfo> jobs) {
      int64_t total = static_cast<int64_t>(pools.size());
      PageRange range = PageOf(total, offset, limit);
      json out = json::array();
      for (int64_t i = range.begin; i < range.end; ++i) {
        const PoolSummary& p = pools[static_cast<size_t>(i)];
        out.push_back(ResourcePoolJson(p, QueueStatsOf(jobs, p.options.name), cluster_name));
      }
      ReplyJson(r, {{"resourcePools", out},
                    {"pagination", PagePagination(offset, limit, range, total)}});
    });
  });
  return absl::OkStatus();
}

}  // namespace

void RegisterResourcePoolRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/resource-pools", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, ListResourcePools(ctx, req, r)); });
}

}  // namespace det::master
