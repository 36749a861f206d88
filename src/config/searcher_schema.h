#pragma once
// The `searcher` section (reference §2.2): every variant with its fields and defaults.
#include <nlohmann/json.hpp>

#include "config/schema_fields.h"

namespace det::config {

// Checks `searcher` in place and fills the defaults of its variant (max_concurrent_trials 16,
// divisor 4, mode standard, max_rungs 5, smaller_is_better true, bracket_rungs []). The removed
// searchers (custom, adaptive, adaptive_simple, sync_halving) parse, then are refused with
// upstream's message; ASHA variants without max_time and time_metric are refused. Deprecated fields
// add warnings. A missing searcher is a problem.
void CheckSearcher(nlohmann::json& searcher, Problems& p);

// True for the searchers that parse but may not be used for new experiments.
bool IsRemovedSearcher(const std::string& name);

}  // namespace det::config
