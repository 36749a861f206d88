#include "config/experiment_config.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "config/checkpoint_storage_schema.h"
#include "config/command_config.h"
#include "config/environment_schema.h"
#include "config/hyperparameters_schema.h"
#include "config/log_policies_schema.h"
#include "config/resources_schema.h"
#include "config/schema_fields.h"
#include "config/searcher_schema.h"
#include "config/sections_schema.h"

namespace det::config {
namespace {

using nlohmann::json;

// Top-level keys. Sections with their own schema are kAny with a null default here; their checks
// turn null into the section's defaults.
const std::vector<Field>& TopLevelFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "bind_mounts"},
      {.name = "checkpoint_policy",
       .kind = Kind::kEnum,
       .default_value = "best",
       .allowed = {"best", "all", "none"}},
      {.name = "checkpoint_storage"},
      {.name = "data", .kind = Kind::kObject, .default_value = json::object()},
      {.name = "data_layer", .kind = Kind::kObject},
      {.name = "debug", .kind = Kind::kBool, .default_value = false},
      {.name = "description", .kind = Kind::kString},
      {.name = "entrypoint"},
      {.name = "environment"},
      {.name = "hyperparameters"},
      {.name = "integrations"},
      {.name = "internal"},
      {.name = "labels", .kind = Kind::kStringList, .default_value = json::array()},
      {.name = "log_policies"},
      {.name = "max_restarts", .kind = Kind::kInt, .default_value = 5, .min = 0},
      {.name = "min_checkpoint_period", .kind = Kind::kLength, .default_value = {{"batches", 0}}},
      {.name = "min_validation_period", .kind = Kind::kLength, .default_value = {{"batches", 0}}},
      {.name = "name", .kind = Kind::kString},
      {.name = "optimizations"},
      {.name = "pbs"},
      {.name = "perform_initial_validation", .kind = Kind::kBool, .default_value = false},
      {.name = "preemption_timeout", .kind = Kind::kInt, .min = 0},
      {.name = "profiling"},
      {.name = "project", .kind = Kind::kString, .default_value = ""},
      {.name = "records_per_epoch", .kind = Kind::kInt, .default_value = 0, .min = 0},
      {.name = "reproducibility"},
      {.name = "resources"},
      {.name = "retention_policy"},
      {.name = "scheduling_unit", .kind = Kind::kInt, .default_value = 100, .min = 1},
      {.name = "searcher"},
      {.name = "security"},
      {.name = "slurm"},
      {.name = "tensorboard_storage"},
      {.name = "workspace", .kind = Kind::kString, .default_value = ""},
  };
  return *f;
}

std::vector<std::string> CheckEntrypoint(const json& ep, Problems& p) {
  if (ep.is_null()) {
    p.Missing("entrypoint",
          "required: managed experiments require entrypoint (e.g. \"python3 train.py\")");
    return {};
  }
  if (ep.is_string()) {
    const std::string& cmd = ep.get_ref<const std::string&>();
    if (cmd.empty()) p.Add("entrypoint", "must not be empty");
    // A Trial class runs in the harness, which builds it and trains it with the Trainer.
    if (IsLegacyTrialEntrypoint(cmd)) return {"python3", "-m", "determined.exec.harness", cmd};
    return {"sh", "-c", cmd};
  }
  if (ep.is_array() && !ep.empty()) {
    std::vector<std::string> argv;
    for (size_t i = 0; i < ep.size(); ++i) {
      if (!ep[i].is_string()) {
        p.Add(IndexPath("entrypoint", i), absl::StrCat("must be a string, got ", Describe(ep[i])));
      } else {
        argv.push_back(ep[i].get<std::string>());
      }
    }
    return argv;
  }
  p.Add("entrypoint",
        absl::StrCat("must be a string or a non-empty list of strings, got ", Describe(ep)));
  return {};
}

template <typename T>
T Get(const json& obj, const char* key, T fallback) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  return it->get<T>();
}

std::string StringOr(const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

ExperimentConfig Extract(const json& cfg, std::vector<std::string> entrypoint) {
  ExperimentConfig out;
  out.name = cfg["name"];
  out.description = StringOr(cfg["description"]);
  out.labels = cfg["labels"].get<std::vector<std::string>>();
  out.entrypoint = std::move(entrypoint);
  const json& s = cfg["searcher"];
  out.searcher_name = s["name"];
  out.searcher_metric = s["metric"];
  out.smaller_is_better = s["smaller_is_better"];
  out.searcher_json = DumpJson(s);
  out.max_trials = Get<int>(s, "max_trials", 0);
  out.max_concurrent_trials = Get<int>(s, "max_concurrent_trials", 0);
  out.time_metric = Get<std::string>(s, "time_metric", "");
  out.max_time = Get<int64_t>(s, "max_time", 0);
  out.max_restarts = cfg["max_restarts"];
  const json& r = cfg["resources"];
  out.slots_per_trial = r["slots_per_trial"];
  if (IsSet(r, "max_slots")) out.max_slots = r["max_slots"].get<int>();
  out.weight = r["weight"];
  out.priority = Get<int>(r, "priority", 0);
  out.is_single_node = Get<bool>(r, "is_single_node", false);
  out.resource_pool = r["resource_pool"];
  out.preemption_timeout = cfg["preemption_timeout"];
  if (const json retention = cfg.value("retention_policy", json()); retention.is_object() &&
                                                                    IsSet(retention, "log_retention_days")) {
    out.log_retention_days = retention["log_retention_days"].get<int>();
  }
  out.experiment_seed = cfg["reproducibility"]["experiment_seed"].get<uint32_t>();
  for (const json& lp : cfg["log_policies"]) {
    out.log_policies.push_back(
        {StringOr(lp["name"]), StringOr(lp["pattern"]), StringOr(lp["action"])});
  }
  out.hyperparameters_json = DumpJson(cfg["hyperparameters"]);
  out.checkpoint_storage_json = DumpJson(cfg["checkpoint_storage"]);
  out.full_json = DumpJson(cfg);
  return out;
}

}  // namespace

bool IsLegacyTrialEntrypoint(const std::string& s) {
  size_t colon = s.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size()) return false;
  auto ident = [](char c, bool dot_ok) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (dot_ok && c == '.');
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (i != colon && !ident(s[i], i < colon)) return false;
  }
  return true;
}


absl::StatusOr<ExperimentConfig> ParseExperimentConfig(const std::string& yaml_text,
                                                       const ExperimentDefaults& defaults) {
  ASSIGN_OR_RETURN(json cfg, ParseYaml(yaml_text));
  ASSIGN_OR_RETURN(ExperimentConfig out, ParseExperimentConfigJson(cfg, defaults));
  out.original_yaml = yaml_text;
  return out;
}

namespace {

// Checks every section of `cfg` and fills its defaults; returns the entrypoint's argv.
std::vector<std::string> CheckSections(json& cfg, const json& master_storage, Problems& p) {
  for (const char* key : {"min_checkpoint_period", "min_validation_period", "scheduling_unit"}) {
    if (IsSet(cfg, key)) p.Warn(absl::StrCat(key, " is deprecated in 0.38: ", kOnlyTrialClasses));
  }
  CheckObject(cfg, "", TopLevelFields(), p);
  std::vector<std::string> entrypoint = CheckEntrypoint(cfg["entrypoint"], p);
  const bool trial_class = cfg["entrypoint"].is_string() && IsLegacyTrialEntrypoint(cfg["entrypoint"]);

  json& searcher = cfg["searcher"];
  CheckSearcher(searcher, p);
  bool grid = searcher.is_object() && searcher.value("name", json()) == "grid";
  CheckHyperparameters(cfg["hyperparameters"], grid, p);
  CheckResources(cfg["resources"], p);
  const json slots = cfg["resources"].is_object() ? cfg["resources"].value("slots_per_trial", json(1)) : json(1);
  if (trial_class && slots.is_number_integer() && slots.get<int64_t>() > 1) {
    // One harness per slot, as upstream's launcher runs a Trial class.
    entrypoint.insert(entrypoint.begin(), {"python3", "-m", "determined.launch.torch_distributed", "--"});
  }
  cfg["checkpoint_storage"] = MergeCheckpointStorage(cfg["checkpoint_storage"], master_storage);
  CheckCheckpointStorage(cfg["checkpoint_storage"], "checkpoint_storage", p);
  CheckTensorboardStorage(cfg["tensorboard_storage"], p);

  CheckEnvironment(cfg["environment"], p);
  CheckBindMounts(cfg["bind_mounts"], p);
  CheckLogPolicies(cfg["log_policies"], p);
  return entrypoint;
}

absl::Status CheckIsMapping(const json& input, absl::string_view what) {
  if (input.is_null()) return absl::InvalidArgumentError(absl::StrCat(what, " configuration is empty"));
  if (!input.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " configuration must be a YAML mapping, got ", TypeName(input)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ExperimentConfig> ParseExperimentConfigJson(const json& input,
                                                           const ExperimentDefaults& defaults) {
  RETURN_IF_ERROR(CheckIsMapping(input, "experiment"));
  json master_storage;
  if (!defaults.checkpoint_storage_json.empty()) {
    absl::StatusOr<json> parsed = ParseJson(defaults.checkpoint_storage_json);
    if (!parsed.ok())
      return absl::InternalError("master default checkpoint_storage is not valid JSON");
    master_storage = *std::move(parsed);
  }
  json cfg = input;
  Problems p;
  std::vector<std::string> entrypoint = CheckSections(cfg, master_storage, p);
  CheckMinorSections(cfg, defaults.seed, p);

  if (cfg["name"].is_null()) cfg["name"] = defaults.name.empty() ? "Experiment" : defaults.name;
  if (cfg["preemption_timeout"].is_null()) cfg["preemption_timeout"] = defaults.preemption_timeout;

  if (!p.empty()) return p.ToStatus();
  ExperimentConfig out = Extract(cfg, std::move(entrypoint));
  out.warnings = std::move(p.warnings());
  return out;
}

std::vector<std::string> ExperimentConfigWarnings(const json& user_config) {
  if (!user_config.is_object()) return {};
  json cfg = user_config;
  Problems p;
  CheckSections(cfg, json(), p);
  CheckMinorSections(cfg, 0, p);
  return std::move(p.warnings());
}

absl::Status CheckTemplateConfig(const json& input) {
  RETURN_IF_ERROR(CheckIsMapping(input, "template"));
  json cfg = input;
  Problems p("template");
  // What only commands, notebooks, shells and TensorBoards read (resources.slots, ...) is checked as
  // theirs; the rest as a partial experiment config.
  for (std::string& line : TakeCommandOnlyKeys(cfg)) p.AddLine(std::move(line));
  CheckSections(cfg, json(), p);
  CheckMinorSections(cfg, 0, p);
  Problems malformed = p.WithoutMissing();
  return malformed.empty() ? absl::OkStatus() : malformed.ToStatus();
}

}  // namespace det::config
