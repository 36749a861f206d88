#pragma once
// The cluster actor's private state, shared by the files that implement Cluster (cluster.cc,
// cluster_recovery.cc). Only the cluster strand touches it.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/experiment_states.h"
#include "master/cluster/cluster.h"
#include "master/task/task_spec.h"
#include "searcher/searcher_journal.h"

namespace det::master {

// What a paused or stopping experiment asks of its live trials: the same, except that an
// experiment that errs cancels its trials. REQUIRES: `target` is PAUSED or a stopping state.
inline api::TrialState TrialStopOf(api::ExperimentState target) {
  if (target == api::ExperimentState::kStoppingError) return api::TrialState::kStoppingCanceled;
  return api::TrialStateOf(target).value_or(api::TrialState::kStoppingCanceled);
}

// The state a trial's task record ends in when the trial ends in terminal `state`.
inline TaskState TaskStateOfEndedTrial(api::TrialState state) {
  switch (state) {
    case api::TrialState::kCompleted:
      return TaskState::kCompleted;
    case api::TrialState::kCanceled:
      return TaskState::kCanceled;
    default:
      return TaskState::kError;
  }
}

// resources.priority, where 0 means unset (the pool's default_priority applies).
inline std::optional<int> PriorityOf(const config::ExperimentConfig& config) {
  return config.priority > 0 ? std::optional<int>(config.priority) : std::nullopt;
}

inline constexpr char kInvalidHpReason[] = "EXITED_REASON_INVALID_HP";

// A task that has not ended, of any type. What its type means is its spec's business.
struct Cluster::LiveTask {
  Task record;
  std::unique_ptr<TaskSpec> spec;
  std::string allocation_id;  // the live allocation, or ""
  int runs = 0;               // allocations it has had
  std::string user_token;     // the owner's session, for DET_USER_TOKEN (trials: the experiment's)
  // The last use its process reported (report_idle with idle false); the proxy keeps the other half.
  std::chrono::steady_clock::time_point last_reported_activity;
  std::string stop_reason;  // why it is being stopped, when not by request ("killed after 5m0s without use ...")
};

// A trial as a task: the experiment and its searcher decide what its allocations mean (trial_spec.cc).
class Cluster::TrialSpec : public TaskSpec {
 public:
  TrialSpec(Cluster& cluster, int64_t trial_id) : cluster_(cluster), trial_id_(trial_id) {}
  std::string Label() const override { return absl::StrCat("Trial ", trial_id_); }
  JobAttributes Job() const override { return cluster_.TrialJob(trial_id_); }
  absl::StatusOr<LaunchSpec> Launch(const Allocation&) override { return cluster_.TrialLaunch(trial_id_); }
  void AllocationEnded(const AllocationOutcome& outcome) override {
    cluster_.TrialAllocationEnded(trial_id_, outcome);
  }
  void Kill() override;
  void SetPaused(bool paused, std::function<void(absl::Status)> done) override;
  bool IsOwnJob() const override { return false; }
  void ChangeJob(const JobSettings& next, std::function<void(absl::Status)> done) override;
  bool StopsForMasterShutdown() const override { return true; }
  ServiceAccess Service() const override { return {}; }
  std::optional<std::chrono::milliseconds> IdleTimeout() const override { return std::nullopt; }

 private:
  Cluster& cluster_;
  int64_t trial_id_;
};

// A command: one process that runs its entrypoint once; its exit ends the task. Not preemptible. The
// other single-process types (generic task, notebook, shell, TensorBoard) are commands with a
// difference each (their own files).
class Cluster::CommandSpec : public TaskSpec {
 public:
  // The spec of a task of `type` (any type but a trial).
  static std::unique_ptr<CommandSpec> Of(TaskType type, Cluster& cluster, LiveTask& task,
                                         config::CommandConfig config);
  CommandSpec(Cluster& cluster, LiveTask& task, config::CommandConfig config)
      : cluster_(cluster), task_(task), config_(std::move(config)) {}
  // "Command", "Notebook", ...: how messages and default descriptions name it.
  virtual std::string Kind() const { return "Command"; }
  std::string Label() const override;
  JobAttributes Job() const override;
  absl::StatusOr<LaunchSpec> Launch(const Allocation& allocation) override;
  void AllocationEnded(const AllocationOutcome& outcome) override;
  void Kill() override;
  void SetPaused(bool paused, std::function<void(absl::Status)> done) override;
  bool IsOwnJob() const override { return true; }
  void ChangeJob(const JobSettings& next, std::function<void(absl::Status)> done) override;
  bool StopsForMasterShutdown() const override { return false; }
  ServiceAccess Service() const override { return {}; }
  std::optional<std::chrono::milliseconds> IdleTimeout() const override { return std::nullopt; }

  config::CommandConfig& config() { return config_; }
  bool has_context = false;  // the agent fetches its context directory

 protected:
  // What its runner reads beside the common contract (docs/interactive.md): none for a command.
  virtual void AddEnvironment(std::map<std::string, std::string>&) const {}
  // The task's service_json (what its launch request chose: a notebook's token, a shell's key).
  nlohmann::json ServiceJson() const;
  // Its config's idle_timeout, else the master's `fallback` (none when 0).
  std::optional<std::chrono::milliseconds> IdleTimeoutOr(std::chrono::seconds fallback) const;

  Cluster& cluster_;
  LiveTask& task_;
  config::CommandConfig config_;  // resources change with job updates (priority, weight, pool)
};

// A generic task: a command that can be paused (its process stopped) and unpaused (queued again).
class Cluster::GenericTaskSpec : public CommandSpec {
 public:
  using CommandSpec::CommandSpec;
  std::string Kind() const override { return "Task"; }
  void SetPaused(bool paused, std::function<void(absl::Status)> done) override;
};

// A notebook: Jupyter behind the proxy, reached with its own token; killed after idle_timeout unused.
class Cluster::NotebookSpec : public CommandSpec {
 public:
  using CommandSpec::CommandSpec;
  std::string Kind() const override { return "Notebook"; }
  ServiceAccess Service() const override;
  std::optional<std::chrono::milliseconds> IdleTimeout() const override;

 protected:
  void AddEnvironment(std::map<std::string, std::string>& env) const override;
};

// A shell: sshd reached as raw TCP through the proxy, letting in the key its launch chose.
class Cluster::ShellSpec : public CommandSpec {
 public:
  using CommandSpec::CommandSpec;
  std::string Kind() const override { return "Shell"; }
  ServiceAccess Service() const override { return {.tcp = true}; }

 protected:
  void AddEnvironment(std::map<std::string, std::string>& env) const override;
};

// A TensorBoard over experiments' and trials' event files; killed after idle_timeout unused.
class Cluster::TensorboardSpec : public CommandSpec {
 public:
  using CommandSpec::CommandSpec;
  std::string Kind() const override { return "TensorBoard"; }
  std::optional<std::chrono::milliseconds> IdleTimeout() const override;

 protected:
  void AddEnvironment(std::map<std::string, std::string>& env) const override;
};

struct Cluster::LiveAllocation {
  Allocation record;
  std::string token;  // plaintext, for the process's environment; empty for recovered allocations
  ResourceManager* manager = nullptr;  // the manager of the pool it was queued in
  int64_t placement = 0;  // which placement (a counter), so a late callback for an earlier one is ignored
  // Placed, its processes waiting for the placement to be saved; a kill meanwhile ends it without
  // starting them.
  bool starting = false;
  bool kill_before_start = false;
  // The scheduler (or a disabled agent) took its slots away: its trial is requeued without counting
  // a restart, whatever the exit, unless the process finished cleanly without acknowledging.
  bool released = false;
  bool preempt = false;
  bool preemption_acked = false;
  std::map<uint64_t, std::function<void(absl::StatusOr<bool>)>> preemption_waiters;
  // Its processes as their manager reported them started: (where, pid), in the order reported.
  std::vector<std::pair<std::string, int>> started_processes;
};

struct Cluster::LiveTrial {
  api::Trial trial;
  LiveTask* task = nullptr;  // its task (tasks_), erased together with the trial
  std::string early_exit_reason;
  // What the experiment's log_policies matched in its logs: a failure is final (cancel_retries),
  // and retries avoid these agents (exclude_node).
  bool cancel_retries = false;
  std::set<std::string> blocked_agents;
};

struct Cluster::LiveExperiment {
  api::Experiment experiment;
  config::ExperimentConfig config;
  std::unique_ptr<searcher::JournaledSearcher> searcher;
  // What the database holds of the searcher: a snapshot of this size and the events written since.
  struct SavedSearcher {
    size_t snapshot_bytes = 0;  // 0: none yet
    size_t event_bytes = 0;
    int64_t next_seq = 0;
    bool write_failed = false;  // the next save is a whole snapshot, in place of the kept write
  } saved_searcher;
  // searcher.source_trial_id / source_checkpoint_uuid: where trials without a checkpoint start.
  std::string warm_start_checkpoint;
  std::map<std::string, int64_t> trial_by_request;
  std::string user_token;  // owner's session for DET_USER_TOKEN
  // The job's scheduling attributes are config.resources (resource_pool always resolved) and
  // experiment.queue_position, changed by UpdateJob.
  // The log policies with an action, compiled.
  std::vector<std::pair<config::LogPolicy, std::regex>> log_policies;
};

// The task core as its resource managers see it: forwards to the cluster (on its loop).
class Cluster::ManagerEvents : public AllocationEvents {
 public:
  explicit ManagerEvents(Cluster& cluster) : cluster_(cluster) {}
  JobAttributes JobOf(const std::string& allocation_id) const override;
  bool MayStartWork() const override { return cluster_.MayStartWork(); }
  void Placed(const std::string& allocation_id, const Placement& placement) override;
  void ReclaimRequested(const std::string& allocation_id, const std::string& why, bool kill) override;
  void ProcessStarted(const std::string& allocation_id, const std::string& where, int pid) override;
  void Exited(const std::string& allocation_id, int exit_code, ExitKind kind, const std::string& why) override;
  void Log(const std::string& allocation_id, const std::string& text) override;

 private:
  Cluster::LiveAllocation* Find(const std::string& allocation_id) const;
  Cluster& cluster_;
};

}  // namespace det::master
