#include "scheduler/job_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace det::scheduler {
namespace {

PendingRequest Req(std::string job, int64_t submit, std::optional<int> prio,
                   std::optional<double> position = std::nullopt) {
  PendingRequest r;
  r.allocation_id = job + ".1";
  r.job_id = job;
  r.job_submission = submit;
  r.priority = prio;
  r.queue_position = position;
  return r;
}

std::vector<std::string> Ids(const std::vector<QueuedJob>& q) {
  std::vector<std::string> out;
  for (const QueuedJob& j : q) out.push_back(j.job_id);
  return out;
}

TEST(JobQueueTest, PriorityThenPositionThenSubmission) {
  PoolSnapshot p;
  p.pending = {Req("c", 3, 42), Req("a", 1, 50), Req("b", 2, std::nullopt), Req("d", 4, 42, 0.5)};
  RunningAllocation r;
  r.allocation_id = "e.1";
  r.job_id = "e";
  r.job_submission = 0;
  r.priority = 10;
  p.running = {r};
  SchedulerConfig cfg;
  EXPECT_EQ(Ids(JobQueue(cfg, p)), (std::vector<std::string>{"e", "d", "b", "c", "a"}));
  auto ahead = JobsAhead(cfg, p);
  EXPECT_EQ(ahead["e"], 0);
  EXPECT_EQ(ahead["a"], 4);
  cfg.type = SchedulerType::kFairShare;
  EXPECT_EQ(Ids(JobQueue(cfg, p)), (std::vector<std::string>{"e", "a", "b", "c", "d"}));
  EXPECT_EQ(JobsAhead(cfg, p)["b"], -1);
  cfg.type = SchedulerType::kRoundRobin;
  EXPECT_EQ(JobsAhead(cfg, p)["b"], 2);
}

TEST(JobQueueTest, AheadOfAndBehindOf) {
  PoolSnapshot p;
  p.pending = {Req("a", 1, 42), Req("b", 2, 42), Req("c", 3, 42), Req("z", 4, 10)};
  SchedulerConfig cfg;
  auto queue = JobQueue(cfg, p);
  auto apply = [&](const std::string& job, QueueMove m) {
    for (PendingRequest& r : p.pending) {
      if (r.job_id == job) {
        r.queue_position = m.position;
        r.priority = m.priority;
      }
    }
    return Ids(JobQueue(cfg, p));
  };
  absl::StatusOr<QueueMove> m = MoveAheadOf(queue, "c", "b");
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(m->position, 1.5);
  EXPECT_EQ(apply("c", *m), (std::vector<std::string>{"z", "a", "c", "b"}));
  queue = JobQueue(cfg, p);
  m = MoveBehindOf(queue, "a", "b");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(apply("a", *m), (std::vector<std::string>{"z", "c", "b", "a"}));
  queue = JobQueue(cfg, p);
  m = MoveAheadOf(queue, "a", "z");  // takes z's priority
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->priority, 10);
  EXPECT_EQ(apply("a", *m), (std::vector<std::string>{"a", "z", "c", "b"}));
  EXPECT_EQ(MoveAheadOf(queue, "a", "a").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MoveAheadOf(queue, "a", "nope").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(MoveBehindOf(queue, "nope", "a").status().code(), absl::StatusCode::kNotFound);
}

// Random queues whose requests tie on every key but one: job ids that share their first 8 bytes
// (or differ only in bytes >= 0x80 or NULs), equal submissions, priorities and positions, several
// requests of one job. The keyed sorts must give what std::sort with the plain orders gives.
TEST(JobQueueTest, KeyedSortsMatchThePlainOrders) {
  std::mt19937 rng(1128);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::vector<std::string> jobs = {"job-1",
                                         "job-10",
                                         "job-2",
                                         "experiment-1",
                                         "experiment-12",
                                         "experiment-2",
                                         "experime",
                                         "experimen",
                                         "j",
                                         std::string("j\0", 2),
                                         std::string("j\0\0x", 4),
                                         "\xc3\xa9-job",
                                         "\x7f-job",
                                         "a1b2c3d4-e5f6-47a8-9b0c-000000000001",
                                         "a1b2c3d4-e5f6-47a8-9b0c-000000000002"};
  SchedulerConfig config;
  config.default_priority = 3;
  for (int c = 0; c < 300; ++c) {
    std::vector<PendingRequest> requests(uniform(0, 120));
    for (size_t i = 0; i < requests.size(); ++i) {
      PendingRequest& r = requests[i];
      r.job_id = jobs[uniform(0, static_cast<int>(jobs.size()) - 1)];
      r.allocation_id = r.job_id + "." + std::to_string(i);  // unique
      r.job_submission = uniform(0, 3);
      r.request_order = uniform(0, 4);
      if (uniform(0, 3) > 0) r.priority = uniform(1, 4);
      if (uniform(0, 4) == 0) r.queue_position = uniform(0, 6) / 2.0;
    }
    std::vector<const PendingRequest*> keyed, plain;
    for (const PendingRequest& r : requests) keyed.push_back(&r);
    std::shuffle(keyed.begin(), keyed.end(), rng);
    plain = keyed;
    SortByPriority(keyed, config);
    std::sort(plain.begin(), plain.end(), [&](const PendingRequest* a, const PendingRequest* b) {
      return PriorityLess(*a, *b, config);
    });
    ASSERT_EQ(keyed, plain) << "case " << c;
    SortByPriority(keyed, config);  // already in order
    ASSERT_EQ(keyed, plain) << "case " << c;
    SortBySubmission(keyed);
    std::sort(plain.begin(), plain.end(), [](const PendingRequest* a, const PendingRequest* b) {
      return SubmissionLess(*a, *b);
    });
    ASSERT_EQ(keyed, plain) << "case " << c;
    SortBySubmission(keyed);
    ASSERT_EQ(keyed, plain) << "case " << c;
  }
}

}  // namespace
}  // namespace det::scheduler
