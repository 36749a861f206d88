#include "config/experiment_config.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::config {
namespace {

using nlohmann::json;

const std::set<std::string>& TopLevelKeys() {
  static const std::set<std::string> keys = {
      "bind_mounts", "checkpoint_policy", "checkpoint_storage", "data", "data_layer", "debug",
      "description", "entrypoint", "environment", "hyperparameters", "integrations", "internal",
      "labels", "log_policies", "retention_policy", "max_restarts", "min_checkpoint_period",
      "min_validation_period", "name", "optimizations", "pbs", "perform_initial_validation",
      "preemption_timeout", "profiling", "project", "records_per_epoch", "reproducibility",
      "resources", "scheduling_unit", "searcher", "security", "slurm", "tensorboard_storage",
      "workspace"};
  return keys;
}

const std::set<std::string>& ResourceKeys() {
  static const std::set<std::string> keys = {"slots_per_trial", "max_slots", "weight", "priority",
                                             "resource_pool", "shm_size", "devices", "is_single_node",
                                             "native_parallel", "agent_label"};
  return keys;
}

const std::set<std::string>& SearcherNames() {
  static const std::set<std::string> names = {"single", "random", "grid", "async_halving",
                                              "adaptive_asha", "custom", "adaptive",
                                              "adaptive_simple", "sync_halving"};
  return names;
}

const std::set<std::string>& RemovedSearchers() {
  static const std::set<std::string> names = {"custom", "adaptive", "adaptive_simple", "sync_halving"};
  return names;
}

const std::set<std::string>& CheckpointStorageTypes() {
  static const std::set<std::string> types = {"shared_fs", "s3", "gcs", "azure", "directory"};
  return types;
}

const std::set<std::string>& HyperparameterTypes() {
  static const std::set<std::string> types = {"const", "int", "double", "log", "categorical"};
  return types;
}

std::string TypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    case json::value_t::object: return "object";
    default: return "value";
  }
}

// Collects every problem before failing, so the user can fix them all at once.
class Problems {
 public:
  void Add(std::string path, std::string what) { lines_.push_back(absl::StrCat(path, ": ", what)); }
  bool empty() const { return lines_.empty(); }
  absl::Status ToStatus() const {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid experiment configuration:\n  ", absl::StrJoin(lines_, "\n  ")));
  }

 private:
  std::vector<std::string> lines_;
};

void CheckInt(const json& obj, const std::string& key, const std::string& path, int64_t min, Problems& p) {
  if (!obj.contains(key) || obj[key].is_null()) return;
  const json& v = obj[key];
  if (!v.is_number_integer()) {
    p.Add(path, absl::StrCat("must be an integer, got ", TypeName(v), " ", DumpJson(v)));
  } else if (v.get<int64_t>() < min) {
    p.Add(path, absl::StrCat("must be >= ", min, ", got ", v.get<int64_t>()));
  }
}

void ValidateHyperparameter(const json& hp, const std::string& path, Problems& p) {
  if (!hp.is_object()) return;  // bare value: const shorthand
  if (!hp.contains("type")) {
    for (const auto& [k, v] : hp.items()) ValidateHyperparameter(v, absl::StrCat(path, ".", k), p);
    return;
  }
  if (!hp["type"].is_string() || !HyperparameterTypes().count(hp["type"].get<std::string>())) {
    p.Add(path, absl::StrCat("unknown type ", DumpJson(hp["type"]),
                             "; expected one of const, int, double, log, categorical"));
    return;
  }
  std::string type = hp["type"];
  auto require = [&](const char* key) {
    if (!hp.contains(key)) p.Add(absl::StrCat(path, ".", key), absl::StrCat("required for type ", type));
  };
  if (type == "const") require("val");
  if (type == "int" || type == "double" || type == "log") {
    require("minval");
    require("maxval");
    if (hp.contains("minval") && hp.contains("maxval") && hp["minval"].is_number() &&
        hp["maxval"].is_number() && !(hp["minval"].get<double>() < hp["maxval"].get<double>())) {
      p.Add(path, absl::StrCat("minval must be less than maxval, got ", DumpJson(hp["minval"]), " and ",
                               DumpJson(hp["maxval"])));
    }
  }
  if (type == "log") require("base");
  if (type == "categorical") {
    if (!hp.contains("vals") || !hp["vals"].is_array() || hp["vals"].empty()) {
      p.Add(absl::StrCat(path, ".vals"), "must be a non-empty list");
    }
  }
}

void ValidateSearcher(json& searcher, Problems& p) {
  if (!searcher.is_object()) {
    p.Add("searcher", absl::StrCat("must be an object, got ", TypeName(searcher)));
    return;
  }
  if (!searcher.contains("name") || !searcher["name"].is_string()) {
    p.Add("searcher.name", "required; one of single, random, grid, async_halving, adaptive_asha");
    return;
  }
  std::string name = searcher["name"];
  if (!SearcherNames().count(name)) {
    p.Add("searcher.name", absl::StrCat("unknown searcher \"", name,
                                        "\"; expected one of single, random, grid, async_halving, "
                                        "adaptive_asha"));
    return;
  }
  if (RemovedSearchers().count(name)) {
    p.Add("searcher.name", absl::StrCat("the '", name,
                                        "' searcher has been removed and is not valid for new experiments"));
    return;
  }
  if (!searcher.contains("metric") || !searcher["metric"].is_string()) {
    p.Add("searcher.metric", "required: the validation metric the searcher optimizes, e.g. accuracy");
  }
  if (!searcher.contains("smaller_is_better") || searcher["smaller_is_better"].is_null()) {
    searcher["smaller_is_better"] = true;
  } else if (!searcher["smaller_is_better"].is_boolean()) {
    p.Add("searcher.smaller_is_better", "must be true or false");
  }
  CheckInt(searcher, "max_trials", "searcher.max_trials", 1, p);
  if (name != "single") {
    // Later issues bring the other search methods; refuse clearly instead of running something else.
    p.Add("searcher.name", absl::StrCat("\"", name, "\" is not supported by this master yet; use single"));
  }
}

void ValidateCheckpointStorage(const json& cs, Problems& p) {
  if (!cs.is_object()) {
    p.Add("checkpoint_storage", absl::StrCat("must be an object, got ", TypeName(cs)));
    return;
  }
  if (!cs.contains("type") || !cs["type"].is_string() ||
      !CheckpointStorageTypes().count(cs["type"].get<std::string>())) {
    p.Add("checkpoint_storage.type", "required; one of shared_fs, s3, gcs, azure, directory");
    return;
  }
  std::string type = cs["type"];
  if (type == "shared_fs" && (!cs.contains("host_path") || !cs["host_path"].is_string())) {
    p.Add("checkpoint_storage.host_path", "required for shared_fs storage");
  }
  if (type == "directory" && (!cs.contains("container_path") || !cs["container_path"].is_string())) {
    p.Add("checkpoint_storage.container_path", "required for directory storage");
  }
  if ((type == "s3" || type == "gcs") && (!cs.contains("bucket") || !cs["bucket"].is_string())) {
    p.Add("checkpoint_storage.bucket", absl::StrCat("required for ", type, " storage"));
  }
  for (const char* key : {"save_experiment_best", "save_trial_best", "save_trial_latest"}) {
    CheckInt(cs, key, absl::StrCat("checkpoint_storage.", key), 0, p);
  }
}

void SetDefault(json& obj, const char* key, json value) {
  if (!obj.contains(key) || obj[key].is_null()) obj[key] = std::move(value);
}

absl::StatusOr<json> ConstValues(const json& hps, const std::string& prefix) {
  json out = json::object();
  for (const auto& [name, hp] : hps.items()) {
    std::string path = prefix.empty() ? name : absl::StrCat(prefix, ".", name);
    if (!hp.is_object()) {
      out[name] = hp;
    } else if (!hp.contains("type")) {
      ASSIGN_OR_RETURN(out[name], ConstValues(hp, path));
    } else if (hp["type"] == "const") {
      out[name] = hp["val"];
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "hyperparameters.", path, ": type ", DumpJson(hp["type"]),
          " must be sampled, which the single searcher does not do here; use type const"));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<ExperimentConfig> ParseExperimentConfig(const std::string& yaml_text,
                                                       const ExperimentDefaults& defaults) {
  ASSIGN_OR_RETURN(json cfg, ParseYaml(yaml_text));
  if (cfg.is_null()) return absl::InvalidArgumentError("experiment configuration is empty");
  if (!cfg.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("experiment configuration must be a YAML mapping, got ", TypeName(cfg)));
  }
  Problems p;
  ExperimentConfig out;
  for (const auto& [key, value] : cfg.items()) {
    if (!TopLevelKeys().count(key)) {
      p.Add(key, absl::StrCat("unknown key; allowed top-level keys are ", absl::StrJoin(TopLevelKeys(), ", ")));
    }
  }

  // entrypoint: managed experiments require one.
  if (!cfg.contains("entrypoint") || cfg["entrypoint"].is_null()) {
    p.Add("entrypoint", "required: managed experiments require entrypoint (e.g. \"python3 train.py\")");
  } else if (cfg["entrypoint"].is_string()) {
    std::string cmd = cfg["entrypoint"];
    if (cmd.empty()) p.Add("entrypoint", "must not be empty");
    out.entrypoint = {"sh", "-c", cmd};
  } else if (cfg["entrypoint"].is_array() && !cfg["entrypoint"].empty() &&
             std::all_of(cfg["entrypoint"].begin(), cfg["entrypoint"].end(),
                         [](const json& v) { return v.is_string(); })) {
    out.entrypoint = cfg["entrypoint"].get<std::vector<std::string>>();
  } else {
    p.Add("entrypoint", "must be a string or a non-empty list of strings");
  }

  if (!cfg.contains("searcher") || cfg["searcher"].is_null()) {
    p.Add("searcher", "required, e.g. {name: single, metric: validation_loss}");
  } else {
    ValidateSearcher(cfg["searcher"], p);
  }

  SetDefault(cfg, "resources", json::object());
  json& res = cfg["resources"];
  if (!res.is_object()) {
    p.Add("resources", absl::StrCat("must be an object, got ", TypeName(res)));
  } else {
    for (const auto& [key, value] : res.items()) {
      if (key == "slots") {
        p.Add("resources", "unknown key \"slots\" (experiments use resources.slots_per_trial)");
      } else if (!ResourceKeys().count(key)) {
        p.Add("resources", absl::StrCat("unknown key \"", key, "\"; allowed keys are ",
                                        absl::StrJoin(ResourceKeys(), ", ")));
      }
    }
    CheckInt(res, "slots_per_trial", "resources.slots_per_trial", 0, p);
    SetDefault(res, "slots_per_trial", 1);
    SetDefault(res, "weight", 1);
    SetDefault(res, "resource_pool", "");
  }

  CheckInt(cfg, "max_restarts", "max_restarts", 0, p);
  SetDefault(cfg, "max_restarts", 5);

  SetDefault(cfg, "hyperparameters", json::object());
  if (!cfg["hyperparameters"].is_object()) {
    p.Add("hyperparameters", absl::StrCat("must be a mapping of name to hyperparameter, got ",
                                          TypeName(cfg["hyperparameters"])));
  } else {
    for (const auto& [k, v] : cfg["hyperparameters"].items()) {
      ValidateHyperparameter(v, absl::StrCat("hyperparameters.", k), p);
    }
  }

  if (!cfg.contains("checkpoint_storage") || cfg["checkpoint_storage"].is_null()) {
    auto cs = ParseJson(defaults.checkpoint_storage_json);
    if (!cs.ok()) return absl::InternalError("master default checkpoint_storage is not valid JSON");
    cfg["checkpoint_storage"] = *cs;
  }
  ValidateCheckpointStorage(cfg["checkpoint_storage"], p);
  if (cfg["checkpoint_storage"].is_object()) {
    SetDefault(cfg["checkpoint_storage"], "save_experiment_best", 0);
    SetDefault(cfg["checkpoint_storage"], "save_trial_best", 1);
    SetDefault(cfg["checkpoint_storage"], "save_trial_latest", 1);
  }

  SetDefault(cfg, "reproducibility", json::object());
  if (cfg["reproducibility"].is_object()) {
    CheckInt(cfg["reproducibility"], "experiment_seed", "reproducibility.experiment_seed", 0, p);
    SetDefault(cfg["reproducibility"], "experiment_seed", defaults.seed);
  }
  SetDefault(cfg, "name", defaults.name);
  if (!cfg["name"].is_string()) p.Add("name", absl::StrCat("must be a string, got ", TypeName(cfg["name"])));
  if (cfg.contains("description") && !cfg["description"].is_null() && !cfg["description"].is_string()) {
    p.Add("description", "must be a string");
  }
  SetDefault(cfg, "labels", json::array());
  if (!cfg["labels"].is_array()) p.Add("labels", "must be a list of strings");
  for (const char* deprecated : {"min_checkpoint_period", "min_validation_period", "scheduling_unit", "optimizations"}) {
    if (cfg.contains(deprecated)) {
      out.warnings.push_back(absl::StrCat(deprecated, " is deprecated in 0.38 and is ignored"));
    }
  }
  if (!p.empty()) return p.ToStatus();

  out.name = cfg["name"];
  out.description = cfg.value("description", json("")).is_string() ? cfg.value("description", "") : "";
  for (const json& l : cfg["labels"]) {
    if (l.is_string()) out.labels.push_back(l);
  }
  out.searcher_name = cfg["searcher"]["name"];
  out.searcher_metric = cfg["searcher"]["metric"];
  out.smaller_is_better = cfg["searcher"]["smaller_is_better"];
  out.max_restarts = cfg["max_restarts"];
  out.slots_per_trial = res["slots_per_trial"];
  out.resource_pool = res["resource_pool"].is_string() ? res["resource_pool"].get<std::string>() : "";
  out.experiment_seed = cfg["reproducibility"]["experiment_seed"].get<uint32_t>();
  out.hyperparameters_json = DumpJson(cfg["hyperparameters"]);
  out.checkpoint_storage_json = DumpJson(cfg["checkpoint_storage"]);
  out.full_json = DumpJson(cfg);
  return out;
}

absl::StatusOr<std::string> ConstHyperparameters(const std::string& hyperparameters_json) {
  ASSIGN_OR_RETURN(json hps, ParseJson(hyperparameters_json));
  ASSIGN_OR_RETURN(json values, ConstValues(hps, ""));
  return DumpJson(values);
}

}  // namespace det::config
