#pragma once
// `det trial logs`, `det experiment logs` and `det task logs`.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::cli {

class Session;

struct TrialLogsArgs {
  bool follow = false;
  std::optional<int> head;
  std::optional<int> tail;
  std::vector<std::string> agent_ids;
  std::vector<std::string> container_ids;
  std::vector<int> rank_ids;
  std::vector<std::string> sources;
  std::vector<std::string> stdtypes;
  std::string level;  // TRACE..CRITICAL: that level and above; "" = all
  std::string timestamp_before;
  std::string timestamp_after;
  bool json = false;  // each entry as one line of JSON, as the master sent it
};

// The TrialLogs request path with its query (`follow`, `limit`, `orderBy=ORDER_BY_DESC` for a
// tail, and the filters). InvalidArgument if more than one of head/tail/follow is set or the level
// is unknown.
absl::StatusOr<std::string> TrialLogsPath(int trial_id, const TrialLogsArgs& args);
// The same query on another logs path (TaskLogs: /api/v1/tasks/{id}/logs).
absl::StatusOr<std::string> LogsPath(std::string path, const TrialLogsArgs& args);

// Streams the logs to `out` (a tail is collected and printed oldest first), then tells on stderr
// how to reopen the stream.
absl::StatusOr<int> PrintTrialLogs(Session& session, int trial_id, const TrialLogsArgs& args,
                                   std::ostream& out);
// The same for one task (its allocation's logs; a trial's task id is "EXPERIMENT.UUID").
absl::StatusOr<int> PrintTaskLogs(Session& session, const std::string& task_id,
                                  const TrialLogsArgs& args, std::ostream& out);
// Streams `path` (from LogsPath) to `out`, then prints `ended` (how to reopen it) on stderr.
absl::StatusOr<int> PrintLogs(Session& session, const std::string& path, const TrialLogsArgs& args,
                              const std::string& ended, std::ostream& out);

struct DescribeTrialArgs {
  int trial_id = 0;
  bool metrics = false;          // --metrics: a column of the training reports' metrics
  bool metrics_summary = false;  // --metrics-summary: the trial's summaryMetrics as JSON, after
  bool json = false;
  bool csv = false;
  int limit = 1000;  // workloads per page
  int offset = 0;
  int pages = 1;  // 0 = all
};

// `det trial describe`: the trial (GET /api/v1/trials/{id}) and its workloads (GET
// /api/v1/trials/{id}/workloads, paged by limit/offset/pages). `json` prints {"trial": ...,
// "workloads": [...]} as upstream's does.
absl::StatusOr<int> DescribeTrial(Session& session, const DescribeTrialArgs& args, std::ostream& out);

// The lowest trial ID of an experiment; NotFound when it has no trials yet.
absl::StatusOr<int> FirstTrialId(Session& session, int experiment_id);

}  // namespace det::cli
