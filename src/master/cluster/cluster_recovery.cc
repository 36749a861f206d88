// Cluster::Recover: rebuilding the cluster actor's live state from the store after a master restart.
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/crypto.h"
#include "common/random_id.h"
#include "common/status_macros.h"
#include "master/cluster/cluster.h"
#include "master/cluster/cluster_state.h"
#include "master/warm_start.h"

namespace det::master {

using nlohmann::json;

absl::Status Cluster::Recover() {
  ASSIGN_OR_RETURN(highest_ids_, store_.GetHighestIds());
  ASSIGN_OR_RETURN(std::vector<api::Experiment> experiments, store_.ListExperiments({}));
  for (api::Experiment& e : experiments) {
    if (IsTerminal(e.state)) continue;
    int64_t id = e.id;
    if (absl::Status st = RecoverExperiment(std::move(e)); !st.ok()) {
      spdlog::error("experiment {} cannot be recovered and fails: {}", id, st.ToString());
      experiments_.erase(id);
      ForgetLiveTrials(id);
      api::Experiment failed;
      failed.id = id;
      failed.state = api::ExperimentState::kError;
      SaveExperimentState(failed, loop_.Now());
      CollectCheckpoints(id);
    }
  }
  // Commands, generic tasks, notebooks, shells and TensorBoards that had not ended, in the order
  // they were submitted.
  ASSIGN_OR_RETURN(std::vector<Task> tasks,
                   store_.ListTasks({.types = {TaskType::kCommand, TaskType::kGeneric, TaskType::kNotebook,
                                               TaskType::kShell, TaskType::kTensorboard},
                                     .live_only = true}));
  for (const Task& t : tasks) {
    absl::Status st = RecoverTask(t);
    if (st.ok()) continue;
    spdlog::error("task {} cannot be recovered and fails: {}", t.task_id, st.ToString());
    std::string why = absl::StrCat("could not be recovered: ", st.message());
    if (auto live = tasks_.find(t.task_id); live != tasks_.end()) {
      FinishTask(*live->second, TaskState::kError, why, std::nullopt);
    } else {
      Task failed = t;
      failed.state = TaskState::kError;
      failed.end_time = loop_.Now();
      failed.exit_status = why;
      SaveTask(failed);
    }
  }
  // Checkpoint GC that an earlier master did not finish.
  if (auto pending = store_.ListCheckpointGcPending(); pending.ok()) {
    for (int64_t id : *pending) CollectCheckpoints(id);
  }
  // Deletions an earlier master did not finish.
  for (const api::Experiment& e : experiments) {
    if (e.state == api::ExperimentState::kDeleting) DeleteExperiment(e.id);
  }
  for (const auto& manager : managers_) manager->RestoreDone();
  spdlog::info("recovered {} experiment(s), {} trial(s), {} other task(s), {} allocation(s)", experiments_.size(),
               trials_.size(), tasks_.size() - trials_.size(), allocations_.size());
  return absl::OkStatus();
}

absl::Status Cluster::RecoverSearcher(int64_t experiment_id, const json& config, LiveExperiment& exp) {
  absl::StatusOr<SavedSearcher> stored = store_.GetSearcher(experiment_id);
  if (absl::IsNotFound(stored.status())) {  // stopped before its first save
    ASSIGN_OR_RETURN(std::unique_ptr<searcher::Searcher> fresh, searcher::Searcher::Create(config));
    exp.searcher = std::make_unique<searcher::JournaledSearcher>(std::move(fresh));
    return absl::OkStatus();
  }
  if (!stored.ok()) return stored.status();
  ASSIGN_OR_RETURN(std::unique_ptr<searcher::Searcher> restored,
                   searcher::Searcher::Restore(config, json::parse(stored->snapshot, nullptr, false)));
  exp.searcher = std::make_unique<searcher::JournaledSearcher>(std::move(restored));
  exp.saved_searcher = {.snapshot_bytes = stored->snapshot.size(),
                        .next_seq = static_cast<int64_t>(stored->events.size())};
  for (const std::string& event : stored->events) {
    RETURN_IF_ERROR(exp.searcher->Replay(event));
    exp.saved_searcher.event_bytes += event.size();
  }
  return absl::OkStatus();
}

absl::Status Cluster::RecoverExperiment(api::Experiment stored) {
  last_submission_ = std::max(last_submission_, stored.start_time);
  json config = json::parse(stored.config_json, nullptr, false);
  if (!config.is_object()) return absl::DataLossError("the stored config is not a JSON object");
  // The stored config is complete (merged and defaulted), so no defaults are needed to re-read it.
  ASSIGN_OR_RETURN(config::ExperimentConfig parsed, config::ParseExperimentConfigJson(config, {}));
  auto exp = std::make_unique<LiveExperiment>();
  RETURN_IF_ERROR(RecoverSearcher(stored.id, config, *exp));
  // A warm start's source may have been deleted since: the trials then start fresh.
  exp->warm_start_checkpoint = WarmStartCheckpoint(store_, store_, config).value_or("");
  exp->experiment = std::move(stored);
  exp->config = std::move(parsed);
  PrepareConfig(*exp);

  // The owner's session for new trial processes (the old token was only stored hashed).
  exp->user_token = RandomHex(32);
  RETURN_IF_ERROR(store_.AddSession(Sha256Hex(exp->user_token), exp->experiment.owner_id,
                                    loop_.Now() + options_.user_session_lifetime));
  int64_t id = exp->experiment.id;
  LiveExperiment& ref = *exp;
  experiments_[id] = std::move(exp);

  ASSIGN_OR_RETURN(std::vector<api::Trial> trials, store_.ListTrials(id));
  for (api::Trial& t : trials) {
    ref.trial_by_request[t.request_id] = t.id;
    if (IsTerminal(t.state)) continue;
    auto state = std::make_unique<LiveTrial>();
    state->trial = std::move(t);
    LiveTrial& trial = *state;
    trials_[trial.trial.id] = std::move(state);
    absl::StatusOr<Task> task = store_.GetTask(trial.trial.task_id);
    if (absl::IsNotFound(task.status())) {  // a row lost since migration 0008 wrote it: written again
      task = Task{.task_id = trial.trial.task_id,
                  .type = TaskType::kTrial,
                  .owner_id = ref.experiment.owner_id,
                  .job_id = ref.experiment.job_id,
                  .start_time = trial.trial.start_time};
      RETURN_IF_ERROR(store_.InsertTask(*task, ""));
    }
    if (!task.ok()) return task.status();
    AddTrialTask(trial, ref, std::move(*task));
    RETURN_IF_ERROR(RecoverTrialAllocation(ref, trial));
  }
  if (trials.empty()) ApplyActions(id, ref.searcher->InitialActions());  // stopped before its first trial
  if (auto e = experiments_.find(id); e != experiments_.end() && IsStopping(ref.experiment.state) &&
                                      !HasLiveTrials(id)) {
    FinishExperiment(ref, TerminalStateOf(ref.experiment.state));
  }
  return absl::OkStatus();
}

absl::Status Cluster::RecoverTrialAllocation(LiveExperiment& exp, LiveTrial& trial) {
  absl::StatusOr<Allocation> last =
      store_.GetAllocation(absl::StrCat(trial.trial.task_id, ".", trial.trial.run_id));
  bool running = last.ok() && !last->placements.empty() &&
                 (last->state == AllocationState::kRunning || last->state == AllocationState::kAssigned);
  if (running) {
    if (last->resource_pool.empty()) last->resource_pool = exp.config.resource_pool;  // stored before pools were
    // The processes may still be running on their agents: keep their slots until the agents report in.
    RestoreRunningAllocation(*last, /*stopping=*/trial.trial.state != api::TrialState::kActive);
    trial.task->allocation_id = last->allocation_id;
    return absl::OkStatus();
  }
  if (last.ok() && last->state != AllocationState::kTerminated) {
    // Queued, or placed on no agent: its token is lost with the old master, so it is queued anew.
    Allocation ended = *last;
    ended.state = AllocationState::kTerminated;
    ended.end_time = loop_.Now();
    RETURN_IF_ERROR(store_.UpdateAllocation(ended));
  }
  if (IsStopping(trial.trial.state)) {
    FinishTrial(trial, TerminalStateOf(trial.trial.state));
    return absl::OkStatus();
  }
  if (trial.trial.state == api::TrialState::kActive) RequestAllocation(trial);  // paused: resumes on activate
  return absl::OkStatus();
}

void Cluster::ForgetLiveTrials(int64_t experiment_id) {
  for (auto t = trials_.begin(); t != trials_.end();) {
    if (t->second->trial.experiment_id != experiment_id) {
      ++t;
      continue;
    }
    if (LiveTask* task = t->second->task) {
      if (auto a = allocations_.find(task->allocation_id); a != allocations_.end()) {
        a->second->manager->Release(task->allocation_id);
        allocations_.erase(a);
      }
      tasks_.erase(task->record.task_id);
    }
    t = trials_.erase(t);
  }
}

void Cluster::RestoreRunningAllocation(const Allocation& record, bool stopping) {
  auto alloc = std::make_unique<LiveAllocation>();
  alloc->record = record;
  alloc->placement = next_placement_++;
  alloc->preempt = stopping;  // it was being paused or stopped
  // Its pool's manager; one stored before pools were recorded (or in a pool since removed): the agents'.
  alloc->manager = ManagerOf(record.resource_pool);
  if (alloc->manager == nullptr) alloc->manager = managers_.front().get();
  alloc->manager->Restore(record);
  // Unlike upstream (#3762), its service is reachable again at once (if its agent comes back).
  RegisterService(*alloc);
  if (auto t = tasks_.find(record.task_id); t != tasks_.end()) {
    t->second->last_reported_activity = loop_.SteadyNow();
  }
  if (alloc->record.ready) ArmIdleCheck();
  allocations_[record.allocation_id] = std::move(alloc);
}

}  // namespace det::master
