#pragma once
// For the sql_store_<area>.cc files only: the columns each area reads, the readers that make a row an
// api value, and the small helpers they share.
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "master/db/sql/sql_connection.h"
#include "master/db/store.h"

namespace det::master::sql_rows {

using api::Checkpoint;
using api::Experiment;
using api::MetricsReport;
using api::TaskLog;
using api::Trial;
using api::User;

inline int64_t Micros(WallTime t) { return ToUnixMicros(t); }
inline std::optional<int64_t> Micros(const std::optional<WallTime>& t) {
  return t ? std::optional<int64_t>(ToUnixMicros(*t)) : std::nullopt;
}
inline std::optional<WallTime> OptTime(const SqlStatement& s, int col) {
  return s.IsNull(col) ? std::nullopt : std::optional<WallTime>(FromUnixMicros(s.Int(col)));
}

// `column IN (?, ?, ...)` for `n` values.
inline std::string InList(const std::string& column, size_t n) {
  return absl::StrCat(column, " IN (", absl::StrJoin(std::vector<std::string>(n, "?"), ", "), ")");
}

// The strings of a JSON array stored as text (labels); anything else is dropped.
inline std::vector<std::string> JsonStrings(const std::string& text) {
  std::vector<std::string> out;
  nlohmann::json array = nlohmann::json::parse(text, nullptr, false);
  if (!array.is_array()) return out;
  for (const auto& v : array) {
    if (v.is_string()) out.push_back(v);
  }
  return out;
}

// LIMIT for "all rows" (SQLite takes -1, PostgreSQL ALL or NULL; both take this).
inline constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();


// Binds `text`, or NULL for "" (an optional setting stored as JSON text).
inline void BindTextOrNull(SqlStatement& s, int i, const std::string& text) {
  if (text.empty()) {
    s.BindNull(i);
  } else {
    s.Bind(i, text);
  }
}

inline constexpr char kUserColumns[] =
    "SELECT id, username, password_hash, admin, active, display_name, modified_at, coalesce(agent_user_group, '') "
    "FROM users ";

inline User ReadUser(const SqlStatement& s) {
  User u;
  u.id = s.Int(0);
  u.username = s.Text(1);
  if (!s.IsNull(2)) u.password_hash = s.Text(2);
  u.admin = s.Int(3) != 0;
  u.active = s.Int(4) != 0;
  u.display_name = s.Text(5);
  u.modified_at = FromUnixMicros(s.Int(6));
  u.agent_user_group_json = s.Text(7);
  return u;
}

inline const std::string& ExperimentColumns() {
  static const std::string columns = absl::StrCat(
      "SELECT e.id, e.name, e.description, e.labels, e.state, e.archived, e.config, e.original_config, "
      "e.owner_id, u.username, e.start_time, e.end_time, e.progress, e.job_id, length(e.model_definition), "
      "e.notes, e.queue_position, e.checkpoint_size, e.checkpoint_count, ",
      // 2: an allocation is running, 1: one is queued (reference §1b, display-only states)
      "(SELECT max(CASE a.state WHEN 'RUNNING' THEN 2 WHEN 'QUEUED' THEN 1 ELSE 0 END) FROM trials t "
      "JOIN allocations a ON a.task_id = t.task_id WHERE t.experiment_id = e.id), ",
      "e.project_id, coalesce(p.name, ''), coalesce(p.user_id, 0), coalesce(p.workspace_id, 0), "
      "coalesce(w.name, ''), CASE WHEN p.archived <> 0 OR w.archived <> 0 THEN 1 ELSE 0 END",
      " FROM experiments e JOIN users u ON u.id = e.owner_id LEFT JOIN projects p ON p.id = e.project_id "
      "LEFT JOIN workspaces w ON w.id = p.workspace_id ");
  return columns;
}

inline Experiment ReadExperiment(const SqlStatement& s) {
  Experiment e;
  e.id = s.Int(0);
  e.name = s.Text(1);
  e.description = s.Text(2);
  e.labels = JsonStrings(s.Text(3));
  e.state = api::ParseExperimentState(s.Text(4)).value_or(api::ExperimentState::kError);
  e.archived = s.Int(5) != 0;
  e.config_json = s.Text(6);
  e.original_config = s.Text(7);
  e.owner_id = s.Int(8);
  e.username = s.Text(9);
  e.start_time = FromUnixMicros(s.Int(10));
  e.end_time = OptTime(s, 11);
  e.progress = s.Double(12);
  e.job_id = s.Text(13);
  e.model_definition_size = s.Int(14);
  e.notes = s.Text(15);
  if (!s.IsNull(16)) e.queue_position = s.Double(16);
  e.checkpoint_size = s.Int(17);
  e.checkpoint_count = s.Int(18);
  if (e.state == api::ExperimentState::kActive) e.display_state = s.Int(19) == 2 ? "RUNNING" : "QUEUED";
  e.project_id = s.Int(20);
  e.project_name = s.Text(21);
  e.project_owner_id = s.Int(22);
  e.workspace_id = s.Int(23);
  e.workspace_name = s.Text(24);
  e.parent_archived = s.Int(25) != 0;
  nlohmann::json config = nlohmann::json::parse(e.config_json, nullptr, false);
  if (config.is_object()) {
    const auto& searcher = config.value("searcher", nlohmann::json::object());
    e.searcher_type = searcher.value("name", "");
    e.searcher_metric = searcher.value("metric", "");
    e.smaller_is_better = searcher.value("smaller_is_better", true);
    const auto& resources = config.value("resources", nlohmann::json::object());
    e.resource_pool = resources.value("resource_pool", "");
  }
  if (e.resource_pool.empty()) e.resource_pool = "default";
  return e;
}

inline constexpr char kTrialColumns[] =
    "SELECT id, experiment_id, request_id, task_id, state, hparams, seed, restarts, run_id, start_time, "
    "end_time, total_batches, latest_validation, best_validation, summary_metrics, "
    "searcher_metric_value, runner_state, latest_checkpoint, checkpoint_count, total_checkpoint_size, "
    "log_retention_days, (SELECT a.state FROM allocations a WHERE a.task_id = trials.task_id ORDER BY a.start_time DESC, a.rowid DESC "
    "LIMIT 1) "
    "FROM trials ";

inline Trial ReadTrial(const SqlStatement& s) {
  Trial t;
  t.id = s.Int(0);
  t.experiment_id = s.Int(1);
  t.request_id = s.Text(2);
  t.task_id = s.Text(3);
  t.state = api::ParseTrialState(s.Text(4)).value_or(api::TrialState::kError);
  t.hparams_json = s.Text(5);
  t.seed = static_cast<uint32_t>(s.Int(6));
  t.restarts = static_cast<int>(s.Int(7));
  t.run_id = static_cast<int>(s.Int(8));
  t.start_time = FromUnixMicros(s.Int(9));
  t.end_time = OptTime(s, 10);
  t.total_batches = s.Int(11);
  t.latest_validation_json = s.Text(12);
  t.best_validation_json = s.Text(13);
  t.summary_metrics_json = s.Text(14);
  if (!s.IsNull(15)) t.searcher_metric_value = s.Double(15);
  t.runner_state = s.Text(16);
  t.latest_checkpoint_uuid = s.Text(17);
  t.checkpoint_count = s.Int(18);
  t.total_checkpoint_size = s.Int(19);
  if (!s.IsNull(20)) t.log_retention_days = static_cast<int>(s.Int(20));
  // Display-only (reference §1b): an active trial is RUNNING while its latest allocation runs, else QUEUED.
  if (t.state == api::TrialState::kActive) t.display_state = s.Text(21) == "RUNNING" ? "RUNNING" : "QUEUED";
  return t;
}

inline constexpr char kTaskColumns[] =
    "SELECT k.task_id, k.task_type, k.owner_id, u.username, k.job_id, k.workspace_id, k.description, k.config, "
    "k.state, k.start_time, k.end_time, k.exit_status, k.exit_code, k.queue_position, k.forked_from, k.service "
    "FROM tasks k JOIN users u ON u.id = k.owner_id ";

inline Task ReadTask(const SqlStatement& s) {
  Task t;
  t.task_id = s.Text(0);
  t.type = ParseTaskType(s.Text(1)).value_or(TaskType::kCommand);
  t.owner_id = s.Int(2);
  t.username = s.Text(3);
  t.job_id = s.Text(4);
  t.workspace_id = s.Int(5);
  t.description = s.Text(6);
  t.config_json = s.Text(7);
  t.state = ParseTaskState(s.Text(8)).value_or(TaskState::kError);
  t.start_time = FromUnixMicros(s.Int(9));
  t.end_time = OptTime(s, 10);
  t.exit_status = s.Text(11);
  if (auto code = s.OptInt(12)) t.exit_code = static_cast<int>(*code);
  if (!s.IsNull(13)) t.queue_position = s.Double(13);
  t.forked_from = s.Text(14);
  t.service_json = s.Text(15);
  return t;
}

inline constexpr char kAllocationColumns[] =
    "SELECT allocation_id, task_id, resource_pool, state, token_hash, agent_id, slots, start_time, end_time, "
    "exit_code, slot_ids, is_ready, service_address, service_user FROM allocations ";

inline Allocation ReadAllocation(const SqlStatement& s) {
  Allocation a;
  a.allocation_id = s.Text(0);
  a.task_id = s.Text(1);
  a.resource_pool = s.Text(2);
  // Rows of older masters may say ASSIGNED or RUNNING in words this build also reads.
  a.state = ParseAllocationState(s.Text(3)).value_or(AllocationState::kTerminated);
  a.token_hash = s.Text(4);
  std::string first_agent = s.Text(5);
  a.slots = static_cast<int>(s.Int(6));
  a.start_time = FromUnixMicros(s.Int(7));
  a.end_time = OptTime(s, 8);
  if (auto code = s.OptInt(9)) a.exit_code = static_cast<int>(*code);
  a.ready = s.Int(11) != 0;
  a.service_address = s.Text(12);
  a.service_user = s.Text(13);
  // slot_ids holds [{"agent_id", "slot_ids", "devices"}, ...]; rows written before gang placement hold
  // the device ids on agent_id only.
  nlohmann::json slots = nlohmann::json::parse(s.Text(10), nullptr, false);
  if (!slots.is_array()) return a;
  AgentSlots legacy{first_agent, {}};
  for (const nlohmann::json& entry : slots) {
    if (entry.is_number_integer()) legacy.slot_ids.push_back(entry.get<int>());
    if (!entry.is_object()) continue;
    AgentSlots placement{entry.value("agent_id", ""), {}};
    for (const nlohmann::json& id : entry.value("slot_ids", nlohmann::json::array())) {
      if (id.is_number_integer()) placement.slot_ids.push_back(id.get<int>());
    }
    for (const nlohmann::json& d : entry.value("devices", nlohmann::json::array())) {
      if (!d.is_object()) continue;
      placement.devices.push_back({.id = d.value("id", 0), .type = d.value("type", ""),
                                   .device = d.value("brand", ""), .uuid = d.value("uuid", "")});
    }
    a.placements.push_back(std::move(placement));
  }
  if (a.placements.empty() && !first_agent.empty()) a.placements.push_back(std::move(legacy));
  return a;
}

inline std::string FirstAgent(const Allocation& a) { return a.placements.empty() ? "" : a.placements.front().agent_id; }

inline constexpr char kCheckpointColumns[] =
    "SELECT uuid, task_id, allocation_id, trial_id, experiment_id, report_time, state, resources, metadata, "
    "steps_completed, storage_id FROM checkpoints ";

inline Checkpoint ReadCheckpoint(const SqlStatement& s) {
  Checkpoint c;
  c.uuid = s.Text(0);
  c.task_id = s.Text(1);
  c.allocation_id = s.Text(2);
  c.trial_id = s.Int(3);
  c.experiment_id = s.Int(4);
  c.report_time = FromUnixMicros(s.Int(5));
  c.state = s.Text(6);
  c.resources_json = s.Text(7);
  c.metadata_json = s.Text(8);
  c.steps_completed = s.Int(9);
  if (!s.IsNull(10)) c.storage_id = s.Int(10);
  return c;
}

template <class T, class Reader>
inline absl::StatusOr<T> One(SqlStatement& s, Reader read, const std::string& what) {
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::NotFoundError(absl::StrCat(what, " not found"));
  return read(s);
}

// The id an INSERT ... RETURNING id gave, after running it to completion.
inline absl::StatusOr<int64_t> InsertedId(SqlStatement& s) {
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::InternalError("an insert returned no id");
  int64_t id = s.Int(0);
  ASSIGN_OR_RETURN(bool more, s.Step());
  (void)more;
  return id;
}

template <class T, class Reader>
inline absl::StatusOr<std::vector<T>> All(SqlStatement& s, Reader read) {
  std::vector<T> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(read(s));
  }
  return out;
}

// `column IN (a, b, ...)` for ids the master computed (never a user's text), or a condition that holds for no
// row when there are none.
inline std::string IdsIn(const std::string& column, const std::vector<int64_t>& ids) {
  if (ids.empty()) return "1 = 0";
  return absl::StrCat(column, " IN (", absl::StrJoin(ids, ", "), ")");
}

// `text` as a LIKE pattern matching itself anywhere, with `\` as the escape character.
inline std::string LikeContains(const std::string& text) {
  std::string out = "%";
  for (char c : text) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out + "%";
}

}  // namespace det::master::sql_rows
