#include "master/handlers/command_request.h"

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/random_id.h"
#include "common/ssh_keys.h"
#include "api/wire.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "master/pool_bindings.h"
#include "master/workspace_rules.h"
#include "config/task_container_defaults.h"
#include "master/handlers/context_files.h"

namespace det::master {

using nlohmann::json;

namespace {

// Puts `task` in workspace `workspace_id` (0 = 1): see ParseLaunchCommand.
absl::Status PlaceTaskInWorkspace(Store& store, const config::MasterConfig& master, int64_t workspace_id,
                                  NewTask& task) {
  if (workspace_id == 0) workspace_id = 1;
  ASSIGN_OR_RETURN(Workspace workspace, WorkspaceForNewWork(store, workspace_id, "tasks"));
  config::CommandConfig& c = task.config;
  if (c.resource_pool.empty()) {
    c.resource_pool = c.slots > 0 ? workspace.default_compute_pool : workspace.default_aux_pool;
    if (!c.resource_pool.empty()) c.full["resources"]["resource_pool"] = c.resource_pool;
  }
  RETURN_IF_ERROR(CheckPoolAvailable(store, master, workspace, c.resource_pool));
  task.workspace_id = workspace_id;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<NewTask> ParseLaunchCommand(Store& store, const config::MasterConfig& master, const json& body,
                                           int64_t max_context_bytes, TaskType type) {
  const std::string kind = absl::AsciiStrToLower(Name(type));
  json submitted = json::object();
  if (const json* c = api::FindField(body, "config"); c != nullptr && !c->is_null()) {
    if (!c->is_object()) {
      return absl::InvalidArgumentError(absl::StrCat("config: must be an object (the ", kind, "'s configuration)"));
    }
    submitted = *c;
  }
  // A notebook, shell or TensorBoard runs its runner (docs/interactive.md), whatever the config says;
  // a TensorBoard holds no slots.
  if (type != TaskType::kCommand) {
    submitted["entrypoint"] = {"python3", "-m", absl::StrCat("determined.exec.", kind)};
  }
  if (type == TaskType::kTensorboard && (!submitted.contains("resources") || submitted["resources"].is_object())) {
    submitted["resources"]["slots"] = 0;
  }
  json tmpl = nullptr;
  if (const json* t = api::FindField(body, "template_name"); t != nullptr && !t->is_null()) {
    if (!t->is_string()) return absl::InvalidArgumentError("templateName: must be a template's name");
    if (!t->get<std::string>().empty()) {
      absl::StatusOr<Template> found = store.GetTemplate(t->get<std::string>());
      if (absl::IsNotFound(found.status())) {
        return absl::InvalidArgumentError(
            absl::StrCat("templateName: no template named \"", t->get<std::string>(), "\" (det template list shows them)"));
      }
      RETURN_IF_ERROR(found.status());
      tmpl = json::parse(found->config_json, nullptr, false);
    }
  }
  NewTask out;
  out.type = type;
  ASSIGN_OR_RETURN(out.config,
                   config::ParseCommandConfig(config::TaskContainerDefaultsFor(master, submitted, tmpl), tmpl, submitted, kind));
  if (const json* files = api::FindField(body, "files"); files != nullptr && !files->is_null() &&
                                                         !(files->is_array() && files->empty())) {
    ASSIGN_OR_RETURN(out.context_tgz, ContextTarGz(*files, "files", "context directory", max_context_bytes));
  }
  int64_t workspace_id = 0;
  if (const json* w = api::FindField(body, "workspace_id"); w != nullptr && !w->is_null()) {
    ASSIGN_OR_RETURN(workspace_id, api::ReadInt64(*w, "workspaceId"));
  }
  RETURN_IF_ERROR(PlaceTaskInWorkspace(store, master, workspace_id, out));
  return out;
}

absl::StatusOr<NewTask> ParseCreateGenericTask(Store& store, const config::MasterConfig& master, const json& body,
                                               int64_t max_context_bytes) {
  const json* text = api::FindField(body, "config");
  if (text == nullptr || !text->is_string()) {
    return absl::InvalidArgumentError("config: required, the task's configuration as YAML text");
  }
  absl::StatusOr<json> submitted = ParseYaml(text->get<std::string>());
  if (!submitted.ok()) return absl::InvalidArgumentError(absl::StrCat("config: ", submitted.status().message()));
  NewTask out;
  out.type = TaskType::kGeneric;
  ASSIGN_OR_RETURN(out.config,
                   config::ParseCommandConfig(config::TaskContainerDefaultsFor(master, *submitted, nullptr), nullptr, *submitted, "task"));
  if (const json* files = api::FindField(body, "context_directory"); files != nullptr && !files->is_null()) {
    ASSIGN_OR_RETURN(out.context_tgz, ContextTarGz(*files, "contextDirectory", "context directory", max_context_bytes));
  }
  if (const json* fork = api::FindField(body, "forked_from"); fork != nullptr && fork->is_string()) {
    out.forked_from = *fork;
    // A fork runs in its parent's context unless it brings its own.
    absl::StatusOr<Task> parent = store.GetTask(out.forked_from);
    if (absl::IsNotFound(parent.status())) {
      return absl::InvalidArgumentError(absl::StrCat("forkedFrom: no task ", out.forked_from, " to fork from"));
    }
    RETURN_IF_ERROR(parent.status());
    if (out.context_tgz.empty()) {
      ASSIGN_OR_RETURN(out.context_tgz, store.GetTaskContext(out.forked_from));
    }
  }
  int64_t project_id = 1;
  if (const json* p = api::FindField(body, "project_id"); p != nullptr && !p->is_null()) {
    ASSIGN_OR_RETURN(project_id, api::ReadInt64(*p, "projectId"));
    if (project_id == 0) project_id = 1;
  }
  absl::StatusOr<Project> project = store.GetProject(project_id);
  if (absl::IsNotFound(project.status())) {
    return absl::NotFoundError(absl::StrCat("projectId: project ", project_id, " not found"));
  }
  RETURN_IF_ERROR(project.status());
  RETURN_IF_ERROR(PlaceTaskInWorkspace(store, master, project->workspace_id, out));
  return out;
}

namespace {

// The ids in body[field] (snake_case or lowerCamel; numbers or numeric strings, as gateways send int64s).
absl::StatusOr<std::vector<int64_t>> IdList(const json& body, const char* field) {
  std::vector<int64_t> ids;
  const json* list = api::FindField(body, field);
  if (list == nullptr || list->is_null()) return ids;
  if (!list->is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(api::ToLowerCamel(field), ": must be a list of ids"));
  }
  for (const json& v : *list) {
    int64_t id = 0;
    if (v.is_number_integer()) {
      id = v.get<int64_t>();
    } else if (!v.is_string() || !absl::SimpleAtoi(v.get<std::string>(), &id)) {
      return absl::InvalidArgumentError(absl::StrCat(api::ToLowerCamel(field), ": expected ids, got ", v.dump()));
    }
    ids.push_back(id);
  }
  return ids;
}

// A TensorBoard's sources: every trial of the experiments, and the trials named, each with its
// experiment's checkpoint storage (where the harness uploads the trial's event files).
absl::StatusOr<json> TensorboardSources(Store& store, const json& body) {
  ASSIGN_OR_RETURN(std::vector<int64_t> experiment_ids, IdList(body, "experiment_ids"));
  ASSIGN_OR_RETURN(std::vector<int64_t> trial_ids, IdList(body, "trial_ids"));
  if (experiment_ids.empty() && trial_ids.empty()) {
    return absl::InvalidArgumentError("experimentIds or trialIds: give the experiments or trials to show");
  }
  std::vector<api::Trial> trials;
  for (int64_t id : experiment_ids) {
    absl::StatusOr<std::vector<api::Trial>> of = store.ListTrials(id);
    if (!store.GetExperiment(id).ok()) return absl::NotFoundError(absl::StrCat("experiment ", id, " not found"));
    RETURN_IF_ERROR(of.status());
    trials.insert(trials.end(), of->begin(), of->end());
  }
  for (int64_t id : trial_ids) {
    absl::StatusOr<api::Trial> trial = store.GetTrial(id);
    if (!trial.ok()) return absl::NotFoundError(absl::StrCat("trial ", id, " not found"));
    trials.push_back(*trial);
  }
  json sources = json::array();
  std::map<int64_t, json> storage_of;
  for (const api::Trial& t : trials) {
    if (!storage_of.count(t.experiment_id)) {
      ASSIGN_OR_RETURN(api::Experiment exp, store.GetExperiment(t.experiment_id));
      json config = json::parse(exp.config_json, nullptr, false);
      storage_of[t.experiment_id] = config.is_object() ? config.value("checkpoint_storage", json()) : json();
    }
    sources.push_back({{"experiment_id", t.experiment_id}, {"trial_id", t.id}, {"storage", storage_of[t.experiment_id]}});
  }
  return json{{"experiment_ids", experiment_ids}, {"trial_ids", trial_ids}, {"sources", sources}};
}

}  // namespace

absl::StatusOr<std::string> ServiceDataFor(Store& store, TaskType type, const json& body) {
  switch (type) {
    case TaskType::kNotebook:
      return json{{"token", RandomHex(32)}}.dump();
    case TaskType::kShell: {
      ASSIGN_OR_RETURN(SshKeyPair keys, GenerateSshKeyPair());
      return json{{"private_key", keys.private_key}, {"public_key", keys.public_key}}.dump();
    }
    case TaskType::kTensorboard: {
      ASSIGN_OR_RETURN(json sources, TensorboardSources(store, body));
      return sources.dump();
    }
    default:
      return std::string("{}");
  }
}

}  // namespace det::master
