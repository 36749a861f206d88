#pragma once
// The job queue endpoints' requests and replies (reference §1e), kept apart from the routes so they
// can be tested without a server: the GetJobs/GetJobsV2 query, the Job message, and
// UpdateJobQueue's QueueControl list, validated into the cluster's JobChange.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "master/cluster/cluster.h"
#include "master/http/http_types.h"

namespace det::master {

struct JobListQuery {
  std::string resource_pool;        // "" = the default compute pool
  std::vector<std::string> states;  // STATE_QUEUED, ...; empty = all
  bool descending = false;          // orderBy ORDER_BY_DESC: the queue back to front
  int64_t offset = 0;
  int64_t limit = 0;
};
// offset, limit, resourcePool, orderBy, states[] (jobv1.State by name, without the STATE_ prefix,
// or by number).
absl::StatusOr<JobListQuery> ParseJobListQuery(const HttpRequest& request);

// The jobs of `pool` (in queue order) with a state the query asks for, reversed for DESC.
std::vector<JobInfo> SelectJobs(const std::vector<JobInfo>& jobs, const std::string& pool,
                                const JobListQuery& query);

// jobv1.Job: summary {state, jobsAhead}, type TYPE_EXPERIMENT, submissionTime, username, userId,
// resourcePool, isPreemptible, priority, weight, entityId, jobId, requestedSlots, allocatedSlots,
// name, progress, workspaceId.
nlohmann::json JobJson(const JobInfo& job);
// jobv1.LimitedJob: what anyone may know of a job they may not see (GetJobsV2's `limited`): no name,
// user, entity or submission time.
nlohmann::json LimitedJobJson(const JobInfo& job);
// jobv1.JobSummary: {state, jobsAhead} (also GetExperiment's `jobSummary`).
nlohmann::json JobSummaryJson(const JobInfo& job);

// One QueueControl: the job and its change (exactly one of priority, weight, resource pool,
// aheadOf, behindOf).
struct QueueUpdate {
  std::string job_id;
  JobChange change;
};
// `{"updates": [QueueControl...]}`. Each bad update is named by its index
// ("updates[1]: priority: must be between 1 and 99, got 0"); several errors are joined.
absl::StatusOr<std::vector<QueueUpdate>> ParseQueueUpdates(const nlohmann::json& body);

// PatchExperiment's `resources` {priority, weight, max_slots|maxSlots} (null or absent = none).
absl::StatusOr<std::optional<JobChange>> ParseResourcesPatch(const nlohmann::json& body);

// OK for no errors, the error itself for one, else upstream's
// "encountered the following errors: a, b" with the first error's code.
absl::Status JoinErrors(const std::vector<absl::Status>& errors);

// Owner or admin; tasks with an allocation token may not change jobs.
absl::Status CheckCanModifyJob(const Principal& who, const JobInfo& job);

// With security.authz.strict_job_queue_control (`strict`), changing where a job stands (priority,
// weight, its place in the queue) also needs CONTROL_STRICT_JOB_QUEUE cluster-wide (basic: an admin).
absl::Status CheckQueueControl(bool strict, const Principal& who, const JobChange& change);

// The live job with `job_id`, or NotFound saying how to see the queue.
absl::StatusOr<JobInfo> FindJob(const std::vector<JobInfo>& jobs, const std::string& job_id);

}  // namespace det::master
