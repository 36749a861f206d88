#pragma once
// The experiment configuration (expconf v0, reference §2): parsing, validation and defaults.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::config {

// What the master fills in when the user's config leaves it out.
struct ExperimentDefaults {
  std::string checkpoint_storage_json;  // the master's default checkpoint_storage, as JSON
  uint32_t seed = 0;                    // reproducibility.experiment_seed when absent
  std::string name;                     // name when absent (the master generates a petname)
  int preemption_timeout = 3600;        // seconds; task_container_defaults.preemption_timeout
};

// One log policy after defaults; empty strings stand for null.
struct LogPolicy {
  std::string name;
  std::string pattern;
  std::string action;  // "", "cancel_retries" or "exclude_node"
};

// A validated, fully defaulted experiment configuration.
struct ExperimentConfig {
  std::string original_yaml;  // the user's text (ParseExperimentConfig only), stored verbatim
  std::string name;
  std::string description;
  std::vector<std::string> labels;
  std::vector<std::string> entrypoint;  // argv; a string entrypoint becomes {"sh", "-c", text}
  std::string searcher_name;
  std::string searcher_metric;
  bool smaller_is_better = true;
  std::string searcher_json;      // the defaulted `searcher` section
  int max_trials = 0;             // 0 when the searcher has none (single, grid)
  int max_concurrent_trials = 0;  // 0 = no limit; 16 by default for random, grid and ASHA
  std::string time_metric;        // ASHA only
  int64_t max_time = 0;           // ASHA only, in time_metric's units
  int max_restarts = 5;
  int slots_per_trial = 1;
  std::optional<int> max_slots;
  double weight = 1;
  int priority = 0;  // 0 = unset: the pool's default priority applies
  bool is_single_node = false;
  std::string resource_pool;
  int preemption_timeout = 3600;  // seconds
  std::optional<int> log_retention_days;  // retention_policy.log_retention_days; unset: the master's
  uint32_t experiment_seed = 0;
  std::vector<LogPolicy> log_policies;  // user policies, then the defaults not overridden by name
  std::string hyperparameters_json;  // the `hyperparameters` section, bare values as {type: const}
  std::string checkpoint_storage_json;  // the effective checkpoint storage
  std::string full_json;                // the whole defaulted config (GET /api/v1/experiments/{id})
  std::vector<std::string> warnings;    // deprecated or ignored fields that were accepted
};

// Parses the user's YAML text, then as ParseExperimentConfigJson. YAML syntax errors name the
// line and column. `original_yaml` of the result is `yaml_text`.
absl::StatusOr<ExperimentConfig> ParseExperimentConfig(const std::string& yaml_text,
                                                       const ExperimentDefaults& defaults);

// Validates an already-parsed config (e.g. after template merging), merges the master's default
// checkpoint storage and fills every default. Every problem is reported at once, one per line,
// each with its path and what is allowed, e.g. "searcher.max_trials: must be >= 1, got 0". Removed
// searchers and ASHA without max_time/time_metric are refused here. Returns InvalidArgument on any
// problem; nothing is half-filled.
// A template's config, checked as a partial experiment config (upstream's sanity check): every key
// must be known and every value valid, but what the experiment's own config may still supply (the
// entrypoint, the searcher, a hyperparameter's bounds, ...) is not required. InvalidArgument lists
// every problem, as ParseExperimentConfigJson does.
absl::Status CheckTemplateConfig(const nlohmann::json& config);

absl::StatusOr<ExperimentConfig> ParseExperimentConfigJson(const nlohmann::json& config,
                                                           const ExperimentDefaults& defaults);

// The warnings (deprecated or ignored fields) of what `user_config`, a user's partial experiment config
// (their YAML with overrides merged in, no defaults), sets; its errors are not reported. For a config
// whose stored, defaulted form, which holds the defaults of deprecated fields too, was checked
// already (det experiment continue): a warning names only a key the user set.
std::vector<std::string> ExperimentConfigWarnings(const nlohmann::json& user_config);

// "model_def:MyTrial": a legacy Trial-class entrypoint (a dotted module, a colon, a class name), which
// runs in the harness (python3 -m determined.exec.harness).
bool IsLegacyTrialEntrypoint(const std::string& entrypoint);

}  // namespace det::config
