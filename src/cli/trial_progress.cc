#include "cli/trial_progress.h"

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "cli/experiment_ops.h"
#include "cli/format.h"
#include "cli/session.h"

namespace det::cli {
namespace {

using nlohmann::json;

int64_t IntField(const json& obj, const char* key) {
  const json* value = api::FindField(obj, key);
  return value != nullptr ? api::ReadInt64(*value, key).value_or(0) : 0;
}

// An object field, or null.
const json& FieldOrNull(const json& obj, const char* key) {
  static const json kNull;
  const json* value = api::FindField(obj, key);
  return value != nullptr ? *value : kNull;
}

// The searcher metric's value in a MetricsWorkload ({"metrics": {"avgMetrics": {...}}}), if any.
const json* SearcherValue(const json& workload, const std::string& metric) {
  const json& avg = FieldOrNull(FieldOrNull(workload, "metrics"), "avg_metrics");
  if (!avg.is_object()) return nullptr;
  auto it = avg.find(metric);
  return it != avg.end() && it->is_number() ? &*it : nullptr;
}

std::string Number(const json& value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", value.get<double>());
  return buf;
}

}  // namespace

std::string TrialProgressLine(const json& trial, const std::string& searcher_metric) {
  int64_t id = IntField(trial, "id");
  int64_t batches = IntField(trial, "total_batches_processed");
  int64_t restarts = IntField(trial, "restarts");
  std::string line = absl::StrCat("Trial ", id, ": ", StripStatePrefix(Str(trial, "state")), ", ", batches,
                                  batches == 1 ? " batch" : " batches");
  const json* latest = SearcherValue(FieldOrNull(trial, "latest_validation"), searcher_metric);
  const json* best = SearcherValue(FieldOrNull(trial, "best_validation"), searcher_metric);
  if (latest != nullptr) {
    absl::StrAppend(&line, ", ", searcher_metric, " ", Number(*latest));
    if (best != nullptr) absl::StrAppend(&line, " (best ", Number(*best), ")");
  }
  if (restarts > 0) absl::StrAppend(&line, ", ", restarts, restarts == 1 ? " restart" : " restarts");
  return line;
}

void ProgressBoard::Show(const std::vector<std::string>& lines) {
  if (live_) {
    // Back to the block's first line, then every line rewritten and cleared to its end.
    if (!shown_.empty()) out_ << "\x1b[" << shown_.size() << "F";
    for (size_t i = 0; i < std::max(lines.size(), shown_.size()); ++i) {
      out_ << "\x1b[2K" << (i < lines.size() ? lines[i] : "") << "\n";
    }
    if (lines.size() > shown_.size()) shown_ = lines;
    else std::copy(lines.begin(), lines.end(), shown_.begin());
  } else {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i < shown_.size() && shown_[i] == lines[i]) continue;
      out_ << lines[i] << "\n";
    }
    shown_ = lines;
  }
  out_.flush();
}

absl::StatusOr<int> WatchTrials(Session& session, int experiment_id, double poll_seconds, std::ostream& out,
                                bool live) {
  absl::StatusOr<json> experiment = session.Get(absl::StrCat("/api/v1/experiments/", experiment_id));
  if (!experiment.ok()) return experiment.status();
  std::string metric = experiment->value(json::json_pointer("/config/searcher/metric"), "");
  ProgressBoard board(out, live);
  while (true) {
    // The state is read first: trials read after it already show the end of a finished experiment.
    absl::StatusOr<api::ExperimentState> state = FetchExperimentState(session, experiment_id);
    if (!state.ok()) return state.status();
    absl::StatusOr<json> trials =
        session.Get(absl::StrCat("/api/v1/experiments/", experiment_id, "/trials?limit=1000"));
    if (!trials.ok()) return trials.status();
    std::vector<std::string> lines;
    const json& list = FieldOrNull(*trials, "trials");
    if (list.is_array()) {
      for (const json& t : list) lines.push_back(TrialProgressLine(t, metric));
    }
    board.Show(lines);
    if (api::IsTerminal(*state)) return ReportExperimentEnd(experiment_id, *state, out);
    std::this_thread::sleep_for(std::chrono::duration<double>(poll_seconds));
  }
}

}  // namespace det::cli
