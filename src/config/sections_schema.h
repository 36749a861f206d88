#pragma once
// The small top-level sections of the experiment config (reference §2.1): profiling,
// reproducibility, retention_policy, pbs, slurm, integrations, security, optimizations, data_layer,
// internal.
#include <cstdint>
#include <nlohmann/json.hpp>

#include "config/schema_fields.h"

namespace det::config {

// Checks those sections of the top-level `cfg` in place and fills their defaults;
// reproducibility.experiment_seed defaults to `seed`. Ignored features add warnings.
void CheckMinorSections(nlohmann::json& cfg, uint32_t seed, Problems& p);

}  // namespace det::config
