#pragma once
// A trial's workloads (upstream's GetTrialWorkloads): its training and validation reports and its
// checkpoints as WorkloadContainer messages, {"training"|"validation"|"checkpoint": ...}.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/types.h"

namespace det::master {

// GetTrialWorkloadsRequest.FilterOption.
enum class WorkloadFilter { kAll, kCheckpoint, kValidation, kCheckpointOrValidation };

struct WorkloadQuery {
  WorkloadFilter filter = WorkloadFilter::kAll;
  std::string sort_key;  // "" or "batches": by batches; else a metric name (workloads without it last)
  bool descending = false;
  bool with_batch_metrics = false;
};

// The workloads `query` selects, in its order; ties (and equal batches) keep training before
// validation before checkpoint.
std::vector<nlohmann::json> TrialWorkloads(const std::vector<api::MetricsReport>& training,
                                           const std::vector<api::MetricsReport>& validation,
                                           const std::vector<api::Checkpoint>& checkpoints,
                                           const WorkloadQuery& query);

}  // namespace det::master
