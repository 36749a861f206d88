#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "master/handlers/master_context.h"
#include "master/http/http_types.h"

namespace det::master {

struct LogStreamOptions {
  std::string task_id;
  int64_t trial_id = 0;  // > 0: lines rendered as TrialLogs entries; else as TaskLogs entries
  bool follow = false;
  int64_t limit = 0;     // 0 = all
};

// Streams a task's log lines as NDJSON {"result": ...}. With `follow`, keeps polling the store (timers
// on ctx.stream_loop, no sleeping thread) until the task is terminal and every line was sent, or the
// client goes away. `is_terminal` is asked on the stream loop.
void StreamTaskLogs(MasterContext& ctx, LogStreamOptions options, std::function<bool()> is_terminal,
                    ResponderPtr responder);

}  // namespace det::master
