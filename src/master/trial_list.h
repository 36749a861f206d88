#pragma once
// The trials of an experiment as GetExperimentTrials lists them: filtered by state, sorted, paged
// by the caller. An experiment's trials are few enough (at most its searcher's max_trials) to order
// in memory.
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/types.h"

namespace det::master {

// GetExperimentTrialsRequest.SortBy, without the SORT_BY_ prefix.
enum class TrialSort {
  kId,
  kStartTime,
  kEndTime,
  kState,
  kBestValidationMetric,
  kLatestValidationMetric,
  kBatchesProcessed,
  kDuration,
  kRestarts,
  kCheckpointSize,
};

// A SortBy by name (SORT_BY_END_TIME) or number; "" and SORT_BY_UNSPECIFIED sort by id.
absl::StatusOr<TrialSort> ParseTrialSort(const std::string& raw);

struct TrialListQuery {
  // Upstream's request names trial states as experimentv1.State: a trial matches the state of the
  // same name (the deletion states match none). Empty = any.
  std::vector<api::ExperimentState> states;
  TrialSort sort = TrialSort::kId;
  bool descending = false;
  std::string searcher_metric;  // for the validation metric orders
  WallTime now;                 // a running trial's duration ends now
};

// The trials `query` keeps, in its order. Trials without the sorted value (no end time, no
// validation yet) come last in either direction; ties break by id.
std::vector<api::Trial> ListTrialsFor(std::vector<api::Trial> trials, const TrialListQuery& query);

}  // namespace det::master
