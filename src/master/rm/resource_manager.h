#pragma once
// What the task core (master/cluster) needs from whoever owns the compute: pools and their slots, an
// allocation requested and released, its processes started and killed, the job queue's view, restore
// after a master restart, and events back (placed, started, exited, resources wanted back).
//
// One implementation runs our agents (agent_resource_manager.h); Kubernetes and Slurm are others. A
// master runs several at once (resource_manager plus additional_resource_managers): pools are named
// uniquely across them, and an allocation goes to the manager that owns its job's pool.
//
// Threads: every method of a ResourceManager, and every AllocationEvents callback, runs on the cluster's
// EventLoop (its strand). A manager posts what arrives on other threads (agent connections, a
// Kubernetes watch) to that loop before touching its state; it never blocks the loop.
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "api/agent_protocol.h"
#include "master/db/task_store.h"
#include "master/http/http_types.h"
#include "master/rm/scheduling_figures.h"
#include "master/rm/task_container.h"
#include "master/task/task_spec.h"
#include "scheduler/job_queue.h"
#include "scheduler/snapshot.h"

namespace det::master {

// One resource pool (config::ResourcePoolConfig, resolved).
struct PoolOptions {
  std::string name;
  std::string description;
  scheduler::SchedulerConfig scheduler;
  int max_aux_containers_per_agent = 100;
  // How long a disconnected agent of the pool keeps its tasks (agent_reconnect_wait); unset: its
  // manager's agent_reconnect_grace.
  std::optional<std::chrono::milliseconds> agent_reconnect_wait;
  // Its task_container_defaults' (its own, else the master's) for its tasks' containers.
  ContainerDefaults container_defaults;
};

struct PoolSummary {
  PoolOptions options;
  std::string cluster_name;  // of the manager that owns the pool
  bool default_compute = false;
  bool default_aux = false;
  int num_agents = 0;
  int slots_available = 0;  // slots of its enabled, connected agents (nodes)
  int slots_used = 0;
  int aux_capacity = 0;
  int aux_running = 0;
  std::string slot_type = "cpu";  // the device type of its slots (cuda when any agent has GPUs)
};

struct AgentIdentity {
  std::string id;
  std::string resource_pool;
  std::string hostname;
  std::string version;
  std::string address;  // the agent's IP as the master sees it; its tasks' rendezvous address
};

// An agent, or whatever a manager offers slots on (a Kubernetes node), as `det agent list` shows it.
struct AgentSummary {
  AgentIdentity identity;
  WallTime registered_time;
  std::vector<api::SlotInfo> slots;
  std::map<int, std::string> slot_allocations;  // slot id -> allocation id using it
  bool enabled = true;    // false: disabled; nothing new starts on it
  bool draining = false;  // disabled with drain: its running work finishes
  std::set<int> disabled_slots;  // slots disabled on their own (SetSlotEnabled)
};

// An allocation to place: its job's attributes (pool, slots, gang, priority, ...) are asked of the
// task core (AllocationEvents::JobOf) whenever the manager schedules, since they change.
struct AllocationRequest {
  std::string allocation_id;
  std::string task_id;
  int slots = 0;
};

// Where an allocation was placed: one entry a process, in rank order (the chief first).
struct Placement {
  std::string pool;
  std::vector<AgentSlots> processes;
  bool backfilled = false;  // started below a blocked priority level
};

// What every process of an allocation runs; the manager adds where the processes find each other.
struct ProcessLaunch {
  std::string task_type;  // TRIAL, COMMAND, ...
  std::vector<std::string> entrypoint;
  std::map<std::string, std::string> env;
  std::string session_token;
  bool download_context = true;
  std::optional<api::TaskUser> user;
  std::string work_dir;
  std::vector<api::TaskMount> mounts;
  int64_t workspace_id = 1;
  // The task's `environment` section (image, force_pull_image, pod_spec); null: none.
  nlohmann::json environment;
  // The task's `resources` section (shm_size, devices); null: none.
  nlohmann::json resources;
  // The task's `slurm` section (sbatch_args, gpu_type, slots_per_node); null: none.
  nlohmann::json slurm;
  // Where the work is accounted (a Slurm job's --wckey); "" where unknown.
  std::string project_name;
  std::string workspace_name;
  std::vector<std::string> labels;
};

// Where an allocation's processes find each other, in rank order (upstream's RendezvousInfo).
struct Rendezvous {
  std::vector<std::string> addresses;
  std::vector<int> slots;
};

// One job of a pool's queue as the manager's policy orders it (upstream jobv1.Job's scheduling half).
struct QueuedJobView {
  std::string job_id;
  std::string resource_pool;
  int jobs_ahead = 0;  // -1 where the policy has no order (fair share)
  int requested_slots = 0;
  int allocated_slots = 0;
  int priority = 0;  // effective: the job's own, else the pool's default
  double weight = 1;
  bool preemptible = true;
  std::string state;  // STATE_QUEUED, STATE_SCHEDULED or STATE_SCHEDULED_BACKFILLED
  // Why a queued job waits, where the manager knows ("Slurm job 12 pending: Resources"); "" otherwise.
  std::string pending_reason;
};

// The task core, as a manager sees it. Called on the cluster loop only.
class AllocationEvents {
 public:
  virtual ~AllocationEvents() = default;
  // The scheduling attributes of the job the allocation belongs to, as they are now.
  virtual JobAttributes JobOf(const std::string& allocation_id) const = 0;
  // False while nothing may start: the master shuts down, or the database is behind on new rows.
  virtual bool MayStartWork() const = 0;
  // The allocation has its resources. The task core saves the placement, then calls Start (or
  // Requeue when the placement could not be saved, or Release when the allocation ended meanwhile).
  virtual void Placed(const std::string& allocation_id, const Placement& placement) = 0;
  // The manager wants the allocation's resources back: its process is asked to checkpoint and exit
  // (preemption signal), or killed at once when `kill`. Either way it is requeued, no restart counted.
  virtual void ReclaimRequested(const std::string& allocation_id, const std::string& why, bool kill) = 0;
  virtual void ProcessStarted(const std::string& allocation_id, const std::string& where, int pid) = 0;
  // Every process of the allocation has ended (a gang: with its first failure). The manager has
  // forgotten the allocation; its resources are free.
  virtual void Exited(const std::string& allocation_id, int exit_code, ExitKind kind, const std::string& why) = 0;
  // A line for the allocation's task log ("waiting for more agents").
  virtual void Log(const std::string& allocation_id, const std::string& text) = 0;
};

class ResourceManager {
 public:
  virtual ~ResourceManager() = default;
  // upstream's cluster_name: how config errors, pools and `det master info` name the manager.
  virtual const std::string& ClusterName() const = 0;
  // Whether the manager handles a task's environment.image itself: runs the task in it (Kubernetes), or
  // has its agents do so where they have a container engine and say in the task's log where they do not.
  // False: tasks run as processes on a host, and the task core warns in the log that the image is unused.
  virtual bool HandlesImages() const { return false; }
  // Its pools as they are now (slots, agents), in name order.
  virtual std::vector<PoolSummary> Pools() const = 0;
  // InvalidArgument (naming the field) when `slots` can never fit in `pool` avoiding `blocked`; a pool
  // without agents yet may get some, so anything fits it.
  virtual absl::Status CheckFits(const std::string& pool, int slots, bool single_node,
                                 const std::set<std::string>& blocked) const = 0;

  // Queues the allocation; Placed follows when resources are found.
  virtual void Request(const AllocationRequest& request) = 0;
  // Starts the processes of a placed allocation.
  virtual void Start(const std::string& allocation_id, const ProcessLaunch& launch) = 0;
  // Kills the allocation's processes; Exited follows.
  virtual void Kill(const std::string& allocation_id) = 0;
  // A placed allocation whose start could not be saved: its resources are freed and it waits at the
  // front of the queue.
  virtual void Requeue(const std::string& allocation_id) = 0;
  // The task core is done with the allocation (it ended, or was dropped from the queue): the manager
  // forgets it, frees its resources and kills any process of it still running. No event follows.
  virtual void Release(const std::string& allocation_id) = 0;
  // Places every queued allocation it can (a no-op while AllocationEvents::MayStartWork is false).
  virtual void Schedule() = 0;
  // Its scheduling passes so far (whoever asked for them: the task core or the manager itself). A
  // manager without passes of its own to time reports none.
  virtual SchedulingFigures Scheduling() const { return {}; }

  // After a master restart: an allocation that was running (its processes are reclaimed when their
  // nodes report in), then RestoreDone once every one was handed over.
  virtual void Restore(const Allocation& record) = 0;
  virtual void RestoreDone() = 0;

  // Its pools' queues, each in the order its policy would start them.
  virtual std::vector<QueuedJobView> JobQueue() const = 0;
  // The pool's jobs in queue order, for moving one ahead of or behind another.
  virtual std::vector<scheduler::QueuedJob> QueueOrder(const std::string& pool) const = 0;
  // The host the allocation's chief process serves on (for the proxy); nullopt when not known.
  virtual std::optional<std::string> ChiefAddress(const std::string& allocation_id) const = 0;
  // Where every process of the allocation serves, once each has an address (a pod gets its IP when it
  // starts); nullopt until then, or for an allocation it does not run.
  virtual std::optional<Rendezvous> RendezvousOf(const std::string& allocation_id) const = 0;

  // Agents (or nodes) and their slots; enable and disable. A manager without agents of its own has none
  // and refuses the changes.
  virtual std::vector<AgentSummary> Agents() const = 0;
  virtual absl::StatusOr<AgentSummary> SetAgentEnabled(const std::string& agent_id, bool enabled, bool drain) = 0;
  virtual absl::StatusOr<AgentSummary> SetSlotEnabled(const std::string& agent_id, int slot_id, bool enabled,
                                                      bool drain) = 0;
  // An agent connecting to one of its pools (any thread: the manager posts to the loop). Managers that
  // run no agents refuse it, naming the pool and themselves.
  virtual absl::StatusOr<WebSocketHandlers> ConnectAgent(AgentIdentity agent,
                                                         std::shared_ptr<WebSocketConnection> connection) = 0;
};

}  // namespace det::master
