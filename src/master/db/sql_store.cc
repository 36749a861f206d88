#include "master/db/sql_store.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <type_traits>
#include <nlohmann/json.hpp>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "master/db/migrations.h"
#include "master/db/sql/sql_dialect.h"

namespace det::master {
namespace {

using api::Checkpoint;
using api::Experiment;
using api::MetricsReport;
using api::TaskLog;
using api::Trial;
using api::User;

int64_t Micros(WallTime t) { return ToUnixMicros(t); }
std::optional<int64_t> Micros(const std::optional<WallTime>& t) {
  return t ? std::optional<int64_t>(ToUnixMicros(*t)) : std::nullopt;
}
std::optional<WallTime> OptTime(const SqlStatement& s, int col) {
  return s.IsNull(col) ? std::nullopt : std::optional<WallTime>(FromUnixMicros(s.Int(col)));
}

// LIMIT for "all rows" (SQLite takes -1, PostgreSQL ALL or NULL; both take this).
constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();

absl::StatusOr<User> UserById(SqlConnection& db, int64_t id);
absl::StatusOr<std::vector<int64_t>> TrialIds(SqlConnection& db, int64_t experiment_id);
absl::StatusOr<Experiment> ExperimentById(SqlConnection& db, int64_t id);
absl::StatusOr<Trial> TrialWhere(SqlConnection& db, const char* where, const std::string& key);

constexpr char kUserColumns[] =
    "SELECT id, username, password_hash, admin, active, display_name, modified_at FROM users ";

User ReadUser(const SqlStatement& s) {
  User u;
  u.id = s.Int(0);
  u.username = s.Text(1);
  if (!s.IsNull(2)) u.password_hash = s.Text(2);
  u.admin = s.Int(3) != 0;
  u.active = s.Int(4) != 0;
  u.display_name = s.Text(5);
  u.modified_at = FromUnixMicros(s.Int(6));
  return u;
}

const std::string& ExperimentColumns() {
  static const std::string columns = absl::StrCat(
      "SELECT e.id, e.name, e.description, e.labels, e.state, e.archived, e.config, e.original_config, "
      "e.owner_id, u.username, e.start_time, e.end_time, e.progress, e.job_id, length(e.model_definition), "
      "e.notes, e.queue_position, e.checkpoint_size, e.checkpoint_count, ",
      // 2: an allocation is running, 1: one is queued (reference §1b, display-only states)
      "(SELECT max(CASE a.state WHEN 'RUNNING' THEN 2 WHEN 'QUEUED' THEN 1 ELSE 0 END) FROM trials t "
      "JOIN allocations a ON a.task_id = t.task_id WHERE t.experiment_id = e.id)",
      " FROM experiments e JOIN users u ON u.id = e.owner_id ");
  return columns;
}

Experiment ReadExperiment(const SqlStatement& s) {
  Experiment e;
  e.id = s.Int(0);
  e.name = s.Text(1);
  e.description = s.Text(2);
  nlohmann::json labels = nlohmann::json::parse(s.Text(3), nullptr, false);
  if (labels.is_array()) {
    for (const auto& l : labels) {
      if (l.is_string()) e.labels.push_back(l);
    }
  }
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

constexpr char kTrialColumns[] =
    "SELECT id, experiment_id, request_id, task_id, state, hparams, seed, restarts, run_id, start_time, "
    "end_time, total_batches, latest_validation, best_validation, summary_metrics, "
    "searcher_metric_value, runner_state, latest_checkpoint, checkpoint_count, total_checkpoint_size, "
    "(SELECT a.state FROM allocations a WHERE a.task_id = trials.task_id ORDER BY a.start_time DESC, a.rowid DESC "
    "LIMIT 1) "
    "FROM trials ";

Trial ReadTrial(const SqlStatement& s) {
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
  // Display-only (reference §1b): an active trial is RUNNING while its latest allocation runs, else QUEUED.
  if (t.state == api::TrialState::kActive) t.display_state = s.Text(20) == "RUNNING" ? "RUNNING" : "QUEUED";
  return t;
}

constexpr char kTaskColumns[] =
    "SELECT k.task_id, k.task_type, k.owner_id, u.username, k.job_id, k.workspace_id, k.description, k.config, "
    "k.state, k.start_time, k.end_time, k.exit_status, k.exit_code, k.queue_position, k.forked_from, k.service "
    "FROM tasks k JOIN users u ON u.id = k.owner_id ";

Task ReadTask(const SqlStatement& s) {
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

constexpr char kAllocationColumns[] =
    "SELECT allocation_id, task_id, resource_pool, state, token_hash, agent_id, slots, start_time, end_time, "
    "exit_code, slot_ids, is_ready, service_address, service_user FROM allocations ";

Allocation ReadAllocation(const SqlStatement& s) {
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
  // slot_ids holds [{"agent_id", "slot_ids"}, ...]; rows written before gang placement hold the
  // device ids on agent_id only.
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
    a.placements.push_back(std::move(placement));
  }
  if (a.placements.empty() && !first_agent.empty()) a.placements.push_back(std::move(legacy));
  return a;
}

std::string FirstAgent(const Allocation& a) { return a.placements.empty() ? "" : a.placements.front().agent_id; }

constexpr char kCheckpointColumns[] =
    "SELECT uuid, task_id, allocation_id, trial_id, experiment_id, report_time, state, resources, metadata, "
    "steps_completed FROM checkpoints ";

Checkpoint ReadCheckpoint(const SqlStatement& s) {
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
  return c;
}

template <class T, class Reader>
absl::StatusOr<T> One(SqlStatement& s, Reader read, const std::string& what) {
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::NotFoundError(absl::StrCat(what, " not found"));
  return read(s);
}

// The id an INSERT ... RETURNING id gave, after running it to completion.
absl::StatusOr<int64_t> InsertedId(SqlStatement& s) {
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::InternalError("an insert returned no id");
  int64_t id = s.Int(0);
  ASSIGN_OR_RETURN(bool more, s.Step());
  (void)more;
  return id;
}

// Moves the checkpoint totals of the trial's experiment (never below zero).
absl::Status AddToExperimentCheckpointTotals(SqlConnection& db, int64_t trial_id, int64_t size, int64_t count) {
  ASSIGN_OR_RETURN(auto s, db.Prepare(
                               "UPDATE experiments SET "
                               "checkpoint_size = CASE WHEN checkpoint_size + ?1 > 0 THEN checkpoint_size + ?1 ELSE 0 END, "
                               "checkpoint_count = CASE WHEN checkpoint_count + ?2 > 0 THEN checkpoint_count + ?2 ELSE 0 END "
                               "WHERE id = (SELECT experiment_id FROM trials WHERE id = ?3)"));
  return s.Bind(1, size).Bind(2, count).Bind(3, trial_id).Run();
}

// The total size of a checkpoint's resources ({"file": bytes, ...}).
int64_t ResourcesSize(const std::string& resources_json) {
  nlohmann::json resources = nlohmann::json::parse(resources_json, nullptr, false);
  int64_t total = 0;
  if (!resources.is_object()) return 0;
  for (const auto& [name, size] : resources.items()) {
    if (size.is_number()) total += size.get<int64_t>();
  }
  return total;
}

template <class T, class Reader>
absl::StatusOr<std::vector<T>> All(SqlStatement& s, Reader read) {
  std::vector<T> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(read(s));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqlStore>> SqlStore::Open(std::unique_ptr<SqlDatabase> db) {
  std::unique_ptr<SqlStore> store(new SqlStore(std::move(db)));
  ASSIGN_OR_RETURN(store->created_, ApplyMigrations(*store->db_));
  return store;
}

absl::StatusOr<User> SqlStore::GetUserByName(const std::string& username) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kUserColumns, "WHERE username = ?")));
  s.Bind(1, username);
  return One<User>(s, ReadUser, absl::StrCat("user \"", username, "\""));
}

absl::StatusOr<User> SqlStore::GetUser(int64_t id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  return UserById(db, id);
}

namespace {

absl::StatusOr<User> UserById(SqlConnection& db, int64_t id) {
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kUserColumns, "WHERE id = ?")));
  s.Bind(1, id);
  return One<User>(s, ReadUser, absl::StrCat("user ", id));
}

}  // namespace

absl::Status SqlStore::AddSession(const std::string& token_hash, int64_t user_id, WallTime expiry) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO user_sessions (token_hash, user_id, expiry) VALUES (?, ?, ?)"));
  s.Bind(1, token_hash).Bind(2, user_id).Bind(3, Micros(expiry));
  return s.Run();
}

absl::StatusOr<int64_t> SqlStore::LookupSession(const std::string& token_hash, WallTime now) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("SELECT user_id FROM user_sessions WHERE token_hash = ? AND expiry > ?"));
  s.Bind(1, token_hash).Bind(2, Micros(now));
  return One<int64_t>(s, [](const SqlStatement& st) { return st.Int(0); }, "session");
}

absl::Status SqlStore::DeleteSession(const std::string& token_hash) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("DELETE FROM user_sessions WHERE token_hash = ?"));
  s.Bind(1, token_hash);
  return s.Run();
}

absl::Status SqlStore::SetUserPasswordHash(int64_t user_id, const std::optional<std::string>& hash) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE users SET password_hash = ?, modified_at = ? WHERE id = ?"));
  s.Bind(1, hash).Bind(2, Micros(std::chrono::system_clock::now())).Bind(3, user_id);
  RETURN_IF_ERROR(s.Run());
  if (s.Changes() == 0) return absl::NotFoundError(absl::StrCat("user ", user_id, " not found"));
  return absl::OkStatus();
}

absl::StatusOr<int64_t> SqlStore::InsertExperiment(const Experiment& e, const std::string& model_definition_tgz) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO experiments (name, description, labels, state, archived, config, "
                               "original_config, model_definition, owner_id, start_time, end_time, progress, job_id) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"));
  s.Bind(1, e.name).Bind(2, e.description).Bind(3, nlohmann::json(e.labels).dump()).Bind(4, std::string(Name(e.state)));
  s.Bind(5, e.archived ? 1 : 0).Bind(6, e.config_json).Bind(7, e.original_config).BindBlob(8, model_definition_tgz);
  s.Bind(9, e.owner_id).Bind(10, Micros(e.start_time)).Bind(11, Micros(e.end_time)).Bind(12, e.progress);
  s.Bind(13, e.job_id);
  return InsertedId(s);
}

absl::Status SqlStore::UpdateExperimentState(int64_t id, api::ExperimentState state,
                                                std::optional<WallTime> end_time, double progress) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE experiments SET state = ?, end_time = ?, progress = ? WHERE id = ?"));
  s.Bind(1, std::string(Name(state))).Bind(2, Micros(end_time)).Bind(3, progress).Bind(4, id);
  return s.Run();
}

namespace {

absl::StatusOr<std::vector<int64_t>> TrialIds(SqlConnection& db, int64_t experiment_id) {
  ASSIGN_OR_RETURN(auto s, db.Prepare("SELECT id FROM trials WHERE experiment_id = ? ORDER BY id"));
  s.Bind(1, experiment_id);
  return All<int64_t>(s, [](const SqlStatement& st) { return st.Int(0); });
}

}  // namespace

absl::StatusOr<Experiment> SqlStore::GetExperiment(int64_t id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  return ExperimentById(db, id);
}

namespace {

absl::StatusOr<Experiment> ExperimentById(SqlConnection& db, int64_t id) {
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(ExperimentColumns(), "WHERE e.id = ?")));
  s.Bind(1, id);
  ASSIGN_OR_RETURN(Experiment e, One<Experiment>(s, ReadExperiment, absl::StrCat("experiment ", id)));
  ASSIGN_OR_RETURN(e.trial_ids, TrialIds(db, id));
  return e;
}

}  // namespace

namespace {

// `text` as a LIKE pattern matching itself anywhere, with `\` as the escape character.
std::string LikeContains(const std::string& text) {
  std::string out = "%";
  for (char c : text) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out + "%";
}

// WHERE clause and its text binds (in order) for an experiment filter over `experiments e JOIN users u`.
std::pair<std::string, std::vector<std::string>> ExperimentWhere(SqlDialect d, const ExperimentFilter& filter) {
  std::vector<std::string> clauses, binds;
  if (filter.archived) {
    clauses.push_back(*filter.archived ? "e.archived = 1" : "e.archived = 0");
  } else if (!filter.include_archived) {
    clauses.push_back("e.archived = 0");
  }
  std::vector<std::string> owners;
  for (const std::string& name : filter.usernames) {
    owners.push_back("u.username = ?");
    binds.push_back(name);
  }
  for (int64_t id : filter.user_ids) {
    owners.push_back("e.owner_id = CAST(? AS BIGINT)");
    binds.push_back(std::to_string(id));
  }
  if (!owners.empty()) clauses.push_back(absl::StrCat("(", absl::StrJoin(owners, " OR "), ")"));
  if (!filter.states.empty()) {
    std::vector<std::string> marks(filter.states.size(), "?");
    clauses.push_back(absl::StrCat("e.state IN (", absl::StrJoin(marks, ", "), ")"));
    for (api::ExperimentState st : filter.states) binds.push_back(std::string(Name(st)));
  }
  for (const std::string& label : filter.labels) {
    clauses.push_back(JsonArrayHas(d, "e.labels"));
    binds.push_back(label);
  }
  if (!filter.name_contains.empty()) {
    clauses.push_back(absl::StrCat("e.name ", CaseInsensitiveLike(d), " ? ESCAPE '\\'"));
    binds.push_back(LikeContains(filter.name_contains));
  }
  if (!filter.description_contains.empty()) {
    clauses.push_back(absl::StrCat("e.description ", CaseInsensitiveLike(d), " ? ESCAPE '\\'"));
    binds.push_back(LikeContains(filter.description_contains));
  }
  std::string where = clauses.empty() ? "" : absl::StrCat("WHERE ", absl::StrJoin(clauses, " AND "), " ");
  return {where, binds};
}

std::string ExperimentOrderBy(SqlDialect d, const ExperimentFilter& filter) {
  std::string key;
  switch (filter.sort) {
    case ExperimentSort::kId: key = "e.id"; break;
    case ExperimentSort::kDescription: key = "e.description"; break;
    case ExperimentSort::kStartTime: key = "e.start_time"; break;
    // Running experiments (no end time) first, as SQLite orders NULLs.
    case ExperimentSort::kEndTime: key = filter.descending ? "e.end_time DESC NULLS LAST" : "e.end_time ASC NULLS FIRST"; break;
    case ExperimentSort::kState: key = "e.state"; break;
    case ExperimentSort::kNumTrials: key = "e.num_trials"; break;
    case ExperimentSort::kProgress: key = "e.progress"; break;
    case ExperimentSort::kUser: key = "u.username"; break;
    case ExperimentSort::kName: key = "e.name"; break;
    case ExperimentSort::kResourcePool:
      key = absl::StrCat("coalesce(", JsonText(d, "e.config", {"resources", "resource_pool"}), ", '')");
      break;
    case ExperimentSort::kCheckpointSize: key = "e.checkpoint_size"; break;
    case ExperimentSort::kCheckpointCount: key = "e.checkpoint_count"; break;
  }
  const char* dir = filter.descending ? " DESC" : " ASC";
  if (key == "e.id") return absl::StrCat("ORDER BY e.id", dir, " ");
  if (filter.sort == ExperimentSort::kEndTime) return absl::StrCat("ORDER BY ", key, ", e.id", dir, " ");
  return absl::StrCat("ORDER BY ", key, dir, ", e.id", dir, " ");
}

}  // namespace

absl::StatusOr<std::vector<Experiment>> SqlStore::ListExperiments(const ExperimentFilter& filter) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  auto [where, binds] = ExperimentWhere(db.dialect(), filter);
  std::string sql = absl::StrCat(ExperimentColumns(), where, ExperimentOrderBy(db.dialect(), filter), "LIMIT ? OFFSET ?");
  ASSIGN_OR_RETURN(auto s, db.Prepare(sql));
  int i = 1;
  for (const std::string& b : binds) s.Bind(i++, b);
  s.Bind(i, filter.limit > 0 ? filter.limit : kNoLimit);
  s.Bind(i + 1, std::max<int64_t>(0, filter.offset));
  ASSIGN_OR_RETURN(std::vector<Experiment> out, All<Experiment>(s, ReadExperiment));
  for (Experiment& e : out) {
    ASSIGN_OR_RETURN(e.trial_ids, TrialIds(db, e.id));
  }
  return out;
}

absl::StatusOr<int64_t> SqlStore::CountExperiments(const ExperimentFilter& filter) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  auto [where, binds] = ExperimentWhere(db.dialect(), filter);
  std::string sql = absl::StrCat("SELECT count(*) FROM experiments e JOIN users u ON u.id = e.owner_id ", where);
  ASSIGN_OR_RETURN(auto s, db.Prepare(sql));
  int i = 1;
  for (const std::string& b : binds) s.Bind(i++, b);
  return One<int64_t>(s, [](const SqlStatement& st) { return st.Int(0); }, "count");
}

absl::StatusOr<std::string> SqlStore::GetModelDefinition(int64_t experiment_id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("SELECT model_definition FROM experiments WHERE id = ?"));
  s.Bind(1, experiment_id);
  return One<std::string>(s, [](const SqlStatement& st) { return st.Text(0); },
                          absl::StrCat("experiment ", experiment_id));
}

absl::StatusOr<SearcherMetric> SqlStore::GetSearcherMetric(int64_t experiment_id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  SqlDialect d = db.dialect();
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat("SELECT coalesce(", JsonText(d, "config", {"searcher", "metric"}),
                                                   ", ''), coalesce(",
                                                   JsonText(d, "config", {"searcher", "smaller_is_better"}),
                                                   ", '1') FROM experiments WHERE id = ?")));
  s.Bind(1, experiment_id);
  return One<SearcherMetric>(
      s, [](const SqlStatement& st) { return SearcherMetric{st.Text(0), JsonTruth(st.Text(1))}; },
      absl::StrCat("experiment ", experiment_id));
}

absl::Status SqlStore::SaveSearcherSnapshot(int64_t experiment_id, const std::string& snapshot_json) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO searcher_snapshots (experiment_id, snapshot, updated_at) VALUES (?, ?, ?) "
                               "ON CONFLICT(experiment_id) DO UPDATE SET snapshot = excluded.snapshot, "
                               "updated_at = excluded.updated_at"));
  s.Bind(1, experiment_id).Bind(2, snapshot_json).Bind(3, Micros(std::chrono::system_clock::now()));
  return s.Run();
}

absl::StatusOr<std::string> SqlStore::GetSearcherSnapshot(int64_t experiment_id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("SELECT snapshot FROM searcher_snapshots WHERE experiment_id = ?"));
  s.Bind(1, experiment_id);
  return One<std::string>(s, [](const SqlStatement& st) { return st.Text(0); },
                          absl::StrCat("searcher snapshot of experiment ", experiment_id));
}

absl::StatusOr<int64_t> SqlStore::InsertTrial(const Trial& t) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO trials (experiment_id, request_id, task_id, state, hparams, seed, "
                               "restarts, run_id, start_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"));
  s.Bind(1, t.experiment_id).Bind(2, t.request_id).Bind(3, t.task_id).Bind(4, std::string(Name(t.state)));
  s.Bind(5, t.hparams_json);
  s.Bind(6, static_cast<int64_t>(t.seed)).Bind(7, t.restarts).Bind(8, t.run_id).Bind(9, Micros(t.start_time));
  ASSIGN_OR_RETURN(int64_t id, InsertedId(s));
  ASSIGN_OR_RETURN(auto count, db.Prepare("UPDATE experiments SET num_trials = num_trials + 1 WHERE id = ?"));
  RETURN_IF_ERROR(count.Bind(1, t.experiment_id).Run());
  RETURN_IF_ERROR(tx.Commit());
  return id;
}

absl::Status SqlStore::UpdateTrialLifecycle(const Trial& t) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE trials SET state = ?, restarts = ?, run_id = ?, end_time = ?, "
                               "runner_state = ? WHERE id = ?"));
  s.Bind(1, std::string(Name(t.state))).Bind(2, t.restarts).Bind(3, t.run_id).Bind(4, Micros(t.end_time));
  s.Bind(5, t.runner_state);
  s.Bind(6, t.id);
  return s.Run();
}

namespace {

absl::StatusOr<Trial> TrialWhere(SqlConnection& db, const char* where, const std::string& key) {
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kTrialColumns, where)));
  s.Bind(1, key);
  return One<Trial>(s, ReadTrial, absl::StrCat("trial ", key));
}

}  // namespace

absl::StatusOr<Trial> SqlStore::GetTrial(int64_t id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  return TrialWhere(db, "WHERE id = CAST(? AS BIGINT)", std::to_string(id));
}

absl::StatusOr<Trial> SqlStore::GetTrialByTaskId(const std::string& task_id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  return TrialWhere(db, "WHERE task_id = ?", task_id);
}

absl::StatusOr<std::vector<Trial>> SqlStore::ListTrials(int64_t experiment_id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kTrialColumns, "WHERE experiment_id = ? ORDER BY id")));
  s.Bind(1, experiment_id);
  return All<Trial>(s, ReadTrial);
}

absl::Status SqlStore::InsertAllocation(const Allocation& a) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO allocations (allocation_id, task_id, resource_pool, state, token_hash, "
                               "agent_id, slots, start_time, end_time, exit_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  s.Bind(1, a.allocation_id).Bind(2, a.task_id).Bind(3, a.resource_pool).Bind(4, std::string(Name(a.state)));
  s.Bind(5, a.token_hash);
  s.Bind(6, FirstAgent(a)).Bind(7, a.slots).Bind(8, Micros(a.start_time)).Bind(9, Micros(a.end_time));
  s.Bind(10, a.exit_code ? std::optional<int64_t>(*a.exit_code) : std::nullopt);
  return s.Run();
}

absl::Status SqlStore::UpdateAllocation(const Allocation& a) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE allocations SET state = ?, agent_id = ?, end_time = ?, exit_code = ?, "
                               "slot_ids = ?, resource_pool = ?, is_ready = ?, service_address = ?, service_user = ? "
                               "WHERE allocation_id = ?"));
  s.Bind(1, std::string(Name(a.state))).Bind(2, FirstAgent(a)).Bind(3, Micros(a.end_time));
  s.Bind(4, a.exit_code ? std::optional<int64_t>(*a.exit_code) : std::nullopt);
  nlohmann::json placements = nlohmann::json::array();
  for (const AgentSlots& p : a.placements) placements.push_back({{"agent_id", p.agent_id}, {"slot_ids", p.slot_ids}});
  s.Bind(5, placements.dump()).Bind(6, a.resource_pool).Bind(7, a.ready ? 1 : 0).Bind(8, a.service_address);
  s.Bind(9, a.service_user).Bind(10, a.allocation_id);
  return s.Run();
}

absl::StatusOr<Allocation> SqlStore::GetAllocation(const std::string& allocation_id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kAllocationColumns, "WHERE allocation_id = ?")));
  s.Bind(1, allocation_id);
  return One<Allocation>(s, ReadAllocation, absl::StrCat("allocation ", allocation_id));
}

absl::StatusOr<Allocation> SqlStore::GetAllocationByTokenHash(const std::string& token_hash) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kAllocationColumns, "WHERE token_hash = ?")));
  s.Bind(1, token_hash);
  return One<Allocation>(s, ReadAllocation, "allocation token");
}

absl::StatusOr<std::vector<Allocation>> SqlStore::ListAllocations(const std::string& task_id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kAllocationColumns, "WHERE task_id = ? ORDER BY start_time, rowid")));
  s.Bind(1, task_id);
  return All<Allocation>(s, ReadAllocation);
}

absl::Status SqlStore::InsertTask(const Task& t, const std::string& context_tgz) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO tasks (task_id, task_type, owner_id, job_id, workspace_id, description, "
                               "config, state, start_time, end_time, exit_status, exit_code, queue_position, "
                               "forked_from, context, service) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  s.Bind(1, t.task_id).Bind(2, std::string(Name(t.type))).Bind(3, t.owner_id).Bind(4, t.job_id);
  s.Bind(5, t.workspace_id).Bind(6, t.description).Bind(7, t.config_json).Bind(8, std::string(Name(t.state)));
  s.Bind(9, Micros(t.start_time)).Bind(10, Micros(t.end_time)).Bind(11, t.exit_status);
  s.Bind(12, t.exit_code ? std::optional<int64_t>(*t.exit_code) : std::nullopt).Bind(13, t.queue_position);
  s.Bind(14, t.forked_from).BindBlob(15, context_tgz).Bind(16, t.service_json);
  return s.Run();
}

absl::Status SqlStore::UpdateTask(const Task& t) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE tasks SET state = ?, end_time = ?, exit_status = ?, exit_code = ?, config = ?, "
                               "description = ?, queue_position = ? WHERE task_id = ?"));
  s.Bind(1, std::string(Name(t.state))).Bind(2, Micros(t.end_time)).Bind(3, t.exit_status);
  s.Bind(4, t.exit_code ? std::optional<int64_t>(*t.exit_code) : std::nullopt).Bind(5, t.config_json);
  s.Bind(6, t.description).Bind(7, t.queue_position).Bind(8, t.task_id);
  RETURN_IF_ERROR(s.Run());
  if (s.Changes() == 0) return absl::NotFoundError(absl::StrCat("task ", t.task_id, " not found"));
  return absl::OkStatus();
}

absl::StatusOr<Task> SqlStore::GetTask(const std::string& task_id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kTaskColumns, "WHERE k.task_id = ?")));
  s.Bind(1, task_id);
  return One<Task>(s, ReadTask, absl::StrCat("task ", task_id));
}

namespace {

// The WHERE clause of a task query (empty or starting with "WHERE ") and its text binds, in order.
std::pair<std::string, std::vector<std::string>> TaskWhere(const TaskFilter& f) {
  std::vector<std::string> where;
  std::vector<std::string> binds;
  auto in = [&](const char* column, const std::vector<std::string>& values, bool negate) {
    where.push_back(absl::StrCat(column, negate ? " NOT IN (" : " IN (",
                                 absl::StrJoin(std::vector<std::string>(values.size(), "?"), ","), ")"));
    binds.insert(binds.end(), values.begin(), values.end());
  };
  if (!f.types.empty()) {
    std::vector<std::string> types;
    for (TaskType type : f.types) types.emplace_back(Name(type));
    in("k.task_type", types, false);
  }
  if (f.live_only) {
    std::vector<std::string> terminal;
    for (TaskState state : kTaskStates) {
      if (IsTerminal(state)) terminal.emplace_back(Name(state));
    }
    in("k.state", terminal, true);
  }
  if (!f.owner_ids.empty() || !f.usernames.empty()) {
    std::vector<std::string> who;
    for (int64_t id : f.owner_ids) who.push_back(absl::StrCat("k.owner_id = ", id));
    for (const std::string& name : f.usernames) {
      who.push_back("u.username = ?");
      binds.push_back(name);
    }
    where.push_back(absl::StrCat("(", absl::StrJoin(who, " OR "), ")"));
  }
  return {where.empty() ? "" : absl::StrCat("WHERE ", absl::StrJoin(where, " AND ")), std::move(binds)};
}

}  // namespace

absl::StatusOr<std::vector<Task>> SqlStore::ListTasks(const TaskFilter& f) {
  auto [where, binds] = TaskWhere(f);
  std::string order = f.sort == TaskSort::kDescription ? "k.description"
                      : f.sort == TaskSort::kStartTime ? "k.start_time"
                      : f.sort == TaskSort::kWorkspaceId ? "k.workspace_id"
                                                        : "k.rowid";
  const char* dir = f.descending ? " DESC" : "";
  std::string sql = absl::StrCat(kTaskColumns, where, " ORDER BY ", order, dir, ", k.rowid", dir);
  if (f.limit > 0 || f.offset > 0) {
    absl::StrAppend(&sql, " LIMIT ", f.limit > 0 ? f.limit : kNoLimit, " OFFSET ", std::max<int64_t>(f.offset, 0));
  }
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare(sql));
  for (size_t i = 0; i < binds.size(); ++i) s.Bind(static_cast<int>(i + 1), binds[i]);
  return All<Task>(s, ReadTask);
}

absl::StatusOr<int64_t> SqlStore::CountTasks(const TaskFilter& f) {
  auto [where, binds] = TaskWhere(f);
  std::string sql = absl::StrCat("SELECT count(*) FROM tasks k JOIN users u ON u.id = k.owner_id ", where);
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare(sql));
  for (size_t i = 0; i < binds.size(); ++i) s.Bind(static_cast<int>(i + 1), binds[i]);
  ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

absl::StatusOr<std::string> SqlStore::GetTaskContext(const std::string& task_id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("SELECT context FROM tasks WHERE task_id = ?"));
  s.Bind(1, task_id);
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::NotFoundError(absl::StrCat("task ", task_id, " not found"));
  return s.Text(0);
}

absl::StatusOr<std::vector<std::vector<int64_t>>> SqlStore::AddMetricsBatch(const std::vector<TrialReports>& parts) {
  std::vector<std::vector<int64_t>> ids(parts.size());
  for (const TrialReports& part : parts) {
    for (const MetricsReport& m : part.reports) {
      if (m.trial_id != part.reports.front().trial_id) {
        return absl::InvalidArgumentError(
            absl::StrCat("a batch of metrics is for one trial: ", part.reports.front().trial_id, " and ", m.trial_id));
      }
    }
  }
  if (absl::c_all_of(parts, [](const TrialReports& p) { return p.reports.empty(); })) return ids;
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto read, db.Prepare("SELECT total_batches, latest_validation, best_validation, summary_metrics, "
                                         "searcher_metric_value FROM trials WHERE id = ?"));
  ASSIGN_OR_RETURN(auto insert, db.Prepare("INSERT INTO metrics (trial_id, trial_run_id, metric_group, total_batches, "
                                           "end_time, metrics, batch_metrics) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id"));
  std::map<int64_t, Trial> summaries;  // each trial's, read once
  for (size_t i = 0; i < parts.size(); ++i) {
    for (const MetricsReport& m : parts[i].reports) {
      auto [it, first] = summaries.try_emplace(m.trial_id);
      Trial& trial = it->second;
      if (first) {
        read.Reset();
        read.Bind(1, m.trial_id);
        ASSIGN_OR_RETURN(bool found, read.Step());
        if (!found) return absl::NotFoundError(absl::StrCat("trial ", m.trial_id, " not found"));
        trial.id = m.trial_id;
        trial.total_batches = read.Int(0);
        trial.latest_validation_json = read.Text(1);
        trial.best_validation_json = read.Text(2);
        trial.summary_metrics_json = read.Text(3);
        if (!read.IsNull(4)) trial.searcher_metric_value = read.Double(4);
      }
      insert.Reset();
      insert.Bind(1, m.trial_id).Bind(2, m.trial_run_id).Bind(3, m.group).Bind(4, m.total_batches);
      insert.Bind(5, Micros(m.end_time)).Bind(6, m.metrics_json).Bind(7, m.batch_metrics_json);
      ASSIGN_OR_RETURN(int64_t id, InsertedId(insert));
      ids[i].push_back(id);
    }
    if (!parts[i].reports.empty()) parts[i].update_summary(summaries[parts[i].reports.front().trial_id], parts[i].reports);
  }
  ASSIGN_OR_RETURN(auto update, db.Prepare("UPDATE trials SET total_batches = ?, latest_validation = ?, "
                                           "best_validation = ?, summary_metrics = ?, searcher_metric_value = ? "
                                           "WHERE id = ?"));
  for (const auto& [id, trial] : summaries) {
    update.Reset();
    update.Bind(1, trial.total_batches).Bind(2, trial.latest_validation_json).Bind(3, trial.best_validation_json);
    update.Bind(4, trial.summary_metrics_json).Bind(5, trial.searcher_metric_value).Bind(6, id);
    RETURN_IF_ERROR(update.Run());
  }
  RETURN_IF_ERROR(tx.Commit());
  return ids;
}

absl::StatusOr<std::vector<MetricsReport>> SqlStore::GetMetrics(int64_t trial_id, const std::string& group,
                                                                   const BatchRange& range) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("SELECT id, trial_id, trial_run_id, metric_group, total_batches, end_time, metrics, "
                               "batch_metrics FROM metrics WHERE trial_id = ? AND metric_group = ? "
                               "AND total_batches >= ? AND total_batches <= ? ORDER BY total_batches, id"));
  s.Bind(1, trial_id).Bind(2, group).Bind(3, range.start);
  s.Bind(4, range.end.value_or(std::numeric_limits<int64_t>::max()));
  return All<MetricsReport>(s, [](const SqlStatement& st) {
    MetricsReport m;
    m.id = st.Int(0);
    m.trial_id = st.Int(1);
    m.trial_run_id = static_cast<int>(st.Int(2));
    m.group = st.Text(3);
    m.total_batches = st.Int(4);
    m.end_time = FromUnixMicros(st.Int(5));
    m.metrics_json = st.Text(6);
    m.batch_metrics_json = st.Text(7);
    return m;
  });
}

absl::Status SqlStore::AddCheckpoint(const Checkpoint& c, int64_t size_bytes) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO checkpoints (uuid, task_id, allocation_id, trial_id, experiment_id, "
                               "report_time, state, resources, metadata, steps_completed) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  s.Bind(1, c.uuid).Bind(2, c.task_id).Bind(3, c.allocation_id).Bind(4, c.trial_id).Bind(5, c.experiment_id);
  s.Bind(6, Micros(c.report_time)).Bind(7, c.state).Bind(8, c.resources_json).Bind(9, c.metadata_json);
  s.Bind(10, c.steps_completed);
  absl::Status st = s.Run();
  if (!st.ok()) {
    if (absl::IsAlreadyExists(st)) {
      return absl::AlreadyExistsError(absl::StrCat("checkpoint ", c.uuid, " was already reported"));
    }
    return st;
  }
  ASSIGN_OR_RETURN(auto u, db.Prepare("UPDATE trials SET latest_checkpoint = ?, checkpoint_count = checkpoint_count + 1, "
                               "total_checkpoint_size = total_checkpoint_size + ? WHERE id = ?"));
  u.Bind(1, c.uuid).Bind(2, size_bytes).Bind(3, c.trial_id);
  RETURN_IF_ERROR(u.Run());
  RETURN_IF_ERROR(AddToExperimentCheckpointTotals(db, c.trial_id, size_bytes, 1));
  return tx.Commit();
}

absl::StatusOr<Checkpoint> SqlStore::GetCheckpoint(const std::string& uuid) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kCheckpointColumns, "WHERE uuid = ?")));
  s.Bind(1, uuid);
  return One<Checkpoint>(s, ReadCheckpoint, absl::StrCat("checkpoint ", uuid));
}

absl::StatusOr<std::vector<Checkpoint>> SqlStore::ListCheckpoints(int64_t experiment_id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kCheckpointColumns, "WHERE experiment_id = ? ORDER BY report_time")));
  s.Bind(1, experiment_id);
  return All<Checkpoint>(s, ReadCheckpoint);
}

absl::Status SqlStore::MarkCheckpointDeleted(const std::string& uuid) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto s, db.Prepare("SELECT trial_id, state, resources FROM checkpoints WHERE uuid = ?"));
  s.Bind(1, uuid);
  ASSIGN_OR_RETURN(bool found, s.Step());
  if (!found) return absl::NotFoundError(absl::StrCat("checkpoint ", uuid, " not found"));
  if (s.Text(1) == "DELETED") return absl::OkStatus();
  int64_t trial_id = s.Int(0);
  int64_t size_bytes = ResourcesSize(s.Text(2));  // what AddCheckpoint counted
  ASSIGN_OR_RETURN(auto d, db.Prepare("UPDATE checkpoints SET state = 'DELETED' WHERE uuid = ?"));
  d.Bind(1, uuid);
  RETURN_IF_ERROR(d.Run());
  // A trial whose latest checkpoint goes resumes from the latest one left (or from scratch).
  ASSIGN_OR_RETURN(auto u, db.Prepare(
                               "UPDATE trials SET "
                               "checkpoint_count = CASE WHEN checkpoint_count > 0 THEN checkpoint_count - 1 ELSE 0 END, "
                               "total_checkpoint_size = CASE WHEN total_checkpoint_size > ?1 "
                               "THEN total_checkpoint_size - ?1 ELSE 0 END, "
                               "latest_checkpoint = CASE WHEN latest_checkpoint = ?3 THEN COALESCE("
                               "(SELECT uuid FROM checkpoints WHERE trial_id = ?2 AND state = 'COMPLETED' "
                               "ORDER BY report_time DESC, rowid DESC LIMIT 1), '') ELSE latest_checkpoint END "
                               "WHERE id = ?2"));
  u.Bind(1, size_bytes).Bind(2, trial_id).Bind(3, uuid);
  RETURN_IF_ERROR(u.Run());
  RETURN_IF_ERROR(AddToExperimentCheckpointTotals(db, trial_id, -size_bytes, -1));
  return tx.Commit();
}

absl::Status SqlStore::SetCheckpointGcPending(int64_t experiment_id, bool pending) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE experiments SET checkpoint_gc_pending = ? WHERE id = ?"));
  s.Bind(1, pending ? 1 : 0).Bind(2, experiment_id);
  return s.Run();
}

absl::StatusOr<std::vector<int64_t>> SqlStore::ListCheckpointGcPending() {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("SELECT id FROM experiments WHERE checkpoint_gc_pending = 1 ORDER BY id"));
  return All<int64_t>(s, [](const SqlStatement& st) { return st.Int(0); });
}

absl::Status SqlStore::AddTaskLogs(const std::vector<TaskLog>& logs) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO task_logs (task_id, allocation_id, agent_id, container_id, rank_id, "
                               "timestamp, level, log, source, stdtype) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  for (const TaskLog& l : logs) {
    s.Bind(1, l.task_id).Bind(2, l.allocation_id).Bind(3, l.agent_id).Bind(4, l.container_id);
    s.Bind(5, l.rank_id ? std::optional<int64_t>(*l.rank_id) : std::nullopt);
    s.Bind(6, Micros(l.timestamp)).Bind(7, l.level).Bind(8, l.log).Bind(9, l.source).Bind(10, l.stdtype);
    RETURN_IF_ERROR(s.Run());
    s.Reset();
  }
  return tx.Commit();
}

namespace {

constexpr char kTaskLogColumns[] =
    "SELECT id, task_id, allocation_id, agent_id, container_id, rank_id, timestamp, level, log, source, stdtype "
    "FROM task_logs ";

TaskLog ReadTaskLog(const SqlStatement& st) {
  TaskLog l;
  l.id = st.Int(0);
  l.task_id = st.Text(1);
  l.allocation_id = st.Text(2);
  l.agent_id = st.Text(3);
  l.container_id = st.Text(4);
  if (auto r = st.OptInt(5)) l.rank_id = static_cast<int>(*r);
  l.timestamp = FromUnixMicros(st.Int(6));
  l.level = st.Text(7);
  l.log = st.Text(8);
  l.source = st.Text(9);
  l.stdtype = st.Text(10);
  return l;
}

}  // namespace

namespace {

// The WHERE conditions `filter` adds (each with its "?" placeholders) and a binder for their values.
struct TaskLogConditions {
  std::string sql;
  std::function<int(SqlStatement&, int)> bind;  // binds from index `i`; returns the next index
};

TaskLogConditions TaskLogFilterSql(SqlDialect d, const TaskLogFilter& filter) {
  std::string sql;
  auto in = [&sql](const char* column, size_t n, const char* or_also = "") {
    if (n == 0) return;
    std::vector<std::string> marks(n, "?");
    absl::StrAppend(&sql, " AND (", column, " IN (", absl::StrJoin(marks, ", "), ")", or_also, ")");
  };
  in("agent_id", filter.agent_ids.size());
  in("container_id", filter.container_ids.size());
  // Rank -1 stands for lines without a rank.
  bool no_rank = absl::c_linear_search(filter.rank_ids, int64_t{-1});
  in("rank_id", filter.rank_ids.size(), no_rank ? " OR rank_id IS NULL" : "");
  in("source", filter.sources.size());
  in("stdtype", filter.stdtypes.size());
  in("level", filter.levels.size());
  if (filter.before) sql += " AND timestamp < ?";
  if (filter.after) sql += " AND timestamp > ?";
  if (!filter.search_text.empty()) {
    // LIKE, not ILIKE: a plain search is case-sensitive on both.
    absl::StrAppend(&sql, " AND log ", filter.search_is_regex ? RegexpMatch(d) : "LIKE ? ESCAPE '\\'",
                    filter.search_is_regex ? " ?" : "");
  }
  return {sql, [&filter](SqlStatement& s, int i) {
            for (const auto* list : {&filter.agent_ids, &filter.container_ids}) {
              for (const std::string& v : *list) s.Bind(i++, v);
            }
            for (int64_t v : filter.rank_ids) s.Bind(i++, v);
            for (const auto* list : {&filter.sources, &filter.stdtypes, &filter.levels}) {
              for (const std::string& v : *list) s.Bind(i++, v);
            }
            if (filter.before) s.Bind(i++, Micros(*filter.before));
            if (filter.after) s.Bind(i++, Micros(*filter.after));
            if (!filter.search_text.empty()) {
              s.Bind(i++, filter.search_is_regex ? filter.search_text : LikeContains(filter.search_text));
            }
            return i;
          }};
}

}  // namespace

absl::StatusOr<std::vector<TaskLog>> SqlStore::GetTaskLogs(const std::string& task_id, int64_t after_id, int limit,
                                                              const TaskLogFilter& filter) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  TaskLogConditions where = TaskLogFilterSql(db.dialect(), filter);
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kTaskLogColumns, "WHERE task_id = ? AND id > ?", where.sql,
                                                 " ORDER BY id LIMIT ?")
                                        ));
  s.Bind(1, task_id).Bind(2, after_id);
  s.Bind(where.bind(s, 3), static_cast<int64_t>(limit));
  return All<TaskLog>(s, ReadTaskLog);
}

absl::StatusOr<std::vector<TaskLog>> SqlStore::GetTaskLogsNewestFirst(const std::string& task_id, int64_t before_id,
                                                                         int limit, const TaskLogFilter& filter) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  TaskLogConditions where = TaskLogFilterSql(db.dialect(), filter);
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kTaskLogColumns, "WHERE task_id = ? AND id < ?", where.sql,
                                                 " ORDER BY id DESC LIMIT ?")
                                        ));
  s.Bind(1, task_id).Bind(2, before_id > 0 ? before_id : std::numeric_limits<int64_t>::max());
  s.Bind(where.bind(s, 3), static_cast<int64_t>(limit));
  return All<TaskLog>(s, ReadTaskLog);
}

absl::StatusOr<TaskLogFields> SqlStore::GetTaskLogFields(const std::string& task_id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  TaskLogFields fields;
  auto distinct = [&](const char* column, auto& out) -> absl::Status {
    ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat("SELECT DISTINCT ", column, " FROM task_logs WHERE task_id = ? AND ",
                                                   column, " IS NOT NULL", std::string_view(column) == "rank_id" ? "" : absl::StrCat(" AND ", column, " != ''"),
                                                   " ORDER BY 1")
                                          ));
    s.Bind(1, task_id);
    while (true) {
      ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return absl::OkStatus();
      if constexpr (std::is_same_v<std::decay_t<decltype(out)>, std::vector<int64_t>>) {
        out.push_back(s.Int(0));
      } else {
        out.push_back(s.Text(0));
      }
    }
  };
  RETURN_IF_ERROR(distinct("allocation_id", fields.allocation_ids));
  RETURN_IF_ERROR(distinct("agent_id", fields.agent_ids));
  RETURN_IF_ERROR(distinct("container_id", fields.container_ids));
  RETURN_IF_ERROR(distinct("rank_id", fields.rank_ids));
  RETURN_IF_ERROR(distinct("stdtype", fields.stdtypes));
  RETURN_IF_ERROR(distinct("source", fields.sources));
  return fields;
}

namespace {

std::string TemplateNotFound(const std::string& name) { return absl::StrCat("template \"", name, "\" not found"); }

Template ReadTemplate(const SqlStatement& s) {
  Template t;
  t.name = s.Text(0);
  t.config_json = s.Text(1);
  t.workspace_id = s.Int(2);
  return t;
}

}  // namespace

absl::Status SqlStore::InsertTemplate(const Template& tpl) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO templates (name, config, workspace_id) VALUES (?, ?, ?) "
                                    "ON CONFLICT (name) DO NOTHING"));
  s.Bind(1, tpl.name).Bind(2, tpl.config_json).Bind(3, tpl.workspace_id);
  RETURN_IF_ERROR(s.Run());
  if (s.Changes() == 0) {
    return absl::AlreadyExistsError(absl::StrCat("template \"", tpl.name, "\" already exists"));
  }
  return absl::OkStatus();
}

absl::Status SqlStore::PutTemplate(const Template& tpl) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO templates (name, config, workspace_id) VALUES (?, ?, ?) "
                                    "ON CONFLICT (name) DO UPDATE SET config = excluded.config, "
                                    "workspace_id = excluded.workspace_id"));
  s.Bind(1, tpl.name).Bind(2, tpl.config_json).Bind(3, tpl.workspace_id);
  return s.Run();
}

absl::StatusOr<Template> SqlStore::GetTemplate(const std::string& name) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s,
                   db.Prepare("SELECT name, config, workspace_id FROM templates WHERE name = ?"));
  s.Bind(1, name);
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::NotFoundError(TemplateNotFound(name));
  return ReadTemplate(s);
}

absl::StatusOr<TemplatePage> SqlStore::ListTemplates(const TemplateFilter& filter) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  std::vector<std::string> clauses;
  if (!filter.name_contains.empty()) {
    clauses.push_back(absl::StrCat("name ", CaseInsensitiveLike(db.dialect()), " ? ESCAPE '\\'"));
  }
  if (!filter.workspace_ids.empty()) {
    std::vector<std::string> marks(filter.workspace_ids.size(), "?");
    clauses.push_back(absl::StrCat("workspace_id IN (", absl::StrJoin(marks, ", "), ")"));
  }
  std::string where = clauses.empty() ? "" : absl::StrCat("WHERE ", absl::StrJoin(clauses, " AND "), " ");
  auto bind_where = [&](SqlStatement& s) {
    int i = 1;
    if (!filter.name_contains.empty()) s.Bind(i++, LikeContains(filter.name_contains));
    for (int64_t id : filter.workspace_ids) s.Bind(i++, id);
    return i;
  };
  TemplatePage page;
  ASSIGN_OR_RETURN(auto count, db.Prepare(absl::StrCat("SELECT count(*) FROM templates ", where)));
  bind_where(count);
  ASSIGN_OR_RETURN(page.total, One<int64_t>(count, [](const SqlStatement& st) { return st.Int(0); }, "count"));
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat("SELECT name, config, workspace_id FROM templates ", where,
                                                 "ORDER BY name ", filter.descending ? "DESC" : "ASC",
                                                 " LIMIT ? OFFSET ?")
                                        ));
  int i = bind_where(s);
  s.Bind(i, filter.limit > 0 ? filter.limit : kNoLimit);
  s.Bind(i + 1, std::max<int64_t>(0, filter.offset));
  ASSIGN_OR_RETURN(page.templates, All<Template>(s, ReadTemplate));
  return page;
}

absl::Status SqlStore::UpdateTemplateConfig(const std::string& name, const std::string& config_json) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE templates SET config = ? WHERE name = ?"));
  s.Bind(1, config_json).Bind(2, name);
  RETURN_IF_ERROR(s.Run());
  if (s.Changes() == 0) return absl::NotFoundError(TemplateNotFound(name));
  return absl::OkStatus();
}

absl::Status SqlStore::RenameTemplate(const std::string& old_name, const std::string& new_name) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto taken, db.Prepare("SELECT 1 FROM templates WHERE name = ?"));
  taken.Bind(1, new_name);
  ASSIGN_OR_RETURN(bool exists, taken.Step());
  if (exists && new_name != old_name) {
    return absl::AlreadyExistsError(absl::StrCat("template \"", new_name, "\" already exists"));
  }
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE templates SET name = ? WHERE name = ?"));
  s.Bind(1, new_name).Bind(2, old_name);
  RETURN_IF_ERROR(s.Run());
  if (s.Changes() == 0) return absl::NotFoundError(TemplateNotFound(old_name));
  return tx.Commit();
}

absl::Status SqlStore::DeleteTemplate(const std::string& name) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("DELETE FROM templates WHERE name = ?"));
  s.Bind(1, name);
  RETURN_IF_ERROR(s.Run());
  if (s.Changes() == 0) return absl::NotFoundError(TemplateNotFound(name));
  return absl::OkStatus();
}

// --- Users -------------------------------------------------------------------------------------

namespace {

std::string UserOrderBy(const UserFilter& filter) {
  std::string key;
  switch (filter.sort) {
    case UserSort::kId: key = "id"; break;
    case UserSort::kUsername: key = "username"; break;
    case UserSort::kDisplayName: key = "display_name"; break;
    case UserSort::kAdmin: key = "admin"; break;
    case UserSort::kActive: key = "active"; break;
    case UserSort::kModifiedTime: key = "modified_at"; break;
  }
  const char* dir = filter.descending ? " DESC" : " ASC";
  if (key == "id") return absl::StrCat("ORDER BY id", dir, " ");
  return absl::StrCat("ORDER BY ", key, dir, ", id", dir, " ");
}

}  // namespace

absl::StatusOr<User> SqlStore::InsertUser(const User& user) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO users (username, password_hash, admin, active, display_name, "
                               "modified_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id"));
  s.Bind(1, user.username).Bind(2, user.password_hash).Bind(3, user.admin ? 1 : 0).Bind(4, user.active ? 1 : 0);
  s.Bind(5, user.display_name).Bind(6, Micros(std::chrono::system_clock::now()));
  absl::StatusOr<int64_t> id = InsertedId(s);
  if (absl::IsAlreadyExists(id.status())) {
    return absl::AlreadyExistsError(absl::StrCat("user \"", user.username, "\" already exists"));
  }
  if (!id.ok()) return id.status();
  s.Reset();
  return UserById(db, *id);
}

absl::StatusOr<User> SqlStore::UpdateUser(int64_t id, const UserPatch& patch) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  std::vector<std::string> sets = {"modified_at = ?"};
  if (patch.username) sets.push_back("username = ?");
  if (patch.display_name) sets.push_back("display_name = ?");
  if (patch.admin) sets.push_back("admin = ?");
  if (patch.active) sets.push_back("active = ?");
  if (patch.password_hash) sets.push_back("password_hash = ?");
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat("UPDATE users SET ", absl::StrJoin(sets, ", "), " WHERE id = ?")
                                        ));
  int i = 1;
  s.Bind(i++, Micros(std::chrono::system_clock::now()));
  if (patch.username) s.Bind(i++, *patch.username);
  if (patch.display_name) s.Bind(i++, *patch.display_name);
  if (patch.admin) s.Bind(i++, *patch.admin ? 1 : 0);
  if (patch.active) s.Bind(i++, *patch.active ? 1 : 0);
  if (patch.password_hash) s.Bind(i++, *patch.password_hash);
  s.Bind(i, id);
  if (absl::Status st = s.Run(); !st.ok()) {
    if (absl::IsAlreadyExists(st) && patch.username) {
      return absl::AlreadyExistsError(absl::StrCat("user \"", *patch.username, "\" already exists"));
    }
    return st;
  }
  if (s.Changes() == 0) return absl::NotFoundError(absl::StrCat("user ", id, " not found"));
  return UserById(db, id);
}

absl::StatusOr<UserPage> SqlStore::ListUsers(const UserFilter& filter) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  std::vector<std::string> clauses;
  if (!filter.name_contains.empty()) {
    const char* like = CaseInsensitiveLike(db.dialect());
    clauses.push_back(absl::StrCat("(username ", like, " ? ESCAPE '\\' OR display_name ", like, " ? ESCAPE '\\')"));
  }
  if (filter.active) clauses.push_back(*filter.active ? "active = 1" : "active = 0");
  if (filter.admin) clauses.push_back(*filter.admin ? "admin = 1" : "admin = 0");
  std::string where = clauses.empty() ? "" : absl::StrCat("WHERE ", absl::StrJoin(clauses, " AND "), " ");
  auto bind_where = [&](SqlStatement& s) {
    int i = 1;
    if (!filter.name_contains.empty()) {
      s.Bind(i++, LikeContains(filter.name_contains));
      s.Bind(i++, LikeContains(filter.name_contains));
    }
    return i;
  };
  UserPage page;
  ASSIGN_OR_RETURN(auto count, db.Prepare(absl::StrCat("SELECT count(*) FROM users ", where)));
  bind_where(count);
  ASSIGN_OR_RETURN(page.total, One<int64_t>(count, [](const SqlStatement& st) { return st.Int(0); }, "count"));
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kUserColumns, where, UserOrderBy(filter), "LIMIT ? OFFSET ?")));
  int i = bind_where(s);
  s.Bind(i, filter.limit > 0 ? filter.limit : kNoLimit);
  s.Bind(i + 1, std::max<int64_t>(0, filter.offset));
  ASSIGN_OR_RETURN(page.users, All<User>(s, ReadUser));
  return page;
}

absl::Status SqlStore::DeleteUserSessions(int64_t user_id) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("DELETE FROM user_sessions WHERE user_id = ?"));
  s.Bind(1, user_id);
  return s.Run();
}

// --- Experiment edits ---------------------------------------------------------------------------

absl::StatusOr<Experiment> SqlStore::PatchExperiment(int64_t id, const ExperimentPatch& patch) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  std::vector<std::string> sets;
  if (patch.name) sets.push_back("name = ?");
  if (patch.description) sets.push_back("description = ?");
  if (patch.notes) sets.push_back("notes = ?");
  if (patch.labels) sets.push_back("labels = ?");
  if (patch.config_json) sets.push_back("config = ?");
  if (patch.queue_position) sets.push_back("queue_position = ?");
  if (!sets.empty()) {
    ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat("UPDATE experiments SET ", absl::StrJoin(sets, ", "),
                                                   " WHERE id = ?")
                                          ));
    int i = 1;
    if (patch.name) s.Bind(i++, *patch.name);
    if (patch.description) s.Bind(i++, *patch.description);
    if (patch.notes) s.Bind(i++, *patch.notes);
    if (patch.labels) s.Bind(i++, nlohmann::json(*patch.labels).dump());
    if (patch.config_json) s.Bind(i++, *patch.config_json);
    if (patch.queue_position) s.Bind(i++, *patch.queue_position);
    s.Bind(i, id);
    RETURN_IF_ERROR(s.Run());
  }
  return ExperimentById(db, id);
}

namespace {

bool In(api::ExperimentState state, const std::vector<api::ExperimentState>& states) {
  return absl::c_linear_search(states, state);
}

// The experiment's state, read inside the caller's transaction.
absl::StatusOr<api::ExperimentState> ExperimentStateOf(SqlConnection& db, int64_t id) {
  ASSIGN_OR_RETURN(auto s, db.Prepare("SELECT state FROM experiments WHERE id = ?"));
  s.Bind(1, id);
  return One<api::ExperimentState>(
      s, [](const SqlStatement& st) { return api::ParseExperimentState(st.Text(0)).value_or(api::ExperimentState::kError); },
      absl::StrCat("experiment ", id));
}

}  // namespace

absl::StatusOr<api::ExperimentState> SqlStore::SetExperimentArchived(
    int64_t id, bool archived, const std::vector<api::ExperimentState>& only_in) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(api::ExperimentState found, ExperimentStateOf(db, id));
  if (!In(found, only_in)) return found;
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE experiments SET archived = ? WHERE id = ?"));
  s.Bind(1, archived ? 1 : 0).Bind(2, id);
  RETURN_IF_ERROR(s.Run());
  RETURN_IF_ERROR(tx.Commit());
  return found;
}

absl::StatusOr<api::ExperimentState> SqlStore::SetExperimentState(
    int64_t id, api::ExperimentState state, const std::vector<api::ExperimentState>& only_in) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(api::ExperimentState found, ExperimentStateOf(db, id));
  if (!In(found, only_in)) return found;
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE experiments SET state = ? WHERE id = ?"));
  s.Bind(1, std::string(Name(state))).Bind(2, id);
  RETURN_IF_ERROR(s.Run());
  RETURN_IF_ERROR(tx.Commit());
  return found;
}

absl::StatusOr<api::ExperimentState> SqlStore::DeleteExperiment(int64_t id,
                                                               const std::vector<api::ExperimentState>& only_in) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(api::ExperimentState found, ExperimentStateOf(db, id));
  if (!In(found, only_in)) return found;
  constexpr const char* kDeletes[] = {
      "DELETE FROM task_logs WHERE task_id IN (SELECT task_id FROM trials WHERE experiment_id = ?1)",
      "DELETE FROM metrics WHERE trial_id IN (SELECT id FROM trials WHERE experiment_id = ?1)",
      "DELETE FROM checkpoints WHERE experiment_id = ?1 OR trial_id IN "
      "(SELECT id FROM trials WHERE experiment_id = ?1)",
      "DELETE FROM allocations WHERE task_id IN (SELECT task_id FROM trials WHERE experiment_id = ?1)",
      "DELETE FROM tasks WHERE task_id IN (SELECT task_id FROM trials WHERE experiment_id = ?1)",
      "DELETE FROM searcher_snapshots WHERE experiment_id = ?1",
      "DELETE FROM trials WHERE experiment_id = ?1",
      "DELETE FROM experiments WHERE id = ?1",
  };
  for (const char* sql : kDeletes) {
    ASSIGN_OR_RETURN(auto s, db.Prepare(sql));
    s.Bind(1, id);
    RETURN_IF_ERROR(s.Run());
  }
  RETURN_IF_ERROR(tx.Commit());
  return found;
}

}  // namespace det::master
