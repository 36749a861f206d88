#include "master/rm/pool_queue.h"

#include <map>

#include "scheduler/job_queue.h"
#include "scheduler/schedule.h"

namespace det::master {

scheduler::RunningAllocation RunningRecord(const std::string& allocation_id, const JobAttributes& job, int slots,
                                           const std::vector<AgentSlots>& placements, int64_t start_order) {
  scheduler::RunningAllocation r;
  r.allocation_id = allocation_id;
  r.job_id = job.job_id;
  r.job_submission = job.submission_order;
  r.queue_position = job.queue_position;
  r.slots = slots;
  for (const AgentSlots& p : placements) r.placements.push_back({p.agent_id, p.slot_ids});
  r.preemptible = job.preemptible;
  r.priority = job.priority;
  r.weight = job.weight;
  r.max_slots = job.max_slots;
  r.start_order = start_order;
  return r;
}

scheduler::PendingRequest PendingRecord(const std::string& allocation_id, JobAttributes job, int slots,
                                        int64_t request_order) {
  scheduler::PendingRequest r;
  r.allocation_id = allocation_id;
  r.job_id = job.job_id;
  r.job_submission = job.submission_order;
  r.request_order = request_order;
  r.queue_position = job.queue_position;
  r.slots = slots;
  r.single_node = job.single_node;
  r.preemptible = job.preemptible;
  r.priority = job.priority;
  r.weight = job.weight;
  r.max_slots = job.max_slots;
  r.blocked_agents = std::move(job.blocked_agents);
  return r;
}

std::vector<QueuedJobView> QueueViews(const std::string& pool, const scheduler::SchedulerConfig& config,
                                      const scheduler::PoolSnapshot& snapshot,
                                      const std::function<bool(const std::string& allocation_id)>& backfilled) {
  std::vector<QueuedJobView> out;
  std::map<std::string, int> ahead = scheduler::JobsAhead(config, snapshot);
  for (const scheduler::QueuedJob& queued : scheduler::JobQueue(config, snapshot)) {
    QueuedJobView job;
    job.job_id = queued.job_id;
    job.resource_pool = pool;
    job.jobs_ahead = ahead.at(queued.job_id);
    bool any_backfilled = false;
    bool scheduled = false;
    for (const scheduler::RunningAllocation& r : snapshot.running) {
      if (r.job_id != queued.job_id) continue;
      job.requested_slots += r.slots;
      job.allocated_slots += r.slots;
      job.priority = scheduler::EffectivePriority(r.priority, config);
      job.weight = r.weight;
      job.preemptible = r.preemptible;
      scheduled = true;
      any_backfilled = any_backfilled || backfilled(r.allocation_id);
    }
    for (const scheduler::PendingRequest& p : snapshot.pending) {
      if (p.job_id != queued.job_id) continue;
      job.requested_slots += p.slots;
      job.priority = scheduler::EffectivePriority(p.priority, config);
      job.weight = p.weight;
      job.preemptible = p.preemptible;
    }
    job.state = !scheduled ? "STATE_QUEUED" : any_backfilled ? "STATE_SCHEDULED_BACKFILLED" : "STATE_SCHEDULED";
    out.push_back(std::move(job));
  }
  return out;
}

}  // namespace det::master
