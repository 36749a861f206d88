#include "harness/metrics_body.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::harness {

std::string TrialMetricsPath(int64_t trial_id) {
  return absl::StrCat("/api/v1/trials/", trial_id, "/metrics");
}

absl::Status CheckTrialMetrics(const std::string& group, int64_t steps_completed,
                               const nlohmann::json& avg_metrics, const nlohmann::json& batch_metrics) {
  if (group.empty()) return absl::InvalidArgumentError("metrics group: must not be empty");
  if (!avg_metrics.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "metrics: must be a JSON object of name -> value, got ", avg_metrics.type_name()));
  }
  if (steps_completed < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("steps_completed: must be >= 0, got ", steps_completed));
  }
  if (!batch_metrics.is_null()) {
    if (!batch_metrics.is_array()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "batch_metrics: must be a JSON list of objects, got ", batch_metrics.type_name()));
    }
    for (const auto& b : batch_metrics) {
      if (!b.is_object()) {
        return absl::InvalidArgumentError(
            absl::StrCat("batch_metrics: every entry must be a JSON object, got ", b.type_name()));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> BuildTrialMetricsBody(
    int64_t trial_id, int64_t trial_run_id, const std::string& group, int64_t steps_completed,
    const nlohmann::json& avg_metrics, const nlohmann::json& batch_metrics, WallTime report_time) {
  RETURN_IF_ERROR(CheckTrialMetrics(group, steps_completed, avg_metrics, batch_metrics));
  nlohmann::json batch = batch_metrics.is_null() ? nlohmann::json::array() : batch_metrics;
  return nlohmann::json{
      {"metrics",
       {{"trialId", trial_id},
        {"trialRunId", trial_run_id},
        {"stepsCompleted", steps_completed},
        {"reportTime", FormatRfc3339(report_time)},
        {"metrics", {{"avgMetrics", avg_metrics}, {"batchMetrics", std::move(batch)}}}}},
      {"group", group}};
}

}  // namespace det::harness
