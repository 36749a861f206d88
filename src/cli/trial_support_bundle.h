#pragma once
// `det trial support-bundle TRIAL_ID [-o DIR]`: what a trial's problem report needs, in one file.
#include <filesystem>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace det::cli {

class Session;

// The bundle's name, "det-bundle-trial-ID-YYYYMMDDTHHMMSS" (`now` in local time), as upstream's.
std::string SupportBundleName(int trial_id, absl::Time now);

// Writes OUTPUT_DIR/NAME.tar.gz (NAME from SupportBundleName), holding NAME/trial_logs.txt (the
// trial's log lines), NAME/master_logs.txt (the master's recent lines), NAME/api_trial_call.json (the
// trial, GET /api/v1/trials/ID) and NAME/api_experiment_call.json (GET /api/v1/experiments/EXP).
// Returns the bundle's path. NotFound, naming the directory, when `output_dir` is not one; nothing is
// written when a request fails.
absl::StatusOr<std::filesystem::path> WriteTrialSupportBundle(Session& session, int trial_id,
                                                              const std::filesystem::path& output_dir,
                                                              absl::Time now);

}  // namespace det::cli
