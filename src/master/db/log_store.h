#pragma once
// Task log lines.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/types.h"

namespace det::master {

// Which task log lines a query returns (upstream's TaskLogs/TrialLogs filters); an empty list or an
// unset bound lets everything through.
struct TaskLogFilter {
  std::vector<std::string> agent_ids;
  std::vector<std::string> container_ids;
  std::vector<int64_t> rank_ids;
  std::vector<std::string> sources;
  std::vector<std::string> stdtypes;
  std::vector<std::string> levels;  // LOG_LEVEL_INFO, ...
  std::optional<WallTime> before;   // timestamp < before
  std::optional<WallTime> after;    // timestamp > after
  std::string search_text;          // the line contains it (no wildcards)
  bool search_is_regex = false;     // search_text is a regular expression (common/search_regex.h)
};

// The distinct values of a task's log lines (upstream's TaskLogsFields), each list sorted.
struct TaskLogFields {
  std::vector<std::string> allocation_ids;
  std::vector<std::string> agent_ids;
  std::vector<std::string> container_ids;
  std::vector<int64_t> rank_ids;
  std::vector<std::string> stdtypes;
  std::vector<std::string> sources;

  bool operator==(const TaskLogFields&) const = default;
};

class LogStore {
 public:
  virtual ~LogStore() = default;

  // Task logs: ids are assigned in insertion order.
  virtual absl::Status AddTaskLogs(const std::vector<api::TaskLog>& logs) = 0;
  // Up to `limit` lines of `task_id` that pass `filter` with id > after_id, oldest first.
  virtual absl::StatusOr<std::vector<api::TaskLog>> GetTaskLogs(const std::string& task_id,
                                                                int64_t after_id, int limit,
                                                                const TaskLogFilter& filter) = 0;
  // Up to `limit` lines of `task_id` that pass `filter` with id < before_id (0 = no bound), newest
  // first.
  virtual absl::StatusOr<std::vector<api::TaskLog>> GetTaskLogsNewestFirst(const std::string& task_id,
                                                                           int64_t before_id, int limit,
                                                                           const TaskLogFilter& filter) = 0;
  virtual absl::StatusOr<TaskLogFields> GetTaskLogFields(const std::string& task_id) = 0;

  // Log retention (upstream's log_retention_days): how many days the logs of the experiment's trials,
  // or of one trial, are kept after they end (-1: forever). NotFound when there is no such trial or
  // the experiment has none.
  virtual absl::Status SetExperimentLogRetentionDays(int64_t experiment_id, int days) = 0;
  virtual absl::Status SetTrialLogRetentionDays(int64_t trial_id, int days) = 0;
  // Deletes the log lines of the tasks that ended more than their retention's days before `now`: a
  // trial's own log_retention_days, else `default_days`; other tasks' by `default_days` alone (unset
  // or -1: kept). Returns how many lines went.
  virtual absl::StatusOr<int64_t> DeleteExpiredTaskLogs(WallTime now, std::optional<int> default_days) = 0;
};

}  // namespace det::master
