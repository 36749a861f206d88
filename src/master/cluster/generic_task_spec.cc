// Cluster::GenericTaskSpec: a generic task pauses (its process is stopped) and unpauses (queued again).
#include "absl/strings/str_cat.h"
#include "master/cluster/cluster.h"
#include "master/cluster/cluster_state.h"

namespace det::master {

void Cluster::GenericTaskSpec::SetPaused(bool paused, std::function<void(absl::Status)> done) {
  const std::string& id = task_.record.task_id;
  TaskState target = paused ? TaskState::kStoppingPaused : TaskState::kActive;
  TaskState current = task_.record.state;
  if (paused && (current == TaskState::kPaused || current == TaskState::kStoppingPaused)) return done(absl::OkStatus());
  if (!paused && current == TaskState::kActive) return done(absl::OkStatus());
  if (!CanTransition(current, target) || (!paused && current != TaskState::kPaused)) {
    return done(absl::FailedPreconditionError(
        absl::StrCat("task ", id, " is ", Name(current), "; it cannot be ", paused ? "paused" : "unpaused")));
  }
  if (!paused) {
    cluster_.RequestTaskAllocation(task_, task_.runs + 1);
    task_.record.state = TaskState::kActive;
    cluster_.SaveTask(task_.record, std::move(done));  // answered once durable
    cluster_.MasterLog(id, task_.allocation_id, absl::StrCat(Label(), " is unpaused: queued again"));
    return cluster_.Schedule();
  }
  auto a = cluster_.allocations_.find(task_.allocation_id);
  if (a == cluster_.allocations_.end() || a->second->record.placements.empty()) {
    cluster_.DropQueuedAllocation(task_);
    task_.record.state = TaskState::kPaused;
    cluster_.SaveTask(task_.record);
    cluster_.MasterLog(id, "", absl::StrCat(Label(), " is paused"));
    cluster_.Schedule();
    return done(absl::OkStatus());
  }
  task_.record.state = TaskState::kStoppingPaused;
  cluster_.SaveTask(task_.record);
  cluster_.MasterLog(id, task_.allocation_id, absl::StrCat("Pausing ", Label(), ": stopping its process"));
  cluster_.SignalPreemption(*a->second);
  done(absl::OkStatus());
}

}  // namespace det::master
