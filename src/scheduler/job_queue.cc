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

namespace {

// The first 8 bytes of `s`, big-endian, zero-padded: where two of these differ, the strings compare
// the same way (std::string compares bytes as unsigned char; a zero pad sorts a proper prefix
// first). Where they are equal, the strings may still differ further on.
uint64_t OrderPrefix(const std::string& s) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) {
    v = v << 8 | (i < s.size() ? static_cast<unsigned char>(s[i]) : 0u);
  }
  return v;
}

// A request with the leading keys of the queue orders copied beside it.
struct KeyedRequest {
  int priority = 0;
  double queue_key = 0;
  int64_t submission = 0;
  uint64_t job_prefix = 0;
  int64_t request_order = 0;
  const PendingRequest* request = nullptr;
};

// PriorityLess on the copied keys (SubmissionLess when priority and queue key are left 0), up to
// the job id's prefix: false both ways where the rest of the order decides.
bool KeyLess(const KeyedRequest& a, const KeyedRequest& b) {
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.queue_key != b.queue_key) return a.queue_key < b.queue_key;
  if (a.submission != b.submission) return a.submission < b.submission;
  return a.job_prefix < b.job_prefix;
}

// The rest of SubmissionLess (and so of PriorityLess) once the keys above are equal.
bool TieLess(const KeyedRequest& a, const KeyedRequest& b) {
  const PendingRequest &x = *a.request, &y = *b.request;
  return std::tie(x.job_id, x.request_order, x.allocation_id) <
         std::tie(y.job_id, y.request_order, y.allocation_id);
}

// Sorts a run of requests with equal keys by the rest of the order. Such a run is normally the
// requests of one job: then the job ids are compared once each, not at every comparison.
void SortRun(std::vector<KeyedRequest>::iterator begin, std::vector<KeyedRequest>::iterator end) {
  const std::string& job = begin->request->job_id;
  bool one_job =
      std::all_of(begin + 1, end, [&](const KeyedRequest& k) { return k.request->job_id == job; });
  if (!one_job) {
    std::sort(begin, end,
              [](const KeyedRequest& a, const KeyedRequest& b) { return TieLess(a, b); });
    return;
  }
  std::sort(begin, end, [](const KeyedRequest& a, const KeyedRequest& b) {
    if (a.request_order != b.request_order) return a.request_order < b.request_order;
    return a.request->allocation_id < b.request->allocation_id;
  });
}

// Sorts by the copied keys, which reads no request, then each run of equal keys by the rest of
// the order. Allocation ids are unique, so the order is total and this gives exactly what one
// std::sort with the full order gives.
void SortKeyed(std::vector<const PendingRequest*>& requests, std::vector<KeyedRequest> keyed) {
  // Lambdas, not function pointers: std::sort inlines them.
  std::sort(keyed.begin(), keyed.end(),
            [](const KeyedRequest& a, const KeyedRequest& b) { return KeyLess(a, b); });
  for (auto run = keyed.begin(); run != keyed.end();) {
    auto end =
        std::find_if(run + 1, keyed.end(), [&](const KeyedRequest& k) { return KeyLess(*run, k); });
    if (end - run > 1) SortRun(run, end);
    run = end;
  }
  for (size_t i = 0; i < keyed.size(); ++i) requests[i] = keyed[i].request;
}

}  // namespace

void SortByPriority(std::vector<const PendingRequest*>& requests, const SchedulerConfig& config) {
  // A queue kept in order costs one look at each request, not a copy and a sort (it stops at the
  // first request out of order).
  auto less = [&config](const PendingRequest* a, const PendingRequest* b) {
    return PriorityLess(*a, *b, config);
  };
  if (std::is_sorted(requests.begin(), requests.end(), less)) return;
  std::vector<KeyedRequest> keyed;
  keyed.reserve(requests.size());
  for (const PendingRequest* r : requests) {
    keyed.push_back({EffectivePriority(r->priority, config), QueueKey(*r), r->job_submission,
                     OrderPrefix(r->job_id), r->request_order, r});
  }
  SortKeyed(requests, std::move(keyed));
}

void SortBySubmission(std::vector<const PendingRequest*>& requests) {
  // Queues usually come in submission order: see SortByPriority.
  auto less = [](const PendingRequest* a, const PendingRequest* b) {
    return SubmissionLess(*a, *b);
  };
  if (std::is_sorted(requests.begin(), requests.end(), less)) return;
  std::vector<KeyedRequest> keyed;
  keyed.reserve(requests.size());
  for (const PendingRequest* r : requests) {
    keyed.push_back({0, 0, r->job_submission, OrderPrefix(r->job_id), r->request_order, r});
  }
  SortKeyed(requests, std::move(keyed));
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
