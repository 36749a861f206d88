#pragma once
// What differs between task types, behind one interface. The task core (the cluster actor's
// allocation lifecycle: queueing, the scheduler's snapshot, start on agents, kill, preemption, exit,
// restore after a restart) is written once and asks a task's TaskSpec only these questions. The
// trial is one implementation; commands and generic tasks are another (cluster/*_spec.cc).
//
// All methods are called on the cluster strand.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "api/agent_protocol.h"
#include "master/db/store.h"

namespace det::master {

// How the scheduler sees the job a task's allocations belong to.
struct JobAttributes {
  std::string job_id;
  int64_t submission_order = 0;  // the job's submission time, microseconds
  std::optional<int> priority;   // unset: the pool's default
  double weight = 1;
  std::optional<int> max_slots;
  std::optional<double> queue_position;
  std::string resource_pool;
  int slots = 0;
  bool single_node = false;
  bool preemptible = true;
  // How long a process that was asked to stop may take before it is killed.
  std::chrono::seconds preemption_timeout{3600};
  std::vector<std::string> blocked_agents;  // agents its allocations must avoid
};


// What every process of one allocation runs.
struct LaunchSpec {
  std::vector<std::string> entrypoint;
  // Type-specific variables, on top of the contract every task gets (DET_TASK_ID, DET_ALLOCATION_ID,
  // DET_SESSION_TOKEN, ...).
  std::map<std::string, std::string> env;
  bool download_context = true;
  std::string work_dir;  // "" = the task directory (where the context is unpacked)
  std::vector<api::TaskMount> mounts;
  int64_t workspace_id = 1;  // where it runs: its processes run as the workspace's agent user group
  // The task's `environment` section (image, force_pull_image, pod_spec): what a manager that runs
  // tasks in containers reads (Kubernetes). Null: none.
  nlohmann::json environment;
  // The task's `resources` section (shm_size, devices, ...): what a container runtime reads. Null: none.
  nlohmann::json resources;
  // The task's `slurm` section (sbatch_args, gpu_type, slots_per_node): what the Slurm manager reads.
  // Null: none.
  nlohmann::json slurm;
  // Where the work is accounted (a Slurm job's --wckey, per job_project_source): "" where unknown.
  std::string project_name;
  std::string workspace_name;
  std::vector<std::string> labels;
  // What the launch must read from the store (a trial's latest checkpoint, its experiment's workspace
  // as stored), filled into the spec. It runs on the state writer's thread, just before the
  // allocation's start is saved, so the cluster's loop never waits on a read; it may run again when
  // that write is made again. Null: nothing to read.
  std::function<absl::Status(LaunchSpec&)> read_stored;
};

// Adds environment_variables entries ("K=V"; an entry without '=' is skipped) to `env`.
inline void AddEnvironmentVariables(const std::vector<std::string>& entries, std::map<std::string, std::string>& env) {
  for (const std::string& kv : entries) {
    size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
}

enum class ExitKind { kProcessExited, kAgentLost };

// How an allocation ended.
struct AllocationOutcome {
  int exit_code = 0;
  ExitKind kind = ExitKind::kProcessExited;
  std::string why;                // "exited with code 1", "agent a1 was lost", ...
  bool released = false;          // the scheduler or a disabled agent took its slots away
  bool preempt = false;           // it was asked to stop
  bool preemption_acked = false;  // and said it would
};

// A job's scheduling settings as UpdateJob changes them (unset: the pool's default).
struct JobSettings {
  std::optional<int> priority;
  std::optional<double> position;
  double weight = 1;
  std::optional<int> max_slots;
  std::string pool;
};

// How the master's proxy reaches a ready task's service (proxy/service_registry.h's Service).
struct ServiceAccess {
  bool tcp = false;   // raw TCP over the client's WebSocket (shells); else HTTP
  std::string token;  // accepted instead of a session for this service only (a notebook's)
};

class TaskSpec {
 public:
  virtual ~TaskSpec() = default;
  // What the task's log lines and messages call it: "Trial 4", "Command 7f3e...".
  virtual std::string Label() const = 0;
  virtual JobAttributes Job() const = 0;
  virtual absl::StatusOr<LaunchSpec> Launch(const Allocation& allocation) = 0;
  // The allocation is over (its slots are free again): the task ends, waits, or asks for another.
  virtual void AllocationEnded(const AllocationOutcome& outcome) = 0;
  // A user kills the task: its process is killed (or, queued, it ends at once).
  virtual void Kill() = 0;
  // A user pauses or unpauses the task; `done` once the change is durable, or with why it cannot be.
  virtual void SetPaused(bool paused, std::function<void(absl::Status)> done) = 0;
  // Whether the task is a job of its own in the queue; a trial's job is its experiment's.
  virtual bool IsOwnJob() const = 0;
  // Writes a job change (already checked) into the task's config; `done` once durable. Only for
  // tasks that are their own job.
  virtual void ChangeJob(const JobSettings& next, std::function<void(absl::Status)> done) = 0;
  // Whether a master shutdown asks it to checkpoint and exit, to resume with the next master.
  virtual bool StopsForMasterShutdown() const = 0;
  // How the proxy reaches what it serves once it says it is ready.
  virtual ServiceAccess Service() const = 0;
  // How long it may go unused before it is killed; nullopt: no limit.
  virtual std::optional<std::chrono::milliseconds> IdleTimeout() const = 0;
};

}  // namespace det::master
