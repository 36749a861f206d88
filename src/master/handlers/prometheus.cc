// Upstream's Prometheus endpoints (observability.enable_prometheus; docs/prometheus.md):
// GET /debug/prom/metrics, GET /prom/det-state-metrics and GET /prom/det-http-sd-config. Each reads
// a snapshot of the cluster (Cluster::Observe) and builds its answer off the cluster's loop.
#include <memory>

#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/observability/http_sd_targets.h"
#include "master/observability/master_metrics.h"

namespace det::master {
namespace {

HttpResponse TextResponse(std::string body) {
  HttpResponse out;
  out.content_type = kPrometheusTextContentType;
  out.body = std::move(body);
  return out;
}

}  // namespace

void RegisterPrometheusRoutes(Router& router, MasterContext& ctx, MasterMetrics& metrics) {
  router.Add("GET", "/debug/prom/metrics", Access::kAuthenticated,
             [&ctx, &metrics](HttpRequest&, ResponderPtr r) {
               // The database is asked here, on the request's thread, as GET /health does: never on
               // the loop.
               const bool healthy = ctx.store.GetUser(1).ok();
               ctx.cluster.Observe([&ctx, &metrics, r, healthy](ClusterObservation cluster) {
                 ctx.stream_loop.Post(
                     [&ctx, &metrics, r, healthy, cluster = std::move(cluster)]() mutable {
                       MasterFigures figures{.healthy = healthy,
                                             .cluster = std::move(cluster),
                                             .metric_ingest = ctx.metrics_writer.figures()};
                       if (absl::StatusOr<ProcessStats> process = ReadProcessStats(); process.ok())
                         figures.process = *process;
                       r->Send(TextResponse(metrics.Expose(figures)));
                     });
               });
             });
  router.Add("GET", "/prom/det-state-metrics", Access::kAuthenticated,
             [&ctx](HttpRequest&, ResponderPtr r) {
               ctx.cluster.Observe([&ctx, r](ClusterObservation cluster) {
                 ctx.stream_loop.Post([r, cluster = std::move(cluster)] {
                   r->Send(TextResponse(DetStateMetricsText(cluster)));
                 });
               });
             });
  router.Add("GET", "/prom/det-http-sd-config", Access::kAuthenticated,
             [&ctx](HttpRequest&, ResponderPtr r) {
               ctx.cluster.Observe([r](ClusterObservation cluster) {
                 r->Send(JsonResponse(200, HttpSdTargetsJson(cluster.agents)));
               });
             });
}

}  // namespace det::master
