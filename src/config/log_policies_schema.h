#pragma once
// The `log_policies` section (reference §2.1).
#include <nlohmann/json.hpp>

#include "config/schema_fields.h"

namespace det::config {

// Checks `log_policies` in place: each entry is {name, pattern, action} with action
// "cancel_retries" | "exclude_node" (or the legacy {type: ...}, normalized to the string), and
// needs a `name` or, in the legacy form, both `pattern` and `action`. Upstream's default policies
// ("CUDA OOM", "ECC Error") are appended unless the list already has a policy of that name.
void CheckLogPolicies(nlohmann::json& policies, Problems& p);

}  // namespace det::config
