// Upstream's metric streams of one experiment (metric_columns.h computes them):
//   GET /api/v1/experiments/{id}/metrics-stream/batches (MetricBatches): the batches at which metricName
//     was reported, by any trial;
//   GET .../metrics-stream/trials-snapshot (TrialsSnapshot): each trial's metricName near batchesProcessed
//     (within batchesMargin);
//   GET .../metrics-stream/trials-sample (TrialsSample): up to maxTrials trials (the best by the searcher
//     metric first) with up to maxDatapoints points of metricName in [startBatches, endBatches].
// Each is NDJSON {"result": ...}: a message at once, then, every periodSeconds (default 30) until the
// experiment has ended, one with what changed as upstream sends it (metric_columns.h: new batches; a
// new snapshot; new data points and promoted or demoted trials), none when nothing did.
#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/log_stream.h"
#include "master/handlers/routes.h"
#include "master/metric_columns.h"

namespace det::master {
namespace {

using nlohmann::json;

// The stream's whole state from the experiment and its trials now.
using Compute = std::function<absl::StatusOr<json>(MasterContext&, const api::Experiment&,
                                                   const std::vector<api::Trial>&)>;
// The message that takes a client from the `previous` state (null before the first message) to `now`;
// nullopt when there is nothing to send.
using Delta = std::function<std::optional<json>(const json& now, const json& previous)>;

std::optional<json> WholeIfChanged(const json& now, const json& previous) {
  if (now == previous) return std::nullopt;
  return now;
}

class ExperimentMetricStream : public std::enable_shared_from_this<ExperimentMetricStream> {
 public:
  ExperimentMetricStream(MasterContext& ctx, int64_t id, std::chrono::seconds period, Compute compute, Delta delta,
                         ResponderPtr responder)
      : ctx_(ctx),
        id_(id),
        period_(period),
        compute_(std::move(compute)),
        delta_(std::move(delta)),
        responder_(std::move(responder)) {}

  void Start() {
    responder_->BeginStream(200, "application/json");
    ctx_.stream_loop.Post([self = shared_from_this()] { self->Pump(); });
  }

 private:
  void Pump() {
    ContinueStream(ctx_.stream_loop, responder_, Step(), period_, [self = shared_from_this()] { self->Pump(); });
  }

  // An experiment deleted meanwhile, or a failed read, ends the stream with the error.
  absl::StatusOr<StreamStep> Step() {
    ASSIGN_OR_RETURN(api::Experiment exp, ctx_.store.GetExperiment(id_));
    ASSIGN_OR_RETURN(std::vector<api::Trial> trials, ctx_.store.ListTrials(id_));
    ASSIGN_OR_RETURN(json now, compute_(ctx_, exp, trials));
    StreamStep step{.done = api::IsTerminal(exp.state)};
    if (std::optional<json> message = delta_(now, last_)) step.chunk = DumpJson(json{{"result", *message}}) + "\n";
    last_ = std::move(now);
    return step;
  }

  MasterContext& ctx_;
  int64_t id_;
  std::chrono::seconds period_;
  Compute compute_;
  Delta delta_;
  ResponderPtr responder_;
  json last_;  // the state the client has: null before the first message
};

json HparamsOf(const api::Trial& t) {
  json h = json::parse(t.hparams_json, nullptr, /*allow_exceptions=*/false);
  return h.is_object() ? h : json::object();
}

absl::StatusOr<json> Batches(MasterContext& ctx, const std::vector<api::Trial>& trials, const std::string& group,
                             const std::string& metric) {
  std::set<int64_t> all;
  for (const api::Trial& t : trials) {
    ASSIGN_OR_RETURN(std::vector<api::MetricsReport> reports, ctx.store.GetMetrics(t.id, group, BatchRange{}));
    for (int64_t b : MetricBatchesOf(reports, metric)) all.insert(b);
  }
  return json{{"batches", std::vector<int64_t>(all.begin(), all.end())}};
}

absl::StatusOr<json> Snapshot(MasterContext& ctx, const std::vector<api::Trial>& trials, const std::string& group,
                              const std::string& metric, int64_t batches, int64_t margin) {
  json out = json::array();
  for (const api::Trial& t : trials) {
    ASSIGN_OR_RETURN(std::vector<api::MetricsReport> reports, ctx.store.GetMetrics(t.id, group, BatchRange{}));
    std::optional<api::MetricsReport> r = SnapshotReport(reports, metric, batches, margin);
    if (!r) continue;
    out.push_back({{"trialId", t.id},
                   {"hparams", HparamsOf(t)},
                   {"metric", *ReportedValue(*r, metric)},
                   {"batchesProcessed", r->total_batches}});
  }
  return json{{"trials", std::move(out)}};
}

struct SampleQuery {
  std::string group;
  std::string metric;
  int64_t max_trials = 25;
  int64_t max_points = 1000;
  int64_t start = 0;
  int64_t end = 0;  // 0: no end
};

// The whole sample: {"trials": [{trialId, hparams, data}]} (SampleDelta makes the messages).
absl::StatusOr<json> Sample(MasterContext& ctx, const api::Experiment& exp, std::vector<api::Trial> trials,
                            const SampleQuery& q) {
  // The best trials by the searcher metric first (those without a value last), then by id.
  bool smaller = true;
  json config = json::parse(exp.config_json, nullptr, /*allow_exceptions=*/false);
  if (config.is_object() && config.contains("searcher") && config["searcher"].is_object()) {
    smaller = config["searcher"].value("smaller_is_better", true);
  }
  std::stable_sort(trials.begin(), trials.end(), [smaller](const api::Trial& a, const api::Trial& b) {
    if (a.searcher_metric_value.has_value() != b.searcher_metric_value.has_value()) {
      return a.searcher_metric_value.has_value();
    }
    if (a.searcher_metric_value && *a.searcher_metric_value != *b.searcher_metric_value) {
      return smaller ? *a.searcher_metric_value < *b.searcher_metric_value
                     : *a.searcher_metric_value > *b.searcher_metric_value;
    }
    return a.id < b.id;
  });
  if (q.max_trials > 0 && static_cast<int64_t>(trials.size()) > q.max_trials) trials.resize(q.max_trials);
  json out = json::array();
  for (const api::Trial& t : trials) {
    ASSIGN_OR_RETURN(std::vector<api::MetricsReport> reports, ctx.store.GetMetrics(t.id, q.group, BatchRange{}));
    int64_t end = q.end > 0 ? q.end : std::numeric_limits<int64_t>::max();
    out.push_back({{"trialId", t.id},
                   {"hparams", HparamsOf(t)},
                   {"data", SampleDataPoints(reports, q.metric, q.start, end, q.max_points)}});
  }
  return json{{"trials", std::move(out)}};
}

// The parts every one of these requests has: the experiment, the metric and its group, the period.
struct StreamRequest {
  int64_t id = 0;
  std::string metric;
  std::string group;
  std::chrono::seconds period{30};
};

absl::StatusOr<StreamRequest> ParseStreamRequest(MasterContext& ctx, const HttpRequest& req) {
  StreamRequest out;
  ASSIGN_OR_RETURN(out.id, PathId(req, "experiment_id"));
  RETURN_IF_ERROR(ctx.store.GetExperiment(out.id).status());
  out.metric = req.Query("metric_name").value_or("");
  if (out.metric.empty()) return absl::InvalidArgumentError("metricName is required, e.g. loss");
  ASSIGN_OR_RETURN(out.group, MetricGroupOf(req.Query("group").value_or(""),
                                            req.Query("metric_type").value_or("")));
  ASSIGN_OR_RETURN(int64_t period, QueryInt(req, "period_seconds", 30));
  if (period <= 0) return absl::InvalidArgumentError("periodSeconds must be > 0");
  out.period = std::chrono::seconds(period);
  return out;
}

absl::Status Stream(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r, Delta delta,
                    const std::function<absl::StatusOr<Compute>(const StreamRequest&)>& make) {
  ASSIGN_OR_RETURN(StreamRequest parsed, ParseStreamRequest(ctx, req));
  ASSIGN_OR_RETURN(Compute compute, make(parsed));
  std::make_shared<ExperimentMetricStream>(ctx, parsed.id, parsed.period, std::move(compute), std::move(delta), r)
      ->Start();
  return absl::OkStatus();
}

}  // namespace

void RegisterExperimentMetricStreamRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/experiments/{experiment_id}/metrics-stream/batches", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               ReplyIfError(r, Stream(ctx, req, r, BatchesDelta, [](const StreamRequest& s) -> absl::StatusOr<Compute> {
                 return Compute([s](MasterContext& c, const api::Experiment&, const std::vector<api::Trial>& trials) {
                   return Batches(c, trials, s.group, s.metric);
                 });
               }));
             });
  router.Add("GET", "/api/v1/experiments/{experiment_id}/metrics-stream/trials-snapshot", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               ReplyIfError(r, Stream(ctx, req, r, WholeIfChanged, [&req](const StreamRequest& s) -> absl::StatusOr<Compute> {
                 ASSIGN_OR_RETURN(int64_t batches, QueryInt(req, "batches_processed", -1));
                 if (batches < 0) return absl::InvalidArgumentError("batchesProcessed is required (>= 0)");
                 ASSIGN_OR_RETURN(int64_t margin, QueryInt(req, "batches_margin", 0));
                 if (margin < 0) return absl::InvalidArgumentError("batchesMargin must be >= 0");
                 return Compute([s, batches, margin](MasterContext& c, const api::Experiment&,
                                                     const std::vector<api::Trial>& trials) {
                   return Snapshot(c, trials, s.group, s.metric, batches, margin);
                 });
               }));
             });
  router.Add("GET", "/api/v1/experiments/{experiment_id}/metrics-stream/trials-sample", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               ReplyIfError(r, Stream(ctx, req, r, SampleDelta, [&req](const StreamRequest& s) -> absl::StatusOr<Compute> {
                 SampleQuery q{.group = s.group, .metric = s.metric};
                 ASSIGN_OR_RETURN(q.max_trials, QueryInt(req, "max_trials", 25));
                 ASSIGN_OR_RETURN(q.max_points, QueryInt(req, "max_datapoints", 1000));
                 ASSIGN_OR_RETURN(q.start, QueryInt(req, "start_batches", 0));
                 ASSIGN_OR_RETURN(q.end, QueryInt(req, "end_batches", 0));
                 if (q.max_trials <= 0 || q.max_points <= 0) {
                   return absl::InvalidArgumentError("maxTrials and maxDatapoints must be > 0");
                 }
                 return Compute([q](MasterContext& c, const api::Experiment& exp,
                                    const std::vector<api::Trial>& trials) { return Sample(c, exp, trials, q); });
               }));
             });
}

}  // namespace det::master
