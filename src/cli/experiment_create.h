#pragma once
// `det experiment create CONFIG_FILE [CONTEXT_DIR]`.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::cli {

class Session;

struct CreateExperimentArgs {
  std::string config_file;
  std::optional<std::string> context_dir;
  std::vector<std::string> includes;   // -i/--include
  std::vector<std::string> overrides;  // --config KEY=VALUE
  bool paused = false;
  bool follow = false;  // -f/--follow-first-trial
  bool live_progress = false;  // output is a terminal: trial progress lines are redrawn in place
  std::optional<int> project_id;
  std::string template_name;
};

// Reads the config file and the context and builds the CreateExperiment body:
// {"config": YAML text, "modelDefinition": [File...], "activate": !paused, "projectId"?: N
//  (--project_id), "template"?: name}. No network. Unreadable files are skipped with a message in `warnings`.
absl::StatusOr<nlohmann::json> BuildCreateExperimentRequest(const CreateExperimentArgs& args,
                                                            std::vector<std::string>* warnings);

// Submits the experiment and prints "Created experiment ID"; with `follow` (and not `paused`)
// continues as FollowExperiment does and returns its exit code.
absl::StatusOr<int> CreateExperiment(Session& session, const CreateExperimentArgs& args,
                                     std::ostream& out);

// Prints the `warnings` of a launch response (CreateExperiment, LaunchCommand, ...) to `err`, one
// "Warning: ..." line each, in upstream's words for the ones it knows.
void PrintLaunchWarnings(const nlohmann::json& resp, std::ostream& err);

// Waits for the experiment's first trial, streams its logs until the trial ends, then shows a
// progress line per trial (WatchTrials) until the experiment ends and prints its final state.
// Returns 0 iff it COMPLETED.
absl::StatusOr<int> FollowExperiment(Session& session, int experiment_id, std::ostream& out, bool live_progress);

}  // namespace det::cli
