#pragma once
// GET /api/v1/experiments/{id}/checkpoints as upstream's GetExperimentCheckpoints: the checkpoints in
// the requested states, ordered by an attribute or by a validation metric, paged. Kept apart from the
// route so it can be tested without a server.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "api/types.h"
#include "master/db/store.h"
#include "master/http/http_types.h"

namespace det::master {

struct CheckpointListQuery {
  enum class SortBy { kTrialId, kUuid, kBatchNumber, kEndTime, kState, kMetric };
  SortBy sort_by = SortBy::kTrialId;
  std::string metric;               // kMetric: the validation metric to order by
  std::optional<bool> descending;   // unset: kMetric puts the better values first, the rest ascend
  std::vector<std::string> states;  // "COMPLETED", "DELETED", ...; empty: every state
  int64_t offset = 0;
  int64_t limit = 0;
};

// Query parameters: `sortByAttr` (or the older `sortBy`: SORT_BY_UUID, _TRIAL_ID, _BATCH_NUMBER,
// _END_TIME, _STATE, _SEARCHER_METRIC or their numbers) or `sortByMetric` (a validation metric's
// name), `orderBy`, `states` (STATE_X, X or the number), `offset`, `limit`. SORT_BY_SEARCHER_METRIC
// orders by `searcher_metric`. InvalidArgument names the parameter and the bad value.
absl::StatusOr<CheckpointListQuery> ParseCheckpointListQuery(const HttpRequest& request,
                                                             const std::string& searcher_metric);

// A checkpoint with the metrics of its trial's validation at the checkpoint's step (the avgMetrics
// object, or null when there was none), and its trial's hyperparameters.
struct ListedCheckpoint {
  api::Checkpoint checkpoint;
  nlohmann::json validation_metrics;
  nlohmann::json hparams;
};

// Keeps the checkpoints in the query's states and orders them; by a metric, the ones without it
// come last in either order. `smaller_is_better` says which values of the metric are better.
void FilterAndOrderCheckpoints(std::vector<ListedCheckpoint>& list, const CheckpointListQuery& query,
                               bool smaller_is_better);

// Upstream's checkpoint JSON with `training` filled: `validationMetrics`, `searcherMetric`, `hparams` and
// `experimentConfig` (the experiment's `config`).
nlohmann::json ListedCheckpointJson(const ListedCheckpoint& listed, const api::Experiment& exp,
                                    const nlohmann::json& config);

// GET /api/v1/checkpoints/{uuid}: {"checkpoint": ...} with `training` filled as in the lists.
absl::StatusOr<nlohmann::json> CheckpointResponse(Store& store, const api::Checkpoint& checkpoint);

// The reply to GetExperimentCheckpoints and GetTrialCheckpoints: `checkpoints` (of experiment `exp`)
// with the validation their trial reported at each one's step, filtered, ordered and paged as the
// request asks: {"checkpoints": [...], "pagination": {...}}.
absl::StatusOr<nlohmann::json> CheckpointListResponse(Store& store, const HttpRequest& request,
                                                      const api::Experiment& exp,
                                                      std::vector<api::Checkpoint> checkpoints);

}  // namespace det::master
