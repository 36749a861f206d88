#pragma once
// What every resource manager that schedules with our policies (src/scheduler) builds the same way: a
// pool snapshot's records of its running and queued allocations, from the task core's job attributes,
// and the pool's job queue as `det job list` shows it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "master/rm/resource_manager.h"
#include "scheduler/snapshot.h"

namespace det::master {

scheduler::RunningAllocation RunningRecord(const std::string& allocation_id, const JobAttributes& job, int slots,
                                           const std::vector<AgentSlots>& placements, int64_t start_order);
scheduler::PendingRequest PendingRecord(const std::string& allocation_id, JobAttributes job, int slots,
                                        int64_t request_order);

// The pool's jobs in the order its policy would start them; `backfilled` says which running
// allocations started below a blocked priority level.
std::vector<QueuedJobView> QueueViews(const std::string& pool, const scheduler::SchedulerConfig& config,
                                      const scheduler::PoolSnapshot& snapshot,
                                      const std::function<bool(const std::string& allocation_id)>& backfilled);

}  // namespace det::master
