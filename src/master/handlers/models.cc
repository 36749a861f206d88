// The model registry (upstream's model/v1): /api/v1/models (list, create), /api/v1/models/{name or id}
// (get, patch, delete, archive, unarchive, move), its versions (list, register, get, patch, delete,
// the metrics of the trials that used one)
// and /api/v1/model/labels. The rules are model_rules.h's.
#include <functional>
#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "common/time_util.h"
#include "master/handlers/checkpoint_query.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/handlers/trial_sources.h"
#include "master/model_rules.h"
#include "master/workspace_rules.h"
#include "master/task/authz.h"

namespace det::master {
namespace {

using nlohmann::json;

json ModelJson(const Model& m) {
  return {{"id", m.id},
          {"name", m.name},
          {"description", m.description},
          {"metadata", ParseJson(m.metadata_json).value_or(json::object())},
          {"creationTime", FormatRfc3339(m.creation_time)},
          {"lastUpdatedTime", FormatRfc3339(m.last_updated_time)},
          {"numVersions", m.num_versions},
          {"labels", m.labels},
          {"username", m.username},
          {"userId", m.user_id},
          {"workspaceId", m.workspace_id},
          {"archived", m.archived},
          {"notes", m.notes}};
}

absl::StatusOr<json> VersionJson(Store& store, const Model& m, const ModelVersion& v) {
  json checkpoint = nullptr;
  if (absl::StatusOr<api::Checkpoint> c = store.GetCheckpoint(v.checkpoint_uuid); c.ok()) {
    ASSIGN_OR_RETURN(json response, CheckpointResponse(store, *c));
    checkpoint = response["checkpoint"];
  }
  return json{{"id", v.id},
              {"model", ModelJson(m)},
              {"checkpoint", checkpoint},
              {"version", v.version},
              {"creationTime", FormatRfc3339(v.creation_time)},
              {"lastUpdatedTime", FormatRfc3339(v.last_updated_time)},
              {"name", v.name},
              {"metadata", ParseJson(v.metadata_json).value_or(json::object())},
              {"comment", v.comment},
              {"username", v.username},
              {"userId", v.user_id},
              {"labels", v.labels},
              {"notes", v.notes}};
}

// `metadata` (an object, as JSON text) and `labels` (strings; others are dropped, as upstream's).
absl::Status ReadMetadataAndLabels(const json& body, std::optional<std::string>& metadata,
                                   std::optional<std::vector<std::string>>& labels) {
  if (const json* m = api::FindField(body, "metadata"); m != nullptr && !m->is_null()) {
    if (!m->is_object()) return absl::InvalidArgumentError("metadata must be a JSON object");
    metadata = DumpJson(*m);
  }
  if (const json* l = api::FindField(body, "labels"); l != nullptr && !l->is_null()) {
    if (!l->is_array()) return absl::InvalidArgumentError("labels must be a list of strings");
    labels.emplace();
    for (const json& label : *l) {
      if (label.is_string()) labels->push_back(label.get<std::string>());
    }
  }
  return absl::OkStatus();
}

// `workspaceId` or `workspaceName` of a body (0 when neither).
absl::StatusOr<int64_t> WorkspaceOfBody(Store& store, const json& body) {
  if (const json* id = api::FindField(body, "workspace_id"); id != nullptr && !id->is_null()) {
    ASSIGN_OR_RETURN(int64_t workspace_id, api::ReadInt64(*id, "workspaceId"));
    if (workspace_id != 0) return workspace_id;
  }
  const std::string name = api::StringField(body, "workspace_name");
  if (name.empty()) return 0;
  ASSIGN_OR_RETURN(Workspace workspace, WorkspaceByName(store, name));
  return workspace.id;
}

// A model body's fields (create and PATCH): name, description, notes, metadata, labels and the
// workspace (by workspaceId or workspaceName); unset = not given.
absl::StatusOr<ModelPatch> ReadModelFields(Store& store, const json& body) {
  ModelPatch fields;
  ASSIGN_OR_RETURN(fields.name, api::OptionalStringField(body, "name"));
  ASSIGN_OR_RETURN(fields.description, api::OptionalStringField(body, "description"));
  ASSIGN_OR_RETURN(fields.notes, api::OptionalStringField(body, "notes"));
  RETURN_IF_ERROR(ReadMetadataAndLabels(body, fields.metadata_json, fields.labels));
  ASSIGN_OR_RETURN(int64_t workspace_id, WorkspaceOfBody(store, body));
  if (workspace_id != 0) fields.workspace_id = workspace_id;
  return fields;
}

// A version body's fields (register and PATCH): name, comment, notes, metadata, labels.
absl::StatusOr<ModelVersionPatch> ReadVersionFields(const json& body) {
  ModelVersionPatch fields;
  ASSIGN_OR_RETURN(fields.name, api::OptionalStringField(body, "name"));
  ASSIGN_OR_RETURN(fields.comment, api::OptionalStringField(body, "comment"));
  ASSIGN_OR_RETURN(fields.notes, api::OptionalStringField(body, "notes"));
  RETURN_IF_ERROR(ReadMetadataAndLabels(body, fields.metadata_json, fields.labels));
  return fields;
}

absl::StatusOr<Model> ModelOfPath(Store& store, const HttpRequest& req) {
  return FindModel(store, req.path_params.at("model_name"));
}

// Only the model's owner or an admin changes or deletes it.
absl::StatusOr<Model> ModelForChange(Store& store, const HttpRequest& req) {
  ASSIGN_OR_RETURN(Model m, ModelOfPath(store, req));
  RETURN_IF_ERROR(DefaultAuthz().Check(*req.principal, rbac::Permission::kEditModelRegistry,
                                       {"model", m.name, m.user_id, m.workspace_id}));
  return m;
}

absl::StatusOr<ModelFilter::SortBy> ModelSort(const std::string& sort) {
  using SortBy = ModelFilter::SortBy;
  static const std::pair<const char*, SortBy> kSorts[] = {
      {"SORT_BY_UNSPECIFIED", SortBy::kName},         {"SORT_BY_NAME", SortBy::kName},
      {"SORT_BY_DESCRIPTION", SortBy::kDescription},   {"SORT_BY_CREATION_TIME", SortBy::kCreationTime},
      {"SORT_BY_LAST_UPDATED_TIME", SortBy::kLastUpdatedTime}, {"SORT_BY_NUM_VERSIONS", SortBy::kNumVersions},
      {"SORT_BY_WORKSPACE", SortBy::kWorkspace}};
  for (const auto& [name, by] : kSorts) {
    if (sort == name) return by;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "sortBy must be SORT_BY_NAME, SORT_BY_DESCRIPTION, SORT_BY_CREATION_TIME, SORT_BY_LAST_UPDATED_TIME, "
      "SORT_BY_NUM_VERSIONS or SORT_BY_WORKSPACE, got \"", sort, "\""));
}

absl::StatusOr<json> ListModels(MasterContext& ctx, const HttpRequest& req) {
  ModelFilter f;
  f.name = req.Query("name").value_or("");
  f.description = req.Query("description").value_or("");
  f.labels = req.QueryAll("labels");
  ASSIGN_OR_RETURN(f.archived, QueryOptionalBool(req, "archived"));
  f.usernames = req.QueryAll("users");
  for (const std::string& raw : req.QueryAll("user_ids")) {
    ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(json(raw), "userIds"));
    f.user_ids.push_back(id);
  }
  for (const std::string& raw : req.QueryAll("workspace_ids")) {
    ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(json(raw), "workspaceIds"));
    f.workspace_ids.push_back(id);
  }
  f.workspace_names = req.QueryAll("workspace_names");
  ASSIGN_OR_RETURN(f.id, QueryInt(req, "id", 0));
  ASSIGN_OR_RETURN(f.sort_by, ModelSort(req.Query("sort_by").value_or("SORT_BY_UNSPECIFIED")));
  ASSIGN_OR_RETURN(f.descending, QueryOrderDescending(req));
  ASSIGN_OR_RETURN(f.offset, QueryInt(req, "offset", 0));
  ASSIGN_OR_RETURN(f.limit, QueryInt(req, "limit", 0));
  if (f.offset < 0 || f.limit < 0) return absl::InvalidArgumentError("offset and limit must be >= 0");
  ASSIGN_OR_RETURN(f.visible_workspaces, VisibleWorkspaces(*req.principal, rbac::Permission::kViewModelRegistry));
  ASSIGN_OR_RETURN(ModelPage page, ctx.store.ListModels(f));
  json out = json::array();
  for (const Model& m : page.models) out.push_back(ModelJson(m));
  return json{{"models", out},
              {"pagination", Pagination(f.offset, f.limit, static_cast<int64_t>(page.models.size()), page.total)}};
}

absl::StatusOr<json> CreateModel(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(ModelPatch fields, ReadModelFields(ctx.store, body));
  Model m{.name = fields.name.value_or(""),
          .description = fields.description.value_or(""),
          .metadata_json = fields.metadata_json.value_or("{}"),
          .labels = fields.labels.value_or(std::vector<std::string>{}),
          .notes = fields.notes.value_or(""),
          .workspace_id = fields.workspace_id.value_or(1),
          .user_id = req.principal->user_id};
  RETURN_IF_ERROR(DefaultAuthz().Check(*req.principal, rbac::Permission::kCreateModelRegistry,
                                       {"model", m.name, m.user_id, m.workspace_id}));
  ASSIGN_OR_RETURN(Model created, CreateModelChecked(ctx.store, m));
  return json{{"model", ModelJson(created)}};
}

absl::StatusOr<json> PatchModel(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(ModelPatch patch, ReadModelFields(ctx.store, body));
  ASSIGN_OR_RETURN(Model m, ModelForChange(ctx.store, req));
  ASSIGN_OR_RETURN(Model patched, PatchModelChecked(ctx.store, m, patch));
  return json{{"model", ModelJson(patched)}};
}

absl::StatusOr<json> MoveModel(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* destination = api::FindField(body, "destination_workspace_id");
  if (destination == nullptr) return absl::InvalidArgumentError("destinationWorkspaceId is required");
  ASSIGN_OR_RETURN(int64_t workspace_id, api::ReadInt64(*destination, "destinationWorkspaceId"));
  ASSIGN_OR_RETURN(Model m, ModelForChange(ctx.store, req));
  RETURN_IF_ERROR(PatchModelChecked(ctx.store, m, {.workspace_id = workspace_id}).status());
  return json::object();
}

absl::StatusOr<json> ArchiveModel(MasterContext& ctx, const HttpRequest& req, bool archived) {
  ASSIGN_OR_RETURN(Model m, ModelForChange(ctx.store, req));
  RETURN_IF_ERROR(ctx.store.SetModelArchived(m.id, archived));
  return json::object();
}

// Deleting needs DELETE_MODEL_REGISTRY, and DELETE_OTHER_USER_MODEL_REGISTRY for another user's model (basic:
// the owner or an admin).
absl::StatusOr<json> DeleteModel(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(Model m, ModelOfPath(ctx.store, req));
  const bool own = m.user_id == req.principal->user_id;
  RETURN_IF_ERROR(DefaultAuthz().Check(
      *req.principal, own ? rbac::Permission::kDeleteModelRegistry : rbac::Permission::kDeleteOtherUserModelRegistry,
      {"model", m.name, m.user_id, m.workspace_id}));
  RETURN_IF_ERROR(ctx.store.DeleteModel(m.id));
  return json::object();
}

absl::StatusOr<json> ListVersions(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(Model m, ModelOfPath(ctx.store, req));
  const std::string sort = req.Query("sort_by").value_or("SORT_BY_UNSPECIFIED");
  if (sort != "SORT_BY_UNSPECIFIED" && sort != "SORT_BY_VERSION" && sort != "SORT_BY_CREATION_TIME") {
    return absl::InvalidArgumentError(
        absl::StrCat("sortBy must be SORT_BY_VERSION or SORT_BY_CREATION_TIME, got \"", sort, "\""));
  }
  ASSIGN_OR_RETURN(bool descending, QueryOrderDescending(req));
  ASSIGN_OR_RETURN(int64_t offset, QueryInt(req, "offset", 0));
  ASSIGN_OR_RETURN(int64_t limit, QueryInt(req, "limit", 0));
  if (offset < 0 || limit < 0) return absl::InvalidArgumentError("offset and limit must be >= 0");
  // Versions are numbered in creation order: both sorts are the same order.
  ASSIGN_OR_RETURN(std::vector<ModelVersion> versions, ctx.store.ListModelVersions(m.id, descending));
  const auto total = static_cast<int64_t>(versions.size());
  json out = json::array();
  for (int64_t i = offset; i < total && (limit == 0 || i < offset + limit); ++i) {
    ASSIGN_OR_RETURN(json v, VersionJson(ctx.store, m, versions[static_cast<size_t>(i)]));
    out.push_back(std::move(v));
  }
  const auto count = static_cast<int64_t>(out.size());
  return json{{"model", ModelJson(m)}, {"modelVersions", out}, {"pagination", Pagination(offset, limit, count, total)}};
}

absl::StatusOr<json> RegisterVersion(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(ModelVersionPatch fields, ReadVersionFields(body));
  const std::string uuid = api::StringField(body, "checkpoint_uuid");
  if (uuid.empty()) return absl::InvalidArgumentError("checkpointUuid is required: the checkpoint to register");
  ASSIGN_OR_RETURN(Model m, ModelOfPath(ctx.store, req));
  ModelVersion v{.checkpoint_uuid = uuid,
                 .name = fields.name.value_or(""),
                 .comment = fields.comment.value_or(""),
                 .metadata_json = fields.metadata_json.value_or("{}"),
                 .labels = fields.labels.value_or(std::vector<std::string>{}),
                 .notes = fields.notes.value_or(""),
                 .user_id = req.principal->user_id};
  ASSIGN_OR_RETURN(ModelVersion created, RegisterVersionChecked(ctx.store, m, v));
  ASSIGN_OR_RETURN(Model after, ctx.store.GetModel(m.id));
  ASSIGN_OR_RETURN(json out, VersionJson(ctx.store, after, created));
  return json{{"modelVersion", out}};
}

absl::StatusOr<int64_t> VersionOfPath(const HttpRequest& req) {
  int64_t n = 0;
  const std::string& raw = req.path_params.at("model_version_num");
  if (!absl::SimpleAtoi(raw, &n) || n < 1) {
    return absl::InvalidArgumentError(absl::StrCat("model version must be a number from 1, got \"", raw, "\""));
  }
  return n;
}

absl::StatusOr<json> GetVersion(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(Model m, ModelOfPath(ctx.store, req));
  ASSIGN_OR_RETURN(int64_t n, VersionOfPath(req));
  ASSIGN_OR_RETURN(ModelVersion v, ctx.store.GetModelVersion(m.id, n));
  ASSIGN_OR_RETURN(json out, VersionJson(ctx.store, m, v));
  return json{{"modelVersion", out}};
}

absl::StatusOr<json> PatchVersion(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(ModelVersionPatch patch, ReadVersionFields(body));
  ASSIGN_OR_RETURN(Model m, ModelForChange(ctx.store, req));
  ASSIGN_OR_RETURN(int64_t n, VersionOfPath(req));
  ASSIGN_OR_RETURN(ModelVersion v, PatchVersionChecked(ctx.store, m, n, patch));
  ASSIGN_OR_RETURN(json out, VersionJson(ctx.store, m, v));
  return json{{"modelVersion", out}};
}

absl::StatusOr<json> DeleteVersion(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(Model m, ModelForChange(ctx.store, req));
  ASSIGN_OR_RETURN(int64_t n, VersionOfPath(req));
  RETURN_IF_ERROR(ctx.store.GetModelVersion(m.id, n).status());
  RETURN_IF_ERROR(ctx.store.DeleteModelVersion(m.id, n));
  return json::object();
}

// The metrics of the trials that used the version (see trial_sources.h).
absl::StatusOr<json> VersionMetrics(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(Model m, ModelOfPath(ctx.store, req));
  ASSIGN_OR_RETURN(int64_t n, VersionOfPath(req));
  RETURN_IF_ERROR(ctx.store.GetModelVersion(m.id, n).status());
  return TrialSourceMetrics(ctx.store, {.model_id = m.id, .model_version = n}, req);
}

}  // namespace

void RegisterModelRoutes(Router& router, MasterContext& ctx) {
  auto add = [&router, &ctx](const char* method, const char* path,
                             std::function<absl::StatusOr<json>(MasterContext&, const HttpRequest&)> handler) {
    router.Add(method, path, Access::kAuthenticated,
               [&ctx, handler](HttpRequest& req, ResponderPtr r) { Reply(r, handler(ctx, req)); });
  };
  add("GET", "/api/v1/models", ListModels);
  add("POST", "/api/v1/models", CreateModel);
  add("GET", "/api/v1/model/labels", [](MasterContext& ctx, const HttpRequest& req) -> absl::StatusOr<json> {
    ASSIGN_OR_RETURN(int64_t workspace_id, QueryInt(req, "workspace_id", 0));
    ASSIGN_OR_RETURN(std::vector<std::string> labels, ctx.store.ListModelLabels(workspace_id));
    return json{{"labels", labels}};
  });
  add("GET", "/api/v1/models/{model_name}", [](MasterContext& ctx, const HttpRequest& req) -> absl::StatusOr<json> {
    ASSIGN_OR_RETURN(Model m, ModelOfPath(ctx.store, req));
    return json{{"model", ModelJson(m)}};
  });
  add("PATCH", "/api/v1/models/{model_name}", PatchModel);
  add("DELETE", "/api/v1/models/{model_name}", DeleteModel);
  add("POST", "/api/v1/models/{model_name}/archive",
      [](MasterContext& ctx, const HttpRequest& req) { return ArchiveModel(ctx, req, true); });
  add("POST", "/api/v1/models/{model_name}/unarchive",
      [](MasterContext& ctx, const HttpRequest& req) { return ArchiveModel(ctx, req, false); });
  add("POST", "/api/v1/models/{model_name}/move", MoveModel);
  add("GET", "/api/v1/models/{model_name}/versions", ListVersions);
  add("POST", "/api/v1/models/{model_name}/versions", RegisterVersion);
  add("GET", "/api/v1/models/{model_name}/versions/{model_version_num}", GetVersion);
  add("PATCH", "/api/v1/models/{model_name}/versions/{model_version_num}", PatchVersion);
  add("DELETE", "/api/v1/models/{model_name}/versions/{model_version_num}", DeleteVersion);
  add("GET", "/api/v1/models/{model_name}/versions/{model_version_num}/metrics", VersionMetrics);
}

}  // namespace det::master
