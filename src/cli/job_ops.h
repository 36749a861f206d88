#pragma once
// `det job list|update` (alias j): the job queue (reference §1e).
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "cli/experiment_view.h"
#include "cli/table.h"

namespace det::cli {

class Session;

struct ListJobsArgs {
  std::string resource_pool;  // "" = the default compute pool
  int limit = 100;            // page size
  int offset = 0;
  int pages = 1;  // 0 = all
  bool reverse = false;
  OutputFormat format = OutputFormat::kTable;
};
// GET /api/v1/job-queues-v2. Table: #, ID, Type, Job Name, Priority (Weight in a fair_share pool),
// Submitted, Slots (acquired/needed), Status, User. --json: {"jobs": [Job...]} (with
// summary.jobsAhead).
absl::StatusOr<int> ListJobs(Session& session, const ListJobsArgs& args, std::ostream& out);

// One change to one job (exactly one field set).
struct UpdateJobArgs {
  std::string job_id;
  std::optional<int> priority;
  std::optional<double> weight;
  std::optional<std::string> resource_pool;
  std::optional<std::string> ahead_of;
  std::optional<std::string> behind_of;
};
// POST /api/v1/job-queues {"updates": [QueueControl]}; prints "Updated job ID: <what>".
absl::StatusOr<int> UpdateJob(Session& session, const UpdateJobArgs& args, std::ostream& out);

// Exposed for tests: the QueueControl for `args` (InvalidArgument unless exactly one change is
// set), and the table of GetJobsV2 `jobs` (unwrapped from "full").
absl::StatusOr<nlohmann::json> QueueControl(const UpdateJobArgs& args);
Table JobTable(const nlohmann::json& jobs, bool priority_scheduler);

// A float as Python prints it: 1 -> "1.0", 2.5 -> "2.5".
std::string PythonFloat(double v);

}  // namespace det::cli
