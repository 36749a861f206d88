#pragma once
// `det experiment set priority|weight|max-slots ID VALUE`: PATCH /api/v1/experiments/{id} with
// `resources` (upstream's PatchExperiment.PatchResources).
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>

#include "absl/status/statusor.h"

namespace det::cli {

class Session;

// Exactly one is set.
struct ExperimentResourcesChange {
  std::optional<int> priority;
  std::optional<double> weight;
  std::optional<int> max_slots;
};

// Prints "Set `priority` of experiment ID to N" (weight as Python prints floats); for weight and
// max_slots, which only the fair-share scheduler uses, says so when the experiment's pool has another.
absl::StatusOr<int> SetExperimentResources(Session& session, int experiment_id,
                                           const ExperimentResourcesChange& change,
                                           std::ostream& out);

// The PATCH body: {"id": ID, "resources": {"priority"|"weight"|"maxSlots": VALUE}}. Exposed for
// tests.
absl::StatusOr<nlohmann::json> ExperimentResourcesPatch(int experiment_id,
                                                        const ExperimentResourcesChange& change);

}  // namespace det::cli
