#pragma once
// Where a task's log lines go: the master's task-log API in production (RestLogSink), a recorder in
// tests.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "agent/task_runtime.h"
#include "common/time_util.h"

namespace det::agent {

struct LogLine {
  WallTime time;
  StdType stdtype = StdType::kStdout;
  std::string text;  // without the line terminator
};

// Which task the lines belong to; repeated in every shipped entry.
struct LogMetadata {
  std::string task_id;
  std::string allocation_id;
  std::string agent_id;
  std::string container_id;  // the process's DET_CONTAINER_ID (<allocation>.<rank> in a gang)
};

class LogSink {
 public:
  virtual ~LogSink() = default;
  // Delivers one batch. An error means none of it is known to have arrived; the caller may retry.
  // Called from one thread at a time.
  virtual absl::Status Post(const std::vector<LogLine>& lines) = 0;
};

}  // namespace det::agent
