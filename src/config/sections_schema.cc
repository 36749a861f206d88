#include "config/sections_schema.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "common/json_yaml.h"

namespace det::config {
namespace {

using nlohmann::json;

const std::vector<Field>& ProfilingFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "enabled", .kind = Kind::kBool, .default_value = false},
      {.name = "begin_on_batch", .kind = Kind::kInt, .default_value = 0, .min = 0},
      {.name = "end_after_batch", .kind = Kind::kInt, .min = 0},
      {.name = "sync_timings", .kind = Kind::kBool, .default_value = true},
  };
  return *f;
}

const std::vector<Field>& ReproducibilityFields() {
  static const auto* f =
      new std::vector<Field>{{.name = "experiment_seed",
                              .kind = Kind::kInt,
                              .min = 0,
                              .max = static_cast<double>(std::numeric_limits<uint32_t>::max())}};
  return *f;
}

const std::vector<Field>& RetentionFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "log_retention_days", .kind = Kind::kInt, .min = -1, .max = 32767}};
  return *f;
}

const std::vector<Field>& PbsFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "slots_per_node", .kind = Kind::kInt, .min = 1},
      {.name = "pbsbatch_args", .kind = Kind::kStringList, .default_value = json::array()}};
  return *f;
}

const std::vector<Field>& SlurmFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "slots_per_node", .kind = Kind::kInt, .min = 1},
      {.name = "gpu_type", .kind = Kind::kString},
      {.name = "sbatch_args", .kind = Kind::kStringList, .default_value = json::array()}};
  return *f;
}

const std::vector<Field>& IntegrationsFields() {
  static const auto* f =
      new std::vector<Field>{{.name = "pachyderm", .kind = Kind::kObject}, {.name = "webhooks"}};
  return *f;
}

const std::vector<Field>& WebhooksFields() {
  static const auto* f =
      new std::vector<Field>{{.name = "webhook_id", .kind = Kind::kIntList},
                             {.name = "webhook_name", .kind = Kind::kStringList}};
  return *f;
}

const std::vector<Field>& SecurityFields() {
  static const auto* f = new std::vector<Field>{{.name = "kerberos"}};
  return *f;
}

const std::vector<Field>& KerberosFields() {
  static const auto* f = new std::vector<Field>{{.name = "config_file", .kind = Kind::kString}};
  return *f;
}

const std::vector<Field>& OptimizationsFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "aggregation_frequency", .kind = Kind::kInt, .default_value = 1, .min = 1},
      {.name = "auto_tune_tensor_fusion", .kind = Kind::kBool, .default_value = false},
      {.name = "average_aggregated_gradients", .kind = Kind::kBool, .default_value = true},
      {.name = "average_training_metrics", .kind = Kind::kBool, .default_value = true},
      {.name = "gradient_compression", .kind = Kind::kBool, .default_value = false},
      {.name = "grad_updates_size_file", .kind = Kind::kString},
      {.name = "mixed_precision",
       .kind = Kind::kEnum,
       .default_value = "O0",
       .allowed = {"O0", "O1", "O2", "O3"}},
      {.name = "tensor_fusion_cycle_time", .kind = Kind::kNumber, .default_value = 1, .min = 0},
      {.name = "tensor_fusion_threshold", .kind = Kind::kNumber, .default_value = 64, .min = 0},
  };
  return *f;
}

}  // namespace

void CheckMinorSections(json& cfg, uint32_t seed, Problems& p) {
  if (CheckObject(cfg["profiling"], "profiling", ProfilingFields(), p)) {
    const json& prof = cfg["profiling"];
    if (prof["end_after_batch"].is_number_integer() && prof["begin_on_batch"].is_number_integer() &&
        prof["end_after_batch"].get<int64_t>() < prof["begin_on_batch"].get<int64_t>()) {
      p.Add("profiling.end_after_batch",
            absl::StrCat("must be >= begin_on_batch (", prof["begin_on_batch"].dump(), "), got ",
                         prof["end_after_batch"].dump()));
    }
  }
  if (CheckObject(cfg["reproducibility"], "reproducibility", ReproducibilityFields(), p) &&
      cfg["reproducibility"]["experiment_seed"].is_null()) {
    cfg["reproducibility"]["experiment_seed"] = seed;
  }
  if (!cfg["retention_policy"].is_null()) {
    CheckObject(cfg["retention_policy"], "retention_policy", RetentionFields(), p);
  }
  CheckObject(cfg["pbs"], "pbs", PbsFields(), p);
  CheckObject(cfg["slurm"], "slurm", SlurmFields(), p);
  json& integrations = cfg["integrations"];
  if (!integrations.is_null() &&
      CheckObject(integrations, "integrations", IntegrationsFields(), p) &&
      !integrations["webhooks"].is_null()) {
    CheckObject(integrations["webhooks"], "integrations.webhooks", WebhooksFields(), p);
  }
  json& security = cfg["security"];
  if (!security.is_null() && CheckObject(security, "security", SecurityFields(), p) &&
      !security["kerberos"].is_null()) {
    CheckObject(security["kerberos"], "security.kerberos", KerberosFields(), p);
    p.Warn("security.kerberos is a removed feature and is ignored");
  }
  if (IsSet(cfg, "optimizations")) p.Warn(absl::StrCat("optimizations is deprecated in 0.38: ", kOnlyTrialClasses));
  CheckObject(cfg["optimizations"], "optimizations", OptimizationsFields(), p);
  if (IsSet(cfg, "data_layer")) p.Warn("data_layer is a removed feature and is ignored");
  if (!cfg["internal"].is_null()) {
    p.Add("internal", absl::StrCat("must be null (reserved), got ", Describe(cfg["internal"])));
  }
}

}  // namespace det::config
