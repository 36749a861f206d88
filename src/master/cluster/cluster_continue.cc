// Cluster::ContinueExperiment: a finished single-trial experiment trains again (upstream's
// `det experiment continue`), its trial bound to a fresh searcher.
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/crypto.h"
#include "common/random_id.h"
#include "common/status_macros.h"
#include "master/cluster/cluster.h"
#include "master/cluster/cluster_state.h"

namespace det::master {

using nlohmann::json;

void Cluster::ContinueExperiment(ContinuedExperiment request, std::function<void(absl::Status)> done) {
  loop_.Post([this, request = std::move(request), done = std::move(done)]() mutable {
    if (absl::Status st = DoContinueExperiment(request, done); !st.ok()) done(st);
  });
}

absl::Status Cluster::DoContinueExperiment(ContinuedExperiment& request, std::function<void(absl::Status)>& done) {
  const int64_t id = request.experiment.id;
  const api::ExperimentState state = request.experiment.state;
  const bool finished = state == api::ExperimentState::kCompleted || state == api::ExperimentState::kCanceled ||
                        state == api::ExperimentState::kError;
  if (experiments_.contains(id) || !finished) {
    return absl::FailedPreconditionError(
        absl::StrCat("experiment ", id, " is ", Name(state), "; only a COMPLETED, CANCELED or ERROR experiment "
                     "continues (a live one is paused and activated instead)"));
  }
  json config = json::parse(request.config.full_json, nullptr, false);
  const std::string searcher_name = config["searcher"].value("name", "");
  if (searcher_name != "single") {
    return absl::InvalidArgumentError(absl::StrCat(
        "searcher.name: continuing needs the single searcher, whose one trial is the experiment's trial; got \"",
        searcher_name, "\""));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<searcher::Searcher> search, searcher::Searcher::Create(config));
  RETURN_IF_ERROR(PlaceInPool(request.config, config, request.warnings));

  auto exp = std::make_unique<LiveExperiment>();
  exp->experiment = std::move(request.experiment);
  exp->experiment.state = api::ExperimentState::kActive;
  exp->experiment.end_time.reset();
  exp->experiment.config_json = request.config.full_json;
  exp->config = std::move(request.config);
  exp->searcher = std::make_unique<searcher::JournaledSearcher>(std::move(search));
  PrepareConfig(*exp);
  exp->user_token = RandomHex(32);
  const std::string session_hash = Sha256Hex(exp->user_token);
  const int64_t owner_id = exp->experiment.owner_id;
  // The searcher's one trial is the experiment's trial, under the request id the searcher gave it.
  std::vector<searcher::Action> initial = exp->searcher->InitialActions();
  if (initial.size() != 1 || initial[0].kind != searcher::Action::Kind::kCreateTrial) {
    return absl::InternalError(absl::StrCat("the single searcher asked for ", initial.size(), " first action(s)"));
  }
  const std::string request_id = initial[0].request_id;
  exp->searcher->TrialCreated(request_id);

  auto trial = std::make_unique<LiveTrial>();
  trial->trial = std::move(request.trial);
  trial->trial.request_id = request_id;
  trial->trial.state = api::TrialState::kActive;
  trial->trial.end_time.reset();
  trial->trial.restarts = 0;
  Task task = std::move(request.task);
  task.state = TaskState::kActive;
  task.end_time.reset();
  task.exit_status.clear();
  task.exit_code.reset();

  LiveExperiment& ref = *exp;
  LiveTrial& live_trial = *trial;
  ref.trial_by_request[request_id] = live_trial.trial.id;
  experiments_[id] = std::move(exp);
  trials_[live_trial.trial.id] = std::move(trial);
  AddTrialTask(live_trial, ref, task);
  // In the order they are written: the trial (ACTIVE, with its new request id) and its allocation,
  // the session, the searcher (a snapshot, which replaces the old
  // search's journal), the config, the task, and last the experiment's state, whose outcome answers
  // the request.
  RequestAllocation(live_trial);
  Persist(absl::StrCat("experiment ", id, " session"), [this, session_hash, owner_id] {
    return store_.AddSession(session_hash, owner_id, loop_.Now() + options_.user_session_lifetime);
  });
  SaveSearcher(ref);
  Persist(absl::StrCat("experiment ", id, " config"),
          [this, id, patch = ExperimentPatch{.config_json = ref.experiment.config_json}] {
            return store_.PatchExperiment(id, patch).status();
          });
  SaveTask(task);
  SaveExperimentState(ref.experiment, std::nullopt, std::move(done));
  spdlog::info("experiment {} continues: trial {} resumes from checkpoint {}", id, live_trial.trial.id,
               live_trial.trial.latest_checkpoint_uuid.empty() ? "(none)" : live_trial.trial.latest_checkpoint_uuid);
  Schedule();
  return absl::OkStatus();
}

}  // namespace det::master
