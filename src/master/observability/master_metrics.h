#pragma once
// The master's Prometheus exposition (GET /debug/prom/metrics, GET /prom/det-state-metrics). The
// only place prometheus-cpp is used: its headers stay in master_metrics.cc.
//
// /debug/prom/metrics holds what accumulates (request counts and durations by route pattern, method
// and status) and what is read at scrape time (health, the cluster's and the store's figures, the
// process's own). /prom/det-state-metrics holds upstream's join gauges, built from a cluster
// snapshot at each scrape, so that an ended allocation's series disappear instead of lingering at
// 0.
#include <memory>
#include <optional>
#include <string>

#include "master/cluster/cluster_observation.h"
#include "master/http/request_observer.h"
#include "master/metrics_writer.h"
#include "master/observability/process_stats.h"

namespace det::master {

// What a scrape of /debug/prom/metrics reads, taken by its handler.
struct MasterFigures {
  bool healthy = false;  // the database answers (as GET /health)
  ClusterObservation cluster;
  MetricsWriter::Figures metric_ingest;
  std::optional<ProcessStats> process;  // none when /proc could not be read
};

// Threads: Observe and Expose may be called from any thread at once.
class MasterMetrics : public RequestObserver {
 public:
  MasterMetrics();
  ~MasterMetrics() override;
  MasterMetrics(const MasterMetrics&) = delete;
  MasterMetrics& operator=(const MasterMetrics&) = delete;

  // Counts the request in echo_requests_total and echo_request_duration_seconds (upstream's names).
  // Methods other than the HTTP ones this master serves count as "OTHER", so that clients cannot
  // grow the label set.
  void Observe(const RequestRecord& record) override;
  // The text exposition format (version 0.0.4) of everything above with `figures` as current
  // values.
  std::string Expose(const MasterFigures& figures);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Upstream's det-state-metrics, in the text exposition format: one gauge at 1 for each join row of
// the running allocations and live experiments in `cluster`.
std::string DetStateMetricsText(const ClusterObservation& cluster);

// The content type of both expositions.
inline constexpr char kPrometheusTextContentType[] = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace det::master
