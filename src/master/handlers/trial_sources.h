#pragma once
// Trials that used a checkpoint (upstream's trial source infos): an inference or fine-tuning run
// reports the checkpoint or model version it loaded (POST /api/v1/trial-source-info), and the metrics
// it reports are then found from the checkpoint (GET /api/v1/checkpoints/{uuid}/metrics) or the
// version (GET /api/v1/models/{name}/versions/{n}/metrics, models.cc).
#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "master/db/store.h"
#include "master/http/http_types.h"

namespace det::master {

// `{metrics: [MetricsReport]}`: the reports of the trials `filter` finds, narrowed by the request's
// `trialSourceInfoType` and `metricGroup` ("" = every group), trial by trial.
absl::StatusOr<nlohmann::json> TrialSourceMetrics(Store& store, TrialSourceFilter filter, const HttpRequest& req);

}  // namespace det::master
