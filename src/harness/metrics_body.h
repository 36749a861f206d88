#pragma once
// The body of POST /api/v1/trials/{trialId}/metrics (ReportTrialMetrics, reference §1c).
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "common/time_util.h"

namespace det::harness {

std::string TrialMetricsPath(int64_t trial_id);

// What BuildTrialMetricsBody() refuses (InvalidArgument), without building anything.
absl::Status CheckTrialMetrics(const std::string& group, int64_t steps_completed,
                               const nlohmann::json& avg_metrics, const nlohmann::json& batch_metrics);

// {"metrics":{"trialId","trialRunId","stepsCompleted","reportTime","metrics":{"avgMetrics",
// "batchMetrics"}},"group"}. `avg_metrics` must be a JSON object; `batch_metrics` a JSON array of
// objects, or null for none.
absl::StatusOr<nlohmann::json> BuildTrialMetricsBody(
    int64_t trial_id, int64_t trial_run_id, const std::string& group, int64_t steps_completed,
    const nlohmann::json& avg_metrics, const nlohmann::json& batch_metrics, WallTime report_time);

}  // namespace det::harness
