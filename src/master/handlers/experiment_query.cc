#include "master/handlers/experiment_query.h"

#include "master/handlers/handler_util.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "api/wire.h"
#include "common/status_macros.h"

namespace det::master {
namespace {

using nlohmann::json;

// experimentv1.State numbers -> state; 13..16 are the display-only QUEUED, PULLING, STARTING and
// RUNNING, which are ACTIVE.
const std::map<int, api::ExperimentState>& StateNumbers() {
  using S = api::ExperimentState;
  static const std::map<int, S> m = {{1, S::kActive},
                                     {2, S::kPaused},
                                     {3, S::kStoppingCompleted},
                                     {4, S::kStoppingCanceled},
                                     {5, S::kStoppingError},
                                     {6, S::kCompleted},
                                     {7, S::kCanceled},
                                     {8, S::kError},
                                     {9, S::kDeleted},
                                     {10, S::kDeleting},
                                     {11, S::kDeleteFailed},
                                     {12, S::kStoppingKilled},
                                     {13, S::kActive},
                                     {14, S::kActive},
                                     {15, S::kActive},
                                     {16, S::kActive}};
  return m;
}

absl::StatusOr<ExperimentSort> ParseSort(const std::string& raw) {
  static const std::map<std::string, std::pair<int, ExperimentSort>> names = {
      {"UNSPECIFIED", {0, ExperimentSort::kId}},
      {"ID", {1, ExperimentSort::kId}},
      {"DESCRIPTION", {2, ExperimentSort::kDescription}},
      {"START_TIME", {4, ExperimentSort::kStartTime}},
      {"END_TIME", {5, ExperimentSort::kEndTime}},
      {"STATE", {6, ExperimentSort::kState}},
      {"NUM_TRIALS", {8, ExperimentSort::kNumTrials}},
      {"PROGRESS", {9, ExperimentSort::kProgress}},
      {"USER", {10, ExperimentSort::kUser}},
      {"NAME", {11, ExperimentSort::kName}},
      // No forks, projects or experiment-level searcher metric yet: these order by id.
      {"FORKED_FROM", {12, ExperimentSort::kId}},
      {"RESOURCE_POOL", {13, ExperimentSort::kResourcePool}},
      {"PROJECT_ID", {14, ExperimentSort::kId}},
      {"CHECKPOINT_SIZE", {15, ExperimentSort::kCheckpointSize}},
      {"CHECKPOINT_COUNT", {16, ExperimentSort::kCheckpointCount}},
      {"SEARCHER_METRIC_VAL", {17, ExperimentSort::kId}},
  };
  int n = -1;
  bool numeric = absl::SimpleAtoi(raw, &n);
  absl::string_view v = raw;
  absl::ConsumePrefix(&v, "SORT_BY_");
  for (const auto& [name, entry] : names) {
    if (numeric ? entry.first == n : name == v) return entry.second;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("sortBy: unknown sort key \"", raw,
                   "\"; use SORT_BY_ID, SORT_BY_START_TIME, SORT_BY_END_TIME, "
                   "SORT_BY_STATE, SORT_BY_NUM_TRIALS, SORT_BY_PROGRESS, "
                   "SORT_BY_USER, SORT_BY_NAME, SORT_BY_DESCRIPTION, ..."));
}


}  // namespace

absl::StatusOr<api::ExperimentState> ParseExperimentStateQuery(const std::string& raw) {
  int n = 0;
  if (absl::SimpleAtoi(raw, &n)) {
    auto it = StateNumbers().find(n);
    if (it != StateNumbers().end()) return it->second;
  } else {
    absl::string_view v = raw;
    absl::ConsumePrefix(&v, "STATE_");
    if (v == "QUEUED" || v == "PULLING" || v == "STARTING" || v == "RUNNING") return api::ExperimentState::kActive;
    if (std::optional<api::ExperimentState> state = api::ParseExperimentState(v)) return *state;
  }
  return absl::InvalidArgumentError(absl::StrCat("states: unknown experiment state \"", raw, "\""));
}

namespace {

// Every value of the query parameter `snake_name` as an id; InvalidArgument names the parameter.
absl::StatusOr<std::vector<int64_t>> QueryIds(const HttpRequest& request, const std::string& snake_name) {
  std::vector<int64_t> out;
  for (const std::string& raw : request.QueryAll(snake_name)) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(raw, &v)) {
      return absl::InvalidArgumentError(
          absl::StrCat(api::ToLowerCamel(snake_name), ": expected an integer, got \"", raw, "\""));
    }
    out.push_back(v);
  }
  return out;
}

absl::StatusOr<std::optional<int64_t>> QueryId(const HttpRequest& request, const std::string& snake_name) {
  ASSIGN_OR_RETURN(std::vector<int64_t> ids, QueryIds(request, snake_name));
  return ids.empty() ? std::nullopt : std::optional<int64_t>(ids.front());
}

}  // namespace

absl::StatusOr<ExperimentListQuery> ParseExperimentListQuery(const HttpRequest& request) {
  ExperimentListQuery q;
  ExperimentFilter& f = q.filter;
  for (const std::string& raw : request.QueryAll("states")) {
    ASSIGN_OR_RETURN(api::ExperimentState state, ParseExperimentStateQuery(raw));
    if (std::find(f.states.begin(), f.states.end(), state) == f.states.end())
      f.states.push_back(state);
  }
  f.usernames = request.QueryAll("users");
  ASSIGN_OR_RETURN(f.user_ids, QueryIds(request, "user_ids"));
  ASSIGN_OR_RETURN(f.ids.lt, QueryId(request, "experiment_id_filter.lt"));
  ASSIGN_OR_RETURN(f.ids.lte, QueryId(request, "experiment_id_filter.lte"));
  ASSIGN_OR_RETURN(f.ids.gt, QueryId(request, "experiment_id_filter.gt"));
  ASSIGN_OR_RETURN(f.ids.gte, QueryId(request, "experiment_id_filter.gte"));
  ASSIGN_OR_RETURN(f.ids.incl, QueryIds(request, "experiment_id_filter.incl"));
  ASSIGN_OR_RETURN(f.ids.not_in, QueryIds(request, "experiment_id_filter.not_in"));
  ASSIGN_OR_RETURN(f.project_id, QueryId(request, "project_id"));
  f.labels = request.QueryAll("labels");
  f.name_contains = request.Query("name").value_or("");
  f.description_contains = request.Query("description").value_or("");
  ASSIGN_OR_RETURN(f.archived, QueryOptionalBool(request, "archived"));
  ASSIGN_OR_RETURN(f.sort, ParseSort(request.Query("sort_by").value_or("SORT_BY_ID")));
  ASSIGN_OR_RETURN(f.descending, QueryOrderDescending(request));
  ASSIGN_OR_RETURN(q.offset, QueryInt(request, "offset", 0));
  ASSIGN_OR_RETURN(f.limit, QueryInt(request, "limit", 0));
  if (f.limit < 0)
    return absl::InvalidArgumentError(absl::StrCat("limit: must be >= 0, got ", f.limit));
  return q;
}

absl::StatusOr<ExperimentPatch> ParseExperimentPatch(const json& body, int64_t experiment_id) {
  ExperimentPatch patch;
  if (const json* id = api::FindField(body, "id"); id != nullptr && !id->is_null()) {
    ASSIGN_OR_RETURN(int64_t body_id, api::ReadInt64(*id, "id"));
    if (body_id != 0 && body_id != experiment_id) {
      return absl::InvalidArgumentError(absl::StrCat("id: the body names experiment ", body_id,
                                                     " but the path names ", experiment_id));
    }
  }
  ASSIGN_OR_RETURN(patch.name, api::OptionalStringField(body, "name"));
  if (patch.name && absl::StripAsciiWhitespace(*patch.name).empty()) {
    return absl::InvalidArgumentError("`name` must not be an empty string");
  }
  ASSIGN_OR_RETURN(patch.description, api::OptionalStringField(body, "description"));
  ASSIGN_OR_RETURN(patch.notes, api::OptionalStringField(body, "notes"));
  if (const json* labels = api::FindField(body, "labels");
      labels != nullptr && !labels->is_null()) {
    if (!labels->is_array())
      return absl::InvalidArgumentError("labels: expected a list of strings");
    std::vector<std::string> out;
    for (const json& l : *labels) {
      if (!l.is_string()) return absl::InvalidArgumentError("labels: expected a list of strings");
      std::string label = l.get<std::string>();
      if (std::find(out.begin(), out.end(), label) == out.end()) out.push_back(label);
    }
    patch.labels = std::move(out);
  }
  return patch;
}

absl::StatusOr<std::optional<CheckpointGcPolicy>> ParseCheckpointStoragePatch(const json& body) {
  const json* storage = api::FindField(body, "checkpoint_storage");
  if (storage == nullptr || storage->is_null()) return std::nullopt;
  if (!storage->is_object()) {
    return absl::InvalidArgumentError(
        "checkpointStorage: expected an object with saveExperimentBest, saveTrialBest and saveTrialLatest");
  }
  CheckpointGcPolicy policy;
  for (auto [key, count] : kGcPolicyFields) {
    int64_t& value = policy.*count;
    value = 0;  // an absent field is 0, as in the proto3 message
    if (const json* v = api::FindField(*storage, key); v != nullptr && !v->is_null()) {
      ASSIGN_OR_RETURN(value, api::ReadInt64(*v, absl::StrCat("checkpointStorage.", key)));
    }
    if (value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("checkpointStorage.", key, ": must be a count >= 0, got ", value));
    }
  }
  return policy;
}

std::vector<std::string> WithLabel(std::vector<std::string> labels, const std::string& label,
                                   bool add) {
  auto it = std::find(labels.begin(), labels.end(), label);
  if (add && it == labels.end()) labels.push_back(label);
  if (!add && it != labels.end()) labels.erase(it);
  return labels;
}

}  // namespace det::master
