#include "config/command_config.h"

#include "absl/strings/str_cat.h"
#include "common/time_util.h"
#include "config/environment_schema.h"
#include "config/resources_schema.h"
#include "config/schema_fields.h"
#include "config/task_container_defaults.h"

namespace det::config {
namespace {

using nlohmann::json;

const std::vector<Field>& CommandFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "description", .kind = Kind::kString, .default_value = ""},
      {.name = "bind_mounts", .default_value = json::array()},
      {.name = "environment", .kind = Kind::kObject, .default_value = json::object()},
      {.name = "resources", .kind = Kind::kObject, .default_value = json::object()},
      {.name = "entrypoint"},
      {.name = "tensorboard_args", .kind = Kind::kStringList, .default_value = json::array()},
      {.name = "idle_timeout", .kind = Kind::kString},
      {.name = "notebook_idle_type", .kind = Kind::kEnum, .default_value = "kernels_or_terminals",
       .allowed = {"kernels_or_terminals", "kernel_connections", "activity"}},
      {.name = "work_dir", .kind = Kind::kString},
      {.name = "debug", .kind = Kind::kBool, .default_value = false},
      {.name = "pbs", .kind = Kind::kObject, .default_value = json::object()},
      {.name = "slurm", .kind = Kind::kObject, .default_value = json::object()},
      {.name = "preemption_timeout", .kind = Kind::kInt, .default_value = 30, .min = 0},
  };
  return *f;
}

const std::vector<Field>& CommandResourceFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "slots", .kind = Kind::kInt, .default_value = 1, .min = 0},
      {.name = "max_slots", .kind = Kind::kInt, .min = 0},
      {.name = "weight", .kind = Kind::kNumber, .default_value = 1, .min = 0, .min_exclusive = true},
      {.name = "native_parallel", .kind = Kind::kBool, .default_value = false},
      {.name = "shm_size"},
      {.name = "resource_pool", .kind = Kind::kString, .default_value = ""},
      {.name = "priority", .kind = Kind::kInt, .min = 1, .max = 99},
      {.name = "is_single_node", .kind = Kind::kBool, .default_value = false},
      {.name = "devices", .default_value = json::array()},
  };
  return *f;
}

// The keys of task_container_defaults that mean something to a command.
json DefaultsForCommand(const json& tcd) {
  json out = json::object();
  if (!tcd.is_object()) return out;
  for (const char* key : {"bind_mounts", "work_dir", "preemption_timeout"}) {
    if (tcd.contains(key) && !tcd[key].is_null()) out[key] = tcd[key];
  }
  if (json vars = EnvironmentVariablesWithStartupHook(tcd); !vars.is_null()) {
    out["environment"]["environment_variables"] = std::move(vars);
  }
  return out;
}

// Keeps only the keys a command knows (a template may hold experiment keys).
json KnownKeysOnly(const json& tmpl) {
  json out = json::object();
  if (!tmpl.is_object()) return out;
  for (const Field& field : CommandFields()) {
    if (tmpl.contains(field.name)) out[field.name] = tmpl[field.name];
  }
  return out;
}

}  // namespace

std::vector<std::string> TakeCommandOnlyKeys(json& tmpl) {
  json taken = json::object();
  if (!tmpl.is_object()) return {};
  for (const char* key : {"idle_timeout", "notebook_idle_type", "tensorboard_args", "work_dir"}) {
    if (tmpl.contains(key)) {
      taken[key] = tmpl[key];
      tmpl.erase(key);
    }
  }
  if (tmpl.contains("resources") && tmpl["resources"].is_object() && tmpl["resources"].contains("slots")) {
    taken["resources"]["slots"] = tmpl["resources"]["slots"];
    tmpl["resources"].erase("slots");
  }
  Problems p("template");
  CheckObject(taken, "", CommandFields(), p, {.fill_null_defaults = false});
  if (taken.contains("resources")) {
    CheckObject(taken["resources"], "resources", CommandResourceFields(), p, {.fill_null_defaults = false});
  }
  if (taken.contains("idle_timeout") && taken["idle_timeout"].is_string()) {
    absl::StatusOr<std::chrono::milliseconds> idle = ParseDuration(taken["idle_timeout"].get<std::string>());
    if (!idle.ok()) p.Add("idle_timeout", idle.status().message());
  }
  return p.errors();
}

void OverlayConfig(json& base, const json& top) {
  if (!top.is_object() || !base.is_object()) {
    base = top;
    return;
  }
  for (auto it = top.begin(); it != top.end(); ++it) {
    if (it.value().is_object() && base.contains(it.key()) && base[it.key()].is_object()) {
      OverlayConfig(base[it.key()], it.value());
    } else {
      base[it.key()] = it.value();
    }
  }
}

absl::StatusOr<CommandConfig> ParseCommandConfig(const json& defaults, const json& tmpl, const json& submitted,
                                                 const std::string& what) {
  Problems p(what);
  if (!submitted.is_object() && !submitted.is_null()) {
    p.Add("config", absl::StrCat("must be an object, got ", Describe(submitted)));
    return p.ToStatus();
  }
  // Unknown keys are refused in what the user sent, not in the layers below it.
  json probe = submitted.is_null() ? json::object() : submitted;
  CheckObject(probe, "", CommandFields(), p, {.fill_null_defaults = false});
  if (!p.empty()) return p.ToStatus();

  json config = DefaultsForCommand(defaults);
  OverlayConfig(config, KnownKeysOnly(tmpl));
  OverlayConfig(config, submitted.is_null() ? json::object() : submitted);
  CheckObject(config, "", CommandFields(), p);
  if (config["resources"].is_object()) {
    CheckObject(config["resources"], "resources", CommandResourceFields(), p);
    if (config["resources"]["devices"].is_array()) CheckDevices(config["resources"]["devices"], "resources.devices", p);
  }
  CheckEnvironment(config["environment"], p);
  CheckBindMounts(config["bind_mounts"], p);

  CommandConfig out;
  json& entrypoint = config["entrypoint"];
  // A string, or a list of one string (`det cmd run 'echo hi && ls'`), is a shell command line, as
  // upstream's command-entrypoint.sh and generic-task-entrypoint.sh run it: /bin/sh -c "$1".
  if (entrypoint.is_array() && entrypoint.size() == 1 && entrypoint[0].is_string()) {
    if (!entrypoint[0].get<std::string>().empty()) out.entrypoint = {"/bin/sh", "-c", entrypoint[0].get<std::string>()};
  } else if (entrypoint.is_string()) {
    if (!entrypoint.get<std::string>().empty()) out.entrypoint = {"/bin/sh", "-c", entrypoint.get<std::string>()};
  } else if (entrypoint.is_array()) {
    for (size_t i = 0; i < entrypoint.size(); ++i) {
      if (!entrypoint[i].is_string()) {
        p.Add(IndexPath("entrypoint", i), absl::StrCat("must be a string, got ", Describe(entrypoint[i])));
      } else {
        out.entrypoint.push_back(entrypoint[i]);
      }
    }
  } else if (!entrypoint.is_null()) {
    p.Add("entrypoint", absl::StrCat("must be a list of strings (the command and its arguments), got ",
                                     Describe(entrypoint)));
  }
  if (out.entrypoint.empty() && p.empty()) {
    p.Add("entrypoint", "the command is empty; give the program to run and its arguments");
  }
  if (config["idle_timeout"].is_string()) {
    absl::StatusOr<std::chrono::milliseconds> idle = ParseDuration(config["idle_timeout"].get<std::string>());
    if (idle.ok()) {
      out.idle_timeout = *idle;
    } else {
      p.Add("idle_timeout", std::string(idle.status().message()));
    }
  }
  if (!p.empty()) return p.ToStatus();

  const json& resources = config["resources"];
  out.slots = resources["slots"].get<int>();
  out.resource_pool = resources["resource_pool"].get<std::string>();
  if (resources["priority"].is_number_integer()) out.priority = resources["priority"].get<int>();
  out.weight = resources["weight"].get<double>();
  if (resources["max_slots"].is_number_integer()) out.max_slots = resources["max_slots"].get<int>();
  out.is_single_node = resources["is_single_node"].get<bool>();
  out.description = config["description"].get<std::string>();
  if (config["work_dir"].is_string()) out.work_dir = config["work_dir"];
  out.preemption_timeout = config["preemption_timeout"].get<int>();
  out.notebook_idle_type = config["notebook_idle_type"].get<std::string>();
  for (const json& a : config["tensorboard_args"]) out.tensorboard_args.push_back(a);
  for (const json& v : config["environment"]["environment_variables"].value("cpu", json::array())) {
    if (v.is_string()) out.environment_variables.push_back(v);
  }
  for (const json& m : config["bind_mounts"]) {
    out.bind_mounts.push_back({m.value("host_path", ""), m.value("container_path", ""), m.value("read_only", false)});
  }
  out.full = std::move(config);
  return out;
}

}  // namespace det::config
