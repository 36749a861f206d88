#pragma once
// `det experiment continue ID [--config-file FILE] [--config KEY=VALUE]... [-f]`: a finished
// single-trial experiment trains again (upstream's ContinueExperiment), e.g. for longer with
// `--config searcher.max_length.batches=2000`.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::cli {

class Session;

struct ContinueExperimentArgs {
  int experiment_id = 0;
  std::optional<std::string> config_file;  // --config-file: overrides as a config file
  std::vector<std::string> overrides;      // --config KEY=VALUE
  bool follow = false;                     // -f/--follow-first-trial
  bool live_progress = false;
};

// The request's overrideConfig: the config file's text with the overrides applied, or the overrides
// alone as YAML ("{}" when there are none). No network.
absl::StatusOr<std::string> ContinueOverrideConfig(const ContinueExperimentArgs& args);

// Asks the master to continue the experiment and prints "Continued experiment ID"; with `follow`,
// then follows it as FollowExperiment does and returns its exit code.
absl::StatusOr<int> ContinueExperiment(Session& session, const ContinueExperimentArgs& args, std::ostream& out);

}  // namespace det::cli
