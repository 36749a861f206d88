#include "cli/experiment_test_mode.h"

#include <chrono>
#include <iostream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "api/experiment_states.h"
#include "api/wire.h"
#include "cli/experiment_ops.h"
#include "cli/experiment_view.h"
#include "cli/format.h"
#include "cli/session.h"
#include "cli/trial_ops.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::cli {
namespace {

using nlohmann::json;

constexpr const char* kStages[] = {"Scheduling task", "Testing training", "Testing validation",
                                   "Testing checkpointing"};

// The experiment's first trial, or null while it has none.
absl::StatusOr<json> FirstTrial(Session& session, int experiment_id) {
  ASSIGN_OR_RETURN(json resp, session.Get(absl::StrCat("/api/v1/experiments/", experiment_id, "/trials")));
  const json& trials = Field(resp, "trials");
  return trials.is_array() && !trials.empty() ? trials.front() : json();
}

}  // namespace

json MakeTestExperimentConfig(json config) {
  if (!config.is_object()) return config;
  const json searcher = config.value("searcher", json::object());
  json test_searcher = {{"name", "single"}, {"metric", searcher.value("metric", json())}};
  if (searcher.contains("smaller_is_better")) test_searcher["smaller_is_better"] = searcher["smaller_is_better"];
  if (const json& length = searcher.value("max_length", json()); length.is_object() && !length.empty()) {
    test_searcher["max_length"] = {{length.begin().key(), 1}};
  } else if (length.is_number_integer()) {
    test_searcher["max_length"] = 1;
  }
  config["searcher"] = test_searcher;
  config["max_restarts"] = 0;
  std::string description = config.value("description", json()).is_string()
                                ? config["description"].get<std::string>()
                                : config.value("name", json()).is_string() ? config["name"].get<std::string>() : "";
  config["description"] = absl::StrCat("[test-mode] ", description);
  return config;
}

int TestStage(const json& trial) {
  if (!trial.is_object()) return 0;
  const std::string state = Str(trial, "state");
  const bool started = state != "STATE_QUEUED" && state != "STATE_PULLING" && state != "STATE_STARTING" &&
                       state != "STATE_ACTIVE";
  if (!started) return 0;
  if (api::ReadInt64(Field(trial, "totalBatchesProcessed"), "").value_or(0) == 0) return 1;
  if (Field(trial, "latestValidation").is_null()) return 2;
  if (api::ReadInt64(Field(trial, "checkpointCount"), "").value_or(0) == 0) return 3;
  return 4;
}

absl::StatusOr<int> TestExperiment(Session& session, const CreateExperimentArgs& args, std::ostream& out) {
  std::vector<std::string> warnings;
  ASSIGN_OR_RETURN(json body, BuildCreateExperimentRequest(args, &warnings));
  for (const std::string& w : warnings) std::cerr << w << "\n";
  body["validateOnly"] = true;
  ASSIGN_OR_RETURN(json checked, session.Post("/api/v1/experiments", body));
  PrintLaunchWarnings(checked, std::cerr);
  out << "Experiment configuration validation succeeded!\n";

  ASSIGN_OR_RETURN(json config, ParseYaml(body["config"].get<std::string>()));
  body["config"] = ToYaml(MakeTestExperimentConfig(std::move(config)));
  body["validateOnly"] = false;
  body["activate"] = true;
  ASSIGN_OR_RETURN(json created, session.Post("/api/v1/experiments", body));
  ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(Field(Field(created, "experiment"), "id"), "experiment.id"));
  out << "Created test experiment " << id << "\n";
  out.flush();

  int shown = 0;  // the stages reported as passed
  auto show_until = [&](int stage) {
    for (; shown < stage && shown < 4; ++shown) out << kStages[shown] << " ... ok\n";
    out.flush();
  };
  while (true) {
    ASSIGN_OR_RETURN(api::ExperimentState state, FetchExperimentState(session, static_cast<int>(id)));
    ASSIGN_OR_RETURN(json trial, FirstTrial(session, static_cast<int>(id)));
    if (state == api::ExperimentState::kCompleted) {
      show_until(4);
      out << "Model definition test succeeded!\n";
      return 0;
    }
    if (api::IsTerminal(state)) {
      show_until(TestStage(trial));
      if (shown < 4) out << kStages[shown] << " ... failed\n";
      out << "Model definition test (experiment " << id << ") ended in state " << api::Name(state) << ".\n";
      if (trial.is_object()) {
        ASSIGN_OR_RETURN(int64_t trial_id, api::ReadInt64(Field(trial, "id"), "trial.id"));
        RETURN_IF_ERROR(PrintTrialLogs(session, static_cast<int>(trial_id), {}, out).status());
      }
      return 1;
    }
    show_until(TestStage(trial));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

}  // namespace det::cli
