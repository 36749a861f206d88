#pragma once
// The cluster actor, the task core: owns the live experiments, trials, tasks and allocations, and runs
// on one EventLoop (a strand). Where their processes run is its resource managers' business
// (master/rm/resource_manager.h: our agents, and more; docs/resource-managers.md).
//
// Threads: public methods may be called from any thread; they post to the loop and never block the
// caller. Every callback they take (`done`) runs on the loop: it must not block (no store reads; a
// handler posts those to its own loop). The loop reads the store only in Recover, before it runs;
// what it writes goes through the state writer's thread (state_writer.h).
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "absl/status/statusor.h"
#include "api/agent_protocol.h"
#include "api/experiment_states.h"
#include "config/command_config.h"
#include "config/experiment_config.h"
#include "master/checkpoint_gc_policy.h"
#include "master/cluster/cluster_observation.h"
#include "master/cluster/state_writer.h"
#include "master/db/store.h"
#include "master/event_loop.h"
#include "master/http/http_types.h"
#include "master/rm/resource_manager.h"
#include "master/task/task_spec.h"
#include "searcher/searcher.h"

namespace det::master {

class CheckpointGc;
class ServiceRegistry;

// A resource manager beside the agents' (additional_resource_managers), made by the cluster, which
// passes it the loop it runs on and itself as the task core.
using ResourceManagerFactory = std::function<std::unique_ptr<ResourceManager>(EventLoop&, AllocationEvents&)>;

struct ClusterOptions {
  // The agent resource manager's pools (empty: one pool, "default", with the default (priority)
  // scheduler) and cluster_name.
  std::vector<PoolOptions> pools;
  std::string cluster_name = "default";
  // The main resource manager, when it is not the agents' (resource_manager.type kubernetes): made
  // instead of it, and `pools` is then unused.
  ResourceManagerFactory main_resource_manager;
  // More resource managers; their pools' names differ from every other manager's (config checks it;
  // a repeated name here is ignored, with an error in the log).
  std::vector<ResourceManagerFactory> additional_resource_managers;
  // Where work without resources.resource_pool goes: slots > 0 to the compute pool, else aux.
  std::string default_compute_pool = "default";
  std::string default_aux_pool = "default";
  std::string cluster_id;
  std::string master_id;
  // Upstream's launch_error: work larger than its pool's connected agents is refused (true) or queued
  // with the launch warning kSlotsExceeded until the pool grows (false).
  bool launch_error = true;
  std::chrono::hours user_session_lifetime{24 * 7};
  // How long a disconnected agent's tasks are kept alive, waiting for it to reconnect, unless its
  // pool says otherwise (upstream's default).
  std::chrono::milliseconds agent_reconnect_grace{std::chrono::seconds(25)};
  // Collects an experiment's checkpoints when it ends (and, after a restart, what was left) and deletes
  // them on request; none (tests): no GC, and a deleted experiment's checkpoints stay in storage.
  CheckpointGc* checkpoint_gc = nullptr;
  // Where ready allocations' services are registered for the master's proxy; none (tests): nowhere.
  ServiceRegistry* services = nullptr;
  // Idle limits of notebooks and TensorBoards without an idle_timeout of their own (0: none), and
  // how often they are checked.
  std::chrono::seconds notebook_timeout{0};
  std::chrono::seconds tensorboard_timeout{300};
  std::chrono::milliseconds idle_check_interval{1000};
  // Whom tasks run as when their workspace names no agent user group (security.default_task); none:
  // the agent's own user.
  std::optional<api::TaskUser> default_task_user;
};

// Upstream's LaunchWarning: what a launch that went ahead should tell its user.
inline constexpr char kSlotsExceeded[] = "LAUNCH_WARNING_CURRENT_SLOTS_EXCEEDED";
// Filled by the cluster while it launches the work; shared with the request's caller.
using LaunchWarnings = std::shared_ptr<std::vector<std::string>>;

struct NewExperiment {
  config::ExperimentConfig config;
  std::string original_yaml;
  std::string model_definition_tgz;
  int64_t owner_id = 0;
  std::string owner_username;
  int64_t project_id = 1;
  bool activate = true;
  std::string warm_start_checkpoint;  // warm_start.h; "" for none
  LaunchWarnings warnings = std::make_shared<std::vector<std::string>>();
};

// A finished single-trial experiment to train again (upstream's ContinueExperiment), as read from the
// store, with its config after the user's overrides.
struct ContinuedExperiment {
  api::Experiment experiment;
  api::Trial trial;
  Task task;  // the trial's
  config::ExperimentConfig config;
  LaunchWarnings warnings = std::make_shared<std::vector<std::string>>();
};

// A command, generic task, notebook, shell or TensorBoard to start (upstream's LaunchCommand,
// CreateGenericTask, LaunchNotebook, ...).
struct NewTask {
  TaskType type = TaskType::kCommand;
  config::CommandConfig config;
  std::string context_tgz;  // its context directory (a fork's parent's when it brings none), "" for none
  int64_t owner_id = 0;
  std::string owner_username;
  int64_t workspace_id = 1;
  std::string forked_from;
  std::string service_json = "{}";  // Task::service_json
  LaunchWarnings warnings = std::make_shared<std::vector<std::string>>();
};

// A job (an experiment, a command, a generic task) in a pool's queue (upstream jobv1.Job).
struct JobInfo {
  std::string job_id;
  std::string type = "TYPE_EXPERIMENT";  // TYPE_COMMAND, TYPE_GENERIC, ...
  std::string entity_id;                 // the experiment's id, or the task's
  std::string name;
  std::string username;
  int64_t user_id = 0;
  std::string resource_pool;
  int64_t workspace_id = 1;  // the experiment's or the task's
  WallTime submission_time;
  int priority = 0;  // effective: the job's own, else the pool's default
  double weight = 1;
  int requested_slots = 0;  // the slots of all its live allocations, queued or running
  int allocated_slots = 0;  // the slots of its running allocations
  std::string state;        // STATE_QUEUED, STATE_SCHEDULED or STATE_SCHEDULED_BACKFILLED
  int jobs_ahead = 0;       // -1 under fair_share (upstream)
  double progress = 0;
  bool preemptible = true;
  std::string pending_reason;  // why it waits, where its resource manager knows (Slurm); "" otherwise
};

// A change to a job's scheduling attributes (upstream QueueControl, or PatchExperiment's
// resources). Unset fields are left as they are.
struct JobChange {
  std::optional<int> priority;  // 1..99
  std::optional<double> weight;  // > 0
  std::optional<int> max_slots;  // >= 0; 0 clears the limit
  std::optional<std::string> resource_pool;
  std::optional<std::string> ahead_of;  // another job's id: move just before it
  std::optional<std::string> behind_of;
};

// The range rules of a change, each error naming its field: priority 1..99, weight > 0,
// max_slots >= 0, and non-empty pool and job names. UpdateJob applies them; callers that change
// several jobs at once check every change with it first.
absl::Status ValidateJobChange(const JobChange& change);

class Cluster {
 public:
  Cluster(Store& store, EventLoop& loop, ClusterOptions options);
  ~Cluster();

  // Rebuilds the live state from the store after a restart: experiments that had not ended (their
  // searchers restored from the last snapshot), their live trials, queued work, and the allocations
  // that were running, which their agents reclaim when they reconnect within the grace period.
  // Called once, before the loop runs.
  absl::Status Recover();
  // Stores the experiment, asks its search method for the initial trials and queues them.
  void CreateExperiment(NewExperiment request, std::function<void(absl::StatusOr<int64_t>)> done);
  // Makes the finished experiment live again with `request.config` and a fresh searcher whose one
  // trial is the experiment's trial: it resumes from its latest checkpoint, its restarts counted
  // anew. `done` once the experiment is ACTIVE in the store. FailedPrecondition when the experiment
  // is live; InvalidArgument when the config's searcher is not single.
  void ContinueExperiment(ContinuedExperiment request, std::function<void(absl::Status)> done);
  // A newly connected agent; the returned handlers feed its messages into the actor. Refuses a second
  // connection for an agent id that is still connected.
  absl::StatusOr<WebSocketHandlers> ConnectAgent(AgentIdentity agent,
                                                 std::shared_ptr<WebSocketConnection> connection);
  // Long poll: `done(true)` as soon as the allocation should stop, `done(false)` after `timeout`.
  void WaitForPreemption(const std::string& allocation_id, std::chrono::seconds timeout,
                         std::function<void(absl::StatusOr<bool>)> done);
  void AckPreemption(const std::string& allocation_id, std::function<void(absl::Status)> done);
  // Where the allocation's processes serve, in rank order, and the rank of the one `resources_id` names:
  // Unavailable until every one has an address (a pod gets its IP once it runs), NotFound for an
  // allocation that is not running, InvalidArgument for another allocation's resources id.
  struct RendezvousReply {
    Rendezvous where;
    int rank = 0;
  };
  void RendezvousOf(const std::string& allocation_id, const std::string& resources_id,
                    std::function<void(absl::StatusOr<RendezvousReply>)> done);
  void ListAgents(std::function<void(std::vector<AgentSummary>)> done);
  // Enables an agent, or disables it: nothing new starts on it, and its running work is killed
  // (trials requeue without counting a restart) unless `drain`, when it finishes. NotFound for an
  // unknown agent.
  void SetAgentEnabled(const std::string& agent_id, bool enabled, bool drain,
                       std::function<void(absl::StatusOr<AgentSummary>)> done);
  // The same for one slot of the agent (upstream's EnableSlot/DisableSlot): nothing new starts on a
  // disabled slot; without `drain` the work running on it is killed (trials requeue, no restart counted).
  void SetSlotEnabled(const std::string& agent_id, int slot_id, bool enabled, bool drain,
                      std::function<void(absl::StatusOr<AgentSummary>)> done);
  // Every live job of every pool, pools in name order, each pool's jobs in queue order.
  void ListJobs(std::function<void(std::vector<JobInfo>)> done);
  // Changes a live job's priority, weight, max_slots, pool or queue position and reschedules; the
  // new values are stored in the experiment's config. NotFound when no live job has that id.
  void UpdateJob(const std::string& job_id, JobChange change, std::function<void(absl::Status)> done);
  void ListResourcePools(std::function<void(std::vector<PoolSummary>)> done);
  // A snapshot of allocations, live experiments, agents, pools and scheduling figures for observers
  // (Prometheus); `done` runs on the loop.
  void Observe(std::function<void(ClusterObservation)> done);
  // User requests on an experiment (reference §7.1): ACTIVE (activate), PAUSED (pause: running
  // trials are asked to checkpoint and exit), STOPPING_CANCELED (cancel: the same, then CANCELED),
  // STOPPING_KILLED (kill: processes are killed, then CANCELED). Cancel and kill of a finished
  // experiment do nothing; activate and pause of one are FailedPrecondition, and so is any move
  // api::CanTransition refuses or a terminal target.
  void SetExperimentState(int64_t experiment_id, api::ExperimentState target,
                          std::function<void(absl::Status)> done);
  // Kills one trial (its process is killed; the trial ends CANCELED).
  void KillTrial(int64_t trial_id, std::function<void(absl::Status)> done);
  // The trial's own progress report (0..1); folded into its experiment's progress.
  void ReportProgress(int64_t trial_id, double progress, std::function<void(absl::Status)> done);
  // The trial says it is exiting early (e.g. invalid hyperparameters); a second report is refused.
  void ReportEarlyExit(int64_t trial_id, const std::string& reason, std::function<void(absl::Status)> done);
  // Stores a command or generic task and queues it. Refused before anything is stored: an unknown
  // pool, more slots than the pool can ever hold (InvalidArgument naming the field). The caller has
  // resolved the owner and a fork's context; nothing is read from the store on the loop.
  void LaunchTask(NewTask request, std::function<void(absl::StatusOr<Task>)> done);
  // Kills a task of any type: its process is killed and it ends CANCELED (a trial: as KillTrial). A
  // task that is not live (the caller found it stored: it ended) is left as it is.
  void KillTask(const std::string& task_id, std::function<void(absl::Status)> done);
  // Generic tasks: pause stops the process and leaves the task PAUSED; unpause queues it again.
  // FailedPrecondition for other task types or a task that has ended.
  void SetTaskPaused(const std::string& task_id, bool paused, std::function<void(absl::Status)> done);
  // The allocation's process serves on `port` of its agent (POST /api/v1/allocations/{id}/ready):
  // the allocation is ready, and its task's service is registered with the proxy (and stored, so
  // a restarted master registers it again) until the allocation ends. FailedPrecondition when the
  // allocation is not running.
  void AllocationReady(const std::string& allocation_id, int port, std::string user,
                       std::function<void(absl::Status)> done);
  // A notebook's report from inside (report_idle): not idle counts as use now, for its idle timeout.
  void ReportIdle(const std::string& task_id, bool idle, std::function<void(absl::Status)> done);
  // Free-form status text shown as the trial's runnerState.
  void SetRunnerState(int64_t trial_id, const std::string& state, std::function<void(absl::Status)> done);
  // A validation report arrived for the trial: its `avgMetrics` object, fed to the experiment's searcher.
  // A report the searcher cannot use (the searcher metric or time metric missing) errors the experiment.
  void ReportValidation(int64_t trial_id, std::string metrics_json);
  // Task log lines as they arrive: matched against the experiment's log_policies (cancel_retries,
  // exclude_node), which decide how the trial is retried after a failure.
  void ObserveTaskLogs(std::vector<api::TaskLog> logs);
  // The experiment's labels were changed in the store: a live one's are kept for its next trials (a
  // pod's labels) and for observers (Prometheus' det_experiment_id_label). An ended one: nothing.
  void ExperimentLabelsChanged(int64_t experiment_id, std::vector<std::string> labels);
  // A new GC policy into the experiment's stored config (and a live one's in memory, which later job
  // changes write back). A finished experiment's checkpoints are collected again under it; a live
  // one's when it ends.
  void SetCheckpointPolicy(int64_t experiment_id, CheckpointGcPolicy policy, std::function<void(absl::Status)> done);
  // Checkpoint storage clean-up, on the GC worker (checkpoint_gc.h): checkpoints a user named, the
  // files of checkpoints a user named by glob, an experiment's TensorBoard files, and an experiment the
  // store marked DELETING (its checkpoints and TensorBoard files, then its records).
  void DeleteCheckpoints(int64_t experiment_id, std::set<std::string> uuids);
  void RemoveCheckpointFiles(int64_t experiment_id, std::set<std::string> uuids, std::vector<std::string> globs);
  void DeleteTensorboardFiles(int64_t experiment_id);
  void DeleteExperiment(int64_t experiment_id);
  // Blocks until the state writes handed in so far are durable or failed, their outcomes posted to
  // the loop; whether there were any since the last call. For tests, which run the loop by hand.
  bool WaitForWrites() { return state_writer_.WaitIdle(); }

  // A deliberate stop of the master (SIGTERM): nothing starts any more, and every running trial is
  // asked to checkpoint and exit, which gives its slots back without counting a restart; the trials
  // stay ACTIVE and are queued again when the master starts. `done` runs on the loop once no trial
  // process runs, or after `grace`, whichever comes first. Commands and other tasks are left as they are.
  void Shutdown(std::chrono::milliseconds grace, std::function<void()> done);

 private:
  struct LiveTask;
  class TrialSpec;
  class CommandSpec;
  class GenericTaskSpec;
  class NotebookSpec;
  class ShellSpec;
  class TensorboardSpec;
  struct LiveAllocation;
  struct LiveTrial;
  struct LiveExperiment;
  class ManagerEvents;

  // Everything below runs on the loop only.
  absl::Status RecoverExperiment(api::Experiment stored);
  // The experiment's searcher as saved: its last snapshot with the events since replayed on it.
  absl::Status RecoverSearcher(int64_t experiment_id, const nlohmann::json& config, LiveExperiment& exp);
  absl::Status RecoverTrialAllocation(LiveExperiment& exp, LiveTrial& trial);
  // The experiment a request creates, with its id, before it is stored.
  absl::StatusOr<std::unique_ptr<LiveExperiment>> NewLiveExperiment(NewExperiment& request);
  absl::Status DoContinueExperiment(ContinuedExperiment& request, std::function<void(absl::Status)>& done);
  // Carries out the searcher's actions for the experiment (which may end during them).
  void ApplyActions(int64_t experiment_id, const std::vector<searcher::Action>& actions);
  // Writes the searcher's new events, or a whole snapshot when one is due (searcher_journal.h).
  void SaveSearcher(LiveExperiment& exp);
  // Saves an entity's current state behind the loop (state_writer.h): the loop goes on at once, and
  // `saved`, when given, runs on the loop once the write is durable or failed. A write the database
  // refuses is kept and made again until it succeeds.
  void Persist(std::string key, Store::Write write, StateWriter::Done saved = nullptr);
  void SaveAllocation(const Allocation& record, StateWriter::Done saved = nullptr);
  void SaveTrial(const api::Trial& trial, StateWriter::Done saved = nullptr);
  void SaveExperimentState(const api::Experiment& experiment, std::optional<WallTime> end_time,
                           StateWriter::Done saved = nullptr);
  bool HasLiveTrials(int64_t experiment_id) const;
  // The trial's rows (its task's, then its own) are created behind the loop, with an id given here.
  void CreateTrial(LiveExperiment& exp, const searcher::Action& action);
  // The ids the master gives new experiments and trials: above the highest the store ever gave.
  int64_t NewExperimentId();
  int64_t NewTrialId();
  HighestIds& HighestIdsGiven();
  // When a new job (an experiment, a command, ...) is submitted: the loop's time, after every job
  // submitted before it, so that jobs queue in submission order even within a microsecond.
  WallTime NewSubmissionTime();
  // The trial's task in the live state; `record` as stored.
  LiveTask& AddTrialTask(LiveTrial& trial, const LiveExperiment& exp, Task record);
  void RequestAllocation(LiveTrial& trial);
  // Queues a new allocation of the task (its id: TASK_ID.RUN) with the manager of its job's pool; its
  // row is created behind the loop.
  void RequestTaskAllocation(LiveTask& task, int run);
  // The task a request launches, before it is stored.
  absl::StatusOr<std::unique_ptr<LiveTask>> NewLiveTask(NewTask& request);
  void SaveTask(const Task& task, StateWriter::Done saved = nullptr);
  // Ends a command or generic task: its record is saved and it leaves the live state.
  void FinishTask(LiveTask& task, TaskState state, const std::string& exit_status, std::optional<int> exit_code);
  // The proxy's view of a ready allocation (cluster_services.cc).
  void RegisterService(const LiveAllocation& alloc);
  void UnregisterService(const LiveAllocation& alloc);
  // Kills notebooks and TensorBoards unused for longer than their idle timeout; runs every
  // idle_check_interval while one is ready.
  void CheckIdleTasks();
  void ArmIdleCheck();
  JobAttributes TrialJob(int64_t trial_id) const;
  absl::StatusOr<LaunchSpec> TrialLaunch(int64_t trial_id);
  void TrialAllocationEnded(int64_t trial_id, const AllocationOutcome& outcome);
  // The job attributes of the task an allocation belongs to.
  JobAttributes JobOf(const LiveAllocation& alloc) const;
  absl::Status RecoverTask(Task stored);
  // Drops what recovery had rebuilt of an experiment that could not be recovered: its trials, their
  // tasks and allocations (an agent that still runs one is told to kill it when it reports in).
  void ForgetLiveTrials(int64_t experiment_id);
  // Puts an allocation that was running before a restart back with its manager.
  void RestoreRunningAllocation(const Allocation& record, bool stopping);

  // Resource managers (cluster_scheduling.cc).
  // Every manager places what it can, unless nothing may start (MayStartWork).
  void Schedule();
  bool MayStartWork() const;
  // The manager that owns `pool`; null for none.
  ResourceManager* ManagerOf(const std::string& pool) const;
  // The pool work of `config` goes to: resources.resource_pool, else the default compute (slots >
  // 0) or aux pool. InvalidArgument for an unknown pool.
  absl::StatusOr<std::string> ResolvePool(const std::string& requested, int slots) const;
  // InvalidArgument when `slots` can never fit in the pool's agents other than `blocked` (a pool
  // without agents yet may get some, so anything fits it).
  absl::Status CheckFits(const std::string& pool, int slots, bool single_node,
                         const std::set<std::string>& blocked = {}) const;
  // CheckFits for new work: with launch_error off, work that does not fit is queued, and `warnings`
  // get kSlotsExceeded.
  absl::Status CheckLaunchFits(const std::string& pool, int slots, bool single_node,
                               std::vector<std::string>& warnings) const;
  // An experiment about to run: its pool resolved (refused when it could never start, unless
  // launch_error is off, which adds a warning) and written into both forms of its config, as upstream
  // stores it.
  absl::Status PlaceInPool(config::ExperimentConfig& config, nlohmann::json& config_json, LaunchWarnings& warnings);
  // What the master derives from an experiment's config (creation, recovery): its pool resolved
  // (configs stored before pools were resolved name none) and its log policies compiled.
  void PrepareConfig(LiveExperiment& exp);
  // Checks and applies the change; `done` is taken (and answered once the change is durable) when it
  // returns OK.
  absl::Status DoUpdateJob(const std::string& job_id, const JobChange& change, std::function<void(absl::Status)>& done);
  // `current` with `change` applied: the range rules, the new pool (which must hold `slots`), and a
  // queue move resolved against the pool's queue.
  absl::StatusOr<JobSettings> ChangedJobSettings(const std::string& job_id, JobSettings current, int slots,
                                                 bool single_node, const JobChange& change) const;
  absl::Status UpdateTaskJob(LiveTask& task, const JobChange& change, std::function<void(absl::Status)>& done);
  // The live tasks that are jobs of their own (not trials), by job id; null for none.
  LiveTask* TaskOfJob(const std::string& job_id) const;
  // The job's queued allocations go to the manager of its (new) pool.
  void FollowJobPool(const std::string& job_id, const std::string& pool);
  // Asks the allocation to give its slots back (preemption signal, then kill after
  // preemption_timeout); its trial is requeued.
  void ReleaseAllocation(LiveAllocation& alloc, const std::string& why);
  // Its manager placed the allocation: the placement is saved (with what the launch reads from the
  // store), then its processes start.
  void StartAllocation(LiveAllocation& alloc, const Placement& placement);
  void KillProcesses(LiveAllocation& alloc);
  // The allocation's start could not be saved: it goes back to the queue while the database is
  // away, or ends.
  void AllocationNotStarted(LiveAllocation& alloc, const absl::Status& why);
  // A launch with what it read from the store behind the loop.
  struct StoredLaunch {
    LaunchSpec spec;
    std::optional<api::TaskUser> user;  // TaskUserFor: the workspace's, the owner's or the default
  };
  ProcessLaunch ProcessLaunchOf(const LiveAllocation& alloc, const StoredLaunch& launch) const;
  // Frees the allocation's resources and hands how it ended to its task's spec.
  void AllocationEnded(LiveAllocation& alloc, int exit_code, ExitKind kind, const std::string& why);
  // Ends a trial (or experiment) in terminal `state`: saved, and it leaves the live state.
  void FinishTrial(LiveTrial& trial, api::TrialState state);
  void FinishExperiment(LiveExperiment& exp, api::ExperimentState state);
  // Hands an ended experiment to the checkpoint GC, sparing the checkpoints live trials start from.
  void CollectCheckpoints(int64_t experiment_id);
  void ResolvePreemptionWaiters(LiveAllocation& alloc, bool preempt);
  // Moves a live trial to `state` (PAUSED, STOPPING_CANCELED, STOPPING_KILLED) and stops its process
  // gracefully (preemption signal) or by force; a trial with no process running settles at once.
  void StopTrial(LiveTrial& trial, api::TrialState state);
  // Sends the preemption signal; a process that ignores it is killed after preemption_timeout.
  void SignalPreemption(LiveAllocation& alloc);
  void DropQueuedAllocation(LiveTask& task);
  // Moves the experiment to `target` (SetExperimentState's rules); `done`, when given, runs once with
  // the refusal, or once the new state is durable.
  void DoSetExperimentState(int64_t experiment_id, api::ExperimentState target, StateWriter::Done done);
  void MasterLog(const std::string& task_id, const std::string& allocation_id, const std::string& text);
  std::map<std::string, std::string> TrialEnvironment(const LiveTrial& trial, const LiveExperiment& exp);
  // The contract every task process gets (DET_TASK_ID, DET_ALLOCATION_ID, DET_SESSION_TOKEN, ...).
  std::map<std::string, std::string> CommonEnvironment(const LiveAllocation& alloc, const LiveTask& task) const;
  // Shutdown's `done`, once no trial process runs.
  void MaybeFinishShutdown();
  // Whether the allocation's process runs and is asked to stop when the master shuts down (a trial's).
  bool StopsForShutdown(const LiveAllocation& alloc) const;
  // The manager of an agent it knows; NotFound naming the agent when none does.
  absl::StatusOr<ResourceManager*> ManagerOfAgent(const std::string& agent_id) const;

  Store& store_;
  EventLoop& loop_;
  ClusterOptions options_;
  std::unique_ptr<ManagerEvents> manager_events_;
  // The agents' manager first, then additional_resource_managers in config order.
  std::vector<std::unique_ptr<ResourceManager>> managers_;
  std::map<std::string, ResourceManager*> manager_of_pool_;
  std::map<std::string, std::unique_ptr<LiveAllocation>> allocations_;
  std::map<std::string, std::unique_ptr<LiveTask>> tasks_;  // by task id: every live task, trials too
  std::map<int64_t, std::unique_ptr<LiveTrial>> trials_;
  std::map<int64_t, std::unique_ptr<LiveExperiment>> experiments_;
  uint64_t next_waiter_id_ = 1;
  int64_t next_placement_ = 1;
  WallTime last_submission_;  // NewSubmissionTime's last, or the latest recovered
  std::optional<HighestIds> highest_ids_;  // read by Recover (or at the first id given)
  bool idle_check_armed_ = false;
  uint64_t next_master_log_line_ = 0;
  bool shutting_down_ = false;
  std::function<void()> shutdown_done_;  // Shutdown's, until it ran
  // Last: destroyed first, committing what was handed in while the rest is still whole.
  StateWriter state_writer_;
};

}  // namespace det::master
