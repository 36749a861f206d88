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

// What one poll of an NDJSON stream produced: lines to write (none when nothing changed), whether the
// stream is over, and whether it stopped at a full batch (more is ready at once).
struct StreamStep {
  std::string chunk;
  bool done = false;
  bool full_batch = false;
};

// One step of a polled NDJSON stream, every stream's (logs, log fields, master logs, metric streams):
// writes the step's chunk (if any), then ends the stream when `done`, runs `pump` again at once after
// a full batch or after `poll_interval` otherwise, and stops when the client went away. A failed step
// ends the stream with its error (EndStreamWithError: the body of every error reply, plus the fields
// upstream's client reads from a stream).
void ContinueStream(EventLoop& loop, const ResponderPtr& responder, absl::StatusOr<StreamStep> step,
                    std::chrono::milliseconds poll_interval, std::function<void()> pump);

}  // namespace det::master
