#pragma once
// `det preview-search CONFIG`: asks the master what the config's searcher will do and prints it.
#include <string>

#include "absl/status/statusor.h"
#include "cli/session.h"

namespace det::cli {

// Prints the plan (trials, grid, ASHA brackets and rungs) to stdout; `json` prints the raw response.
absl::StatusOr<int> PreviewSearch(Session& session, const std::string& config_file, bool json);

}  // namespace det::cli
