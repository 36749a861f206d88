#pragma once
// Job queue ordering (reference §6.1, §6.3 "JobsAhead"): the order in which the policies consider
// jobs and requests, and the helpers behind `det job update --ahead-of/--behind-of` (supported
// here, unlike upstream 0.38).
//
// A job's queue key is its queue position if one was set, else its submission order. The priority
// queue orders by (priority, queue key, submission, job id); requests of a job then by
// (request order, allocation id). fair_share and round_robin order by (submission, job id).
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/snapshot.h"

namespace det::scheduler {

int EffectivePriority(const std::optional<int>& priority, const SchedulerConfig& config);
double QueueKey(const PendingRequest& request);
double QueueKey(const RunningAllocation& allocation);

// Strict weak orders over pending requests.
bool SubmissionLess(const PendingRequest& a,
                    const PendingRequest& b);  // (submission, job, request)
bool PriorityLess(const PendingRequest& a, const PendingRequest& b, const SchedulerConfig& config);

// Sort by PriorityLess / SubmissionLess: the same order as std::sort with them (allocation ids
// are unique, so the order is total). Each request's leading keys are read once into a compact
// array first: sorting a long queue then touches that array, not the scattered requests at every
// comparison (memory bound otherwise).
void SortByPriority(std::vector<const PendingRequest*>& requests, const SchedulerConfig& config);
void SortBySubmission(std::vector<const PendingRequest*>& requests);

struct QueuedJob {
  std::string job_id;
  int priority = 0;
  double position = 0;  // queue key
  int64_t submission = 0;
};

// Every job with a pending request or a running allocation in the pool, in queue order for the
// configured policy (fair_share and round_robin: submission order).
std::vector<QueuedJob> JobQueue(const SchedulerConfig& config, const PoolSnapshot& pool);

// job id -> number of jobs ahead of it in JobQueue; -1 for every job under fair_share (upstream).
std::map<std::string, int> JobsAhead(const SchedulerConfig& config, const PoolSnapshot& pool);

// The queue position (and priority) that puts `job` just before / just after `anchor` in `queue`
// (a JobQueue result): the midpoint between the anchor and its neighbour of the same priority, or
// the anchor's position -/+ 1 at the edge of its priority. The job takes the anchor's priority.
struct QueueMove {
  double position = 0;
  int priority = 0;
};
absl::StatusOr<QueueMove> MoveAheadOf(const std::vector<QueuedJob>& queue, const std::string& job,
                                      const std::string& anchor);
absl::StatusOr<QueueMove> MoveBehindOf(const std::vector<QueuedJob>& queue, const std::string& job,
                                       const std::string& anchor);

}  // namespace det::scheduler
