#pragma once
// Metrics and trial-level reports (upstream core.TrainContext) for a trial on a cluster.
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "harness/metrics_reporter.h"

namespace det::harness {

class Session;

// TrialEarlyExit.ExitedReason names.
inline constexpr char kExitedReasonInvalidHp[] = "EXITED_REASON_INVALID_HP";
inline constexpr char kExitedReasonInitInvalidHp[] = "EXITED_REASON_INIT_INVALID_HP";
inline constexpr char kExitedReasonUserRequestedStop[] = "EXITED_REASON_USER_REQUESTED_STOP";

class TrainContext {
 public:
  // `session` and `reporter` both null means off-cluster: reports are logged, calls succeed.
  TrainContext(std::shared_ptr<Session> session, std::unique_ptr<MetricsReporter> reporter,
               int64_t trial_id, int64_t experiment_id);

  // Non-blocking (see MetricsReporter::Report). `batch_metrics` may be null.
  absl::Status ReportTrainingMetrics(int64_t steps_completed, const nlohmann::json& metrics,
                                     const nlohmann::json& batch_metrics);
  absl::Status ReportValidationMetrics(int64_t steps_completed, const nlohmann::json& metrics);
  absl::Status ReportMetrics(const std::string& group, int64_t steps_completed,
                             const nlohmann::json& metrics);

  // POST /api/v1/trials/{id}/early_exit {"reason": ...}; a 400 means "already reported" and is OK.
  absl::Status ReportEarlyExit(const std::string& reason);
  // POST /api/v1/trials/{id}/progress {"progress": p, "is_raw": true}, p clamped to [0, 1].
  absl::Status ReportProgress(double progress);
  // POST /api/v1/trials/{id}/runner/metadata {"state": status}.
  absl::Status SetStatus(const std::string& status);
  // The experiment's best searcher metric so far; nullopt when there is none yet (404).
  absl::StatusOr<std::optional<double>> GetExperimentBestValidation();

  // Blocks until every queued metric was sent.
  absl::Status Flush();
  absl::Status Close();

 private:
  std::shared_ptr<Session> session_;
  std::unique_ptr<MetricsReporter> reporter_;
  int64_t trial_id_;
  int64_t experiment_id_;
};

}  // namespace det::harness
