#pragma once
// `det experiment create --local --test CONFIG [DIR]` (upstream's local test mode): the config's
// Trial class (`entrypoint: model_def:MyTrial`) trains one batch and validates one batch in a local
// Python process, without a master, to show that the code runs.
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/experiment_create.h"

namespace det::cli {

// The experiment config of `args` (its file with the --config overrides) as JSON. InvalidArgument,
// with upstream's explanation, without `test_mode` (local training is not supported) or when the
// entrypoint is not a Trial class.
absl::StatusOr<nlohmann::json> LocalTestConfig(const CreateExperimentArgs& args, bool test_mode);

// The command that tests `entrypoint` with the config in `config_file`: python3 (/usr/bin's when
// there is one, as tasks run it) -m determined.exec.harness --local-test CONFIG ENTRYPOINT.
std::vector<std::string> LocalTestCommand(const std::string& entrypoint,
                                          const std::filesystem::path& config_file);

// Runs the test in the context directory (default: the current one) with this build's Python
// package first on PYTHONPATH, its output on this process's; returns its exit status.
absl::StatusOr<int> RunLocalTest(const CreateExperimentArgs& args, bool test_mode);

}  // namespace det::cli
