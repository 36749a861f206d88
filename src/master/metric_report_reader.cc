#include "master/metric_report_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/time_util.h"

namespace det::master {
namespace {

namespace dom = simdjson::dom;

// The field spelled `snake` or `camel`, when present and not null.
std::optional<dom::element> ReportField(const dom::object& object, std::string_view snake, std::string_view camel) {
  for (std::string_view key : {snake, camel}) {
    dom::element found;
    if (object.at_key(key).get(found) == simdjson::SUCCESS && !found.is_null()) return found;
  }
  return std::nullopt;
}

// An int64 given as a JSON number or a decimal string; `what` names the field in the error.
absl::StatusOr<int64_t> ReadWireInt64(const dom::element& value, std::string_view what) {
  int64_t i = 0;
  if (value.get_int64().get(i) == simdjson::SUCCESS) return i;
  double d = 0;
  if (value.is_double() && value.get_double().get(d) == simdjson::SUCCESS && std::trunc(d) == d &&
      std::abs(d) < 9.2e18) {
    return static_cast<int64_t>(d);
  }
  std::string_view text;
  if (value.get_string().get(text) == simdjson::SUCCESS && absl::SimpleAtoi(absl::string_view(text.data(), text.size()), &i)) return i;
  return absl::InvalidArgumentError(absl::StrCat(std::string(what), ": must be an integer, got ", simdjson::to_string(value)));
}

// `key` as a JSON string: as it was read when it needs no escapes (the usual case), else escaped.
void AppendKey(std::string& json, std::string_view key) {
  bool plain = std::none_of(key.begin(), key.end(), [](char c) {
    return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
  });
  if (plain) {
    absl::StrAppend(&json, "\"", absl::string_view(key.data(), key.size()), "\"");
  } else {
    json += nlohmann::json(std::string(key)).dump();
  }
}

// avgMetrics' points, in order, and the object written out minified into `json`. Numbers are
// written from their values (integers as integers, doubles shortest round-trip by std::to_chars,
// cheaper than re-serializing the element); other values as simdjson writes them.
std::vector<MetricPoint> ReadAvgMetrics(const dom::object& avg, std::string& json) {
  std::vector<MetricPoint> points;
  points.reserve(avg.size());
  json.clear();
  json.reserve(avg.size() * 24 + 2);
  json += '{';
  for (dom::key_value_pair field : avg) {
    if (json.size() > 1) json += ',';
    AppendKey(json, field.key);
    json += ':';
    MetricPoint& point = points.emplace_back();
    point.name = std::string(field.key);
    int64_t integer = 0;
    uint64_t large = 0;
    double number = 0;
    if (field.value.get_int64().get(integer) == simdjson::SUCCESS) {
      point.number = static_cast<double>(integer);
      absl::StrAppend(&json, integer);
    } else if (field.value.get_uint64().get(large) == simdjson::SUCCESS) {
      point.number = static_cast<double>(large);
      absl::StrAppend(&json, large);
    } else if (field.value.get_double().get(number) == simdjson::SUCCESS) {
      point.number = number;
      char text[32];
      json.append(text, std::to_chars(text, text + sizeof text, number).ptr);
    } else {
      point.other_json = simdjson::to_string(field.value);
      json += point.other_json;
    }
  }
  json += '}';
  return points;
}

absl::StatusOr<ReadReport> ReadReportBody(const dom::element& body, int64_t trial_id, std::string_view where) {
  dom::object top;
  if (body.get_object().get(top) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(where), " must be a JSON object"));
  }
  dom::object metrics;
  std::optional<dom::element> metrics_field = ReportField(top, "metrics", "metrics");
  if (!metrics_field || metrics_field->get_object().get(metrics) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("metrics is required");
  }
  ReadReport out;
  api::MetricsReport& r = out.report;
  r.trial_id = trial_id;
  if (auto id = ReportField(metrics, "trial_id", "trialId")) {
    ASSIGN_OR_RETURN(int64_t body_id, ReadWireInt64(*id, "metrics.trialId"));
    if (body_id != trial_id) {
      return absl::InvalidArgumentError(absl::StrCat("metrics.trialId ", body_id, " does not match the path's ", trial_id));
    }
  }
  if (auto run = ReportField(metrics, "trial_run_id", "trialRunId")) {
    ASSIGN_OR_RETURN(int64_t run_id, ReadWireInt64(*run, "metrics.trialRunId"));
    r.trial_run_id = static_cast<int>(run_id);
  }
  if (auto steps = ReportField(metrics, "steps_completed", "stepsCompleted")) {
    ASSIGN_OR_RETURN(r.total_batches, ReadWireInt64(*steps, "metrics.stepsCompleted"));
  }
  r.end_time = std::chrono::system_clock::now();
  if (auto time = ReportField(metrics, "report_time", "reportTime")) {
    std::string_view text;
    if (time->get_string().get(text) != simdjson::SUCCESS) {
      return absl::InvalidArgumentError("metrics.reportTime: must be an RFC 3339 time string");
    }
    if (!text.empty()) {
      ASSIGN_OR_RETURN(r.end_time, ParseRfc3339(std::string(text)));
    }
  }
  dom::object inner;
  dom::object avg;
  std::optional<dom::element> inner_field = ReportField(metrics, "metrics", "metrics");
  std::optional<dom::element> avg_field;
  if (inner_field && inner_field->get_object().get(inner) == simdjson::SUCCESS) {
    avg_field = ReportField(inner, "avg_metrics", "avgMetrics");
  }
  if (!avg_field || avg_field->get_object().get(avg) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("metrics.metrics.avgMetrics is required and must be an object");
  }
  out.avg_metrics = ReadAvgMetrics(avg, r.metrics_json);
  dom::array batch;
  std::optional<dom::element> batch_field = ReportField(inner, "batch_metrics", "batchMetrics");
  // Absent, null and [] are all stored as null: upstream's master keeps a proto repeated field, which
  // cannot tell them apart, and its metric streams show null for all three.
  bool has_batches = batch_field && batch_field->get_array().get(batch) == simdjson::SUCCESS && batch.size() > 0;
  r.batch_metrics_json = has_batches ? std::string(simdjson::to_string(batch)) : "null";
  r.group = "training";
  if (auto group = ReportField(top, "group", "group")) {
    std::string_view text;
    if (group->get_string().get(text) != simdjson::SUCCESS) return absl::InvalidArgumentError("group: must be a string");
    if (!text.empty()) r.group = std::string(text);
  }
  if (r.group.find('.') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("group \"", r.group, "\" must not contain '.'"));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<ReadReport>> ReadMetricReports(std::string_view body, int64_t trial_id, bool batch,
                                                          size_t max_reports) {
  thread_local dom::parser parser;  // keeps its buffers from one request to the next
  dom::element root;
  if (simdjson::error_code error = parser.parse(body.data(), body.size()).get(root)) {
    return absl::InvalidArgumentError(absl::StrCat("request body: not valid JSON (", simdjson::error_message(error), ")"));
  }
  std::vector<ReadReport> out;
  if (!batch) {
    ASSIGN_OR_RETURN(ReadReport one, ReadReportBody(root, trial_id, "request body"));
    out.push_back(std::move(one));
    return out;
  }
  dom::object top;
  dom::array reports;
  std::optional<dom::element> reports_field;
  if (root.get_object().get(top) == simdjson::SUCCESS) reports_field = ReportField(top, "reports", "reports");
  if (!reports_field || reports_field->get_array().get(reports) != simdjson::SUCCESS || reports.size() == 0 ||
      reports.size() > max_reports) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reports: must be a list of 1 to ", max_reports,
        " bodies of POST /api/v1/trials/{trialId}/metrics ({\"metrics\": ..., \"group\": ...})"));
  }
  out.reserve(reports.size());
  size_t i = 0;
  for (dom::element report : reports) {
    absl::StatusOr<ReadReport> one = ReadReportBody(report, trial_id, "a report");
    if (!one.ok()) return absl::Status(one.status().code(), absl::StrCat("reports[", i, "]: ", one.status().message()));
    out.push_back(std::move(*one));
    ++i;
  }
  return out;
}

}  // namespace det::master
