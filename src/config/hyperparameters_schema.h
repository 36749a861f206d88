#pragma once
// The `hyperparameters` section (reference §2.3): const, int, double, log, categorical, nested
// objects and the bare-value shorthand.
#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "config/schema_fields.h"

namespace det::config {

// Checks `hps` (a map name -> hyperparameter) in place. Bare values become {type: const, val: v};
// nested objects (no `type` key) are checked recursively. When `grid` is true every int, double
// and log hyperparameter must have a `count`.
void CheckHyperparameters(nlohmann::json& hps, bool grid, Problems& p);

}  // namespace det::config
