#include "api/types_json.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "api/wire.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::api {
namespace {

using nlohmann::json;

json ParsedOr(const std::string& text, json fallback) {
  if (text.empty()) return fallback;
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? fallback : j;
}

json TimeOrNull(const std::optional<WallTime>& t) {
  return t ? json(FormatRfc3339(*t)) : json(nullptr);
}

// checkpoint `resources` map values are int64 -> strings on the wire.
json ResourcesJson(const std::string& text) {
  json in = ParsedOr(text, json::object());
  json out = json::object();
  for (const auto& [k, v] : in.items()) {
    out[k] = v.is_number_integer() ? Int64(v.get<int64_t>()) : v;
  }
  return out;
}

}  // namespace

std::string StateEnumName(const std::string& state) { return absl::StrCat("STATE_", state); }
std::string StateEnumName(ExperimentState state) { return absl::StrCat("STATE_", Name(state)); }
std::string StateEnumName(TrialState state) { return absl::StrCat("STATE_", Name(state)); }

json ToJson(const User& u) {
  return {{"id", u.id},
          {"username", u.username},
          {"admin", u.admin},
          {"active", u.active},
          {"agentUserGroup", ParsedOr(u.agent_user_group_json, json(nullptr))},
          {"displayName", u.display_name},
          {"modifiedAt", FormatRfc3339(u.modified_at)},
          {"remote", false}};
}

json ToJson(const Experiment& e) {
  json config = ParsedOr(e.config_json, json::object());
  json hparams = config.contains("hyperparameters") ? config["hyperparameters"] : json::object();
  return {{"id", e.id},
          {"description", e.description},
          {"labels", e.labels},
          {"startTime", FormatRfc3339(e.start_time)},
          {"endTime", TimeOrNull(e.end_time)},
          {"state", e.display_state.empty() ? StateEnumName(e.state) : StateEnumName(e.display_state)},
          {"archived", e.archived},
          {"numTrials", e.trial_ids.size()},
          {"trialIds", e.trial_ids},
          {"displayName", e.username},
          {"userId", e.owner_id},
          {"username", e.username},
          {"resourcePool", e.resource_pool},
          {"searcherType", e.searcher_type},
          {"searcherMetric", e.searcher_metric},
          {"hyperparameters", hparams},
          {"name", e.name},
          {"notes", e.notes},
          {"jobId", e.job_id},
          {"forkedFrom", nullptr},
          {"progress", e.progress},
          {"projectId", e.project_id},
          {"projectName", e.project_name},
          {"workspaceId", e.workspace_id},
          {"workspaceName", e.workspace_name},
          {"parentArchived", e.parent_archived},
          {"config", config},
          {"originalConfig", e.original_config},
          {"projectOwnerId", e.project_owner_id},
          {"checkpointSize", Int64(e.checkpoint_size)},
          {"checkpointCount", e.checkpoint_count},
          {"unmanaged", false},
          {"modelDefinitionSize", e.model_definition_size}};
}

json ToJson(const Trial& t) {
  json j = {{"id", t.id},
            {"experimentId", t.experiment_id},
            {"startTime", FormatRfc3339(t.start_time)},
            {"endTime", TimeOrNull(t.end_time)},
            {"state", t.display_state.empty() ? StateEnumName(t.state) : StateEnumName(t.display_state)},
            {"restarts", t.restarts},
            {"hparams", ParsedOr(t.hparams_json, json::object())},
            {"totalBatchesProcessed", t.total_batches},
            {"bestValidation", ParsedOr(t.best_validation_json, nullptr)},
            {"latestValidation", ParsedOr(t.latest_validation_json, nullptr)},
            {"bestCheckpoint", nullptr},
            {"runnerState", t.runner_state},
            {"wallClockTime", 0},
            {"warmStartCheckpointUuid", ""},
            {"taskId", t.task_id},
            {"totalCheckpointSize", Int64(t.total_checkpoint_size)},
            {"checkpointCount", t.checkpoint_count},
            {"summaryMetrics", ParsedOr(t.summary_metrics_json, json::object())},
            {"taskIds", json::array({t.task_id})},
            {"searcherMetricValue", t.searcher_metric_value.value_or(0.0)}};
  if (t.log_retention_days) j["logRetentionDays"] = *t.log_retention_days;  // a proto3 optional
  return j;
}

json ToJson(const Checkpoint& c) {
  json j = {{"taskId", c.task_id},
          {"allocationId", c.allocation_id},
          {"uuid", c.uuid},
          {"reportTime", FormatRfc3339(c.report_time)},
          {"resources", ResourcesJson(c.resources_json)},
          {"metadata", ParsedOr(c.metadata_json, json::object())},
          {"state", StateEnumName(c.state)},
          {"training",
           {{"trialId", c.trial_id},
            {"experimentId", c.experiment_id},
            {"experimentConfig", nullptr},
            {"hparams", nullptr},
            {"trainingMetrics", nullptr},
            {"validationMetrics", nullptr}}}};
  if (c.storage_id) j["storageId"] = *c.storage_id;  // a proto3 optional int32
  return j;
}

namespace {

// `text` spliced in as it is when it looks like the JSON the master writes (an object for '{', a list
// for '['), else ParsedOr(text, fallback): a stream of a trial's thousands of reports parses none.
std::string SpliceableOr(const std::string& text, char open, char close, const json& fallback) {
  if (text.size() >= 2 && text.front() == open && text.back() == close) return text;
  return ParsedOr(text, fallback).dump();
}

}  // namespace

json ToJson(const MetricsReport& m) {
  json metrics = m.group == "validation" ? json{{"validation_metrics", ParsedOr(m.metrics_json, json::object())}}
                                 : json{{"avg_metrics", ParsedOr(m.metrics_json, json::object())},
                                        {"batch_metrics", ParsedOr(m.batch_metrics_json, json::array())}};
  return {{"trialId", m.trial_id},
          {"endTime", FormatRfc3339(m.end_time)},
          {"metrics", std::move(metrics)},
          {"totalBatches", m.total_batches},
          {"archived", false},
          {"id", m.id},  // int32 in upstream's MetricsReport, so a number
          {"trialRunId", m.trial_run_id},
          {"group", m.group}};
}

void AppendJson(std::string& out, const MetricsReport& m) {
  absl::StrAppend(&out, R"({"archived":false,"endTime":")", FormatRfc3339(m.end_time), R"(","group":)",
                  json(m.group).dump(), R"(,"id":)", m.id, R"(,"metrics":)");
  const std::string avg = SpliceableOr(m.metrics_json, '{', '}', json::object());
  if (m.group == "validation") {
    absl::StrAppend(&out, R"({"validation_metrics":)", avg, "}");
  } else {
    absl::StrAppend(&out, R"({"avg_metrics":)", avg, R"(,"batch_metrics":)",
                    SpliceableOr(m.batch_metrics_json, '[', ']', json::array()), "}");
  }
  absl::StrAppend(&out, R"(,"totalBatches":)", m.total_batches, R"(,"trialId":)", m.trial_id,
                  R"(,"trialRunId":)", m.trial_run_id, "}");
}

std::string FlatLogMessage(const TaskLog& l) {
  constexpr size_t kContainerIdWidth = 8;
  std::string container = l.container_id.substr(0, kContainerIdWidth);
  container.resize(kContainerIdWidth, ' ');
  std::string out = absl::StrCat("[", FormatRfc3339(l.timestamp), "] ", container, " ");
  if (l.rank_id) absl::StrAppend(&out, "[rank=", *l.rank_id, "] ");
  out += "||";
  if (l.source != "task" && !l.level.empty()) {
    absl::string_view level = l.level;
    absl::ConsumePrefix(&level, "LOG_LEVEL_");
    absl::StrAppend(&out, " ", level, ":");
  }
  absl::StrAppend(&out, " ", l.log);
  if (out.back() != '\n') out += '\n';
  return out;
}

namespace {

json LogCommon(const TaskLog& l) {
  json j = {{"id", std::to_string(l.id)},
            {"timestamp", FormatRfc3339(l.timestamp)},
            {"message", FlatLogMessage(l)},
            {"level", l.level},
            {"log", l.log},
            {"source", l.source},
            {"stdtype", l.stdtype}};
  if (!l.allocation_id.empty()) j["allocationId"] = l.allocation_id;
  if (!l.agent_id.empty()) j["agentId"] = l.agent_id;
  if (!l.container_id.empty()) j["containerId"] = l.container_id;
  if (l.rank_id) j["rankId"] = *l.rank_id;
  return j;
}

}  // namespace

json TrialLogJson(const TaskLog& l, int64_t trial_id) {
  json j = LogCommon(l);
  j["trialId"] = trial_id;
  j.erase("allocationId");
  return j;
}

json TaskLogJson(const TaskLog& l) {
  json j = LogCommon(l);
  j["taskId"] = l.task_id;
  return j;
}

absl::StatusOr<TaskLog> TaskLogFromJson(const json& j) {
  if (!j.is_object()) return absl::InvalidArgumentError("logs[]: each entry must be an object");
  if (FindField(j, "id") != nullptr) return absl::InvalidArgumentError("logs[].id must not be set");
  TaskLog l;
  l.task_id = StringField(j, "task_id");
  l.allocation_id = StringField(j, "allocation_id");
  l.agent_id = StringField(j, "agent_id");
  l.container_id = StringField(j, "container_id");
  l.log = StringField(j, "log");
  l.stdtype = StringField(j, "stdtype");
  std::string source = StringField(j, "source");
  if (!source.empty()) l.source = source;
  std::string level = StringField(j, "level");
  if (!level.empty()) l.level = level;
  if (const json* rank = FindField(j, "rank_id")) {
    ASSIGN_OR_RETURN(int64_t r, ReadInt64(*rank, "logs[].rankId"));
    l.rank_id = static_cast<int>(r);
  }
  l.timestamp = std::chrono::system_clock::now();
  std::string ts = StringField(j, "timestamp");
  if (!ts.empty()) {
    ASSIGN_OR_RETURN(l.timestamp, ParseRfc3339(ts));
  }
  if (l.task_id.empty()) return absl::InvalidArgumentError("logs[].taskId is required");
  return l;
}

}  // namespace det::api
