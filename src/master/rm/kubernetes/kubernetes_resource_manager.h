#pragma once
// The resource manager of a Kubernetes cluster (docs/kubernetes.md): every allocation runs as one
// batch/v1 Job of one pod per max_slots_per_pod share of its slots, made from a ConfigMap (the task's
// launch) and, for a job with a priority, its own PriorityClass. Unlike upstream, Kubernetes does not
// decide what runs: the master watches the nodes and every pod on them (its own and others'), and each
// pool's scheduler policy (src/scheduler) admits an allocation only when all of its pods fit on the nodes
// now, in priority or fair-share order, with preemption as on agents. A gang is created whole or not at
// all, so two distributed jobs can never each hold part of the cluster and wait for the rest.
//
// A node of C slots is offered to the policies as ceil(C / max_slots_per_pod) parts of at most
// max_slots_per_pod slots ("node#1", ...; the node's own name when one part): a placement on a part is
// one pod, and a gang's pods are whole parts of the same size. Placements are recorded with the node's
// name and slot ids.
//
// Runs on the cluster's EventLoop, as every ResourceManager (resource_manager.h); the Kubernetes API is
// called on its own threads (a request queue, a watch per collection, a log follower per pod), which
// post what they learn to the loop.
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/types.h"
#include "master/event_loop.h"
#include "master/rm/kubernetes/kube_api.h"
#include "master/rm/resource_manager.h"

namespace det::master {

struct KubernetesPoolOptions {
  PoolOptions pool;
  // The pool's task_container_defaults.cpu_pod_spec and gpu_pod_spec (null: none). A spec.nodeSelector
  // in them also limits which nodes the pool's scheduler sees.
  nlohmann::json cpu_pod_spec;
  nlohmann::json gpu_pod_spec;
};

struct KubernetesOptions {
  std::string cluster_name = "default";
  std::string namespace_name = "default";
  int max_slots_per_pod = 1;
  std::string slot_type = "cuda";  // cuda: a slot is an nvidia.com/gpu; cpu: cpu_per_slot CPUs
  double cpu_per_slot = 0;
  std::string master_url;  // how task pods reach the master (DET_MASTER)
  bool leave_kubernetes_resources = false;
  // Empty: one pool, "default".
  std::vector<KubernetesPoolOptions> pools;
  // The image of tasks whose environment.image names none.
  std::string default_image = "determined-task:latest";
  // What determined-container runs: the program that fetches the task's context and runs its
  // entrypoint (determined-pod-runner; it must be on the image's PATH).
  std::vector<std::string> runner_command = {"determined-pod-runner"};
  // Writes the lines task pods print into task logs; called on log-follower threads.
  std::function<void(std::vector<api::TaskLog>)> write_logs;
  // The time of the last line of pod `pod_name` already in task `task_id`'s logs, if any: a restarted
  // master follows a pod it re-adopts from there on. Called on log-follower threads; unset: from the
  // restart on.
  std::function<std::optional<WallTime>(const std::string& task_id, const std::string& pod_name)> last_log_time;
};

class KubernetesResourceManager : public ResourceManager {
 public:
  KubernetesResourceManager(EventLoop& loop, AllocationEvents& events, std::shared_ptr<kube::KubeApi> api,
                            KubernetesOptions options);
  // Stops the watches and the log followers; what runs in the cluster keeps running (a master
  // restart re-adopts it).
  ~KubernetesResourceManager() override;

  const std::string& ClusterName() const override { return options_.cluster_name; }
  bool HandlesImages() const override { return true; }
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

  // The Job (and ConfigMap) name of an allocation: "det-" and the id, as a DNS label.
  static std::string JobName(const std::string& allocation_id);

 private:
  struct Shared;  // what the API threads share with the loop (kubernetes_resource_manager.cc)
  struct Node {
    nlohmann::json labels;
    int slots = 0;             // allocatable nvidia.com/gpu, or CPUs / cpu_per_slot
    bool schedulable = true;   // Ready and not cordoned
    bool enabled = true;       // det agent enable/disable
    bool draining = false;
    WallTime seen;
  };
  struct Pod {
    std::string name;
    std::string node;
    std::string phase;
    std::string allocation_id;  // determined.ai/allocation_id, "" for pods that are not ours
    int rank = 0;
    std::string ip;
    double gpus = 0;
    double cpus = 0;
    std::optional<int> exit_code;  // determined-container's, once terminated
    std::string waiting;           // why it does not run yet ("Unschedulable: 0/2 nodes ...")
  };
  struct Managed {
    AllocationRequest request;
    int64_t request_order = 0;
    int64_t start_order = 0;
    std::string pool;
    std::vector<AgentSlots> placements;  // node names and slot ids, rank order
    bool started = false;     // Start was called (or restored)
    bool created = false;     // its Job was created (or found after a restart)
    bool deleting = false;    // its Job is to be deleted (kill, or a failed pod)
    bool delete_sent = false;
    bool restored = false;
    bool process_started = false;
    bool waiting_logged = false;
    std::set<std::string> said;             // pending reasons already in its log
    std::map<int, int> exit_codes;          // rank -> exit code of the pods that ended
    std::optional<int> first_failure;
    WallTime restored_at;                   // restored: when (its pods' logs resume from what the store has)
    int logs_following = 0;                 // its pods' log followers still reading
    bool log_drain_armed = false;           // ended: waiting (a little) for its pods' last lines
    bool log_drain_over = false;
  };

  std::vector<AgentSlots> ScheduledOn(const std::string& pool_name);
  scheduler::PoolSnapshot PoolSnapshotOf(const std::string& pool) const;
  bool NodeInPool(const Node& node, const KubernetesPoolOptions& pool) const;
  // Slots of `node` that pods the master did not start hold.
  int ForeignSlots(const std::string& node) const;
  // Our allocations' slot ids on `node`.
  std::map<int, std::string> OurSlots(const std::string& node) const;
  void SchedulePool(const KubernetesPoolOptions& pool);
  void Place(Managed& alloc, const std::vector<scheduler::SlotPlacement>& placements, bool backfilled,
             const std::string& pool);
  void SayWaiting(Managed& alloc, const std::string& pool);
  void DeleteJob(Managed& alloc, const std::string& why);
  void ReportExit(const std::string& allocation_id, int exit_code, ExitKind kind, const std::string& why);

  // What the watches report, on the loop.
  void ReplaceNodes(std::vector<nlohmann::json> items);
  void ApplyNode(const kube::WatchEvent& event);
  void ReplacePods(std::vector<nlohmann::json> items);
  void ApplyPod(const kube::WatchEvent& event);
  void UpdatePod(const nlohmann::json& object);
  void RemovePod(const std::string& key);
  void ApplyEvent(const nlohmann::json& event);
  // An allocation's pods changed: started, ended, waiting.
  void CheckAllocation(const std::string& allocation_id);
  void FollowLogs(const Pod& pod, Managed& alloc);
  void RemoveOrphans();
  AgentSummary SummaryOf(const std::string& name, const Node& node) const;
  const KubernetesPoolOptions* PoolOf(const std::string& name) const;

  EventLoop& loop_;
  AllocationEvents& events_;
  std::shared_ptr<kube::KubeApi> api_;
  KubernetesOptions options_;
  std::shared_ptr<Shared> shared_;
  std::map<std::string, Node> nodes_;
  std::map<std::string, Pod> pods_;  // "namespace/name"
  std::map<std::string, Managed> allocations_;
  std::deque<std::string> pending_;
  std::set<std::string> followed_;  // pods whose log is followed
  bool nodes_listed_ = false;
  bool pods_listed_ = false;
  bool restore_done_ = false;
  bool orphans_checked_ = false;
  int64_t next_request_order_ = 1;
  int64_t next_start_order_ = 1;
};

}  // namespace det::master
