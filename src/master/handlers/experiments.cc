#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/types_json.h"
#include "api/wire.h"
#include "common/archive.h"
#include "common/base64.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "config/merge.h"
#include "config/task_container_defaults.h"
#include "master/experiment_placement.h"
#include "master/experiment_rules.h"
#include "master/experiment_template.h"
#include "master/handlers/checkpoint_query.h"
#include "master/handlers/context_files.h"
#include "master/handlers/experiment_access.h"
#include "master/handlers/experiment_query.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/job_queue_request.h"
#include "master/handlers/routes.h"
#include "master/naming.h"
#include "master/task/authz.h"
#include "master/warm_start.h"
#include "searcher/searcher.h"

namespace det::master {
namespace {

using nlohmann::json;

// GET /api/v1/experiments/{id}/checkpoints (GetExperimentCheckpoints).
absl::StatusOr<json> GetExperimentCheckpoints(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "experiment_id"));
  ASSIGN_OR_RETURN(api::Experiment exp, ctx.store.GetExperiment(id));
  ASSIGN_OR_RETURN(std::vector<api::Checkpoint> checkpoints, ctx.store.ListCheckpoints(id));
  return CheckpointListResponse(ctx.store, req, exp, std::move(checkpoints));
}

struct CreateRequest {
  NewExperiment experiment;
  bool validate_only = false;  // upstream's validateOnly: check the config, create nothing
};

// The body's projectId, 0 when absent.
absl::StatusOr<int64_t> ProjectIdOf(const json& body) {
  const json* given = api::FindField(body, "project_id");
  if (given == nullptr || given->is_null()) return 0;
  return api::ReadInt64(*given, "projectId");
}

absl::StatusOr<CreateRequest> ParseCreateRequest(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* config = api::FindField(body, "config");
  if (config == nullptr || !config->is_string()) {
    return absl::InvalidArgumentError("config is required: the experiment configuration as YAML text");
  }
  config::ExperimentDefaults defaults{
      .checkpoint_storage_json = ctx.default_checkpoint_storage_json,
      .seed = static_cast<uint32_t>(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())),
      .name = GenerateExperimentName()};
  NewExperiment out;
  out.original_yaml = config->get<std::string>();
  // With a template, the merged config is validated and stored; the original stays the user's text.
  std::string template_name;
  if (const json* t = api::FindField(body, "template")) {
    if (!t->is_string()) return absl::InvalidArgumentError("template must be a template name (a string)");
    template_name = t->get<std::string>();
  }
  ASSIGN_OR_RETURN(json effective, ApplyTemplate(ctx.store, out.original_yaml, template_name));
  ASSIGN_OR_RETURN(int64_t project_id, ProjectIdOf(body));
  ASSIGN_OR_RETURN(Project project,
                   PlaceNewExperiment(ctx.store, ctx.config, project_id, effective, defaults.checkpoint_storage_json));
  out.project_id = project.id;
  // Under the user's config and the template: the pool's task_container_defaults.
  if (effective.is_object()) {
    effective = config::MergeExperimentConfig(
        effective, config::ExperimentConfigDefaults(config::TaskContainerDefaultsFor(ctx.config, effective, nullptr)));
  }
  ASSIGN_OR_RETURN(out.config, config::ParseExperimentConfigJson(effective, defaults));
  ASSIGN_OR_RETURN(out.model_definition_tgz,
                   ContextTarGz(body.value("modelDefinition", body.value("model_definition", json())),
                                "modelDefinition", "model definition", ctx.max_context_bytes));
  const json* activate = api::FindField(body, "activate");
  out.activate = activate == nullptr || !activate->is_boolean() || activate->get<bool>();
  out.owner_id = req.principal->user_id;
  out.owner_username = req.principal->username;
  ASSIGN_OR_RETURN(out.warm_start_checkpoint,
                   WarmStartCheckpoint(ctx.store, ctx.store, json::parse(out.config.full_json, nullptr, false)));
  const json* validate_only = api::FindField(body, "validate_only");
  return CreateRequest{.experiment = std::move(out),
                       .validate_only = validate_only != nullptr && validate_only->is_boolean() &&
                                        validate_only->get<bool>()};
}

// The reply's experiment when only the config was checked: upstream's empty Experiment message, as
// grpc-gateway writes it (every field at its zero value, the state unspecified), which upstream's
// client decodes before it creates the test experiment.
json ValidatedOnlyExperimentJson() {
  json j = api::ToJson(api::Experiment{});
  j["state"] = "STATE_UNSPECIFIED";
  j["startTime"] = nullptr;
  j["config"] = json::object();
  return j;
}

json ExperimentResponse(const api::Experiment& e) {
  json j = api::ToJson(e);
  json config = j["config"];
  return {{"experiment", j}, {"jobSummary", nullptr}, {"config", config}};
}

// PATCH /api/v1/experiments/{id}: name, description, notes and labels go to the store; `resources`
// (priority, weight, max_slots) go to the experiment's job in the cluster first, which stores them
// in the experiment's config. The reply is the experiment afterwards.
absl::Status PatchExperiment(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "experiment_id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(ExperimentPatch patch, ParseExperimentPatch(body, id));
  ASSIGN_OR_RETURN(std::optional<JobChange> resources, ParseResourcesPatch(body));
  ASSIGN_OR_RETURN(std::optional<CheckpointGcPolicy> gc_policy, ParseCheckpointStoragePatch(body));
  ASSIGN_OR_RETURN(api::Experiment e, ExperimentForChange(ctx.store, req, id, rbac::Permission::kUpdateExperiment));
  if (resources)
    RETURN_IF_ERROR(CheckQueueControl(ctx.config.security.authz.strict_job_queue_control, *req.principal, *resources));
  // In turn: the GC policy, the job's resources (both through the cluster, which owns a live
  // experiment's config), then the plain fields; store work stays off the cluster's loop.
  auto finish = [&ctx, r, id, patch] {
    bool empty = !patch.name && !patch.description && !patch.notes && !patch.labels;
    Reply(r, [&]() -> absl::StatusOr<json> {
      ASSIGN_OR_RETURN(api::Experiment updated, empty ? ctx.store.GetExperiment(id) : ctx.store.PatchExperiment(id, patch));
      if (patch.labels) ctx.cluster.ExperimentLabelsChanged(id, updated.labels);
      return json{{"experiment", api::ToJson(updated)}};
    }());
  };
  auto change_resources = [&ctx, r, finish, change = resources, id, state = e.state, job_id = e.job_id] {
    if (!change) return finish();
    ctx.cluster.UpdateJob(job_id, *change, [&ctx, r, finish, id, state](absl::Status st) {
      ReplyWith(r, [&ctx, finish] { ctx.stream_loop.Post(finish); })(ResourcesChangeResult(id, state, st));
    });
  };
  if (!gc_policy) {
    change_resources();
    return absl::OkStatus();
  }
  ctx.cluster.SetCheckpointPolicy(id, *gc_policy,
                                  ReplyWith(r, [&ctx, change_resources] { ctx.stream_loop.Post(change_resources); }));
  return absl::OkStatus();
}

// POST /api/v1/experiments: creates the experiment through the cluster, which replies; with
// validateOnly, checks the config (the searcher too) and creates nothing.
absl::Status CreateExperiment(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  RETURN_IF_ERROR(RequireUserToken(*req.principal, "create experiments"));
  ASSIGN_OR_RETURN(CreateRequest request, ParseCreateRequest(ctx, req));
  NewExperiment& create = request.experiment;
  ASSIGN_OR_RETURN(Project project, ctx.store.GetProject(create.project_id));
  RETURN_IF_ERROR(DefaultAuthz().Check(*req.principal, rbac::Permission::kCreateExperiment,
                                       {"experiment", "", req.principal->user_id, project.workspace_id}));
  std::vector<std::string> warnings = create.config.warnings;
  if (request.validate_only) {  // upstream: the config checked (the searcher too), nothing created
    RETURN_IF_ERROR(searcher::Searcher::Create(json::parse(create.config.full_json)).status());
    json resp = {{"experiment", ValidatedOnlyExperimentJson()}, {"config", nullptr}, {"warnings", json::array()}};
    if (!warnings.empty()) resp["configWarnings"] = warnings;
    Reply(r, resp);
    return absl::OkStatus();
  }
  LaunchWarnings launch_warnings = create.warnings;
  ctx.cluster.CreateExperiment(
      std::move(create), ReplyWithOn(ctx.stream_loop, r, [&ctx, warnings, launch_warnings](int64_t id) -> absl::StatusOr<json> {
        ASSIGN_OR_RETURN(api::Experiment e, ctx.store.GetExperiment(id));
        json resp = ExperimentResponse(e);
        resp.erase("jobSummary");
        resp["warnings"] = *launch_warnings;  // upstream's LaunchWarning enum values only
        // The config's own warnings (deprecated fields, an unused image) as text, in a field of ours
        // that upstream's clients ignore; det prints them.
        if (!warnings.empty()) resp["configWarnings"] = warnings;
        return resp;
      }));
  return absl::OkStatus();
}

absl::StatusOr<json> ListExperiments(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(ExperimentListQuery query, ParseExperimentListQuery(req));
  ExperimentFilter& filter = query.filter;
  ASSIGN_OR_RETURN(filter.visible_workspaces,
                   VisibleWorkspaces(*req.principal, rbac::Permission::kViewExperimentMetadata));
  ASSIGN_OR_RETURN(int64_t total, ctx.store.CountExperiments(filter));
  // A negative offset counts from the end (reference §1).
  filter.offset = query.offset < 0 ? std::max<int64_t>(0, total + query.offset) : query.offset;
  ASSIGN_OR_RETURN(std::vector<api::Experiment> list, ctx.store.ListExperiments(filter));
  json out = json::array();
  // Each with its config, as upstream's (its list query selects e.config; the stock client's
  // Experiment requires it).
  for (const api::Experiment& e : list) out.push_back(api::ToJson(e));
  return json{{"experiments", out},
              {"pagination", Pagination(filter.offset, filter.limit, static_cast<int64_t>(list.size()), total)}};
}

// GET /api/v1/experiments/{id}: a live experiment's reply waits for its job's place in the queue.
absl::Status GetExperiment(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "experiment_id"));
  ASSIGN_OR_RETURN(api::Experiment e, ctx.store.GetExperiment(id));
  json resp = ExperimentResponse(e);
  if (api::IsTerminal(e.state)) {
    Reply(r, resp);
    return absl::OkStatus();
  }
  // A live experiment's job: where it stands in the queue (reference §1b jobSummary).
  ctx.cluster.ListJobs([r, resp = std::move(resp), job_id = e.job_id](std::vector<JobInfo> jobs) mutable {
    for (const JobInfo& job : jobs) {
      if (job.job_id == job_id) resp["jobSummary"] = JobSummaryJson(job);
    }
    ReplyJson(r, resp);
  });
  return absl::OkStatus();
}

// activate / pause / cancel / kill: the experiment state a user may request (reference §7.1).
absl::Status ChangeState(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r,
                         api::ExperimentState target) {
  if (!req.principal->allocation_id.empty()) {
    return absl::PermissionDeniedError("tasks cannot change experiment states");
  }
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "experiment_id"));
  ASSIGN_OR_RETURN(api::Experiment stored, ExperimentForChange(ctx.store, req, id, rbac::Permission::kUpdateExperiment));
  // An ended experiment is answered from its stored state (the cluster knows live ones only).
  if (std::optional<absl::Status> ended =
          StateChangeOfEndedExperiment(id, stored.state, target, StateChangeScope::kOneExperiment)) {
    RETURN_IF_ERROR(*ended);
    Reply(r, json::object());
    return absl::OkStatus();
  }
  ctx.cluster.SetExperimentState(id, target, ReplyWith(r));
  return absl::OkStatus();
}

absl::StatusOr<json> SetArchived(MasterContext& ctx, const HttpRequest& req, bool archived) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "experiment_id"));
  RETURN_IF_ERROR(ExperimentForChange(ctx.store, req, id, rbac::Permission::kUpdateExperimentMetadata).status());
  RETURN_IF_ERROR(ArchiveExperiment(ctx.store, id, archived));
  return json::object();
}

// DeleteTensorboardFiles: the experiment's TensorBoard files go from its storage, in the background.
absl::StatusOr<json> DeleteTensorboardFiles(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "experiment_id"));
  RETURN_IF_ERROR(ExperimentForChange(ctx.store, req, id, rbac::Permission::kDeleteExperiment).status());
  ctx.cluster.DeleteTensorboardFiles(id);
  return json::object();
}

absl::StatusOr<json> DeleteExperiment(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "experiment_id"));
  RETURN_IF_ERROR(ExperimentForChange(ctx.store, req, id, rbac::Permission::kDeleteExperiment).status());
  // DELETING until its checkpoints are gone from storage; then its records go (async, as upstream:
  // the reply does not wait).
  RETURN_IF_ERROR(StartDeletingExperiment(ctx.store, id));
  ctx.cluster.DeleteExperiment(id);
  return json::object();
}

// PUT / DELETE one label: idempotent; the reply lists the experiment's labels afterwards.
absl::StatusOr<json> ChangeLabel(MasterContext& ctx, const HttpRequest& req, bool add) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "experiment_id"));
  auto label = req.path_params.find("label");
  if (label == req.path_params.end() || label->second.empty()) {
    return absl::InvalidArgumentError("label must not be empty");
  }
  ASSIGN_OR_RETURN(api::Experiment e, ExperimentForChange(ctx.store, req, id, rbac::Permission::kUpdateExperimentMetadata));
  ExperimentPatch patch;
  patch.labels = WithLabel(e.labels, label->second, add);
  ASSIGN_OR_RETURN(api::Experiment updated, ctx.store.PatchExperiment(id, patch));
  ctx.cluster.ExperimentLabelsChanged(id, updated.labels);
  return json{{"labels", updated.labels}};
}

absl::StatusOr<json> GetModelDefinition(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "experiment_id"));
  ASSIGN_OR_RETURN(std::string tgz, ctx.store.GetModelDefinition(id));
  return json{{"b64Tgz", Base64Encode(tgz)}};
}

}  // namespace

void RegisterExperimentRoutes(Router& router, MasterContext& ctx) {
  router.Add("POST", "/api/v1/experiments", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, CreateExperiment(ctx, req, r)); });
  router.Add("GET", "/api/v1/experiments", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, ListExperiments(ctx, req)); });
  router.Add("GET", "/api/v1/experiments/{experiment_id}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, GetExperiment(ctx, req, r)); });
  router.Add("GET", "/api/v1/experiments/{experiment_id}/checkpoints", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, GetExperimentCheckpoints(ctx, req)); });
  for (auto [verb, target] : std::vector<std::pair<std::string, api::ExperimentState>>{
           {"activate", api::ExperimentState::kActive},
           {"pause", api::ExperimentState::kPaused},
           {"cancel", api::ExperimentState::kStoppingCanceled},
           {"kill", api::ExperimentState::kStoppingKilled}}) {
    router.Add("POST", "/api/v1/experiments/{experiment_id}/" + verb, Access::kAuthenticated,
               [&ctx, target = target](HttpRequest& req, ResponderPtr r) {
                 ReplyIfError(r, ChangeState(ctx, req, r, target));
               });
  }
  for (auto [verb, archived] : std::vector<std::pair<std::string, bool>>{{"archive", true}, {"unarchive", false}}) {
    router.Add("POST", "/api/v1/experiments/{experiment_id}/" + verb, Access::kAuthenticated,
               [&ctx, archived = archived](HttpRequest& req, ResponderPtr r) { Reply(r, SetArchived(ctx, req, archived)); });
  }
  router.Add("DELETE", "/api/v1/experiments/{experiment_id}/tensorboard-files", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, DeleteTensorboardFiles(ctx, req)); });
  router.Add("DELETE", "/api/v1/experiments/{experiment_id}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, DeleteExperiment(ctx, req)); });
  router.Add("PATCH", "/api/v1/experiments/{experiment_id}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, PatchExperiment(ctx, req, r)); });
  for (bool add : {true, false}) {
    router.Add(add ? "PUT" : "DELETE", "/api/v1/experiments/{experiment_id}/labels/{label}", Access::kAuthenticated,
               [&ctx, add](HttpRequest& req, ResponderPtr r) { Reply(r, ChangeLabel(ctx, req, add)); });
  }
  router.Add("GET", "/api/v1/experiments/{experiment_id}/model_def", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, GetModelDefinition(ctx, req)); });
}

}  // namespace det::master
