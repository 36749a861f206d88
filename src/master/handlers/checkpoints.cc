#include <algorithm>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/types_json.h"
#include "api/wire.h"
#include "common/status_macros.h"
#include "common/time_util.h"
#include "master/checkpoint_gc.h"
#include "master/checkpoint_globs.h"
#include "master/handlers/checkpoint_query.h"
#include "master/handlers/experiment_access.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/model_rules.h"
#include "master/handlers/task_access.h"

namespace det::master {
namespace {

using nlohmann::json;

absl::StatusOr<json> ReportCheckpoint(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  // The body is the Checkpoint itself; tolerate a {"checkpoint": {...}} wrapper too.
  if (const json* inner = api::FindField(body, "checkpoint"); inner != nullptr && inner->is_object()) body = *inner;
  api::Checkpoint c;
  c.uuid = api::StringField(body, "uuid");
  c.task_id = api::StringField(body, "task_id");
  c.allocation_id = api::StringField(body, "allocation_id");
  if (c.uuid.empty()) return absl::InvalidArgumentError("checkpoint uuid is required");
  if (c.task_id.empty()) return absl::InvalidArgumentError("checkpoint taskId is required");
  RETURN_IF_ERROR(CheckTaskOwnsTask(ctx.store, req, c.task_id));
  if (c.allocation_id.empty()) c.allocation_id = req.principal->allocation_id;
  ASSIGN_OR_RETURN(api::Trial trial, ctx.store.GetTrialByTaskId(c.task_id));
  c.trial_id = trial.id;
  c.experiment_id = trial.experiment_id;
  json resources = json::object();
  int64_t size = 0;
  if (const json* res = api::FindField(body, "resources"); res != nullptr) {
    if (!res->is_object()) return absl::InvalidArgumentError("checkpoint resources must map file paths to sizes");
    for (const auto& [path, value] : res->items()) {
      ASSIGN_OR_RETURN(int64_t bytes, api::ReadInt64(value, absl::StrCat("resources[\"", path, "\"]")));
      // Sizes are summed: negative ones or a sum past int64 (signed overflow) are refused.
      if (bytes < 0 || bytes > std::numeric_limits<int64_t>::max() - size) {
        return absl::InvalidArgumentError(absl::StrCat("resources[\"", path, "\"]: size ", bytes,
                                                       " is negative or makes the total overflow"));
      }
      resources[path] = bytes;
      size += bytes;
    }
  }
  c.resources_json = resources.dump();
  json metadata = json::object();
  if (const json* md = api::FindField(body, "metadata"); md != nullptr && md->is_object()) metadata = *md;
  c.metadata_json = metadata.dump();
  if (metadata.contains("steps_completed")) {
    ASSIGN_OR_RETURN(c.steps_completed, api::ReadInt64(metadata["steps_completed"], "metadata.steps_completed"));
  }
  c.report_time = std::chrono::system_clock::now();
  std::string report_time = api::StringField(body, "report_time");
  if (!report_time.empty()) {
    ASSIGN_OR_RETURN(c.report_time, ParseRfc3339(report_time));
  }
  std::string state = api::StringField(body, "state");
  c.state = state.rfind("STATE_", 0) == 0 ? state.substr(6) : "COMPLETED";
  // Where it was stored: its experiment's checkpoint_storage, by id (upstream's storageId).
  ASSIGN_OR_RETURN(api::Experiment experiment, ctx.store.GetExperiment(c.experiment_id));
  const json config = json::parse(experiment.config_json, nullptr, false);
  if (config.is_object() && config.contains("checkpoint_storage")) {
    ASSIGN_OR_RETURN(c.storage_id, ctx.store.CheckpointStorageId(config["checkpoint_storage"].dump()));
  }
  RETURN_IF_ERROR(ctx.store.AddCheckpoint(c, size));
  return json::object();
}

// Who may delete an experiment's checkpoints or edit their metadata: whoever may change the experiment,
// and its own trials' tasks (the Core API's checkpoint.delete).
absl::Status CheckCanChangeCheckpointsOf(Store& store, const HttpRequest& req, int64_t experiment_id) {
  const std::string& allocation_id = req.principal->allocation_id;
  if (allocation_id.empty()) return ExperimentForChange(store, req, experiment_id, rbac::Permission::kUpdateExperiment).status();
  ASSIGN_OR_RETURN(Allocation allocation, store.GetAllocation(allocation_id));
  ASSIGN_OR_RETURN(api::Trial trial, store.GetTrialByTaskId(allocation.task_id));
  if (trial.experiment_id != experiment_id) {
    return absl::PermissionDeniedError(absl::StrCat("allocation ", allocation_id, " belongs to experiment ",
                                                    trial.experiment_id, ", not to experiment ", experiment_id));
  }
  return absl::OkStatus();
}

// The named checkpoints by experiment, once the caller may delete each; NotFound naming every unknown
// uuid.
absl::StatusOr<std::map<int64_t, std::set<std::string>>> GroupForDeletion(MasterContext& ctx,
                                                                          const HttpRequest& req,
                                                                          const std::set<std::string>& uuids) {
  if (uuids.empty()) return absl::InvalidArgumentError("name at least one checkpoint to delete");
  std::map<int64_t, std::set<std::string>> by_experiment;
  std::vector<std::string> missing;
  for (const std::string& uuid : uuids) {
    absl::StatusOr<api::Checkpoint> c = ctx.store.GetCheckpoint(uuid);
    if (absl::IsNotFound(c.status())) {
      missing.push_back(uuid);
      continue;
    }
    if (!c.ok()) return c.status();
    by_experiment[c->experiment_id].insert(uuid);
  }
  if (!missing.empty()) {
    return absl::NotFoundError(absl::StrCat("checkpoints not found: ", absl::StrJoin(missing, ", ")));
  }
  for (const auto& [experiment_id, _] : by_experiment) {
    RETURN_IF_ERROR(CheckCanChangeCheckpointsOf(ctx.store, req, experiment_id));
  }
  return by_experiment;
}

// The body's list of strings `field` (snake_case, or its lowerCamelCase `camel`); empty when absent.
absl::StatusOr<std::vector<std::string>> StringList(const json& body, const char* field, const char* camel,
                                                    const char* what) {
  std::vector<std::string> out;
  const json* list = api::FindField(body, field);
  if (list == nullptr || list->is_null()) return out;
  auto is_string = [](const json& v) { return v.is_string(); };
  if (!list->is_array() || !std::all_of(list->begin(), list->end(), is_string)) {
    return absl::InvalidArgumentError(absl::StrCat(camel, ": expected a list of ", what));
  }
  for (const json& s : *list) out.push_back(s.get<std::string>());
  return out;
}

// DELETE /api/v1/checkpoints {checkpointUuids}: the files go on the GC worker, each checkpoint DELETED
// once storage confirmed.
absl::StatusOr<json> DeleteCheckpoints(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(std::vector<std::string> listed,
                   StringList(body, "checkpoint_uuids", "checkpointUuids", "checkpoint UUIDs"));
  ASSIGN_OR_RETURN(auto by_experiment, GroupForDeletion(ctx, req, {listed.begin(), listed.end()}));
  RETURN_IF_ERROR(RefuseRegisteredCheckpoints(ctx.store, listed, 0));
  for (auto& [experiment_id, named] : by_experiment) ctx.cluster.DeleteCheckpoints(experiment_id, std::move(named));
  return json::object();
}

// POST /api/v1/checkpoints/rm {checkpointUuids, checkpointGlobs}: the files the globs name go from each
// checkpoint on the GC worker; a checkpoint left with some files is PARTIALLY_DELETED, with none DELETED.
absl::StatusOr<json> RemoveCheckpointFiles(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(std::vector<std::string> listed,
                   StringList(body, "checkpoint_uuids", "checkpointUuids", "checkpoint UUIDs"));
  ASSIGN_OR_RETURN(std::vector<std::string> globs, StringList(body, "checkpoint_globs", "checkpointGlobs", "globs"));
  if (globs.empty()) {
    return absl::InvalidArgumentError(
        "checkpointGlobs: name at least one glob of files to remove, e.g. \"optimizer/**\" (DELETE "
        "/api/v1/checkpoints deletes whole checkpoints)");
  }
  for (const std::string& glob : globs) RETURN_IF_ERROR(ValidateCheckpointGlob(glob));
  ASSIGN_OR_RETURN(auto by_experiment, GroupForDeletion(ctx, req, {listed.begin(), listed.end()}));
  RETURN_IF_ERROR(RefuseRegisteredCheckpoints(ctx.store, listed, 0));
  std::vector<std::string> deleted;
  for (const auto& [_, uuids] : by_experiment) {
    for (const std::string& uuid : uuids) {
      ASSIGN_OR_RETURN(api::Checkpoint c, ctx.store.GetCheckpoint(uuid));
      if (c.state == "DELETED") deleted.push_back(uuid);
    }
  }
  if (!deleted.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("checkpoints already deleted, with no files to remove: ", absl::StrJoin(deleted, ", ")));
  }
  for (auto& [experiment_id, named] : by_experiment) {
    ctx.cluster.RemoveCheckpointFiles(experiment_id, std::move(named), globs);
  }
  return json::object();
}

// PATCH /api/v1/checkpoints {checkpoints: [{uuid, resources: {resources: {...}}}]}: what a process
// that deleted checkpoint files itself reports, as the files left. None: the whole checkpoint is gone,
// so it is DELETED; some: it is PARTIALLY_DELETED with those. A checkpoint without `resources` is left
// as it is. Every entry is checked before any is applied.
absl::StatusOr<json> PatchCheckpoints(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* list = api::FindField(body, "checkpoints");
  if (list == nullptr || !list->is_array()) return absl::InvalidArgumentError("checkpoints: expected a list");
  std::map<std::string, json> left_by_uuid;  // the files left, {path: bytes}
  for (const json& c : *list) {
    std::string uuid = c.is_object() ? api::StringField(c, "uuid") : "";
    if (uuid.empty()) return absl::InvalidArgumentError("checkpoints[]: each needs a uuid");
    const json* resources = api::FindField(c, "resources");
    if (resources == nullptr || resources->is_null()) continue;
    const json* files = api::FindField(*resources, "resources");
    json left = json::object();
    if (files != nullptr && !files->is_null()) {
      if (!files->is_object()) {
        return absl::InvalidArgumentError(
            absl::StrCat("checkpoint ", uuid, ": resources.resources must map paths to sizes"));
      }
      for (const auto& [path, size] : files->items()) {
        ASSIGN_OR_RETURN(left[path], api::ReadInt64(size, absl::StrCat("resources[\"", path, "\"]")));
      }
    }
    left_by_uuid[uuid] = std::move(left);
  }
  if (left_by_uuid.empty()) return json::object();
  std::set<std::string> uuids;
  for (const auto& [uuid, _] : left_by_uuid) uuids.insert(uuid);
  RETURN_IF_ERROR(GroupForDeletion(ctx, req, uuids).status());
  for (const auto& [uuid, left] : left_by_uuid) {
    RETURN_IF_ERROR(left.empty() ? ctx.store.MarkCheckpointDeleted(uuid)
                                 : ctx.store.MarkCheckpointPartiallyDeleted(uuid, left.dump()));
  }
  return json::object();
}

// POST /api/v1/checkpoints/{uuid}/metadata {checkpoint: {metadata: {...}}}: the checkpoint's user
// metadata becomes the given object (the SDK's add_metadata and remove_metadata send the whole of it).
absl::StatusOr<json> PostCheckpointMetadata(MasterContext& ctx, const HttpRequest& req) {
  const std::string& uuid = req.path_params.at("checkpoint_uuid");
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* checkpoint = api::FindField(body, "checkpoint");
  const json* metadata = checkpoint != nullptr && checkpoint->is_object() ? api::FindField(*checkpoint, "metadata")
                                                                          : nullptr;
  if (metadata == nullptr || !metadata->is_object()) {
    return absl::InvalidArgumentError("checkpoint.metadata: expected an object (the checkpoint's whole metadata)");
  }
  ASSIGN_OR_RETURN(api::Checkpoint c, ctx.store.GetCheckpoint(uuid));
  RETURN_IF_ERROR(CheckCanChangeCheckpointsOf(ctx.store, req, c.experiment_id));
  RETURN_IF_ERROR(ctx.store.SetCheckpointMetadata(uuid, metadata->dump()));
  ASSIGN_OR_RETURN(c, ctx.store.GetCheckpoint(uuid));
  return json{{"checkpoint", api::ToJson(c)}};
}

// GET /experiments/{id}/preview_gc?save_experiment_best=&save_trial_best=&save_trial_latest= (an echo
// route `det experiment set gc-policy` reads): the checkpoints GC under that policy would delete, in
// upstream's field names, and the searcher metric's name. An absent count is 0.
absl::StatusOr<json> PreviewGc(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "experiment_id"));
  ASSIGN_OR_RETURN(api::Experiment experiment, ctx.store.GetExperiment(id));
  CheckpointGcPolicy policy;
  for (auto [key, count] : kGcPolicyFields) {
    ASSIGN_OR_RETURN(policy.*count, QueryInt(req, key, 0));
    if (policy.*count < 0) {
      return absl::InvalidArgumentError(absl::StrCat(key, ": must be a count >= 0, got ", policy.*count));
    }
  }
  ASSIGN_OR_RETURN(std::vector<RankedCheckpoint> let_go, CheckpointsPolicyLetsGo(ctx.store, experiment, policy, {}));
  json checkpoints = json::array();
  for (const RankedCheckpoint& ranked : let_go) {
    const api::Checkpoint& c = ranked.checkpoint;
    checkpoints.push_back({{"UUID", c.uuid},
                           {"TaskID", c.task_id},
                           {"AllocationID", c.allocation_id},
                           {"ReportTime", FormatRfc3339(c.report_time)},
                           {"State", c.state},
                           {"Resources", json::parse(c.resources_json, nullptr, false)},
                           {"Metadata", json::parse(c.metadata_json, nullptr, false)},
                           {"TrialID", c.trial_id},
                           {"ExperimentID", c.experiment_id},
                           {"StepsCompleted", c.steps_completed},
                           {"ValidationMetrics", ranked.validation_metrics_json.empty()
                                                     ? json(nullptr)
                                                     : json::parse(ranked.validation_metrics_json, nullptr, false)}});
  }
  return json{{"checkpoints", checkpoints}, {"metric_name", experiment.searcher_metric}};
}

// GET /api/v1/checkpoints/{uuid}/model-versions: the model versions that hold the checkpoint.
absl::StatusOr<json> CheckpointModelVersions(MasterContext& ctx, const HttpRequest& req) {
  const std::string& uuid = req.path_params.at("checkpoint_uuid");
  RETURN_IF_ERROR(ctx.store.GetCheckpoint(uuid).status());
  ASSIGN_OR_RETURN(std::vector<Registration> registered, ctx.store.ListRegistrations({uuid}, 0));
  json versions = json::array();
  for (const Registration& v : registered) versions.push_back({{"modelName", v.model_name}, {"version", v.version}});
  return json{{"modelVersions", std::move(versions)}};
}

}  // namespace

void RegisterCheckpointRoutes(Router& router, MasterContext& ctx) {
  router.Add("POST", "/api/v1/checkpoints", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, ReportCheckpoint(ctx, req)); });
  router.Add("GET", "/experiments/{experiment_id}/preview_gc", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, PreviewGc(ctx, req)); });
  router.Add("DELETE", "/api/v1/checkpoints", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, DeleteCheckpoints(ctx, req)); });
  router.Add("POST", "/api/v1/checkpoints/rm", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, RemoveCheckpointFiles(ctx, req)); });
  router.Add("PATCH", "/api/v1/checkpoints", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, PatchCheckpoints(ctx, req)); });
  router.Add("POST", "/api/v1/checkpoints/{checkpoint_uuid}/metadata", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, PostCheckpointMetadata(ctx, req)); });
  // Ours (upstream has none): the model versions that hold the checkpoint, for `det checkpoint describe`.
  router.Add("GET", "/api/v1/checkpoints/{checkpoint_uuid}/model-versions", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, CheckpointModelVersions(ctx, req)); });
  router.Add("GET", "/api/v1/checkpoints/{checkpoint_uuid}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               Reply(r, [&]() -> absl::StatusOr<json> {
                 ASSIGN_OR_RETURN(api::Checkpoint c, ctx.store.GetCheckpoint(req.path_params.at("checkpoint_uuid")));
                 return CheckpointResponse(ctx.store, c);
               }());
             });
}

}  // namespace det::master
