#pragma once
// What upstream's experiment table and metric charts read about a project's or an experiment's
// metrics, computed from the experiments' configs and their trials' summaries and reports (pure: no
// I/O). The handlers are handlers/project_metrics.cc and handlers/experiment_metric_streams.cc.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "api/types.h"

namespace det::master {

// GetProjectColumns' `columns`: upstream's general experiment columns, then "hp.NAME" for each
// hyperparameter of `experiments` (nested ones dotted), then "GROUP.METRIC" for each metric the
// `trials` reported (training, validation, or a custom group), each once, with its location and type.
nlohmann::json ProjectColumnsJson(const std::vector<api::Experiment>& experiments,
                                  const std::vector<api::Trial>& trials);

// GetProjectNumericMetricsRange's `ranges`: {metricsName "GROUP.METRIC", min, max} over the `trials`'
// summaries, for numeric metrics only, sorted by name.
nlohmann::json MetricRangesJson(const std::vector<api::Trial>& trials);

// The metric group a metric-stream request names: `group` if given, else its metricType
// (METRIC_TYPE_TRAINING, _VALIDATION, _PROFILING). InvalidArgument when neither or an unknown type.
absl::StatusOr<std::string> MetricGroupOf(const std::string& group, const std::string& metric_type);

// A metric's value in one report (nullopt when the report lacks it or it is not a number).
std::optional<double> ReportedValue(const api::MetricsReport& report, const std::string& metric);

// MetricBatches' `batches`: the distinct total_batches, ascending, at which `metric` was reported.
std::vector<int64_t> MetricBatchesOf(const std::vector<api::MetricsReport>& reports, const std::string& metric);

// TrialsSnapshot: the report of `metric` nearest `batches` within `margin` batches (the earlier on a
// tie); nullopt when there is none.
std::optional<api::MetricsReport> SnapshotReport(const std::vector<api::MetricsReport>& reports,
                                                 const std::string& metric, int64_t batches, int64_t margin);

// TrialsSample's data points of one trial: the reports of `metric` with total_batches in [start, end],
// at most `max_points` of them, spread evenly and always keeping the last; each
// {batches, time, values: {metric: value}}.
nlohmann::json SampleDataPoints(const std::vector<api::MetricsReport>& reports, const std::string& metric,
                                int64_t start, int64_t end, int64_t max_points);

// The messages of the periodic metric streams, as upstream's stream them: from the state the client has
// (`previous`, null before the first message) to the one `now`; nullopt when nothing is new.
// MetricBatches ({"batches"}): the batches not sent before (all of them in the first message).
std::optional<nlohmann::json> BatchesDelta(const nlohmann::json& now, const nlohmann::json& previous);
// TrialsSample ({"trials": [{trialId, hparams, data}]}): each trial with its data points past those
// sent before (all of a trial new to the sample); "promotedTrials" the trials new to the sample,
// "demotedTrials" those no longer in it.
std::optional<nlohmann::json> SampleDelta(const nlohmann::json& now, const nlohmann::json& previous);

}  // namespace det::master
