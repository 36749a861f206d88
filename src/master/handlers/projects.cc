// Projects (upstream's project/v1): /api/v1/projects/{id} (get, patch, delete, archive, unarchive,
// move, notes) and /api/v1/projects/key/{key}. Listing and creating are the workspace's
// (workspaces.cc).
#include <functional>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/handlers/workspace_common.h"
#include "master/metric_columns.h"
#include "master/task/authz.h"
#include "master/workspace_rules.h"

namespace det::master {
namespace {

using nlohmann::json;

absl::StatusOr<json> PatchProject(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ProjectPatch patch;
  ASSIGN_OR_RETURN(patch.name, api::OptionalStringField(body, "name"));
  ASSIGN_OR_RETURN(patch.description, api::OptionalStringField(body, "description"));
  ASSIGN_OR_RETURN(patch.key, api::OptionalStringField(body, "key"));
  RETURN_IF_ERROR(ProjectForChange(ctx.store, *req.principal, id).status());
  ASSIGN_OR_RETURN(Project patched, PatchProjectChecked(ctx.store, id, patch));
  return json{{"project", ProjectJson(patched)}};
}

// Its experiments go through the experiment deletion (their checkpoints with them, asynchronously);
// its row goes now. `completed` is false while experiments are still being deleted.
absl::StatusOr<json> DeleteProject(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "id"));
  RETURN_IF_ERROR(ProjectForChange(ctx.store, *req.principal, id).status());
  ASSIGN_OR_RETURN(std::vector<int64_t> experiments, ProjectDeletion(ctx.store, id));
  RETURN_IF_ERROR(DeleteExperimentsOf(ctx, experiments));
  RETURN_IF_ERROR(ctx.store.DeleteProject(id));
  return json{{"completed", experiments.empty()}};
}

absl::StatusOr<json> MoveProject(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "project_id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* destination = api::FindField(body, "destination_workspace_id");
  if (destination == nullptr) return absl::InvalidArgumentError("destinationWorkspaceId is required");
  ASSIGN_OR_RETURN(int64_t workspace_id, api::ReadInt64(*destination, "destinationWorkspaceId"));
  RETURN_IF_ERROR(ProjectForChange(ctx.store, *req.principal, id).status());
  RETURN_IF_ERROR(MoveProjectChecked(ctx.store, id, workspace_id).status());
  return json::object();
}

// A note is {name, contents}, both strings.
absl::Status CheckNote(const json& note) {
  if (!note.is_object() || !note.value("name", json()).is_string() || !note.value("contents", json()).is_string()) {
    return absl::InvalidArgumentError("a note is {\"name\": string, \"contents\": string}");
  }
  return absl::OkStatus();
}

// POST appends one note {name, contents}; PUT replaces them all with {notes: [...]}. Both answer the
// notes afterwards.
absl::StatusOr<json> SetNotes(MasterContext& ctx, const HttpRequest& req, bool append) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "project_id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(Project project, ProjectForChange(ctx.store, *req.principal, id));
  json notes;
  if (append) {
    RETURN_IF_ERROR(CheckNote(body));
    notes = ParseJson(project.notes_json).value_or(json::array());
    notes.push_back({{"name", body["name"]}, {"contents", body["contents"]}});
  } else {
    notes = body.value("notes", json());
    if (!notes.is_array()) return absl::InvalidArgumentError("notes must be a list of {name, contents}");
    for (const json& note : notes) RETURN_IF_ERROR(CheckNote(note));
  }
  ASSIGN_OR_RETURN(Project patched, PatchProjectChecked(ctx.store, id, {.notes_json = DumpJson(notes)}));
  return json{{"notes", ParseJson(patched.notes_json).value_or(json::array())}};
}

absl::StatusOr<json> ArchiveProject(MasterContext& ctx, const HttpRequest& req, bool archived) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "id"));
  RETURN_IF_ERROR(ProjectForChange(ctx.store, *req.principal, id).status());
  RETURN_IF_ERROR(SetProjectArchivedChecked(ctx.store, id, archived));
  return json::object();
}

// The experiments of project `id` and all their trials (for its table's columns and metric ranges).
absl::StatusOr<std::pair<std::vector<api::Experiment>, std::vector<api::Trial>>> ProjectTrials(MasterContext& ctx,
                                                                                                int64_t id) {
  RETURN_IF_ERROR(ctx.store.GetProject(id).status());
  ExperimentFilter filter;
  filter.project_id = id;
  ASSIGN_OR_RETURN(std::vector<api::Experiment> experiments, ctx.store.ListExperiments(filter));
  std::vector<api::Trial> trials;
  for (const api::Experiment& e : experiments) {
    ASSIGN_OR_RETURN(std::vector<api::Trial> of, ctx.store.ListTrials(e.id));
    trials.insert(trials.end(), std::make_move_iterator(of.begin()), std::make_move_iterator(of.end()));
  }
  return std::make_pair(std::move(experiments), std::move(trials));
}

// GET /api/v1/projects/{id}/columns (GetProjectColumns): the experiment table's columns, its
// experiments' hyperparameters and reported metrics among them (metric_columns.h).
absl::StatusOr<json> ProjectColumns(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "id"));
  std::string table = req.Query("table_type").value_or("");
  if (!table.empty() && table != "TABLE_TYPE_UNSPECIFIED" && table != "TABLE_TYPE_EXPERIMENT") {
    return absl::InvalidArgumentError(absl::StrCat(
        "tableType: \"", table, "\" is not served: the table of experiments (TABLE_TYPE_EXPERIMENT) is"));
  }
  ASSIGN_OR_RETURN(auto found, ProjectTrials(ctx, id));
  return json{{"columns", ProjectColumnsJson(found.first, found.second)}};
}

// GET /api/v1/projects/{id}/experiments/metric-ranges (GetProjectNumericMetricsRange).
absl::StatusOr<json> ProjectMetricRanges(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "id"));
  ASSIGN_OR_RETURN(auto found, ProjectTrials(ctx, id));
  return json{{"ranges", MetricRangesJson(found.second)}};
}

}  // namespace

void RegisterProjectRoutes(Router& router, MasterContext& ctx) {
  auto add = [&router, &ctx](const char* method, const char* path,
                             std::function<absl::StatusOr<json>(MasterContext&, const HttpRequest&)> handler) {
    router.Add(method, path, Access::kAuthenticated,
               [&ctx, handler](HttpRequest& req, ResponderPtr r) { Reply(r, handler(ctx, req)); });
  };
  add("GET", "/api/v1/projects/key/{key}", [](MasterContext& ctx, const HttpRequest& req) -> absl::StatusOr<json> {
    ASSIGN_OR_RETURN(std::string key, ProjectKey(req.path_params.at("key")));
    ASSIGN_OR_RETURN(Project p, ctx.store.GetProjectByKey(key));
    return json{{"project", ProjectJson(p)}};
  });
  add("GET", "/api/v1/projects/{id}", [](MasterContext& ctx, const HttpRequest& req) -> absl::StatusOr<json> {
    ASSIGN_OR_RETURN(int64_t id, PathId(req, "id"));
    ASSIGN_OR_RETURN(Project p, ctx.store.GetProject(id));
    return json{{"project", ProjectJson(p)}};
  });
  add("GET", "/api/v1/projects/{id}/columns", ProjectColumns);
  add("GET", "/api/v1/projects/{id}/experiments/metric-ranges", ProjectMetricRanges);
  add("PATCH", "/api/v1/projects/{id}", PatchProject);
  add("DELETE", "/api/v1/projects/{id}", DeleteProject);
  add("POST", "/api/v1/projects/{id}/archive",
      [](MasterContext& ctx, const HttpRequest& req) { return ArchiveProject(ctx, req, true); });
  add("POST", "/api/v1/projects/{id}/unarchive",
      [](MasterContext& ctx, const HttpRequest& req) { return ArchiveProject(ctx, req, false); });
  add("POST", "/api/v1/projects/{project_id}/move", MoveProject);
  add("POST", "/api/v1/projects/{project_id}/notes",
      [](MasterContext& ctx, const HttpRequest& req) { return SetNotes(ctx, req, true); });
  add("PUT", "/api/v1/projects/{project_id}/notes",
      [](MasterContext& ctx, const HttpRequest& req) { return SetNotes(ctx, req, false); });
}

}  // namespace det::master
