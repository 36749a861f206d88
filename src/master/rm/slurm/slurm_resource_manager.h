#pragma once
// The resource manager of a Slurm cluster (docs/slurm.md). Its pools are Slurm's partitions; Slurm, not
// the master, decides when and where work runs. Every allocation is placed at once (on its partition)
// and started as one batch job (sbatch): its processes are the tasks of one srun step, each running
// determined-pod-runner, which fetches the task's context, computes the rendezvous from Slurm's layout
// and ships the task's output to the master. Slurm's view of the jobs comes from polling squeue: a
// pending job's reason goes to the job queue and the task log, a running one has started, and an ended
// one's exit status comes from the file its batch script writes into the job directory
// (batch_script.h). Kill signals the job (TERM) and cancels it after a grace period.
//
// Each allocation has a directory <job_storage_root>/<allocation id> (shared with the nodes): the batch
// job's output, the tasks' working directories, the exit status, and "slurm-job-id", the id sbatch
// gave. That file is the table of submitted jobs a restarted master re-attaches by; a job submitted just
// before a crash, before its id was written, is found by its name (det-<allocation id>).
//
// Runs on the cluster's EventLoop, as every ResourceManager (resource_manager.h); Slurm's commands run on
// its own threads (submits, signals and cancels on a few workers; one poller), which post what they learn
// to the loop.
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "master/event_loop.h"
#include "master/rm/resource_manager.h"
#include "master/rm/slurm/slurm_client.h"

namespace det::master {

struct SlurmOptions {
  std::string cluster_name = "default";
  // The partitions as the master found them at its start: they are its pools (a partition made later
  // is seen after a restart). Their slots are refreshed while it runs.
  std::vector<slurm::SlurmPartition> partitions;
  std::vector<slurm::SlurmNode> nodes;
  // cuda or cpu; "" = per partition: cuda where its nodes have GPUs, else cpu. A partition's
  // partition_overrides entry wins.
  std::string slot_type;
  std::map<std::string, std::string> partition_slot_types;
  std::map<std::string, std::string> partition_descriptions;
  bool tres_supported = true;  // GPUs as --gpus-per-task (several tasks may share a node)
  bool gres_supported = true;  // else as --gres=gpu:N, one task a node
  std::string job_storage_root;
  std::string master_url;  // how jobs reach the master (DET_MASTER)
  std::string runner;      // determined-pod-runner's path on the nodes
  std::string path;        // the jobs' PATH and LD_LIBRARY_PATH; "" = sbatch's environment
  std::string ld_library_path;
  // Whom jobs run as: with sudo_authorized, the task's OS user (else user_name) through sudo -u;
  // otherwise the master's own user.
  bool sudo_authorized = false;
  std::string user_name;
  // NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME of the tasks; per partition in partition_overrides.
  std::string rendezvous_network_interface;
  std::map<std::string, std::string> partition_rendezvous_interfaces;
  // What a job's --wckey is: "" (none), project, workspace, label (the experiment's labels, joined by
  // '_'), or label:PREFIX (those starting with PREFIX, without it).
  std::string job_project_source;
  std::chrono::milliseconds poll_interval = std::chrono::seconds(1);
  std::chrono::milliseconds partitions_refresh = std::chrono::seconds(10);
  std::chrono::milliseconds kill_grace = std::chrono::seconds(10);  // from TERM to scancel
  int submit_threads = 4;
};

class SlurmResourceManager : public ResourceManager {
 public:
  SlurmResourceManager(EventLoop& loop, AllocationEvents& events, std::shared_ptr<slurm::SlurmClient> client,
                       SlurmOptions options);
  // Stops its threads; jobs in Slurm keep running (a restarted master re-attaches them).
  ~SlurmResourceManager() override;

  const std::string& ClusterName() const override { return options_.cluster_name; }
  std::vector<PoolSummary> Pools() const override;
  absl::Status CheckFits(const std::string& pool, int slots, bool single_node,
                         const std::set<std::string>& blocked) const override;
  void Request(const AllocationRequest& request) override;
  void Start(const std::string& allocation_id, const ProcessLaunch& launch) override;
  void Kill(const std::string& allocation_id) override;
  void Requeue(const std::string& allocation_id) override;
  void Release(const std::string& allocation_id) override;
  void Schedule() override;
  void Restore(const Allocation& record) override;
  void RestoreDone() override;
  std::vector<QueuedJobView> JobQueue() const override;
  std::vector<scheduler::QueuedJob> QueueOrder(const std::string& pool) const override;
  std::optional<std::string> ChiefAddress(const std::string& allocation_id) const override;
  std::optional<Rendezvous> RendezvousOf(const std::string& allocation_id) const override;
  std::vector<AgentSummary> Agents() const override;
  absl::StatusOr<AgentSummary> SetAgentEnabled(const std::string& agent_id, bool enabled, bool drain) override;
  absl::StatusOr<AgentSummary> SetSlotEnabled(const std::string& agent_id, int slot_id, bool enabled,
                                              bool drain) override;
  absl::StatusOr<WebSocketHandlers> ConnectAgent(AgentIdentity agent,
                                                 std::shared_ptr<WebSocketConnection> connection) override;

  // The --wckey of a launch per `job_project_source` ("" = none).
  static std::string Wckey(const std::string& job_project_source, const ProcessLaunch& launch);
  // The Slurm job name of an allocation.
  static std::string JobName(const std::string& allocation_id);
  // The allocation's directory under job_storage_root.
  std::string JobDir(const std::string& allocation_id) const;

 private:
  struct Shared;  // what the worker threads share with the loop (slurm_resource_manager.cc)
  struct Managed {
    AllocationRequest request;
    int64_t order = 0;
    std::string pool;
    bool placed = false;
    bool started = false;     // Start was called (or restored)
    bool submitting = false;  // sbatch runs
    std::string job_id;       // once sbatch answered (or found after a restart)
    std::string state;        // Slurm's, as last polled
    std::string reason;       // a pending job's
    std::vector<std::string> nodes;
    bool process_started = false;
    bool kill_requested = false;
    bool restored = false;
    int unknown_polls = 0;  // polls since Slurm last listed the job
    std::set<std::string> reasons_said;
  };

  std::string SlotTypeOf(const slurm::SlurmPartition& partition) const;
  int SlotsOfNode(const slurm::SlurmNode& node, const std::string& slot_type) const;
  const slurm::SlurmPartition* PartitionOf(const std::string& name) const;
  // How an allocation of `slots` splits into tasks: (tasks, slots per task).
  std::pair<int, int> Layout(const std::string& pool, int slots, const nlohmann::json& slurm_section) const;
  void Submitted(const std::string& allocation_id, absl::StatusOr<std::string> job_id);
  void Signal(Managed& alloc);
  void Cancel(const std::string& job_id);
  void ReportExit(const std::string& allocation_id, int exit_code, ExitKind kind, const std::string& why);
  // One look at Slurm, on the poller's thread: the watched jobs' states (and, for restored allocations,
  // their job ids), posted to the loop.
  void PollOnce();

  EventLoop& loop_;
  AllocationEvents& events_;
  std::shared_ptr<slurm::SlurmClient> client_;
  SlurmOptions options_;
  const WallTime started_;  // its nodes' "registered time"
  std::shared_ptr<Shared> shared_;
  std::map<std::string, Managed> allocations_;
  std::deque<std::string> pending_;
  int64_t next_order_ = 1;
};

}  // namespace det::master
