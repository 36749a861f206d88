#include "master/handlers/job_queue_request.h"
#include "master/handlers/query_request_test_util.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::master {
namespace {

using nlohmann::json;

JobInfo Job(const std::string& id, const std::string& pool, const std::string& state) {
  return JobInfo{.job_id = id, .resource_pool = pool, .state = state};
}

TEST(JobListQueryTest, ParsesAndSelects) {
  auto q = ParseJobListQuery(WithQuery({{"resourcePool", "p"},
                                        {"states", "STATE_QUEUED"},
                                        {"states", "2"},
                                        {"states", "QUEUED"},
                                        {"orderBy", "ORDER_BY_DESC"},
                                        {"offset", "1"},
                                        {"limit", "10"}}));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->resource_pool, "p");
  EXPECT_EQ(q->states, (std::vector<std::string>{"STATE_QUEUED", "STATE_SCHEDULED"}));
  EXPECT_TRUE(q->descending);
  EXPECT_EQ(q->offset, 1);
  EXPECT_EQ(q->limit, 10);
  std::vector<JobInfo> jobs = {Job("a", "p", "STATE_SCHEDULED"), Job("b", "x", "STATE_QUEUED"),
                               Job("c", "p", "STATE_SCHEDULED_BACKFILLED"),
                               Job("d", "p", "STATE_QUEUED")};
  std::vector<JobInfo> picked = SelectJobs(jobs, "p", *q);
  ASSERT_EQ(picked.size(), 2u);
  EXPECT_EQ(picked[0].job_id, "d");  // DESC: back of the queue first
  EXPECT_EQ(picked[1].job_id, "a");
  EXPECT_EQ(SelectJobs(jobs, "p", JobListQuery{}).size(), 3u);
  auto bad = ParseJobListQuery(WithQuery({{"states", "STATE_RUNNING"}}));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("STATE_RUNNING"), std::string::npos);
  EXPECT_FALSE(ParseJobListQuery(WithQuery({{"orderBy", "sideways"}})).ok());
}

TEST(JobJsonTest, UpstreamJobFields) {
  JobInfo j;
  j.job_id = "job-1";
  j.entity_id = "7";
  j.name = "mnist";
  j.username = "alice";
  j.user_id = 3;
  j.resource_pool = "default";
  j.submission_time = WallTime(std::chrono::seconds(86400));
  j.priority = 42;
  j.weight = 1.5;
  j.requested_slots = 2;
  j.allocated_slots = 1;
  j.state = "STATE_SCHEDULED";
  j.jobs_ahead = 0;
  j.progress = 0.25;
  j.workspace_id = 4;
  json out = JobJson(j);
  EXPECT_EQ(out, json::parse(R"({
    "summary": {"state": "STATE_SCHEDULED", "jobsAhead": 0},
    "type": "TYPE_EXPERIMENT", "submissionTime": "1970-01-02T00:00:00.000000Z",
    "username": "alice", "userId": 3, "resourcePool": "default", "isPreemptible": true,
    "priority": 42, "weight": 1.5, "entityId": "7", "jobId": "job-1", "requestedSlots": 2,
    "allocatedSlots": 1, "name": "mnist", "progress": 0.25, "workspaceId": 4})"));
  EXPECT_EQ(JobSummaryJson(j), out["summary"]);
}

TEST(JobJsonTest, ALimitedJobSaysWhereItStandsNotWhoseOrWhat) {
  JobInfo j{.job_id = "job-1", .entity_id = "7", .name = "secret", .username = "alice", .user_id = 3,
            .resource_pool = "default", .workspace_id = 4, .priority = 42, .requested_slots = 2};
  json limited = LimitedJobJson(j);
  EXPECT_EQ(limited, json::parse(R"({
    "summary": {"state": "", "jobsAhead": 0}, "type": "TYPE_EXPERIMENT", "resourcePool": "default",
    "isPreemptible": true, "priority": 42, "weight": 1.0, "jobId": "job-1", "requestedSlots": 2,
    "allocatedSlots": 0, "progress": 0.0, "workspaceId": 4})"));
}

TEST(QueueUpdatesTest, ParsesEveryAction) {
  auto u = ParseQueueUpdates(json::parse(R"({"updates": [
      {"jobId": "a", "priority": 10},
      {"job_id": "b", "weight": "2.5"},
      {"jobId": "c", "resourcePool": "gpu"},
      {"jobId": "d", "aheadOf": "a"},
      {"jobId": "e", "behind_of": "a"},
      {"jobId": "f", "priority": "7", "weight": null}]})"));
  ASSERT_TRUE(u.ok()) << u.status();
  ASSERT_EQ(u->size(), 6u);
  EXPECT_EQ((*u)[0].job_id, "a");
  EXPECT_EQ((*u)[0].change.priority, 10);
  EXPECT_EQ((*u)[1].change.weight, 2.5);
  EXPECT_EQ((*u)[2].change.resource_pool, "gpu");
  EXPECT_EQ((*u)[3].change.ahead_of, "a");
  EXPECT_EQ((*u)[4].change.behind_of, "a");
  EXPECT_EQ((*u)[5].change.priority, 7);
  EXPECT_FALSE((*u)[5].change.weight.has_value());
}

TEST(QueueUpdatesTest, ClearErrors) {
  auto message = [](const char* body) {
    absl::StatusOr<std::vector<QueueUpdate>> u = ParseQueueUpdates(json::parse(body));
    EXPECT_FALSE(u.ok()) << body;
    EXPECT_EQ(u.status().code(), absl::StatusCode::kInvalidArgument) << body;
    return std::string(u.status().message());
  };
  EXPECT_NE(message(R"({})").find("updates"), std::string::npos);
  EXPECT_NE(message(R"({"updates": []})").find("non-empty"), std::string::npos);
  EXPECT_NE(message(R"({"updates": [{"priority": 3}]})").find("jobId: required"),
            std::string::npos);
  EXPECT_NE(message(R"({"updates": [{"jobId": "a"}]})").find("no action for job a"),
            std::string::npos);
  EXPECT_NE(message(R"({"updates": [{"jobId": "a", "priority": 1, "weight": 2}]})")
                .find("set only one of"),
            std::string::npos);
  EXPECT_EQ(message(R"({"updates": [{"jobId": "a", "priority": 0}]})"),
            "updates[0]: priority: must be between 1 and 99 (smaller runs first), got 0");
  EXPECT_NE(message(R"({"updates": [{"jobId": "a", "priority": 100}]})").find("got 100"),
            std::string::npos);
  EXPECT_NE(
      message(R"({"updates": [{"jobId": "a", "priority": 1.5}]})").find("expected an integer"),
      std::string::npos);
  EXPECT_NE(message(R"({"updates": [{"jobId": "a", "weight": 0}]})").find("greater than 0"),
            std::string::npos);
  EXPECT_NE(message(R"({"updates": [{"jobId": "a", "aheadOf": "a"}]})").find("itself"),
            std::string::npos);
  EXPECT_NE(message(R"({"updates": [{"jobId": "a", "resourcePool": ""}]})").find("name the pool"),
            std::string::npos);
  // Several bad updates: one error naming each.
  EXPECT_EQ(message(R"({"updates": [{"jobId": "a", "weight": -1}, {"jobId": "b"}]})"),
            "encountered the following errors: updates[0]: weight: must be greater than 0, got -1, "
            "updates[1]: no action for job b: set one of priority, weight, resourcePool, aheadOf "
            "or behindOf");
}

TEST(ResourcesPatchTest, PriorityWeightMaxSlots) {
  auto none = ParseResourcesPatch(json{{"name", "x"}});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto r = ParseResourcesPatch(
      json::parse(R"({"resources": {"priority": 5, "weight": 2, "maxSlots": 4}})"));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->priority, 5);
  EXPECT_EQ((*r)->weight, 2.0);
  EXPECT_EQ((*r)->max_slots, 4);
  auto snake = ParseResourcesPatch(json::parse(R"({"resources": {"max_slots": 0}})"));
  ASSERT_TRUE(snake.ok());
  EXPECT_EQ((**snake).max_slots, 0);
  EXPECT_FALSE(ParseResourcesPatch(json::parse(R"({"resources": {"priority": 0}})")).ok());
  EXPECT_FALSE(ParseResourcesPatch(json::parse(R"({"resources": {"weight": -2}})")).ok());
  EXPECT_FALSE(ParseResourcesPatch(json::parse(R"({"resources": {"max_slots": -1}})")).ok());
  auto other = ParseResourcesPatch(json::parse(R"({"resources": {"slots_per_trial": 2}})"));
  EXPECT_NE(other.status().message().find("resources.slots_per_trial: cannot be changed"),
            std::string::npos);
  EXPECT_FALSE(ParseResourcesPatch(json::parse(R"({"resources": 3})")).ok());
}

TEST(JobAccessTest, OwnerOrAdmin) {
  JobInfo j{.job_id = "j", .username = "alice", .user_id = 2};
  EXPECT_TRUE(CheckCanModifyJob(Principal{.user_id = 2, .username = "alice"}, j).ok());
  EXPECT_TRUE(
      CheckCanModifyJob(Principal{.user_id = 9, .username = "root", .admin = true}, j).ok());
  absl::Status denied = CheckCanModifyJob(Principal{.user_id = 3, .username = "bob"}, j);
  EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(denied.message().find("bob is not the owner of job j"), std::string::npos);
  EXPECT_FALSE(
      CheckCanModifyJob(Principal{.user_id = 2, .username = "alice", .allocation_id = "x"}, j)
          .ok());
  EXPECT_EQ(FindJob({j}, "nope").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(FindJob({j}, "j").ok());
}

TEST(JobAccessTest, AStrictQueueNeedsItsPermissionToReorderOrReprioritize) {
  const Principal user{.user_id = 2, .username = "alice"};
  const Principal admin{.user_id = 1, .username = "root", .admin = true};
  const JobChange priority{.priority = 10};
  const JobChange ahead{.ahead_of = "j2"};
  const JobChange pool{.resource_pool = "other"};
  EXPECT_TRUE(CheckQueueControl(/*strict=*/false, user, priority).ok());
  for (const JobChange& c : {priority, ahead}) {
    absl::Status denied = CheckQueueControl(/*strict=*/true, user, c);
    EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
    EXPECT_NE(denied.message().find("strict_job_queue_control"), std::string::npos) << denied.message();
    EXPECT_TRUE(CheckQueueControl(/*strict=*/true, admin, c).ok()) << "basic mode: an admin";
  }
  EXPECT_TRUE(CheckQueueControl(/*strict=*/true, user, pool).ok()) << "moving to another pool is not the queue's order";
}

TEST(JoinErrorsTest, OneOrMany) {
  EXPECT_TRUE(JoinErrors({}).ok());
  EXPECT_EQ(JoinErrors({absl::NotFoundError("x")}), absl::NotFoundError("x"));
  EXPECT_EQ(JoinErrors({absl::NotFoundError("x"), absl::InvalidArgumentError("y")}),
            absl::NotFoundError("encountered the following errors: x, y"));
}

}  // namespace
}  // namespace det::master
