#include <limits>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/types_json.h"
#include "api/wire.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
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
  RETURN_IF_ERROR(ctx.store.AddCheckpoint(c, size));
  return json::object();
}

}  // namespace

void RegisterCheckpointRoutes(Router& router, MasterContext& ctx) {
  router.Add("POST", "/api/v1/checkpoints", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, ReportCheckpoint(ctx, req)); });
  router.Add("GET", "/api/v1/checkpoints/{checkpoint_uuid}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               absl::StatusOr<api::Checkpoint> c = ctx.store.GetCheckpoint(req.path_params.at("checkpoint_uuid"));
               if (!c.ok()) return ReplyError(r, c.status());
               ReplyJson(r, {{"checkpoint", api::ToJson(*c)}});
             });
}

}  // namespace det::master
