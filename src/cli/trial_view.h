#pragma once
// `det trial describe`: pure rendering of a trial and its validation history (no I/O).
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "cli/experiment_view.h"

namespace det::cli {

// "Trial:" (the TrialsTable row plus experiment, restarts, checkpoints and best validation) and,
// when `validations` is an array of metric reports, "Validation metrics:" with one row per report.
std::string RenderTrialDescription(const nlohmann::json& trial, const nlohmann::json& validations,
                                   OutputFormat format);

}  // namespace det::cli
