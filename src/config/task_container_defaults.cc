#include "config/task_container_defaults.h"

#include <string>

namespace det::config {

using nlohmann::json;

namespace {

std::string RequestedPool(const json& config) {
  if (!config.is_object()) return "";
  const json resources = config.value("resources", json::object());
  return resources.is_object() ? resources.value("resource_pool", "") : "";
}

}  // namespace

json TaskContainerDefaultsFor(const MasterConfig& master, const json& config, const json& tmpl) {
  std::string pool = RequestedPool(config);
  if (pool.empty()) pool = RequestedPool(tmpl);
  if (pool.empty()) pool = master.resource_manager.default_compute_resource_pool;
  std::string text = master.task_container_defaults_json;
  if (const ResourcePoolConfig* p = master.FindPool(pool); p && !p->task_container_defaults_json.empty()) {
    text = p->task_container_defaults_json;
  }
  json defaults = json::parse(text, nullptr, false);
  return defaults.is_object() ? defaults : json::object();
}

json EnvironmentVariablesWithStartupHook(const json& tcd) {
  json vars = tcd.is_object() ? tcd.value("environment_variables", json()) : json();
  const json hook = tcd.is_object() ? tcd.value("startup_hook", json()) : json();
  if (!hook.is_string() || hook.get_ref<const std::string&>().empty()) return vars;
  const std::string entry = std::string(kStartupHookVariable) + "=" + hook.get<std::string>();
  if (vars.is_null()) vars = json::array();
  if (vars.is_array()) {
    vars.push_back(entry);
  } else if (vars.is_object()) {
    for (const char* device : {"cpu", "cuda", "rocm"}) {
      if (!vars[device].is_array()) vars[device] = json::array();
      vars[device].push_back(entry);
    }
  }
  return vars;
}

json ExperimentConfigDefaults(const json& tcd) {
  json out = json::object();
  if (!tcd.is_object()) return out;
  // Copies tcd[key] to section[key] when tcd has it.
  auto copy = [&](json& section, const char* key) {
    if (auto it = tcd.find(key); it != tcd.end() && !it->is_null()) section[key] = *it;
  };
  json environment = json::object();
  if (json vars = EnvironmentVariablesWithStartupHook(tcd); !vars.is_null()) {
    environment["environment_variables"] = std::move(vars);
  }
  for (const char* key : {"image", "force_pull_image", "registry_auth", "add_capabilities", "drop_capabilities"}) {
    copy(environment, key);
  }
  if (!environment.empty()) out["environment"] = std::move(environment);
  json resources = json::object();
  copy(resources, "devices");
  if (!resources.empty()) out["resources"] = std::move(resources);
  for (const char* key : {"bind_mounts", "log_policies", "preemption_timeout"}) copy(out, key);
  return out;
}

}  // namespace det::config
