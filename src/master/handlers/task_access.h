#pragma once
// A task authenticated by its allocation token may act only on its own trial and task; user sessions
// pass these checks.
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "master/db/store.h"
#include "master/http/http_types.h"
#include "master/trial_facts.h"

namespace det::master {

absl::Status CheckTaskOwnsTrial(TrialFactsCache& trial_facts, const HttpRequest& request, int64_t trial_id);
absl::Status CheckTaskOwnsTask(Store& store, const HttpRequest& request, const std::string& task_id);

}  // namespace det::master
