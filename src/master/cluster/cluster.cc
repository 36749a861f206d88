#include "master/cluster/cluster.h"
#include "master/cluster/cluster_state.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/crypto.h"
#include "common/json_yaml.h"
#include "common/random_id.h"
#include "common/status_macros.h"
#include "config/environment_schema.h"
#include "master/agent_user_group.h"
#include "master/checkpoint_gc.h"
#include "searcher/searcher.h"
#include "master/experiment_rules.h"
#include "master/rm/agent_resource_manager.h"
#include "master/rm/resources_id.h"

namespace det::master {

using nlohmann::json;

Cluster::Cluster(Store& store, EventLoop& loop, ClusterOptions options)
    : store_(store),
      loop_(loop),
      options_(std::move(options)),
      state_writer_(store, loop, std::chrono::seconds(1), [this] { Schedule(); }) {
  manager_events_ = std::make_unique<ManagerEvents>(*this);
  if (options_.main_resource_manager) {
    managers_.push_back(options_.main_resource_manager(loop_, *manager_events_));
  } else {
    managers_.push_back(std::make_unique<AgentResourceManager>(
        loop_, *manager_events_,
        AgentResourceManagerOptions{.cluster_name = options_.cluster_name,
                                    .pools = options_.pools,
                                    .agent_reconnect_grace = options_.agent_reconnect_grace}));
  }
  for (const ResourceManagerFactory& make : options_.additional_resource_managers) {
    managers_.push_back(make(loop_, *manager_events_));
  }
  for (const auto& manager : managers_) {
    for (const PoolSummary& pool : manager->Pools()) {
      auto [it, added] = manager_of_pool_.emplace(pool.options.name, manager.get());
      if (!added) {
        spdlog::error("resource manager {}: pool {} is already resource manager {}'s; ignoring it",
                      manager->ClusterName(), pool.options.name, it->second->ClusterName());
      }
    }
  }
  if (options_.checkpoint_gc != nullptr) options_.checkpoint_gc->SetClusterId(options_.cluster_id);
}

Cluster::~Cluster() = default;

void Cluster::CreateExperiment(NewExperiment request, std::function<void(absl::StatusOr<int64_t>)> done) {
  loop_.Post([this, request = std::move(request), done = std::move(done)]() mutable {
    absl::StatusOr<std::unique_ptr<LiveExperiment>> exp = NewLiveExperiment(request);
    if (!exp.ok()) return done(exp.status());
    // Stored behind the loop, with its session; it goes live once both are durable. A failure
    // leaves nothing, and the request is answered with it.
    Store::Write insert = [this, e = (*exp)->experiment,
                           tgz = std::make_shared<const std::string>(std::move(request.model_definition_tgz)),
                           session = Sha256Hex((*exp)->user_token),
                           expiry = loop_.Now() + options_.user_session_lifetime] {
      RETURN_IF_ERROR(store_.InsertExperiment(e, *tgz).status());
      return store_.AddSession(session, e.owner_id, expiry);
    };
    state_writer_.WriteOnce(
        std::move(insert),
        [this, exp = std::make_shared<std::unique_ptr<LiveExperiment>>(std::move(*exp)), done](absl::Status saved) {
          if (!saved.ok()) return done(saved);
          const int64_t id = (*exp)->experiment.id;
          LiveExperiment& ref = *(experiments_[id] = std::move(*exp));
          spdlog::info("experiment {} created: {}", id, ref.experiment.name);
          ApplyActions(id, ref.searcher->InitialActions());
          Schedule();
          // Answered once its first trials are stored too: a client lists them next.
          state_writer_.AfterWritesSoFar([done, id] { done(id); });
        });
  });
}

absl::StatusOr<std::unique_ptr<Cluster::LiveExperiment>> Cluster::NewLiveExperiment(NewExperiment& request) {
  json config = json::parse(request.config.full_json, nullptr, false);
  // The searcher is built before anything is stored: a config it cannot run stores nothing.
  ASSIGN_OR_RETURN(std::unique_ptr<searcher::Searcher> search, searcher::Searcher::Create(config));
  RETURN_IF_ERROR(PlaceInPool(request.config, config, request.warnings));
  auto exp = std::make_unique<LiveExperiment>();
  api::Experiment& e = exp->experiment;
  e.name = request.config.name;
  e.description = request.config.description;
  e.labels = request.config.labels;
  e.state = request.activate ? api::ExperimentState::kActive : api::ExperimentState::kPaused;
  e.config_json = request.config.full_json;
  e.original_config = request.original_yaml;
  e.owner_id = request.owner_id;
  e.username = request.owner_username;
  e.project_id = request.project_id;
  e.start_time = NewSubmissionTime();
  e.job_id = NewUuid();
  e.id = NewExperimentId();
  exp->config = std::move(request.config);
  exp->searcher = std::make_unique<searcher::JournaledSearcher>(std::move(search));
  exp->warm_start_checkpoint = std::move(request.warm_start_checkpoint);
  PrepareConfig(*exp);
  exp->user_token = RandomHex(32);
  return exp;
}

absl::Status Cluster::PlaceInPool(config::ExperimentConfig& config, json& config_json, LaunchWarnings& warnings) {
  // Work that could never start is refused now rather than queued forever (unless launch_error is off).
  ASSIGN_OR_RETURN(std::string pool, ResolvePool(config.resource_pool, config.slots_per_trial));
  RETURN_IF_ERROR(CheckLaunchFits(pool, config.slots_per_trial, config.is_single_node, *warnings));
  // The stored config names the pool it was resolved to, as upstream's does.
  config.resource_pool = pool;
  config_json["resources"]["resource_pool"] = pool;
  config.full_json = config_json.dump();
  return absl::OkStatus();
}

void Cluster::SaveSearcher(LiveExperiment& exp) {
  std::vector<std::string> events = exp.searcher->TakeEvents();
  LiveExperiment::SavedSearcher& saved = exp.saved_searcher;
  if (events.empty() && !saved.write_failed) return;
  size_t event_bytes = 0;
  for (const std::string& event : events) event_bytes += event.size();
  const int64_t id = exp.experiment.id;
  const bool snapshot_due =
      saved.write_failed || searcher::SnapshotDue(saved.snapshot_bytes, saved.event_bytes + event_bytes);
  // A failed append leaves a gap the next appends cannot fill: the next save is a whole snapshot,
  // which replaces the kept write. A failed snapshot is kept and made again as it is.
  StateWriter::Done failed_append = [this, id](absl::Status st) {
    if (st.ok()) return;
    if (auto e = experiments_.find(id); e != experiments_.end() && !e->second->saved_searcher.write_failed) {
      e->second->saved_searcher.write_failed = true;
      SaveSearcher(*e->second);
    }
  };
  Store::Write write;
  if (snapshot_due) {
    std::string snapshot = DumpJson(exp.searcher->Snapshot());
    saved = {.snapshot_bytes = snapshot.size()};
    write = [this, id, snapshot = std::move(snapshot)] { return store_.SaveSearcherSnapshot(id, snapshot); };
    failed_append = nullptr;
  } else {
    const int64_t first_seq = saved.next_seq;
    saved.next_seq += static_cast<int64_t>(events.size());
    saved.event_bytes += event_bytes;
    write = [this, id, first_seq, events = std::move(events)] {
      return store_.AppendSearcherEvents(id, first_seq, events);
    };
  }
  Persist(absl::StrCat("experiment ", id, " searcher state"), std::move(write), std::move(failed_append));
}

void Cluster::Persist(std::string key, Store::Write write, StateWriter::Done saved) {
  state_writer_.Write(std::move(key), std::move(write), std::move(saved));
}

void Cluster::SaveAllocation(const Allocation& record, StateWriter::Done saved) {
  Persist(absl::StrCat("allocation ", record.allocation_id), [this, record] { return store_.UpdateAllocation(record); },
          std::move(saved));
}

void Cluster::SaveTask(const Task& task, StateWriter::Done saved) {
  Persist(absl::StrCat("task ", task.task_id), [this, task] { return store_.UpdateTask(task); }, std::move(saved));
}

void Cluster::SaveTrial(const api::Trial& trial, StateWriter::Done saved) {
  Persist(absl::StrCat("trial ", trial.id), [this, trial] { return store_.UpdateTrialLifecycle(trial); },
          std::move(saved));
}

void Cluster::SaveExperimentState(const api::Experiment& experiment, std::optional<WallTime> end_time,
                                  StateWriter::Done saved) {
  Persist(absl::StrCat("experiment ", experiment.id),
          [this, id = experiment.id, state = experiment.state, end_time, progress = experiment.progress] {
            return store_.UpdateExperimentState(id, state, end_time, progress);
          },
          std::move(saved));
}

bool Cluster::HasLiveTrials(int64_t experiment_id) const {
  return std::any_of(trials_.begin(), trials_.end(),
                     [&](const auto& kv) { return kv.second->trial.experiment_id == experiment_id; });
}

void Cluster::ApplyActions(int64_t experiment_id, const std::vector<searcher::Action>& actions) {
  for (const searcher::Action& action : actions) {
    // Every action may end trials and, through them, the experiment: look it up again each time.
    auto e = experiments_.find(experiment_id);
    if (e == experiments_.end()) return;
    LiveExperiment& exp = *e->second;
    switch (action.kind) {
      case searcher::Action::Kind::kCreateTrial:
        CreateTrial(exp, action);
        exp.searcher->TrialCreated(action.request_id);
        break;
      case searcher::Action::Kind::kStopTrial: {
        auto id = exp.trial_by_request.find(action.request_id);
        auto t = id == exp.trial_by_request.end() ? trials_.end() : trials_.find(id->second);
        if (t == trials_.end() || IsStopping(t->second->trial.state)) break;
        MasterLog(t->second->trial.task_id, t->second->task->allocation_id,
                  absl::StrCat("Trial ", t->first, " is stopped by the searcher"));
        StopTrial(*t->second, api::TrialState::kStoppingCompleted);
        break;
      }
      case searcher::Action::Kind::kShutdown: {
        SaveSearcher(exp);
        if (!HasLiveTrials(experiment_id)) {
          return FinishExperiment(exp, action.failure  ? api::ExperimentState::kError
                                       : action.cancel ? api::ExperimentState::kCanceled
                                                       : api::ExperimentState::kCompleted);
        }
        DoSetExperimentState(experiment_id,
                             action.failure  ? api::ExperimentState::kStoppingError
                             : action.cancel ? api::ExperimentState::kStoppingCanceled
                                             : api::ExperimentState::kStoppingCompleted,
                             nullptr);
        return;
      }
    }
  }
  if (auto e = experiments_.find(experiment_id); e != experiments_.end()) SaveSearcher(*e->second);
}

WallTime Cluster::NewSubmissionTime() {
  last_submission_ = std::max(loop_.Now(), last_submission_ + std::chrono::microseconds(1));
  return last_submission_;
}

int64_t Cluster::NewExperimentId() { return ++HighestIdsGiven().experiment; }

int64_t Cluster::NewTrialId() { return ++HighestIdsGiven().trial; }

HighestIds& Cluster::HighestIdsGiven() {
  if (!highest_ids_) {
    // Recover reads them at start; this is for a cluster that skipped it (unit tests).
    absl::StatusOr<HighestIds> read = store_.GetHighestIds();
    if (!read.ok()) spdlog::error("the highest ids given: {}", read.status().ToString());
    highest_ids_ = read.value_or(HighestIds{});
  }
  return *highest_ids_;
}

void Cluster::CreateTrial(LiveExperiment& exp, const searcher::Action& action) {
  auto state = std::make_unique<LiveTrial>();
  api::Trial& t = state->trial;
  t.id = NewTrialId();
  t.experiment_id = exp.experiment.id;
  t.request_id = action.request_id;
  t.task_id = absl::StrCat(exp.experiment.id, ".", NewUuid());
  t.state = exp.experiment.state == api::ExperimentState::kActive ? api::TrialState::kActive : api::TrialState::kPaused;
  t.hparams_json = action.hparams_json;
  t.seed = action.seed;
  t.start_time = loop_.Now();
  t.log_retention_days = exp.config.log_retention_days;
  Task task{.task_id = t.task_id,
            .type = TaskType::kTrial,
            .owner_id = exp.experiment.owner_id,
            .job_id = exp.experiment.job_id,
            .start_time = t.start_time};
  state_writer_.Create(absl::StrCat("task ", task.task_id), [this, task] { return store_.InsertTask(task, ""); });
  state_writer_.Create(absl::StrCat("trial ", t.id), [this, t] { return store_.InsertTrial(t).status(); });
  exp.trial_by_request[action.request_id] = t.id;
  LiveTrial& ref = *state;
  trials_[t.id] = std::move(state);
  AddTrialTask(ref, exp, std::move(task));
  if (ref.trial.state == api::TrialState::kActive) RequestAllocation(ref);
}

Cluster::LiveTask& Cluster::AddTrialTask(LiveTrial& trial, const LiveExperiment& exp, Task record) {
  auto task = std::make_unique<LiveTask>();
  task->record = std::move(record);
  task->record.username = exp.experiment.username;
  task->spec = std::make_unique<TrialSpec>(*this, trial.trial.id);
  task->user_token = exp.user_token;
  task->runs = trial.trial.run_id;
  trial.task = task.get();
  std::string id = task->record.task_id;
  return *(tasks_[id] = std::move(task));
}

void Cluster::RequestAllocation(LiveTrial& trial) {
  const LiveExperiment& exp = *experiments_.at(trial.trial.experiment_id);
  trial.trial.run_id += 1;
  SaveTrial(trial.trial);
  RequestTaskAllocation(*trial.task, trial.trial.run_id);
  MasterLog(trial.trial.task_id, trial.task->allocation_id,
            absl::StrCat("Trial ", trial.trial.id, " queued: waiting for ", exp.config.slots_per_trial, " slot(s)"));
}

void Cluster::RequestTaskAllocation(LiveTask& task, int run) {
  auto alloc = std::make_unique<LiveAllocation>();
  alloc->record.allocation_id = absl::StrCat(task.record.task_id, ".", run);
  alloc->record.task_id = task.record.task_id;
  alloc->record.state = AllocationState::kQueued;
  alloc->token = RandomHex(32);
  alloc->record.token_hash = Sha256Hex(alloc->token);
  JobAttributes job = task.spec->Job();
  alloc->record.slots = job.slots;
  alloc->record.start_time = loop_.Now();
  alloc->manager = ManagerOf(job.resource_pool);
  if (alloc->manager == nullptr) alloc->manager = managers_.front().get();  // a pool since removed: waits there
  state_writer_.Create(absl::StrCat("allocation ", alloc->record.allocation_id),
                       [this, record = alloc->record] { return store_.InsertAllocation(record); });
  task.runs = run;
  task.allocation_id = alloc->record.allocation_id;
  ResourceManager& manager = *alloc->manager;
  AllocationRequest request{.allocation_id = alloc->record.allocation_id, .task_id = task.record.task_id,
                            .slots = alloc->record.slots};
  allocations_[alloc->record.allocation_id] = std::move(alloc);
  manager.Request(request);
}

std::map<std::string, std::string> Cluster::CommonEnvironment(const LiveAllocation& alloc, const LiveTask& task) const {
  const std::string& id = alloc.record.allocation_id;
  return {
      {"DET_TASK_ID", task.record.task_id},
      {"DET_ALLOCATION_ID", id},
      {"DET_RESOURCES_ID", id},
      {"DET_CONTAINER_ID", id},
      {"DET_SESSION_TOKEN", alloc.token},
      {"DET_USER_TOKEN", task.user_token},
      {"DET_USER", task.record.username},
      {"DET_TASK_TYPE", std::string(Name(task.record.type))},
      {"DET_RESOURCES_TYPE", "process"},
      {"DET_USE_TLS", "false"},
      {"DET_CLUSTER_ID", options_.cluster_id},
      {"DET_MASTER_ID", options_.master_id},
      {"DET_TASK_LOGGING_METADATA", json{{"allocation_id", id}, {"task_id", task.record.task_id}}.dump()},
  };
}

std::map<std::string, std::string> Cluster::TrialEnvironment(const LiveTrial& trial, const LiveExperiment& exp) {
  const api::Trial& t = trial.trial;
  std::map<std::string, std::string> env = {
      {"DET_EXPERIMENT_ID", std::to_string(t.experiment_id)},
      {"DET_TRIAL_ID", std::to_string(t.id)},
      {"DET_TRIAL_RUN_ID", std::to_string(t.run_id)},
      {"DET_TRIAL_SEED", std::to_string(t.seed)},
      {"DET_EXPERIMENT_CONFIG", exp.config.full_json},
      {"DET_HPARAMS", t.hparams_json},
      {"DET_STEPS_COMPLETED", "0"},
  };
  // environment.environment_variables: a list of "K=V", or per device type ({cpu: [...], ...}).
  json config = json::parse(exp.config.full_json, nullptr, false);
  json vars = config.is_object() ? config.value("environment", json::object()).value("environment_variables", json())
                                 : json();
  if (vars.is_object()) vars = vars.value("cpu", json::array());
  std::vector<std::string> entries;
  for (const json& kv : vars.is_array() ? vars : json::array()) {
    if (kv.is_string()) entries.push_back(kv);
  }
  AddEnvironmentVariables(entries, env);
  return env;
}

JobAttributes Cluster::TrialJob(int64_t trial_id) const {
  const LiveTrial& trial = *trials_.at(trial_id);
  const LiveExperiment& exp = *experiments_.at(trial.trial.experiment_id);
  JobAttributes job;
  job.job_id = exp.experiment.job_id;
  job.submission_order = ToUnixMicros(exp.experiment.start_time);
  job.priority = PriorityOf(exp.config);
  job.weight = exp.config.weight;
  job.max_slots = exp.config.max_slots;
  job.queue_position = exp.experiment.queue_position;
  job.resource_pool = exp.config.resource_pool;
  job.slots = exp.config.slots_per_trial;
  job.single_node = exp.config.is_single_node;
  job.preemptible = true;
  job.preemption_timeout = std::chrono::seconds(exp.config.preemption_timeout);
  job.blocked_agents.assign(trial.blocked_agents.begin(), trial.blocked_agents.end());
  return job;
}

absl::StatusOr<LaunchSpec> Cluster::TrialLaunch(int64_t trial_id) {
  LiveTrial& trial = *trials_.at(trial_id);
  const LiveExperiment& exp = *experiments_.at(trial.trial.experiment_id);
  json config = json::parse(exp.config.full_json, nullptr, false);
  auto alloc = allocations_.find(trial.task->allocation_id);
  const bool runs_images = alloc != allocations_.end() && alloc->second->manager->HandlesImages();
  if (std::string note = config::UnusedImageNote(config.is_object() ? config.value("environment", json()) : json());
      !note.empty() && !runs_images) {
    MasterLog(trial.trial.task_id, trial.task->allocation_id, absl::StrCat("Warning: ", note));
  }
  LaunchSpec spec{.entrypoint = exp.config.entrypoint,
                  .env = TrialEnvironment(trial, exp),
                  .download_context = true,
                  .workspace_id = exp.experiment.workspace_id,
                  .environment = config.is_object() ? config.value("environment", json()) : json(),
                  .resources = config.is_object() ? config.value("resources", json()) : json(),
                  .slurm = config.is_object() ? config.value("slurm", json()) : json(),
                  .project_name = exp.experiment.project_name,
                  .workspace_name = exp.experiment.workspace_name,
                  .labels = exp.experiment.labels};
  spec.read_stored = [&store = store_, trial_id, experiment_id = exp.experiment.id,
                      warm_start = exp.warm_start_checkpoint](LaunchSpec& spec) -> absl::Status {
    // Read in the writer's transaction: a trial or experiment created in this very batch is seen.
    // A trial resumes from its own latest checkpoint (an earlier run's reports are in the store
    // only), else a warm start's.
    ASSIGN_OR_RETURN(api::Trial stored_trial, store.GetTrial(trial_id));
    std::string start_from = stored_trial.latest_checkpoint_uuid;
    if (start_from.empty()) start_from = warm_start;
    if (!start_from.empty()) {
      spec.env["DET_LATEST_CHECKPOINT"] = start_from;
      if (auto checkpoint = store.GetCheckpoint(start_from); checkpoint.ok()) {
        spec.env["DET_STEPS_COMPLETED"] = std::to_string(checkpoint->steps_completed);
      }
    }
    // The workspace as stored: a move does not change the live experiment.
    ASSIGN_OR_RETURN(api::Experiment stored_experiment, store.GetExperiment(experiment_id));
    spec.workspace_id = stored_experiment.workspace_id;
    return absl::OkStatus();
  };
  return spec;
}

void Cluster::StartAllocation(LiveAllocation& alloc, const Placement& placement) {
  LiveTask& task = *tasks_.at(alloc.record.task_id);
  const std::string id = alloc.record.allocation_id;
  alloc.record.placements = placement.processes;
  alloc.record.state = AllocationState::kAssigned;
  alloc.record.resource_pool = placement.pool;
  alloc.placement = next_placement_++;
  absl::StatusOr<LaunchSpec> launch = task.spec->Launch(alloc.record);
  if (!launch.ok()) {
    return AllocationEnded(alloc, 1, ExitKind::kProcessExited,
                           absl::StrCat("could not be started: ", launch.status().message()));
  }
  for (const AgentSlots& p : placement.processes) {
    MasterLog(alloc.record.task_id, id,
              absl::StrCat(task.spec->Label(), " (run ", task.runs, ") assigned to agent ", p.agent_id, ", slots [",
                           absl::StrJoin(p.slot_ids, ","), "]", placement.backfilled ? " (backfilled)" : ""));
  }
  // What the launch reads from the store is read behind the loop, with the allocation's start; the
  // processes authenticate against the allocation's row, so they start once it is durable.
  auto read = std::make_shared<StoredLaunch>(StoredLaunch{.spec = *std::move(launch)});
  alloc.starting = true;
  Persist(absl::StrCat("allocation ", id),
          [this, record = alloc.record, read, owner_id = task.record.owner_id] {
            if (read->spec.read_stored) RETURN_IF_ERROR(read->spec.read_stored(read->spec));
            ASSIGN_OR_RETURN(read->user, TaskUserFor(store_, store_, read->spec.workspace_id, owner_id,
                                                     options_.default_task_user));
            return store_.UpdateAllocation(record);
          },
          [this, id, placement = alloc.placement, read](absl::Status saved) {
            auto a = allocations_.find(id);
            if (a == allocations_.end() || a->second->placement != placement) return;  // it ended meanwhile
            LiveAllocation& alloc = *a->second;
            alloc.starting = false;
            if (!saved.ok()) return AllocationNotStarted(alloc, saved);
            if (alloc.kill_before_start) {
              return AllocationEnded(alloc, 137, ExitKind::kProcessExited, "was killed before its processes started");
            }
            alloc.manager->Start(id, ProcessLaunchOf(alloc, *read));
          });
}

ProcessLaunch Cluster::ProcessLaunchOf(const LiveAllocation& alloc, const StoredLaunch& launch) const {
  const LiveTask& task = *tasks_.at(alloc.record.task_id);
  std::map<std::string, std::string> env = CommonEnvironment(alloc, task);
  env.insert(launch.spec.env.begin(), launch.spec.env.end());
  return {.task_type = std::string(Name(task.record.type)),
          .entrypoint = launch.spec.entrypoint,
          .env = std::move(env),
          .session_token = alloc.token,
          .download_context = launch.spec.download_context,
          .user = launch.user,
          .work_dir = launch.spec.work_dir,
          .mounts = launch.spec.mounts,
          .workspace_id = launch.spec.workspace_id,
          .environment = launch.spec.environment,
          .resources = launch.spec.resources,
          .slurm = launch.spec.slurm,
          .project_name = launch.spec.project_name,
          .workspace_name = launch.spec.workspace_name,
          .labels = launch.spec.labels};
}

void Cluster::AllocationNotStarted(LiveAllocation& alloc, const absl::Status& why) {
  const std::string id = alloc.record.allocation_id;
  if (!StateWriter::MadeAgain(why) || alloc.kill_before_start) {
    return AllocationEnded(alloc, 1, ExitKind::kProcessExited, absl::StrCat("could not be started: ", why.message()));
  }
  // The database is away: the allocation gives its slots back and waits in the queue, and scheduling
  // resumes once the database took every kept write.
  alloc.manager->Requeue(id);
  alloc.record.placements.clear();
  alloc.record.state = AllocationState::kQueued;
  MasterLog(alloc.record.task_id, id,
            absl::StrCat("Not started, its start could not be saved (", why.message(),
                         "); it waits in the queue for the database"));
}

void Cluster::KillProcesses(LiveAllocation& alloc) {
  if (alloc.starting) {
    alloc.kill_before_start = true;
    return;
  }
  alloc.manager->Kill(alloc.record.allocation_id);
}

void Cluster::AllocationEnded(LiveAllocation& alloc, int exit_code, ExitKind kind, const std::string& why) {
  std::string alloc_id = alloc.record.allocation_id;
  // Its resources are freed; processes still running elsewhere (a gang that lost an agent) are stopped.
  alloc.manager->Release(alloc_id);
  alloc.record.state = AllocationState::kTerminated;
  alloc.record.end_time = loop_.Now();
  alloc.record.exit_code = exit_code;
  SaveAllocation(alloc.record);
  ResolvePreemptionWaiters(alloc, true);
  UnregisterService(alloc);
  MasterLog(alloc.record.task_id, alloc_id, absl::StrCat("Allocation ", alloc_id, " ", why));
  AllocationOutcome outcome{.exit_code = exit_code,
                            .kind = kind,
                            .why = why,
                            .released = alloc.released,
                            .preempt = alloc.preempt,
                            .preemption_acked = alloc.preemption_acked};
  std::string task_id = alloc.record.task_id;
  allocations_.erase(alloc_id);  // `alloc` is gone from here on
  auto t = tasks_.find(task_id);
  if (t != tasks_.end()) {
    if (t->second->allocation_id == alloc_id) t->second->allocation_id.clear();
    t->second->spec->AllocationEnded(outcome);
  }
  MaybeFinishShutdown();
}

void Cluster::TrialAllocationEnded(int64_t trial_id, const AllocationOutcome& outcome) {
  auto t = trials_.find(trial_id);
  if (t == trials_.end()) return;
  LiveTrial& trial = *t->second;
  const int exit_code = outcome.exit_code;
  const ExitKind kind = outcome.kind;
  bool preempted = outcome.preempt && outcome.preemption_acked;
  // A clean exit that never acknowledged a preemption signal means the process finished its work.
  bool finished_its_work = kind == ExitKind::kProcessExited && exit_code == 0 && !outcome.preemption_acked;
  // Released by the scheduler: resume later, unless the process finished its work on its own.
  bool requeue = outcome.released && !finished_its_work;
  // A trial the user stopped settles in its terminal (or paused) state whatever the exit.
  if (IsStopping(trial.trial.state)) return FinishTrial(trial, TerminalStateOf(trial.trial.state));
  if (requeue && trial.trial.state == api::TrialState::kActive) {
    MasterLog(trial.trial.task_id, "",
              absl::StrCat("Trial ", trial.trial.id, " gave its slots back; it resumes from its latest checkpoint "
                                                     "when it is scheduled again"));
    return RequestAllocation(trial);
  }
  // Asked to stop for a pause, however it stopped (killed after preemption_timeout, too): it resumes
  // from its latest checkpoint on activate, and nothing failed. One that finished first is completed.
  if (outcome.preempt && trial.trial.state == api::TrialState::kPaused && !finished_its_work) {
    MasterLog(trial.trial.task_id, "", absl::StrCat("Trial ", trial.trial.id, " is paused"));
    return;
  }
  // Exiting after acknowledging the preemption signal means "resume me later", not "done".
  if (preempted && kind == ExitKind::kProcessExited && exit_code == 0) return RequestAllocation(trial);
  // A clean exit completes the trial (an early exit, e.g. invalid hyperparameters, is reported first).
  if (kind == ExitKind::kProcessExited && exit_code == 0) {
    return FinishTrial(trial, api::TrialState::kCompleted);
  }
  // A lost agent is not the trial's fault: retry without counting a restart. A failing process is
  // retried from the latest checkpoint until it has used up max_restarts.
  const LiveExperiment& exp = *experiments_.at(trial.trial.experiment_id);
  if (kind == ExitKind::kProcessExited) {
    if (trial.cancel_retries) {
      MasterLog(trial.trial.task_id, "",
                absl::StrCat("Trial ", trial.trial.id, " failed; a log policy with cancel_retries matched its logs, "
                                                       "so it is not retried"));
      return FinishTrial(trial, api::TrialState::kError);
    }
    if (trial.trial.restarts >= exp.config.max_restarts) {
      MasterLog(trial.trial.task_id, "", absl::StrCat("Trial ", trial.trial.id, " failed and used up max_restarts (",
                                                      exp.config.max_restarts, ")"));
      return FinishTrial(trial, api::TrialState::kError);
    }
    trial.trial.restarts += 1;
  }
  MasterLog(trial.trial.task_id, "",
            absl::StrCat("Trial ", trial.trial.id, " restarts from its latest checkpoint (restart ", trial.trial.restarts,
                         " of ", experiments_.at(trial.trial.experiment_id)->config.max_restarts, ")"));
  if (trial.trial.state != api::TrialState::kActive) {  // paused: resumes on activate
    SaveTrial(trial.trial);
    return;
  }
  if (absl::Status fits = CheckFits(exp.config.resource_pool, exp.config.slots_per_trial, exp.config.is_single_node,
                                    trial.blocked_agents);
      !fits.ok()) {
    MasterLog(trial.trial.task_id, "", absl::StrCat("Trial ", trial.trial.id, " cannot be retried: ", fits.message()));
    return FinishTrial(trial, api::TrialState::kError);
  }
  RequestAllocation(trial);
}

void Cluster::FinishTrial(LiveTrial& trial, api::TrialState state) {
  trial.trial.state = state;
  trial.trial.end_time = loop_.Now();
  SaveTrial(trial.trial);
  MasterLog(trial.trial.task_id, "", absl::StrCat("Trial ", trial.trial.id, " is ", Name(state)));
  Task& task = trial.task->record;
  task.state = TaskStateOfEndedTrial(state);
  task.end_time = trial.trial.end_time;
  SaveTask(task);
  auto e = experiments_.find(trial.trial.experiment_id);
  std::string request_id = trial.trial.request_id;
  int64_t experiment_id = trial.trial.experiment_id;
  bool invalid_hp = trial.early_exit_reason == kInvalidHpReason;
  tasks_.erase(trial.trial.task_id);
  trials_.erase(trial.trial.id);  // `trial` is gone from here on
  if (e == experiments_.end()) return;
  LiveExperiment& exp = *e->second;
  if (IsStopping(exp.experiment.state)) {
    if (!HasLiveTrials(experiment_id)) FinishExperiment(exp, TerminalStateOf(exp.experiment.state));
    return;
  }
  std::vector<searcher::Action> actions;
  if (state == api::TrialState::kError) {
    actions = exp.searcher->TrialExitedEarly(request_id, searcher::ExitReason::kErrored);
  } else if (state == api::TrialState::kCanceled) {
    actions = exp.searcher->TrialExitedEarly(request_id, searcher::ExitReason::kUserCanceled);
  } else if (invalid_hp) {
    actions = exp.searcher->TrialExitedEarly(request_id, searcher::ExitReason::kInvalidHP);
  }
  std::vector<searcher::Action> exited = exp.searcher->TrialExited(request_id);
  actions.insert(actions.end(), exited.begin(), exited.end());
  ApplyActions(experiment_id, actions);
}

void Cluster::FinishExperiment(LiveExperiment& exp, api::ExperimentState state) {
  int64_t id = exp.experiment.id;
  exp.experiment.state = state;
  if (state == api::ExperimentState::kCompleted) exp.experiment.progress = 1.0;
  SaveExperimentState(exp.experiment, loop_.Now());
  Persist(absl::StrCat("experiment ", id, " session"),
          [this, hash = Sha256Hex(exp.user_token)] { return store_.DeleteSession(hash); });
  spdlog::info("experiment {} is {}", id, std::string(Name(state)));
  experiments_.erase(id);
  CollectCheckpoints(id);
}

void Cluster::CollectCheckpoints(int64_t experiment_id) {
  if (options_.checkpoint_gc == nullptr) return;
  std::set<std::string> warm_starts;
  for (const auto& [id, exp] : experiments_) {
    if (!exp->warm_start_checkpoint.empty()) warm_starts.insert(exp->warm_start_checkpoint);
  }
  // Marked pending first (durably, after the experiment's end), so a restarted master collects again.
  Persist(absl::StrCat("experiment ", experiment_id, " checkpoint GC"),
          [this, experiment_id] { return store_.SetCheckpointGcPending(experiment_id, true); },
          [this, experiment_id, warm_starts = std::move(warm_starts)](absl::Status marked) mutable {
            if (!marked.ok()) {
              spdlog::warn("checkpoint GC of experiment {}: cannot mark it pending ({}); collecting anyway",
                           experiment_id, marked.ToString());
            }
            options_.checkpoint_gc->Queue(experiment_id, std::move(warm_starts));
          });
}

namespace {

// The experiment config with the checkpoint GC policy's fields replaced.
absl::StatusOr<std::string> WithCheckpointPolicy(int64_t experiment_id, const std::string& config_json,
                                                 const CheckpointGcPolicy& policy) {
  json config = json::parse(config_json, nullptr, false);
  if (!config.is_object()) return absl::DataLossError(absl::StrCat("experiment ", experiment_id, ": bad stored config"));
  for (auto [key, count] : kGcPolicyFields) config["checkpoint_storage"][key] = policy.*count;
  return config.dump();
}

}  // namespace

void Cluster::ExperimentLabelsChanged(int64_t experiment_id, std::vector<std::string> labels) {
  loop_.Post([this, experiment_id, labels = std::move(labels)]() mutable {
    if (auto live = experiments_.find(experiment_id); live != experiments_.end())
      live->second->experiment.labels = std::move(labels);
  });
}

void Cluster::SetCheckpointPolicy(int64_t experiment_id, CheckpointGcPolicy policy,
                                  std::function<void(absl::Status)> done) {
  loop_.Post([this, experiment_id, policy, done = std::move(done)] {
    if (std::optional<absl::Status> down = state_writer_.Unavailable()) return done(*down);
    std::string key = absl::StrCat("experiment ", experiment_id, " checkpoint policy");
    auto live = experiments_.find(experiment_id);
    if (live == experiments_.end()) {
      // Ended: its stored config is read and patched behind the loop; the new policy collects its
      // checkpoints once durable.
      return Persist(
          std::move(key),
          [this, experiment_id, policy]() -> absl::Status {
            ASSIGN_OR_RETURN(api::Experiment stored, store_.GetExperiment(experiment_id));
            ASSIGN_OR_RETURN(std::string config, WithCheckpointPolicy(experiment_id, stored.config_json, policy));
            return store_.PatchExperiment(experiment_id, ExperimentPatch{.config_json = std::move(config)}).status();
          },
          [this, experiment_id, done](absl::Status saved) {
            if (saved.ok()) CollectCheckpoints(experiment_id);
            done(saved);
          });
    }
    LiveExperiment& exp = *live->second;
    absl::StatusOr<std::string> config = WithCheckpointPolicy(experiment_id, exp.experiment.config_json, policy);
    if (!config.ok()) return done(config.status());
    exp.experiment.config_json = exp.config.full_json = *config;
    Persist(std::move(key),
            [this, experiment_id, patch = ExperimentPatch{.config_json = *config}] {
              return store_.PatchExperiment(experiment_id, patch).status();
            },
            std::move(done));
  });
}

void Cluster::DeleteCheckpoints(int64_t experiment_id, std::set<std::string> uuids) {
  if (options_.checkpoint_gc != nullptr) options_.checkpoint_gc->Delete(experiment_id, std::move(uuids));
}

void Cluster::RemoveCheckpointFiles(int64_t experiment_id, std::set<std::string> uuids,
                                    std::vector<std::string> globs) {
  if (options_.checkpoint_gc != nullptr) {
    options_.checkpoint_gc->RemoveFiles(experiment_id, std::move(uuids), std::move(globs));
  }
}

void Cluster::DeleteTensorboardFiles(int64_t experiment_id) {
  if (options_.checkpoint_gc != nullptr) options_.checkpoint_gc->DeleteTensorboardFiles(experiment_id);
}

void Cluster::DeleteExperiment(int64_t experiment_id) {
  if (options_.checkpoint_gc != nullptr) return options_.checkpoint_gc->DeleteExperiment(experiment_id);
  if (absl::Status st = DeleteExperimentRecords(store_, experiment_id); !st.ok()) {
    spdlog::error("deleting experiment {}: {}", experiment_id, st.ToString());
  }
}

void Cluster::WaitForPreemption(const std::string& allocation_id, std::chrono::seconds timeout,
                                std::function<void(absl::StatusOr<bool>)> done) {
  loop_.Post([this, allocation_id, timeout, done = std::move(done)]() mutable {
    auto it = allocations_.find(allocation_id);
    if (it == allocations_.end()) {
      // Not live any more: the allocation ended, so its process must stop.
      return done(true);
    }
    if (it->second->preempt || timeout.count() <= 0) return done(it->second->preempt);
    uint64_t waiter = next_waiter_id_++;
    it->second->preemption_waiters[waiter] = std::move(done);
    loop_.PostAfter(timeout, [this, allocation_id, waiter] {
      auto a = allocations_.find(allocation_id);
      if (a == allocations_.end()) return;
      auto w = a->second->preemption_waiters.find(waiter);
      if (w == a->second->preemption_waiters.end()) return;
      auto cb = std::move(w->second);
      a->second->preemption_waiters.erase(w);
      cb(false);
    });
  });
}

void Cluster::ResolvePreemptionWaiters(LiveAllocation& alloc, bool preempt) {
  auto waiters = std::move(alloc.preemption_waiters);
  alloc.preemption_waiters.clear();
  for (auto& [id, cb] : waiters) cb(preempt);
}

void Cluster::AckPreemption(const std::string& allocation_id, std::function<void(absl::Status)> done) {
  loop_.Post([this, allocation_id, done = std::move(done)] {
    auto it = allocations_.find(allocation_id);
    if (it == allocations_.end()) return done(absl::NotFoundError(absl::StrCat("allocation ", allocation_id, " is not running")));
    it->second->preemption_acked = true;
    done(absl::OkStatus());
  });
}

void Cluster::RendezvousOf(const std::string& allocation_id, const std::string& resources_id,
                           std::function<void(absl::StatusOr<RendezvousReply>)> done) {
  absl::StatusOr<int> rank = RankOfResources(allocation_id, resources_id);
  if (!rank.ok()) return done(rank.status());
  loop_.Post([this, allocation_id, rank = *rank, done = std::move(done)] {
    auto it = allocations_.find(allocation_id);
    if (it == allocations_.end()) return done(absl::NotFoundError(absl::StrCat("allocation ", allocation_id, " is not running")));
    std::optional<Rendezvous> where = it->second->manager->RendezvousOf(allocation_id);
    if (!where) {
      return done(absl::UnavailableError(
          absl::StrCat("not every process of allocation ", allocation_id, " has started yet; ask again")));
    }
    done(RendezvousReply{std::move(*where), rank});
  });
}

void Cluster::SetExperimentState(int64_t experiment_id, api::ExperimentState target,
                                 std::function<void(absl::Status)> done) {
  loop_.Post([this, experiment_id, target, done = std::move(done)] {
    DoSetExperimentState(experiment_id, target, std::move(done));
  });
}

void Cluster::DoSetExperimentState(int64_t experiment_id, api::ExperimentState target, StateWriter::Done done) {
  auto reply = [&done](absl::Status status) {
    if (done) done(std::move(status));
  };
  auto e = experiments_.find(experiment_id);
  if (e == experiments_.end()) {
    // Not live: it has ended (the caller found its row). Stopping it again is a no-op, as upstream's.
    if (target == api::ExperimentState::kStoppingCanceled || target == api::ExperimentState::kStoppingKilled) {
      return reply(absl::OkStatus());
    }
    return reply(absl::FailedPreconditionError(absl::StrCat(
        "experiment ", experiment_id, " has ended: only an active or paused experiment can become STATE_", Name(target))));
  }
  LiveExperiment& exp = *e->second;
  const api::ExperimentState current = exp.experiment.state;
  if (current == target) return reply(absl::OkStatus());
  // Pause, activate, cancel (of a running or paused experiment), kill (of any live one) and the
  // searcher's own ends (an error, or a shutdown with trials still live). Terminal states are
  // reached only through FinishExperiment.
  if (IsTerminal(target) || !CanTransition(current, target)) {
    // Canceling an experiment that is stopping already changes nothing.
    if (target == api::ExperimentState::kStoppingCanceled && IsStopping(current)) return reply(absl::OkStatus());
    return reply(absl::FailedPreconditionError(absl::StrCat("experiment in incompatible state STATE_", Name(current))));
  }
  // A user's request while the database refuses writes is refused too, leaving the experiment as it
  // was; otherwise it is answered once the new state is durable.
  if (std::optional<absl::Status> down = state_writer_.Unavailable(); down.has_value() && done) return reply(*down);
  exp.experiment.state = target;
  SaveExperimentState(exp.experiment, std::nullopt, std::move(done));
  spdlog::info("experiment {}: {} -> {}", experiment_id, std::string(Name(current)), std::string(Name(target)));
  std::vector<int64_t> live;
  for (const auto& [id, trial] : trials_) {
    if (trial->trial.experiment_id == experiment_id) live.push_back(id);
  }
  for (int64_t id : live) {
    auto t = trials_.find(id);
    if (t == trials_.end()) continue;
    if (target == api::ExperimentState::kActive) {
      t->second->trial.state = api::TrialState::kActive;
      if (t->second->task->allocation_id.empty()) RequestAllocation(*t->second);
    } else {
      // An experiment that errs cancels its trials; the others pass their own stop (or pause) on.
      StopTrial(*t->second, TrialStopOf(target));
    }
  }
  // A stopping experiment without live trials is done at once.
  auto still = experiments_.find(experiment_id);
  if (still != experiments_.end() && IsStopping(target) && !HasLiveTrials(experiment_id)) {
    FinishExperiment(*still->second, TerminalStateOf(target));
  }
  Schedule();
}

void Cluster::KillTrial(int64_t trial_id, std::function<void(absl::Status)> done) {
  loop_.Post([this, trial_id, done = std::move(done)] {
    auto t = trials_.find(trial_id);
    // Not live: it has finished (the caller found its row), so there is nothing to kill.
    if (t == trials_.end()) return done(absl::OkStatus());
    StopTrial(*t->second, api::TrialState::kStoppingKilled);
    done(absl::OkStatus());
  });
}

void Cluster::DropQueuedAllocation(LiveTask& task) {
  auto a = allocations_.find(task.allocation_id);
  if (a == allocations_.end() || a->second->record.state != AllocationState::kQueued) return;
  a->second->manager->Release(task.allocation_id);
  a->second->record.state = AllocationState::kTerminated;
  a->second->record.end_time = loop_.Now();
  SaveAllocation(a->second->record);
  ResolvePreemptionWaiters(*a->second, true);
  allocations_.erase(a);
  task.allocation_id.clear();
}

void Cluster::StopTrial(LiveTrial& trial, api::TrialState state) {
  // Kill wins.
  if (trial.trial.state == api::TrialState::kStoppingKilled && state != api::TrialState::kStoppingKilled) return;
  trial.trial.state = state;
  SaveTrial(trial.trial);
  DropQueuedAllocation(*trial.task);
  if (trial.task->allocation_id.empty()) {
    if (state != api::TrialState::kPaused) FinishTrial(trial, TerminalStateOf(state));
    return;
  }
  LiveAllocation& alloc = *allocations_.at(trial.task->allocation_id);
  if (state == api::TrialState::kStoppingKilled) {
    MasterLog(trial.trial.task_id, alloc.record.allocation_id, "Killing the trial's process");
    return KillProcesses(alloc);
  }
  if (alloc.preempt) return;  // already asked
  MasterLog(trial.trial.task_id, alloc.record.allocation_id,
            "Asking the trial to checkpoint and exit (preemption signal)");
  SignalPreemption(alloc);
}

void Cluster::SignalPreemption(LiveAllocation& alloc) {
  alloc.preempt = true;
  ResolvePreemptionWaiters(alloc, true);
  // A process that ignores the signal is killed after the experiment's preemption_timeout.
  std::string alloc_id = alloc.record.allocation_id;
  loop_.PostAfter(JobOf(alloc).preemption_timeout,
                  [this, alloc_id] {
    auto a = allocations_.find(alloc_id);
    if (a == allocations_.end()) return;
    MasterLog(a->second->record.task_id, alloc_id, "The process did not exit within preemption_timeout; killing it");
    KillProcesses(*a->second);
  });
}

void Cluster::ReportProgress(int64_t trial_id, double progress, std::function<void(absl::Status)> done) {
  loop_.Post([this, trial_id, progress, done = std::move(done)] {
    auto t = trials_.find(trial_id);
    if (t == trials_.end()) return done(absl::FailedPreconditionError(absl::StrCat("trial ", trial_id, " is not running")));
    auto e = experiments_.find(t->second->trial.experiment_id);
    if (e == experiments_.end()) return done(absl::OkStatus());
    e->second->searcher->TrialProgress(t->second->trial.request_id, std::clamp(progress, 0.0, 1.0));
    e->second->experiment.progress = e->second->searcher->Progress();
    SaveSearcher(*e->second);
    SaveExperimentState(e->second->experiment, std::nullopt, std::move(done));
  });
}

void Cluster::ReportEarlyExit(int64_t trial_id, const std::string& reason, std::function<void(absl::Status)> done) {
  loop_.Post([this, trial_id, reason, done = std::move(done)] {
    auto t = trials_.find(trial_id);
    if (t == trials_.end()) return done(absl::FailedPreconditionError(absl::StrCat("trial ", trial_id, " is not running")));
    if (!t->second->early_exit_reason.empty()) {
      return done(absl::InvalidArgumentError(absl::StrCat("trial ", trial_id, " already reported an early exit")));
    }
    t->second->early_exit_reason = reason;
    MasterLog(t->second->trial.task_id, t->second->task->allocation_id, absl::StrCat("Trial ", trial_id, " exits early: ", reason));
    done(absl::OkStatus());
  });
}

void Cluster::SetRunnerState(int64_t trial_id, const std::string& state, std::function<void(absl::Status)> done) {
  loop_.Post([this, trial_id, state, done = std::move(done)] {
    auto t = trials_.find(trial_id);
    if (t == trials_.end()) return done(absl::FailedPreconditionError(absl::StrCat("trial ", trial_id, " is not running")));
    t->second->trial.runner_state = state;
    SaveTrial(t->second->trial, std::move(done));
  });
}

void Cluster::ReportValidation(int64_t trial_id, std::string metrics_json) {
  loop_.Post([this, trial_id, metrics_json = std::move(metrics_json)] {
    auto t = trials_.find(trial_id);
    if (t == trials_.end()) return;
    int64_t experiment_id = t->second->trial.experiment_id;
    auto e = experiments_.find(experiment_id);
    if (e == experiments_.end() || IsStopping(e->second->experiment.state)) return;
    json metrics = json::parse(metrics_json, nullptr, false);
    absl::StatusOr<std::vector<searcher::Action>> actions =
        e->second->searcher->ValidationCompleted(t->second->trial.request_id, metrics);
    if (!actions.ok()) {
      std::string why = absl::StrCat("Trial ", trial_id, ": ", actions.status().message(),
                                     "; the experiment stops with an error");
      MasterLog(t->second->trial.task_id, t->second->task->allocation_id, why);
      spdlog::error("experiment {}: {}", experiment_id, why);
      DoSetExperimentState(experiment_id, api::ExperimentState::kStoppingError, nullptr);
      return;
    }
    const config::ExperimentConfig& config = e->second->config;
    if (auto value = metrics.is_object() ? metrics.find(config.searcher_metric) : metrics.end();
        value == metrics.end() || !value->is_number()) {
      MasterLog(t->second->trial.task_id, t->second->task->allocation_id,
                absl::StrCat("Trial ", trial_id, ": its validation metrics do not include the searcher metric \"",
                             config.searcher_metric, "\"; the ", config.searcher_name, " searcher goes on without it"));
    }
    ApplyActions(experiment_id, *actions);
    Schedule();
  });
}

void Cluster::MasterLog(const std::string& task_id, const std::string& allocation_id, const std::string& text) {
  api::TaskLog l;
  l.task_id = task_id;
  l.allocation_id = allocation_id;
  l.timestamp = loop_.Now();
  l.source = "master";
  l.stdtype = "stdout";
  l.log = absl::StrCat("[master] ", text, "\n");
  // Numbered so that kept lines are made again in order, none replacing another.
  Persist(absl::StrFormat("master log line %012d", next_master_log_line_++),
          [this, l = std::move(l)] { return store_.AddTaskLogs({l}); });
}

}  // namespace det::master
