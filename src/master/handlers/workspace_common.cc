#include "master/handlers/workspace_common.h"

#include <string>

#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "common/time_util.h"
#include "master/experiment_rules.h"
#include "master/task/authz.h"

namespace det::master {

using nlohmann::json;

namespace {
// What a workspace or project's `state` says: deletion removes the rows, so none is ever seen deleting.
constexpr char kStateUnspecified[] = "WORKSPACE_STATE_UNSPECIFIED";
}  // namespace

json WorkspaceJson(const Workspace& w) {
  json out = {{"id", w.id},
              {"name", w.name},
              {"archived", w.archived},
              {"username", w.username},
              {"immutable", w.immutable},
              {"numProjects", w.num_projects},
              {"pinned", w.pinned_at.has_value()},
              {"userId", w.user_id},
              {"numExperiments", w.num_experiments},
              {"state", kStateUnspecified},
              {"errorMessage", ""},
              {"defaultComputePool", w.default_compute_pool},
              {"defaultAuxPool", w.default_aux_pool}};
  // Unset message fields are null, as grpc-gateway writes them; an empty object is an unset setting.
  auto setting = [](const std::string& text) -> json {
    absl::StatusOr<json> parsed = ParseJson(text);
    return parsed.ok() && parsed->is_object() && !parsed->empty() ? *parsed : json(nullptr);
  };
  out["pinnedAt"] = w.pinned_at ? json(FormatRfc3339(*w.pinned_at)) : json(nullptr);
  out["agentUserGroup"] = setting(w.agent_user_group_json);
  out["checkpointStorageConfig"] = setting(w.checkpoint_storage_config_json);
  return out;
}

json ProjectJson(const Project& p) {
  absl::StatusOr<json> notes = ParseJson(p.notes_json);
  json out = {{"id", p.id},
              {"name", p.name},
              {"workspaceId", p.workspace_id},
              {"workspaceName", p.workspace_name},
              {"description", p.description},
              {"notes", notes.ok() ? *notes : json::array()},
              {"numExperiments", p.num_experiments},
              {"numActiveExperiments", p.num_active_experiments},
              {"numRuns", p.num_experiments},
              {"archived", p.archived},
              {"username", p.username},
              {"immutable", p.immutable},
              {"userId", p.user_id},
              {"state", kStateUnspecified},
              {"errorMessage", ""},
              {"key", p.key}};
  out["lastExperimentStartedAt"] =  // a Timestamp: null before its first experiment
      p.last_experiment_started_at ? json(FormatRfc3339(*p.last_experiment_started_at)) : json(nullptr);
  return out;
}

absl::StatusOr<Workspace> WorkspaceForChange(WorkspaceStore& store, const Principal& who, int64_t id) {
  ASSIGN_OR_RETURN(Workspace w, store.GetWorkspace(id, who.user_id));
  RETURN_IF_ERROR(DefaultAuthz().Check(who, rbac::Permission::kUpdateWorkspace, {"workspace", std::to_string(id), w.user_id, id}));
  return w;
}

absl::StatusOr<Project> ProjectForChange(WorkspaceStore& store, const Principal& who, int64_t id) {
  ASSIGN_OR_RETURN(Project p, store.GetProject(id));
  absl::Status as_owner = DefaultAuthz().Check(who, rbac::Permission::kUpdateProject,
                                                   {"project", std::to_string(id), p.user_id, p.workspace_id});
  if (as_owner.ok()) return p;
  ASSIGN_OR_RETURN(Workspace w, store.GetWorkspace(p.workspace_id, 0));
  // The workspace's owner manages its projects (a task acting for the owner does not).
  if (w.user_id == who.user_id && who.allocation_id.empty()) return p;
  return as_owner;
}

absl::Status DeleteExperimentsOf(MasterContext& ctx, const std::vector<int64_t>& experiment_ids) {
  for (int64_t id : experiment_ids) {
    RETURN_IF_ERROR(StartDeletingExperiment(ctx.store, id));
    ctx.cluster.DeleteExperiment(id);
  }
  return absl::OkStatus();
}

}  // namespace det::master
