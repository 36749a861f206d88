#include "scheduler/job_queue.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace det::scheduler
