#include "scheduler/job_queue.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <unordered_map>

#include "absl/strings/str_cat.h"

namespace det::scheduler {

int EffectivePriority(const std::optional<int>& priority, const SchedulerConfig& config) {
  return priority.value_or(config.default_priority);
}

double QueueKey(const PendingRequest& r) {
  return r.queue_position.value_or(static_cast<double>(r.job_submission));
}

double QueueKey(const RunningAllocation& a) {
  return a.queue_position.value_or(static_cast<double>(a.job_submission));
}

bool SubmissionLess(const PendingRequest& a, const PendingRequest& b) {
  return std::tie(a.job_submission, a.job_id, a.request_order, a.allocation_id) <
         std::tie(b.job_submission, b.job_id, b.request_order, b.allocation_id);
}

bool PriorityLess(const PendingRequest& a, const PendingRequest& b, const SchedulerConfig& config) {
  int pa = EffectivePriority(a.priority, config), pb = EffectivePriority(b.priority, config);
  if (pa != pb) return pa < pb;
  double ka = QueueKey(a), kb = QueueKey(b);
  if (ka != kb) return ka < kb;
  return SubmissionLess(a, b);
}

std::vector<QueuedJob> JobQueue(const SchedulerConfig& config, const PoolSnapshot& pool) {
  std::vector<QueuedJob> jobs;
  std::unordered_map<std::string, size_t> seen;
  auto add = [&](const std::string& id, const std::optional<int>& prio, double key,
                 int64_t submission) {
    if (seen.count(id)) return;
    seen[id] = jobs.size();
    jobs.push_back({id, EffectivePriority(prio, config), key, submission});
  };
  for (const PendingRequest& r : pool.pending)
    add(r.job_id, r.priority, QueueKey(r), r.job_submission);
  for (const RunningAllocation& a : pool.running)
    add(a.job_id, a.priority, QueueKey(a), a.job_submission);
  bool by_priority = config.type == SchedulerType::kPriority;
  std::sort(jobs.begin(), jobs.end(), [by_priority](const QueuedJob& a, const QueuedJob& b) {
    if (by_priority) {
      return std::tie(a.priority, a.position, a.submission, a.job_id) <
             std::tie(b.priority, b.position, b.submission, b.job_id);
    }
    return std::tie(a.submission, a.job_id) < std::tie(b.submission, b.job_id);
  });
  return jobs;
}

std::map<std::string, int> JobsAhead(const SchedulerConfig& config, const PoolSnapshot& pool) {
  std::map<std::string, int> out;
  std::vector<QueuedJob> queue = JobQueue(config, pool);
  for (size_t i = 0; i < queue.size(); ++i) {
    out[queue[i].job_id] = config.type == SchedulerType::kFairShare ? -1 : static_cast<int>(i);
  }
  return out;
}

namespace {

absl::StatusOr<QueueMove> Move(const std::vector<QueuedJob>& queue, const std::string& job,
                               const std::string& anchor, bool ahead) {
  if (job == anchor) {
    return absl::InvalidArgumentError(
        absl::StrCat("job ", job, " cannot be moved relative to itself"));
  }
  std::vector<QueuedJob> others;
  bool found_job = false;
  for (const QueuedJob& q : queue) {
    if (q.job_id == job) {
      found_job = true;
    } else {
      others.push_back(q);
    }
  }
  if (!found_job) return absl::NotFoundError(absl::StrCat("job ", job, " is not in the queue"));
  auto it = std::find_if(others.begin(), others.end(),
                         [&](const QueuedJob& q) { return q.job_id == anchor; });
  if (it == others.end())
    return absl::NotFoundError(absl::StrCat("job ", anchor, " is not in the queue"));
  const QueuedJob& a = *it;
  QueueMove move{0, a.priority};
  if (ahead) {
    bool has_prev = it != others.begin() && std::prev(it)->priority == a.priority;
    move.position = has_prev ? (std::prev(it)->position + a.position) / 2 : a.position - 1;
    if (move.position >= a.position) move.position = std::nextafter(a.position, -1e300);
  } else {
    auto next = std::next(it);
    bool has_next = next != others.end() && next->priority == a.priority;
    move.position = has_next ? (a.position + next->position) / 2 : a.position + 1;
    if (move.position <= a.position) move.position = std::nextafter(a.position, 1e300);
  }
  return move;
}

}  // namespace

absl::StatusOr<QueueMove> MoveAheadOf(const std::vector<QueuedJob>& queue, const std::string& job,
                                      const std::string& anchor) {
  return Move(queue, job, anchor, true);
}

absl::StatusOr<QueueMove> MoveBehindOf(const std::vector<QueuedJob>& queue, const std::string& job,
                                       const std::string& anchor) {
  return Move(queue, job, anchor, false);
}

}  // namespace det::scheduler
