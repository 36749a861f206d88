#include "cli/experiment_create.h"

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "cli/config_override.h"
#include "cli/context_dir.h"
#include "cli/experiment_ops.h"
#include "cli/session.h"
#include "cli/trial_ops.h"
#include "cli/trial_progress.h"
#include "common/file_util.h"

namespace det::cli {
namespace {

using nlohmann::json;

}  // namespace

void PrintLaunchWarnings(const json& resp, std::ostream& err) {
  if (auto config = resp.find("configWarnings"); config != resp.end() && config->is_array()) {
    for (const json& w : *config) {
      if (w.is_string()) err << "Warning: " << w.get<std::string>() << "\n";
    }
  }
  auto it = resp.find("warnings");
  if (it == resp.end() || !it->is_array()) return;
  for (const json& w : *it) {
    if (w == "LAUNCH_WARNING_CURRENT_SLOTS_EXCEEDED") {
      err << "Warning: The requested job requires more slots than currently available. You "
             "may need to increase cluster resources in order for the job to run.\n";
    } else if (w.is_string()) {
      err << "Warning: " << w.get<std::string>() << "\n";
    }
  }
}

absl::StatusOr<json> BuildCreateExperimentRequest(const CreateExperimentArgs& args,
                                                  std::vector<std::string>* warnings) {
  absl::StatusOr<std::string> text = ReadFile(args.config_file);
  if (!text.ok()) {
    return absl::NotFoundError(
        absl::StrCat("cannot read experiment config file ", args.config_file));
  }
  absl::StatusOr<std::string> config =
      ConfigTextWithOverrides(*text, args.overrides, args.config_file);
  if (!config.ok()) return config.status();

  std::optional<std::filesystem::path> root;
  if (args.context_dir.has_value()) root = *args.context_dir;
  std::vector<std::filesystem::path> includes(args.includes.begin(), args.includes.end());
  absl::StatusOr<ContextResult> context = ReadContext(root, includes);
  if (!context.ok()) return context.status();
  if (warnings != nullptr) {
    warnings->insert(warnings->end(), context->warnings.begin(), context->warnings.end());
  }

  json body = {{"config", *config},
               {"modelDefinition", ContextToJson(context->files)},
               {"activate", !args.paused}};
  if (args.project_id.has_value()) body["projectId"] = *args.project_id;
  if (!args.template_name.empty()) body["template"] = args.template_name;
  return body;
}

absl::StatusOr<int> CreateExperiment(Session& session, const CreateExperimentArgs& args,
                                     std::ostream& out) {
  std::vector<std::string> warnings;
  absl::StatusOr<json> body = BuildCreateExperimentRequest(args, &warnings);
  if (!body.ok()) return body.status();
  for (const std::string& w : warnings) std::cerr << w << "\n";

  absl::StatusOr<json> resp = session.Post("/api/v1/experiments", *body);
  if (!resp.ok()) return resp.status();
  const json* exp = resp->contains("experiment") ? &(*resp)["experiment"] : nullptr;
  if (exp == nullptr || !exp->contains("id")) {
    return absl::InternalError("the master created the experiment but did not return its ID");
  }
  absl::StatusOr<int64_t> id = api::ReadInt64((*exp)["id"], "experiment.id");
  if (!id.ok()) return id.status();
  out << "Created experiment " << *id << "\n";
  out.flush();
  PrintLaunchWarnings(*resp, std::cerr);
  if (args.paused || !args.follow) return 0;
  return FollowExperiment(session, static_cast<int>(*id), out, args.live_progress);
}

absl::StatusOr<int> FollowExperiment(Session& session, int experiment_id, std::ostream& out, bool live_progress) {
  out << "Waiting for first trial to begin...\n";
  out.flush();
  auto last_state_check = std::chrono::steady_clock::now();
  int trial_id = 0;
  while (true) {
    absl::StatusOr<int> first = FirstTrialId(session, experiment_id);
    if (first.ok()) {
      trial_id = *first;
      break;
    }
    if (!absl::IsNotFound(first.status())) return first.status();
    // An experiment can end (e.g. an invalid config, or a kill) before any trial exists.
    if (std::chrono::steady_clock::now() - last_state_check > std::chrono::seconds(2)) {
      last_state_check = std::chrono::steady_clock::now();
      absl::StatusOr<api::ExperimentState> state = FetchExperimentState(session, experiment_id);
      if (!state.ok()) return state.status();
      if (api::IsTerminal(*state)) return ReportExperimentEnd(experiment_id, *state, out);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  out << "Following first trial with ID " << trial_id << "\n";
  out.flush();
  TrialLogsArgs logs;
  logs.follow = true;
  absl::StatusOr<int> streamed = PrintTrialLogs(session, trial_id, logs, out);
  if (!streamed.ok()) {
    // The stream broke (master restart, network); the outcome is still worth waiting for.
    std::cerr << "Warning: trial log stream ended early: " << streamed.status().message() << "\n";
  }
  return WatchTrials(session, experiment_id, /*poll_seconds=*/1.0, out, live_progress);
}

}  // namespace det::cli
