#include "master/observability/master_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

namespace det::master {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = std::vector<std::pair<std::string, std::string>>;

// The methods a route of this master can have; anything else a client sends is "OTHER".
std::string BoundedMethod(const std::string& method) {
  static const std::set<std::string> kKnown = {"GET",    "POST", "PUT",    "PATCH",
                                               "DELETE", "HEAD", "OPTIONS"};
  return kKnown.count(method) > 0 ? method : "OTHER";
}

// A family built at scrape time from values read then (a collector's output).
class FamilyBuilder {
 public:
  FamilyBuilder(std::string name, std::string help, MetricType type) {
    family_.name = std::move(name);
    family_.help = std::move(help);
    family_.type = type;
  }
  FamilyBuilder& Add(double value, const Labels& labels = {}) {
    ClientMetric m;
    for (const auto& [name, label_value] : labels) m.label.push_back({name, label_value});
    if (family_.type == MetricType::Counter) {
      m.counter.value = value;
    } else {
      m.gauge.value = value;
    }
    family_.metric.push_back(std::move(m));
    return *this;
  }
  // Adds the family to `out` when it has a sample: an empty family is left out, as client libraries
  // do.
  void Into(std::vector<MetricFamily>& out) {
    if (!family_.metric.empty()) out.push_back(std::move(family_));
  }

 private:
  MetricFamily family_;
};

void AddClusterFamilies(const ClusterObservation& c, std::vector<MetricFamily>& out) {
  FamilyBuilder agents("determined_agents", "Connected agents of each resource pool.",
                       MetricType::Gauge);
  FamilyBuilder queued("determined_queued_jobs",
                       "Jobs in a resource pool's queue that have nothing running.",
                       MetricType::Gauge);
  FamilyBuilder pending("determined_pending_allocations",
                        "Allocations waiting to be placed, by resource pool.", MetricType::Gauge);
  FamilyBuilder running("determined_running_allocations",
                        "Allocations placed on slots, by resource pool.", MetricType::Gauge);
  FamilyBuilder used("determined_slots_used",
                     "Slots of enabled agents that allocations hold, by pool and slot type.",
                     MetricType::Gauge);
  FamilyBuilder free("determined_slots_free",
                     "Slots of enabled agents that no allocation holds, by pool and slot type.",
                     MetricType::Gauge);
  FamilyBuilder aux("determined_aux_containers_running",
                    "Zero-slot tasks running in each resource pool.", MetricType::Gauge);
  for (const ObservedPool& p : c.pools) {
    const Labels pool = {{"resource_pool", p.name}};
    const Labels typed = {{"resource_pool", p.name}, {"slot_type", p.slot_type}};
    agents.Add(p.agents, pool);
    queued.Add(p.queued_jobs, pool);
    pending.Add(p.pending_allocations, pool);
    running.Add(p.running_allocations, pool);
    used.Add(p.slots_used, typed);
    free.Add(std::max(0, p.slots_total - p.slots_used), typed);
    aux.Add(p.aux_running, pool);
  }
  for (FamilyBuilder* f : {&agents, &queued, &pending, &running, &used, &free, &aux}) f->Into(out);
  FamilyBuilder("determined_scheduler_passes_total",
                "Scheduling passes over every resource manager.", MetricType::Counter)
      .Add(static_cast<double>(c.scheduling.passes))
      .Into(out);
  FamilyBuilder("determined_scheduler_pass_seconds_total", "Time spent in scheduling passes.",
                MetricType::Counter)
      .Add(c.scheduling.seconds_total)
      .Into(out);
  FamilyBuilder("determined_scheduler_last_pass_seconds", "Duration of the latest scheduling pass.",
                MetricType::Gauge)
      .Add(c.scheduling.last_pass_seconds)
      .Into(out);
  FamilyBuilder(
      "determined_state_writes_kept",
      "State writes that failed and wait to be made again (the database was unreachable).",
      MetricType::Gauge)
      .Add(static_cast<double>(c.state_writes_kept))
      .Into(out);
}

void AddStoreFamilies(const MetricsWriter::Figures& f, std::vector<MetricFamily>& out) {
  FamilyBuilder("determined_metric_rows_ingested_total",
                "Metric reports stored by the metrics writer.", MetricType::Counter)
      .Add(static_cast<double>(f.reports_committed))
      .Into(out);
  FamilyBuilder("determined_metric_rows_failed_total", "Metric reports the database refused.",
                MetricType::Counter)
      .Add(static_cast<double>(f.reports_failed))
      .Into(out);
  FamilyBuilder("determined_metric_commits_total", "Transactions that stored metric reports.",
                MetricType::Counter)
      .Add(static_cast<double>(f.commits))
      .Into(out);
  FamilyBuilder("determined_metric_writer_queue_depth",
                "Metric reports handed in and not yet stored.", MetricType::Gauge)
      .Add(static_cast<double>(f.reports_queued))
      .Into(out);
}

void AddProcessFamilies(const ProcessStats& p, std::vector<MetricFamily>& out) {
  FamilyBuilder("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                MetricType::Counter)
      .Add(p.cpu_seconds)
      .Into(out);
  FamilyBuilder("process_resident_memory_bytes", "Resident memory size in bytes.",
                MetricType::Gauge)
      .Add(p.resident_bytes)
      .Into(out);
  FamilyBuilder("process_virtual_memory_bytes", "Virtual memory size in bytes.", MetricType::Gauge)
      .Add(p.virtual_bytes)
      .Into(out);
  FamilyBuilder("process_start_time_seconds",
                "Start time of the process since unix epoch in seconds.", MetricType::Gauge)
      .Add(p.start_time_seconds)
      .Into(out);
  FamilyBuilder("process_open_fds", "Number of open file descriptors.", MetricType::Gauge)
      .Add(p.open_fds)
      .Into(out);
  if (p.max_fds > 0) {
    FamilyBuilder("process_max_fds", "Maximum number of open file descriptors.", MetricType::Gauge)
        .Add(p.max_fds)
        .Into(out);
  }
  FamilyBuilder("process_threads", "Number of OS threads of the process.", MetricType::Gauge)
      .Add(p.threads)
      .Into(out);
}

}  // namespace

struct MasterMetrics::Impl {
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  prometheus::Family<prometheus::Counter>& requests =
      prometheus::BuildCounter()
          .Name("echo_requests_total")
          .Help("HTTP requests answered, by status code, method and route pattern.")
          .Register(*registry);
  prometheus::Family<prometheus::Histogram>& durations =
      prometheus::BuildHistogram()
          .Name("echo_request_duration_seconds")
          .Help(
              "Time from a request's dispatch to its response, by status code, method and route "
              "pattern.")
          .Register(*registry);
  prometheus::Family<prometheus::Gauge>& healthy =
      prometheus::BuildGauge()
          .Name("determined_healthy")
          .Help("1 when the master can reach its database, else 0 (as GET /health).")
          .Register(*registry);
  prometheus::Gauge& healthy_gauge = healthy.Add({});
};

MasterMetrics::MasterMetrics() : impl_(std::make_unique<Impl>()) {}

MasterMetrics::~MasterMetrics() = default;

void MasterMetrics::Observe(const RequestRecord& record) {
  // Prometheus' default buckets: 5 ms to 10 s.
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  const prometheus::Labels labels = {{"code", std::to_string(record.status)},
                                     {"method", BoundedMethod(record.method)},
                                     {"url", record.route}};
  impl_->requests.Add(labels).Increment();
  impl_->durations.Add(labels, kBuckets).Observe(record.seconds);
}

std::string MasterMetrics::Expose(const MasterFigures& figures) {
  impl_->healthy_gauge.Set(figures.healthy ? 1 : 0);
  std::vector<MetricFamily> families = impl_->registry->Collect();
  AddClusterFamilies(figures.cluster, families);
  AddStoreFamilies(figures.metric_ingest, families);
  if (figures.process) AddProcessFamilies(*figures.process, families);
  return prometheus::TextSerializer().Serialize(families);
}

std::string DetStateMetricsText(const ClusterObservation& cluster) {
  // Each row once: label sets must not repeat within a family.
  std::set<Labels> container_allocation, allocation_task, container_runtime, job_experiment,
      experiment_label, gpu_container;
  for (const ObservedAllocation& a : cluster.allocations) {
    if (!a.running) continue;
    allocation_task.insert({{"allocation_id", a.allocation_id},
                            {"job_id", a.job_id},
                            {"task_actor", a.task_type},
                            {"task_id", a.task_id}});
    for (const ObservedProcess& p : a.processes) {
      container_allocation.insert(
          {{"allocation_id", a.allocation_id}, {"container_id", p.container_id}});
      if (!p.runtime_id.empty()) {
        container_runtime.insert(
            {{"container_id", p.container_id}, {"container_runtime_id", p.runtime_id}});
      }
      for (const std::string& uuid : p.gpu_uuids) {
        gpu_container.insert({{"container_id", p.container_id}, {"gpu_uuid", uuid}});
      }
    }
  }
  for (const ObservedExperiment& e : cluster.experiments) {
    const std::string id = std::to_string(e.id);
    if (!e.job_id.empty()) job_experiment.insert({{"experiment_id", id}, {"job_id", e.job_id}});
    for (const std::string& label : e.labels)
      experiment_label.insert({{"experiment_id", id}, {"label", label}});
  }
  std::vector<MetricFamily> out;
  auto add = [&out](const char* name, const char* help, const std::set<Labels>& rows) {
    FamilyBuilder family(name, help, MetricType::Gauge);
    for (const Labels& row : rows) family.Add(1, row);
    family.Into(out);
  };
  add("det_container_id_allocation_id", "Which allocation each container (process) belongs to.",
      container_allocation);
  add("det_allocation_id_task_id_task_actor",
      "Which task and job each running allocation belongs to.", allocation_task);
  add("det_container_id_runtime_container_id",
      "Where each container runs, as its resource manager names it.", container_runtime);
  add("det_job_id_experiment_id", "Which experiment each job is.", job_experiment);
  add("det_experiment_id_label", "The labels of each live experiment.", experiment_label);
  add("det_gpu_uuid_container_id", "Which container each GPU is given to.", gpu_container);
  return prometheus::TextSerializer().Serialize(out);
}

}  // namespace det::master
