#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "master/handlers/master_context.h"
#include "master/http/http_types.h"

namespace det::master {

struct LogStreamOptions {
  std::string task_id;
  int64_t trial_id = 0;  // > 0: lines rendered as TrialLogs entries; else as TaskLogs entries
  bool follow = false;
  int64_t limit = 0;     // 0 = all
  bool newest_first = false;  // orderBy=ORDER_BY_DESC: newest lines first, no follow
  TaskLogFilter filter;
};

// Reads `follow`, `limit`, `orderBy` (ORDER_BY_ASC/DESC/UNSPECIFIED) and the filters (agentIds,
// containerIds, rankIds, sources, stdtypes, levels, timestampBefore, timestampAfter, searchText,
// enableRegex) of a logs request; InvalidArgument names a bad one.
absl::StatusOr<LogStreamOptions> LogStreamOptionsFromRequest(const HttpRequest& request, std::string task_id,
                                                             int64_t trial_id);

// Streams a task's log lines as NDJSON {"result": ...}. With `follow`, keeps polling the store (timers
// on ctx.stream_loop, no sleeping thread) until the task is terminal and every line was sent, or the
// client goes away. `is_terminal` is asked on the stream loop.
void StreamTaskLogs(MasterContext& ctx, LogStreamOptions options, std::function<bool()> is_terminal,
                    ResponderPtr responder);

// TrialLogsFields / TaskLogsFields (`with_allocations`): the distinct agent, container, rank, stdtype and
// source values of a task's lines as one {"result": ...} line; with `follow`, a new line whenever they
// change, until the task is terminal.
void StreamTaskLogFields(MasterContext& ctx, const HttpRequest& request, std::string task_id, bool with_allocations,
                         std::function<bool()> is_terminal, ResponderPtr responder);

// One step of a polled NDJSON stream: writes `chunk` (if any), then ends the stream when `done`,
// runs `pump` again at once after a full batch or after `poll_interval` otherwise, and stops when
// the client went away.
void ContinueStream(EventLoop& loop, const ResponderPtr& responder, std::string chunk, bool done,
                    bool full_batch, std::chrono::milliseconds poll_interval, std::function<void()> pump);

}  // namespace det::master
