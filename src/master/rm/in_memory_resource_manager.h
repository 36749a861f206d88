#pragma once
// A small resource manager whose nodes and processes live in memory: tests add nodes, and make
// processes start and exit. It places queued allocations in priority order (then submission), first
// fit, a gang over several nodes when no single node holds it; with preemption on (the pool's
// scheduler), it asks for lower-priority work back, newest first. It is the second implementation the
// resource-manager contract suite (resource_manager_contract_test.cc) runs against, and the manager
// beside the agents' in the cluster tests of several managers.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "master/rm/resource_manager.h"

namespace det::master {

class InMemoryResourceManager : public ResourceManager {
 public:
  InMemoryResourceManager(AllocationEvents& events, std::string cluster_name, std::vector<PoolOptions> pools);

  // Test controls, on the loop as everything else.
  void AddNode(const std::string& pool, const std::string& node, int slots);
  // The node is gone: what ran on it ends (kAgentLost).
  void RemoveNode(const std::string& node);
  // After a restore: the node says what it still runs; the rest of what was restored on it ended.
  void ReportRunning(const std::string& node, const std::set<std::string>& allocation_ids);
  // The allocation's process on `node` exits.
  void ProcessExits(const std::string& allocation_id, const std::string& node, int exit_code);
  // Kill requests that reached nodes, as "allocation@node", in order.
  const std::vector<std::string>& kills() const { return kills_; }

  const std::string& ClusterName() const override { return cluster_name_; }
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
  void RestoreDone() override {}
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

 private:
  struct Node {
    std::string pool;
    int slots = 0;
    std::map<int, std::string> used;  // slot -> allocation
  };
  struct Managed {
    AllocationRequest request;
    int64_t order = 0;
    std::string pool;
    std::vector<AgentSlots> placements;
    bool started = false;
    bool reclaim_asked = false;
    bool waiting_logged = false;
    std::set<std::string> running_on;
    std::optional<int> exit_code;
  };

  std::vector<const Managed*> PendingInOrder(const std::string& pool) const;
  // Free slots per node of the pool, avoiding `blocked`.
  std::map<std::string, std::vector<int>> FreeSlots(const std::string& pool, const std::set<std::string>& blocked) const;
  // Where `slots` go: one node when it can hold them (or single_node), else a gang, biggest nodes first.
  static std::optional<std::vector<AgentSlots>> Fit(std::map<std::string, std::vector<int>> free, int slots,
                                                    bool single_node);
  int Capacity(const std::string& pool) const;
  void Place(Managed& alloc, std::vector<AgentSlots> placements);
  // Asks for lower-priority work back, newest first, until `slots` would be free.
  void AskForSlots(const std::string& pool, int slots, int priority);
  void FreeSlotsOf(const Managed& alloc);
  void ReportExit(const std::string& allocation_id, int exit_code, ExitKind kind, const std::string& why);
  int PriorityOf(const JobAttributes& job, const std::string& pool) const;

  AllocationEvents& events_;
  std::string cluster_name_;
  std::map<std::string, PoolOptions> pools_;
  std::map<std::string, Node> nodes_;
  std::map<std::string, Managed> allocations_;
  std::vector<std::string> kills_;
  int64_t next_order_ = 1;
};

}  // namespace det::master
