#include "master/handlers/project_bulk.h"

#include <string>

#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "api/wire.h"
#include "common/status_macros.h"

namespace det::master {
namespace {

using nlohmann::json;

absl::StatusOr<std::vector<int64_t>> IdList(const json& value, const char* field) {
  if (!value.is_array()) return absl::InvalidArgumentError(absl::StrCat(field, " must be a list of ids"));
  std::vector<int64_t> out;
  for (const json& raw : value) {
    ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(raw, field));
    out.push_back(id);
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> StringList(const json& value, const char* field) {
  if (!value.is_array()) return absl::InvalidArgumentError(absl::StrCat(field, " must be a list of strings"));
  std::vector<std::string> out;
  for (const json& raw : value) {
    if (!raw.is_string()) return absl::InvalidArgumentError(absl::StrCat(field, " must be a list of strings"));
    out.push_back(raw.get<std::string>());
  }
  return out;
}

// Upstream's BulkExperimentFilters {name, description, labels, archived, states, userIds, projectId,
// excludedExperimentIds}, as an object or as its JSON text, read into a filter of `project_id`.
absl::StatusOr<ExperimentFilter> ReadFilters(const json& given, int64_t project_id) {
  json filters = given;
  if (given.is_string()) filters = json::parse(given.get<std::string>(), nullptr, false);
  if (!filters.is_object()) return absl::InvalidArgumentError("filters must be a JSON object");
  ExperimentFilter f;
  if (project_id != kAllProjects) f.project_id = project_id;
  if (const json* other = api::FindField(filters, "project_id"); other != nullptr && !other->is_null()) {
    ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(*other, "filters.projectId"));
    if (project_id == kAllProjects && id > 0) {
      f.project_id = id;
    } else if (id != 0 && id != project_id) {
      return absl::InvalidArgumentError(absl::StrCat("filters.projectId ", id, " differs from project ", project_id,
                                                     " in the path: a bulk action stays in its project"));
    }
  }
  f.name_contains = api::StringField(filters, "name");
  f.description_contains = api::StringField(filters, "description");
  if (const json* labels = api::FindField(filters, "labels"); labels != nullptr && !labels->is_null()) {
    ASSIGN_OR_RETURN(f.labels, StringList(*labels, "filters.labels"));
  }
  if (const json* archived = api::FindField(filters, "archived"); archived != nullptr && !archived->is_null()) {
    if (!archived->is_boolean()) return absl::InvalidArgumentError("filters.archived must be true or false");
    f.archived = archived->get<bool>();
  }
  if (const json* states = api::FindField(filters, "states"); states != nullptr && !states->is_null()) {
    ASSIGN_OR_RETURN(std::vector<std::string> names, StringList(*states, "filters.states"));
    for (absl::string_view name : names) {
      absl::ConsumePrefix(&name, "STATE_");
      std::optional<api::ExperimentState> state = api::ParseExperimentState(name);
      if (!state) return absl::InvalidArgumentError(absl::StrCat("filters.states: no state is named ", name));
      f.states.push_back(*state);
    }
  }
  if (const json* users = api::FindField(filters, "user_ids"); users != nullptr && !users->is_null()) {
    ASSIGN_OR_RETURN(f.user_ids, IdList(*users, "filters.userIds"));
  }
  if (const json* excluded = api::FindField(filters, "excluded_experiment_ids");
      excluded != nullptr && !excluded->is_null()) {
    ASSIGN_OR_RETURN(f.ids.not_in, IdList(*excluded, "filters.excludedExperimentIds"));
  }
  return f;
}

}  // namespace

absl::StatusOr<std::vector<BulkTarget>> ProjectBulkTargets(Store& store, int64_t project_id, const json& body,
                                                           std::optional<std::vector<int64_t>> visible_workspaces) {
  if (project_id != kAllProjects) RETURN_IF_ERROR(store.GetProject(project_id).status());
  std::vector<BulkTarget> targets;
  if (const json* filters = api::FindField(body, "filters"); filters != nullptr && !filters->is_null()) {
    ASSIGN_OR_RETURN(ExperimentFilter f, ReadFilters(*filters, project_id));
    f.visible_workspaces = std::move(visible_workspaces);
    ASSIGN_OR_RETURN(std::vector<api::Experiment> matched, store.ListExperiments(f));
    for (const api::Experiment& e : matched) targets.push_back({.id = e.id});
    return targets;
  }
  const json* ids = api::FindField(body, "experiment_ids");
  if (ids == nullptr || !ids->is_array() || ids->empty()) {
    return absl::InvalidArgumentError("experimentIds: name at least one experiment, or give filters");
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> named, IdList(*ids, "experimentIds"));
  for (int64_t id : named) {
    absl::StatusOr<api::Experiment> e = store.GetExperiment(id);
    absl::Status status = e.status();
    if (e.ok() && project_id != kAllProjects && e->project_id != project_id) {
      status = absl::FailedPreconditionError(
          absl::StrCat("experiment ", id, " is in project ", e->project_id, ", not in project ", project_id));
    }
    targets.push_back({.id = id, .status = status});
  }
  return targets;
}

json BulkResults(const std::vector<BulkTarget>& targets) {
  json results = json::array();
  for (const BulkTarget& t : targets) {
    results.push_back({{"error", t.status.ok() ? "" : std::string(t.status.message())}, {"id", t.id}});
  }
  return json{{"results", std::move(results)}};
}

json RunBulk(std::vector<BulkTarget> targets, const std::function<absl::Status(int64_t)>& action) {
  for (BulkTarget& t : targets) {
    if (t.status.ok()) t.status = action(t.id);
  }
  return BulkResults(targets);
}

}  // namespace det::master
