#include "master/trial_list.h"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "master/metric_summary.h"

namespace det::master {
namespace {

constexpr std::pair<const char*, TrialSort> kSorts[] = {
    {"ID", TrialSort::kId},
    {"START_TIME", TrialSort::kStartTime},
    {"END_TIME", TrialSort::kEndTime},
    {"STATE", TrialSort::kState},
    {"BEST_VALIDATION_METRIC", TrialSort::kBestValidationMetric},
    {"LATEST_VALIDATION_METRIC", TrialSort::kLatestValidationMetric},
    {"BATCHES_PROCESSED", TrialSort::kBatchesProcessed},
    {"DURATION", TrialSort::kDuration},
    {"RESTARTS", TrialSort::kRestarts},
    {"CHECKPOINT_SIZE", TrialSort::kCheckpointSize},
};
// The proto numbers of kSorts, in the same order.
constexpr int kSortNumbers[] = {1, 4, 5, 6, 7, 8, 9, 10, 11, 12};

std::optional<double> LatestValidationValue(const api::Trial& t, const std::string& metric) {
  nlohmann::json workload = nlohmann::json::parse(t.latest_validation_json, nullptr, /*allow_exceptions=*/false);
  auto metrics = workload.find("metrics");
  if (metrics == workload.end()) return std::nullopt;
  auto avg = metrics->find("avgMetrics");
  if (avg == metrics->end()) return std::nullopt;
  return MetricValue(*avg, metric);
}

// The value a trial is sorted by; nullopt when it has none.
std::optional<double> SortValue(const api::Trial& t, const TrialListQuery& q) {
  auto micros = [](WallTime w) {
    return static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(w.time_since_epoch()).count());
  };
  switch (q.sort) {
    case TrialSort::kId: return static_cast<double>(t.id);
    case TrialSort::kStartTime: return micros(t.start_time);
    case TrialSort::kEndTime: return t.end_time ? std::optional<double>(micros(*t.end_time)) : std::nullopt;
    case TrialSort::kState: return std::nullopt;  // compared as text
    case TrialSort::kBestValidationMetric: return t.searcher_metric_value;
    case TrialSort::kLatestValidationMetric: return LatestValidationValue(t, q.searcher_metric);
    case TrialSort::kBatchesProcessed: return static_cast<double>(t.total_batches);
    case TrialSort::kDuration: return micros(t.end_time.value_or(q.now)) - micros(t.start_time);
    case TrialSort::kRestarts: return t.restarts;
    case TrialSort::kCheckpointSize: return static_cast<double>(t.total_checkpoint_size);
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<TrialSort> ParseTrialSort(const std::string& raw) {
  if (raw.empty() || raw == "SORT_BY_UNSPECIFIED" || raw == "0") return TrialSort::kId;
  int number = -1;
  bool numeric = absl::SimpleAtoi(raw, &number);
  std::vector<std::string> names;
  for (size_t i = 0; i < std::size(kSorts); ++i) {
    std::string name = absl::StrCat("SORT_BY_", kSorts[i].first);
    if (raw == name || (numeric && number == kSortNumbers[i])) return kSorts[i].second;
    names.push_back(name);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("sortBy: \"", raw, "\" is not one of SORT_BY_UNSPECIFIED, ", absl::StrJoin(names, ", ")));
}

std::vector<api::Trial> ListTrialsFor(std::vector<api::Trial> trials, const TrialListQuery& query) {
  if (!query.states.empty()) {
    std::erase_if(trials, [&](const api::Trial& t) {
      return std::none_of(query.states.begin(), query.states.end(),
                          [&](api::ExperimentState s) { return api::TrialStateOf(s) == t.state; });
    });
  }
  struct Keyed {
    std::optional<double> value;
    api::Trial trial;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(trials.size());
  for (api::Trial& t : trials) keyed.push_back({SortValue(t, query), std::move(t)});
  bool by_state = query.sort == TrialSort::kState;
  std::sort(keyed.begin(), keyed.end(), [&](const Keyed& a, const Keyed& b) {
    if (by_state && a.trial.state != b.trial.state) {  // by name, as the stored text sorts
      absl::string_view x = Name(a.trial.state);
      absl::string_view y = Name(b.trial.state);
      return query.descending ? x > y : x < y;
    }
    if (!by_state) {
      if (a.value.has_value() != b.value.has_value()) return a.value.has_value();  // missing last
      if (a.value && *a.value != *b.value) return query.descending ? *a.value > *b.value : *a.value < *b.value;
    }
    return query.descending ? a.trial.id > b.trial.id : a.trial.id < b.trial.id;
  });
  std::vector<api::Trial> out;
  out.reserve(keyed.size());
  for (Keyed& k : keyed) out.push_back(std::move(k.trial));
  return out;
}

}  // namespace det::master
