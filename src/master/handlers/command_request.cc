#include "master/handlers/command_request.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "master/handlers/context_files.h"

namespace det::master {

using nlohmann::json;

namespace {

std::string RequestedPool(const json& config) {
  if (!config.is_object()) return "";
  const json resources = config.value("resources", json::object());
  return resources.is_object() ? resources.value("resource_pool", "") : "";
}

}  // namespace

json DefaultsFor(const config::MasterConfig& config, const json& submitted, const json& tmpl) {
  std::string pool = RequestedPool(submitted);
  if (pool.empty()) pool = RequestedPool(tmpl);
  std::string text = config.task_container_defaults_json;
  if (const config::ResourcePoolConfig* p = config.FindPool(pool); p && !p->task_container_defaults_json.empty()) {
    text = p->task_container_defaults_json;
  }
  json defaults = json::parse(text, nullptr, false);
  return defaults.is_object() ? defaults : json::object();
}

absl::StatusOr<NewTask> ParseLaunchCommand(Store& store, const config::MasterConfig& master, const json& body,
                                           int64_t max_context_bytes) {
  json submitted = json::object();
  if (const json* c = api::FindField(body, "config"); c != nullptr && !c->is_null()) {
    if (!c->is_object()) return absl::InvalidArgumentError("config: must be an object (the command's configuration)");
    submitted = *c;
  }
  json tmpl = nullptr;
  if (const json* t = api::FindField(body, "templateName"); t != nullptr && !t->is_null()) {
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
  out.type = TaskType::kCommand;
  ASSIGN_OR_RETURN(out.config, config::ParseCommandConfig(DefaultsFor(master, submitted, tmpl), tmpl, submitted));
  if (const json* files = api::FindField(body, "files"); files != nullptr && !files->is_null() &&
                                                         !(files->is_array() && files->empty())) {
    ASSIGN_OR_RETURN(out.context_tgz, ContextTarGz(*files, "files", "context directory", max_context_bytes));
  }
  return out;
}

absl::StatusOr<NewTask> ParseCreateGenericTask(const config::MasterConfig& master, const json& body,
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
                   config::ParseCommandConfig(DefaultsFor(master, *submitted, nullptr), nullptr, *submitted, "task"));
  if (const json* files = api::FindField(body, "contextDirectory"); files != nullptr && !files->is_null()) {
    ASSIGN_OR_RETURN(out.context_tgz, ContextTarGz(*files, "contextDirectory", "context directory", max_context_bytes));
  }
  if (const json* fork = api::FindField(body, "forkedFrom"); fork != nullptr && fork->is_string()) {
    out.forked_from = *fork;
  }
  return out;
}

}  // namespace det::master
