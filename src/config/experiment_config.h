#pragma once
// The experiment configuration (expconf v0, reference §2): parsing, validation and defaults.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::config {

// What the master fills in when the user's config leaves it out.
struct ExperimentDefaults {
  std::string checkpoint_storage_json;  // the master's default checkpoint_storage, as JSON
  uint32_t seed = 0;                    // reproducibility.experiment_seed when absent
  std::string name;                     // name when absent
};

// A validated, fully defaulted experiment configuration.
struct ExperimentConfig {
  std::string name;
  std::string description;
  std::vector<std::string> labels;
  std::vector<std::string> entrypoint;  // argv; a string entrypoint becomes {"sh", "-c", text}
  std::string searcher_name;
  std::string searcher_metric;
  bool smaller_is_better = true;
  int max_restarts = 5;
  int slots_per_trial = 1;
  std::string resource_pool;
  uint32_t experiment_seed = 0;
  std::string hyperparameters_json;      // the `hyperparameters` section as given (bare values normalized)
  std::string checkpoint_storage_json;   // the effective checkpoint storage
  std::string full_json;                 // the whole defaulted config
  std::vector<std::string> warnings;     // deprecated fields that were accepted
};

// Parses the user's YAML text. Every problem is reported at once, one per line, each with its path and
// what is allowed, e.g. "searcher.metric: required". Returns InvalidArgument on any problem.
absl::StatusOr<ExperimentConfig> ParseExperimentConfig(const std::string& yaml_text,
                                                       const ExperimentDefaults& defaults);

// The values of a trial's hyperparameters when every hyperparameter is fixed (const or a bare value),
// as a nested JSON object (DET_HPARAMS). Hyperparameters that must be sampled are refused with the path.
absl::StatusOr<std::string> ConstHyperparameters(const std::string& hyperparameters_json);

}  // namespace det::config
