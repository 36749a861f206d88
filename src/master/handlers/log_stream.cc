#include "master/handlers/log_stream.h"

#include <nlohmann/json.hpp>

#include "common/json_yaml.h"
#include "common/search_regex.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/types_json.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/master_log.h"
#include "api/wire.h"

namespace det::master {
namespace {


constexpr int kBatch = 1000;
constexpr auto kPollInterval = std::chrono::milliseconds(200);
constexpr auto kFieldsPollInterval = std::chrono::seconds(1);

class LogStream : public std::enable_shared_from_this<LogStream> {
 public:
  LogStream(MasterContext& ctx, LogStreamOptions options, std::function<bool()> is_terminal, ResponderPtr responder)
      : ctx_(ctx), options_(std::move(options)), is_terminal_(std::move(is_terminal)), responder_(std::move(responder)) {}

  void Start() {
    responder_->BeginStream(200, "application/json");
    ctx_.stream_loop.Post([self = shared_from_this()] { self->Pump(); });
  }

 private:
  void Pump() {
    // With nothing to write the poll goes on until the task ends, even if the client left: bounded.
    ContinueStream(ctx_.stream_loop, responder_, Step(), kPollInterval, [self = shared_from_this()] { self->Pump(); });
  }

  absl::StatusOr<StreamStep> Step() {
    // Ask before reading: lines written before the task turned terminal are then all in this read.
    bool terminal = options_.follow && is_terminal_();
    int want = kBatch;
    if (options_.limit > 0) want = static_cast<int>(std::min<int64_t>(kBatch, options_.limit - sent_));
    std::vector<api::TaskLog> logs;
    if (want > 0) {
      ASSIGN_OR_RETURN(logs, options_.newest_first
                                 ? ctx_.store.GetTaskLogsNewestFirst(options_.task_id, last_id_, want, options_.filter)
                                 : ctx_.store.GetTaskLogs(options_.task_id, last_id_, want, options_.filter));
    }
    StreamStep step;
    for (const api::TaskLog& l : logs) {
      nlohmann::json entry = options_.trial_id > 0 ? api::TrialLogJson(l, options_.trial_id) : api::TaskLogJson(l);
      step.chunk += DumpJson(nlohmann::json{{"result", entry}});
      step.chunk += "\n";
      last_id_ = l.id;
      ++sent_;
    }
    step.full_batch = static_cast<int>(logs.size()) == want && want > 0;
    bool limit_reached = options_.limit > 0 && sent_ >= options_.limit;
    step.done = limit_reached || (!step.full_batch && (!options_.follow || terminal));
    return step;
  }

  MasterContext& ctx_;
  LogStreamOptions options_;
  std::function<bool()> is_terminal_;
  ResponderPtr responder_;
  int64_t last_id_ = 0;
  int64_t sent_ = 0;
};

nlohmann::json TaskLogFieldsJson(const TaskLogFields& fields, bool with_allocations) {
  nlohmann::json j = {{"agentIds", fields.agent_ids},   {"containerIds", fields.container_ids},
                      {"rankIds", fields.rank_ids},     {"stdtypes", fields.stdtypes},
                      {"sources", fields.sources}};
  if (with_allocations) j["allocationIds"] = fields.allocation_ids;
  return j;
}

class LogFieldsStream : public std::enable_shared_from_this<LogFieldsStream> {
 public:
  LogFieldsStream(MasterContext& ctx, std::string task_id, bool with_allocations, bool follow,
                  std::function<bool()> is_terminal, ResponderPtr responder)
      : ctx_(ctx),
        task_id_(std::move(task_id)),
        with_allocations_(with_allocations),
        follow_(follow),
        is_terminal_(std::move(is_terminal)),
        responder_(std::move(responder)) {}

  void Start() {
    responder_->BeginStream(200, "application/json");
    ctx_.stream_loop.Post([self = shared_from_this()] { self->Pump(); });
  }

 private:
  void Pump() {
    ContinueStream(ctx_.stream_loop, responder_, Step(), kFieldsPollInterval,
                   [self = shared_from_this()] { self->Pump(); });
  }

  // A failed read ends the stream with its error; the client asks again.
  absl::StatusOr<StreamStep> Step() {
    bool terminal = follow_ && is_terminal_();
    ASSIGN_OR_RETURN(TaskLogFields fields, ctx_.store.GetTaskLogFields(task_id_));
    StreamStep step{.done = !follow_ || terminal};
    if (fields != last_sent_) {
      step.chunk = DumpJson(nlohmann::json{{"result", TaskLogFieldsJson(fields, with_allocations_)}}) + "\n";
      last_sent_ = std::move(fields);
    }
    return step;
  }

  MasterContext& ctx_;
  std::string task_id_;
  bool with_allocations_;
  bool follow_;
  std::function<bool()> is_terminal_;
  ResponderPtr responder_;
  std::optional<TaskLogFields> last_sent_;
};

}  // namespace

absl::StatusOr<LogStreamOptions> LogStreamOptionsFromRequest(const HttpRequest& request, std::string task_id,
                                                             int64_t trial_id) {
  LogStreamOptions options{.task_id = std::move(task_id), .trial_id = trial_id, .follow = QueryBool(request, "follow")};
  ASSIGN_OR_RETURN(options.limit, QueryInt(request, "limit", 0));
  if (options.limit < 0) return absl::InvalidArgumentError("limit must be >= 0");
  ASSIGN_OR_RETURN(options.newest_first, QueryOrderDescending(request));
  if (options.newest_first) options.follow = false;
  TaskLogFilter& f = options.filter;
  f.agent_ids = request.QueryAll("agent_ids");
  f.container_ids = request.QueryAll("container_ids");
  f.sources = request.QueryAll("sources");
  f.stdtypes = request.QueryAll("stdtypes");
  f.search_text = request.Query("search_text").value_or("");
  ASSIGN_OR_RETURN(std::optional<bool> regex, QueryOptionalBool(request, "enable_regex"));
  f.search_is_regex = regex.value_or(false) && !f.search_text.empty();
  if (f.search_is_regex) {
    if (absl::Status st = CompileSearchRegex(f.search_text).status(); !st.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("searchText: ", st.message()));
    }
  }
  for (const std::string& raw : request.QueryAll("rank_ids")) {
    int64_t rank;
    if (!absl::SimpleAtoi(raw, &rank)) {
      return absl::InvalidArgumentError(absl::StrCat("rankIds: \"", raw, "\" is not an integer"));
    }
    f.rank_ids.push_back(rank);
  }
  for (const std::string& level : request.QueryAll("levels")) {
    if (!IsLogLevelName(level)) {
      return absl::InvalidArgumentError(absl::StrCat("levels: \"", level, "\" is not one of ",
                                                     absl::StrJoin(kLogLevelNames, ", ")));
    }
    f.levels.push_back(level);
  }
  struct Bound {
    const char* query;  // snake_case; the error names the lowerCamelCase form
    const char* name;
    std::optional<WallTime>* value;
  };
  for (const Bound& b : {Bound{"timestamp_before", "timestampBefore", &f.before},
                         Bound{"timestamp_after", "timestampAfter", &f.after}}) {
    if (std::optional<std::string> raw = request.Query(b.query)) {
      absl::StatusOr<WallTime> t = ParseRfc3339(*raw);
      if (!t.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(b.name, ": \"", *raw, "\" is not an RFC 3339 time (e.g. 2021-10-26T23:17:12Z)"));
      }
      *b.value = *t;
    }
  }
  return options;
}

void ContinueStream(EventLoop& loop, const ResponderPtr& responder, absl::StatusOr<StreamStep> step,
                    std::chrono::milliseconds poll_interval, std::function<void()> pump) {
  if (!step.ok()) return EndStreamWithError(responder, step.status());
  auto next = [&loop, responder, done = step->done, full_batch = step->full_batch, poll_interval,
               pump = std::move(pump)](bool ok) {
    if (!ok) return;  // the client went away
    if (done) return responder->EndStream();
    if (full_batch) return loop.Post(pump);
    loop.PostAfter(poll_interval, pump);
  };
  if (step->chunk.empty()) return next(true);
  responder->WriteChunk(std::move(step->chunk), std::move(next));
}

void StreamTaskLogs(MasterContext& ctx, LogStreamOptions options, std::function<bool()> is_terminal,
                    ResponderPtr responder) {
  std::make_shared<LogStream>(ctx, std::move(options), std::move(is_terminal), std::move(responder))->Start();
}

void StreamTaskLogFields(MasterContext& ctx, const HttpRequest& request, std::string task_id, bool with_allocations,
                         std::function<bool()> is_terminal, ResponderPtr responder) {
  auto stream = std::make_shared<LogFieldsStream>(ctx, std::move(task_id), with_allocations,
                                                  QueryBool(request, "follow"), std::move(is_terminal),
                                                  std::move(responder));
  stream->Start();
}

}  // namespace det::master
