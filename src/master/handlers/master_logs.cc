// GET /api/v1/master/logs (upstream MasterLogs): the master's recent log lines as an NDJSON stream
// of {"result": {"logEntry": {id, message, timestamp, level}}}; `offset` skips entries (negative:
// only the last -offset), `limit` caps them (0: all), `follow` keeps the stream open for new lines.
#include <nlohmann/json.hpp>

#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/log_stream.h"
#include "master/handlers/routes.h"
#include "master/master_log.h"
#include "master/task/authz.h"

namespace det::master {
namespace {

constexpr size_t kMasterLogBatch = 1000;
constexpr auto kMasterLogPollInterval = std::chrono::milliseconds(200);

nlohmann::json LogEntryJson(const MasterLogEntry& e) {
  return {{"logEntry",
           {{"id", e.id}, {"message", e.message}, {"timestamp", FormatRfc3339(e.time)}, {"level", e.level}}}};
}

// Pumps entries to one client on the stream loop; a follower ends when a write fails (the client
// left), which it learns at the next line the master logs.
class MasterLogStream : public std::enable_shared_from_this<MasterLogStream> {
 public:
  MasterLogStream(MasterContext& ctx, int64_t after, int64_t limit, bool follow, ResponderPtr responder)
      : ctx_(ctx), last_id_(after), limit_(limit), follow_(follow), responder_(std::move(responder)) {}

  void Start() {
    responder_->BeginStream(200, "application/json");
    ctx_.stream_loop.Post([self = shared_from_this()] { self->Pump(); });
  }

 private:
  void Pump() {
    ContinueStream(ctx_.stream_loop, responder_, Step(), kMasterLogPollInterval,
                   [self = shared_from_this()] { self->Pump(); });
  }

  StreamStep Step() {
    size_t want = kMasterLogBatch;
    if (limit_ > 0) want = std::min<size_t>(want, static_cast<size_t>(limit_ - sent_));
    std::vector<MasterLogEntry> entries = want > 0 ? ctx_.master_log->After(last_id_, want) : std::vector<MasterLogEntry>{};
    StreamStep step;
    for (const MasterLogEntry& e : entries) {
      step.chunk += DumpJson(nlohmann::json{{"result", LogEntryJson(e)}});
      step.chunk += "\n";
      last_id_ = e.id;
      ++sent_;
    }
    step.full_batch = want > 0 && entries.size() == want;
    step.done = (limit_ > 0 && sent_ >= limit_) || (!step.full_batch && !follow_);
    return step;
  }

  MasterContext& ctx_;
  int64_t last_id_;
  const int64_t limit_;
  const bool follow_;
  ResponderPtr responder_;
  int64_t sent_ = 0;
};

absl::Status StreamMasterLogs(MasterContext& ctx, const HttpRequest& request, const ResponderPtr& r) {
  ASSIGN_OR_RETURN(int64_t offset, QueryInt(request, "offset", 0));
  ASSIGN_OR_RETURN(int64_t limit, QueryInt(request, "limit", 0));
  if (limit < 0) return absl::InvalidArgumentError("limit must be >= 0");
  RETURN_IF_ERROR(DefaultAuthz().CheckCluster(*request.principal, rbac::Permission::kViewMasterLogs,
                                              "view the master's logs"));
  if (!ctx.master_log) return absl::UnimplementedError("this master keeps no log");
  std::make_shared<MasterLogStream>(ctx, ctx.master_log->IdBeforeOffset(offset), limit, QueryBool(request, "follow"), r)
      ->Start();
  return absl::OkStatus();
}

}  // namespace

void RegisterMasterLogRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/master/logs", Access::kAuthenticated,
             [&ctx](HttpRequest& request, ResponderPtr r) { ReplyIfError(r, StreamMasterLogs(ctx, request, r)); });
}

}  // namespace det::master
