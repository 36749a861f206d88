#pragma once
// What a searcher will do, described without running anything (`det preview-search`, upstream
// `POST /api/v1/preview-hp-search`).
#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"

namespace det::searcher {

// For a whole experiment config (same input as Searcher::Create, same errors):
//   {"searcher": name,
//    "trials": trials that will be created (grid size) or at most (max_trials),
//    "max_concurrent_trials": trials started at once,
//    "grid": [hparams, ...]                            (grid only; in creation order)
//    "brackets": [{"rungs": [{"units": u, "trials": k}, ...],   (async_halving, adaptive_asha)
//                  "trials": n, "max_concurrent_trials": c}, ...]}
// Rung units are time_metric units a trial needs to reach the rung; rung trials are at most how
// many trials reach it: max(floor(n / divisor^rung_index), 1).
absl::StatusOr<nlohmann::json> PreviewSearch(const nlohmann::json& config);

// Upstream's SearchSummary.trials for a PreviewSearch result: [{"count", "unit": {"name", "value",
// "maxLength"}}], how many trials train for how long. ASHA trials are counted at the rung where they
// stop (units in `time_metric`); the others train to their end (`maxLength: true`).
nlohmann::json SearchSummaryTrials(const nlohmann::json& preview, const std::string& time_metric);

// A human-readable rendering of PreviewSearch's result, e.g.
//   Using adaptive_asha: up to 16 trials, 3 brackets, 16 at a time
//   Bracket 1: 11 trials, 6 at a time
//     rung  units  trials
//     ...
std::string FormatPreview(const nlohmann::json& preview);

}  // namespace det::searcher
