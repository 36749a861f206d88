#include "master/trial_workloads.h"

#include <algorithm>
#include <optional>

#include "api/types_json.h"
#include "master/metric_summary.h"

namespace det::master {
namespace {

using nlohmann::json;

struct Workload {
  int kind;  // 0 training, 1 validation, 2 checkpoint: the order at equal batches
  int64_t batches;
  std::optional<double> sort_value;
  json container;
};

json CheckpointWorkloadJson(const api::Checkpoint& c) {
  json full = api::ToJson(c);
  return {{"uuid", c.uuid},         {"endTime", full["reportTime"]}, {"state", full["state"]},
          {"resources", full["resources"]}, {"totalBatches", c.steps_completed}, {"metadata", full["metadata"]}};
}

}  // namespace

std::vector<json> TrialWorkloads(const std::vector<api::MetricsReport>& training,
                                 const std::vector<api::MetricsReport>& validation,
                                 const std::vector<api::Checkpoint>& checkpoints, const WorkloadQuery& query) {
  bool by_metric = !query.sort_key.empty() && query.sort_key != "batches";
  std::vector<Workload> all;
  auto add_reports = [&](const std::vector<api::MetricsReport>& reports, int kind, const char* field) {
    for (const api::MetricsReport& r : reports) {
      json avg = json::parse(r.metrics_json, nullptr, /*allow_exceptions=*/false);
      if (!avg.is_object()) avg = json::object();
      json batch = query.with_batch_metrics ? json::parse(r.batch_metrics_json, nullptr, false) : json::array();
      if (!batch.is_array()) batch = json::array();
      std::optional<double> value = by_metric ? MetricValue(avg, query.sort_key) : std::nullopt;
      all.push_back({kind, r.total_batches, value, {{field, MetricsWorkloadJson(r, avg, batch)}}});
    }
  };
  bool training_wanted = query.filter == WorkloadFilter::kAll;
  bool validation_wanted = query.filter != WorkloadFilter::kCheckpoint;
  bool checkpoints_wanted = query.filter != WorkloadFilter::kValidation;
  if (training_wanted) add_reports(training, 0, "training");
  if (validation_wanted) add_reports(validation, 1, "validation");
  if (checkpoints_wanted) {
    for (const api::Checkpoint& c : checkpoints) {
      all.push_back({2, c.steps_completed, std::nullopt, {{"checkpoint", CheckpointWorkloadJson(c)}}});
    }
  }
  std::stable_sort(all.begin(), all.end(), [&](const Workload& a, const Workload& b) {
    if (by_metric && a.sort_value.has_value() != b.sort_value.has_value()) return a.sort_value.has_value();
    if (by_metric && a.sort_value && *a.sort_value != *b.sort_value) {
      return query.descending ? *a.sort_value > *b.sort_value : *a.sort_value < *b.sort_value;
    }
    if (a.batches != b.batches) return query.descending ? a.batches > b.batches : a.batches < b.batches;
    return a.kind < b.kind;
  });
  std::vector<json> out;
  out.reserve(all.size());
  for (Workload& w : all) out.push_back(std::move(w.container));
  return out;
}

}  // namespace det::master
