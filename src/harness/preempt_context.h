#pragma once
// Preemption as the training loop sees it (upstream core.PreemptContext in WorkersAskChief mode).
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "harness/preemption_watcher.h"
#include "harness/worker_group.h"

namespace det::harness {

class Session;

class PreemptContext {
 public:
  // Both null means off-cluster: ShouldPreempt() is always false.
  PreemptContext(std::unique_ptr<PreemptionWatcher> watcher, std::shared_ptr<Session> session,
                 std::string allocation_id);
  // An on-cluster context watching `allocation_id` through the master at `session`.
  static std::unique_ptr<PreemptContext> ForAllocation(std::shared_ptr<Session> session,
                                                       const std::string& allocation_id);

  // With several workers, only the chief watches the master and every ShouldPreempt() is collective: the
  // chief's answer is broadcast, so all workers stop at the same step. Call before Start().
  void FollowChief(WorkerGroup* group) { group_ = group; }

  void Start();
  void Close();

  // Whether the task should checkpoint and exit. With `auto_ack`, the first true answer is
  // acknowledged to the master (POST .../signals/ack_preemption), so that exiting 0 is taken as
  // "preempted, resume later" rather than "done". An ack failure is logged, not returned.
  bool ShouldPreempt(bool auto_ack = true);
  absl::Status AcknowledgePreemptionSignal();

 private:
  bool ChiefShouldPreempt(bool auto_ack);

  std::unique_ptr<PreemptionWatcher> watcher_;
  std::shared_ptr<Session> session_;
  std::string allocation_id_;
  WorkerGroup* group_ = nullptr;  // not owned; null: a lone worker
  std::mutex mu_;
  bool ack_sent_ = false;  // guarded by mu_
};

}  // namespace det::harness
