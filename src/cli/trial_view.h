#pragma once
// `det trial describe`: pure rendering of a trial and its workloads (no I/O).
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "cli/experiment_view.h"

namespace det::cli {

// "Trial:" (the TrialsTable row plus experiment, restarts, checkpoints and best validation), then
// "Workloads:", one row per GetTrialWorkloads container in the order given: its batches and report
// time, a checkpoint's state and UUID, a validation's metrics and, with `training_metrics`, a
// training report's metrics.
std::string RenderTrialDescription(const nlohmann::json& trial, const nlohmann::json& workloads,
                                   bool training_metrics, OutputFormat format);

}  // namespace det::cli
