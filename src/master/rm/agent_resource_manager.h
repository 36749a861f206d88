#pragma once
// The resource manager of our own agents: they connect over the agent protocol (api/agent_protocol.h),
// offer their slots to one pool each, and run the processes the master starts on them. Each pool's
// scheduler policy (src/scheduler) places queued allocations on a snapshot of the pool; an agent that
// reconnects (or comes back after a master restart) within its grace keeps its running work.
//
// Runs on the cluster's EventLoop, as every ResourceManager (resource_manager.h).
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

namespace det::master {

struct AgentResourceManagerOptions {
  std::string cluster_name = "default";
  // Empty: one pool, "default", with the default (priority) scheduler.
  std::vector<PoolOptions> pools;
  // How long a disconnected agent's tasks are kept alive, waiting for it to reconnect, unless its
  // pool says otherwise (upstream's default).
  std::chrono::milliseconds agent_reconnect_grace{std::chrono::seconds(25)};
};

class AgentResourceManager : public ResourceManager {
 public:
  AgentResourceManager(EventLoop& loop, AllocationEvents& events, AgentResourceManagerOptions options);
  ~AgentResourceManager() override;

  const std::string& ClusterName() const override { return options_.cluster_name; }
  std::vector<PoolSummary> Pools() const override;
  bool HandlesImages() const override { return true; }  // agents with an engine run them; others say not
  absl::Status CheckFits(const std::string& pool, int slots, bool single_node,
                         const std::set<std::string>& blocked) const override;
  void Request(const AllocationRequest& request) override;
  void Start(const std::string& allocation_id, const ProcessLaunch& launch) override;
  void Kill(const std::string& allocation_id) override;
  void Requeue(const std::string& allocation_id) override;
  void Release(const std::string& allocation_id) override;
  void Schedule() override;
  SchedulingFigures Scheduling() const override { return scheduling_; }
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

 private:
  SchedulingFigures scheduling_;  // Schedule's passes (those made while work may start)
  struct AgentState;
  // An allocation this manager queued or placed.
  struct Managed {
    AllocationRequest request;
    int64_t request_order = 0;  // when it was queued (a counter)
    int64_t start_order = 0;    // when it was placed (a counter; larger = newer)
    std::string pool;           // once placed
    std::vector<AgentSlots> placements;  // once placed, rank order
    bool backfilled = false;
    bool started = false;             // Start was called (or it was restored running)
    bool infeasible_logged = false;
    std::set<std::string> running_on;  // agents whose process has not exited
    std::optional<int> exit_code;      // the first non-zero exit of its processes, else the first
    std::string exit_error;
  };

  scheduler::PoolSnapshot PoolSnapshotOf(const std::string& pool) const;
  void SchedulePool(const PoolOptions& pool);
  void Place(Managed& alloc, const std::vector<scheduler::SlotPlacement>& placements, bool backfilled,
             const std::string& pool);
  // Frees the allocation's slots on its agents.
  void FreeSlots(const Managed& alloc);
  void SendKills(const Managed& alloc);
  // Forgets the allocation, then tells the task core it ended.
  void ReportExit(const std::string& allocation_id, int exit_code, ExitKind kind, const std::string& why);
  void OnAgentMessage(const std::string& agent_id, const std::string& text);
  void OnAgentClosed(const std::string& agent_id, const std::shared_ptr<WebSocketConnection>& connection);
  void OnTaskExited(const std::string& agent_id, const api::TaskExited& exited);
  void ForgetAgent(const std::string& agent_id, const std::string& why);
  // Why an agent offering `slots` may not join `pool`: their type differs from the pool's other agents'.
  std::optional<std::string> SlotTypeConflict(const std::string& agent_id, const std::string& pool,
                                              const std::vector<api::SlotInfo>& slots) const;
  // The agent's pool's reconnect wait; the longest of all pools for an agent not yet seen again
  // since a master restart (its pool is unknown).
  std::chrono::milliseconds ReconnectWait(const AgentState& agent) const;
  AgentSummary SummaryOf(const AgentState& agent) const;
  absl::StatusOr<AgentState*> ConnectedAgent(const std::string& agent_id);
  // Asks the task core to take back (kill) the allocations on a disabled agent or slot.
  void ReclaimDisabledWork(const std::set<std::string>& allocation_ids, const std::string& why);
  std::set<std::string> AllocationsOn(const AgentState& agent) const;

  EventLoop& loop_;
  AllocationEvents& events_;
  AgentResourceManagerOptions options_;
  std::map<std::string, PoolOptions> pools_;
  std::map<std::string, std::unique_ptr<AgentState>> agents_;
  std::map<std::string, Managed> allocations_;
  std::deque<std::string> pending_;  // allocation ids waiting for slots, oldest first
  int64_t next_request_order_ = 1;
  int64_t next_start_order_ = 1;
};

}  // namespace det::master
