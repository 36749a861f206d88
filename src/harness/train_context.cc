#include "harness/train_context.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "harness/session.h"
#include "spdlog/spdlog.h"

namespace det::harness {

TrainContext::TrainContext(std::shared_ptr<Session> session,
                           std::unique_ptr<MetricsReporter> reporter, int64_t trial_id,
                           int64_t experiment_id)
    : session_(std::move(session)),
      reporter_(std::move(reporter)),
      trial_id_(trial_id),
      experiment_id_(experiment_id) {}

absl::Status TrainContext::ReportTrainingMetrics(int64_t steps_completed,
                                                 const nlohmann::json& metrics,
                                                 const nlohmann::json& batch_metrics) {
  if (reporter_ == nullptr) {
    spdlog::info("report_training_metrics(steps_completed={}, metrics={})", steps_completed,
                 metrics.dump());
    return absl::OkStatus();
  }
  return reporter_->Report("training", steps_completed, metrics, batch_metrics);
}

absl::Status TrainContext::ReportValidationMetrics(int64_t steps_completed,
                                                   const nlohmann::json& metrics) {
  return ReportMetrics("validation", steps_completed, metrics);
}

absl::Status TrainContext::ReportMetrics(const std::string& group, int64_t steps_completed,
                                         const nlohmann::json& metrics) {
  if (reporter_ == nullptr) {
    spdlog::info("report_metrics(group={}, steps_completed={}, metrics={})", group, steps_completed,
                 metrics.dump());
    return absl::OkStatus();
  }
  return reporter_->Report(group, steps_completed, metrics, nlohmann::json());
}

absl::Status TrainContext::ReportEarlyExit(const std::string& reason) {
  if (session_ == nullptr) {
    spdlog::info("report_early_exit({})", reason);
    return absl::OkStatus();
  }
  auto r = session_->Post(absl::StrCat("/api/v1/trials/", trial_id_, "/early_exit"),
                          nlohmann::json{{"reason", reason}});
  if (!r.ok() && r.status().code() == absl::StatusCode::kInvalidArgument) {
    spdlog::warn("early exit has already been reported for this trial, ignoring new value");
    return absl::OkStatus();
  }
  return r.status();
}

absl::Status TrainContext::ReportProgress(double progress) {
  double p = std::clamp(progress, 0.0, 1.0);
  if (session_ == nullptr) return absl::OkStatus();
  return session_
      ->Post(absl::StrCat("/api/v1/trials/", trial_id_, "/progress"),
             nlohmann::json{{"progress", p}, {"is_raw", true}})
      .status();
}

absl::Status TrainContext::SetStatus(const std::string& status) {
  if (session_ == nullptr) {
    spdlog::info("status: {}", status);
    return absl::OkStatus();
  }
  return session_
      ->Post(absl::StrCat("/api/v1/trials/", trial_id_, "/runner/metadata"),
             nlohmann::json{{"state", status}})
      .status();
}

absl::StatusOr<std::optional<double>> TrainContext::GetExperimentBestValidation() {
  if (session_ == nullptr) return std::optional<double>();
  auto r = session_->Get(absl::StrCat("/api/v1/experiments/", experiment_id_,
                                      "/searcher/best_searcher_validation_metric"));
  if (!r.ok()) {
    if (r.status().code() == absl::StatusCode::kNotFound) return std::optional<double>();
    return r.status();
  }
  auto it = r->find("metric");
  if (it == r->end() || !it->is_number()) return std::optional<double>();
  return std::optional<double>(it->get<double>());
}

absl::Status TrainContext::Flush() {
  return reporter_ == nullptr ? absl::OkStatus() : reporter_->Flush();
}

absl::Status TrainContext::Close() {
  return reporter_ == nullptr ? absl::OkStatus() : reporter_->Close();
}

}  // namespace det::harness
