#pragma once
// The `searcher` section of an experiment config (reference §2.2), checked for what the native
// searchers can run. Shared by Searcher::Create and PreviewSearch.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"

namespace det::searcher {

struct SearcherConfig {
  std::string name;  // single, random, grid, async_halving, adaptive_asha
  std::string metric;
  bool smaller_is_better = true;
  int max_trials = 0;              // random, async_halving, adaptive_asha (single: 1)
  int max_concurrent_trials = 16;  // 0 = unlimited (single: 1)
  // async_halving / adaptive_asha
  int num_rungs = 0;  // async_halving
  double divisor = 4;
  std::string mode = "standard";   // adaptive_asha: aggressive, standard, conservative
  int max_rungs = 5;               // adaptive_asha
  std::vector<int> bracket_rungs;  // adaptive_asha; empty = derived from mode
  std::string time_metric;
  uint64_t max_time = 0;

  // The snapshot's search_method_type: single, random, grid, asha, adaptive_asha.
  std::string MethodType() const;
  bool IsAsha() const { return name == "async_halving" || name == "adaptive_asha"; }
};

// Reads `searcher` from a whole experiment config. Removed searchers (custom, adaptive,
// adaptive_simple, sync_halving) and ASHA without max_time/time_metric are InvalidArgument with
// upstream's messages; other errors name the field, e.g. `searcher.max_trials: must be >= 1, got
// 0`.
absl::StatusOr<SearcherConfig> ParseSearcherConfig(const nlohmann::json& experiment_config);

// reproducibility.experiment_seed, 0 when absent.
absl::StatusOr<uint32_t> ExperimentSeed(const nlohmann::json& experiment_config);

}  // namespace det::searcher
