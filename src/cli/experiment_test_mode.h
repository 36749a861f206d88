#pragma once
// `det experiment create --test CONFIG DIR` (upstream's test mode): the config is checked by the master
// (validateOnly), then a short single-trial copy of the experiment runs while det shows how far it got:
// scheduling, training, validation, checkpointing. Exits 0 once it completed; otherwise prints the trial's
// logs and exits 1.
#include <nlohmann/json.hpp>
#include <ostream>

#include "absl/status/statusor.h"
#include "cli/experiment_create.h"

namespace det::cli {

class Session;

// The test copy of a config: the single searcher on the same metric (max_length, when the config
// has one, is 1 of its unit), no restarts, and "[test-mode] " before the description.
nlohmann::json MakeTestExperimentConfig(nlohmann::json config);

// How far a test trial got, from GetExperimentTrials' trial (null: none yet): 0 scheduling,
// 1 training, 2 validation, 3 checkpointing, 4 all of them seen.
int TestStage(const nlohmann::json& trial);

absl::StatusOr<int> TestExperiment(Session& session, const CreateExperimentArgs& args, std::ostream& out);

}  // namespace det::cli
