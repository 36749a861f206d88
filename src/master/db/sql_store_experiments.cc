// The experiments, trials and searcher state area of SqlStore.
#include "master/db/sql_store.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <type_traits>
#include <nlohmann/json.hpp>

#include "absl/algorithm/container.h"
#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "master/db/sql/sql_dialect.h"
#include "master/db/sql_store_rows.h"

namespace det::master {

using namespace sql_rows;  // NOLINT(build/namespaces): this area's half of sql_store_rows.h

namespace {
absl::StatusOr<Experiment> ExperimentById(SqlConnection& db, int64_t id);
}  // namespace

absl::StatusOr<HighestIds> SqlStore::GetHighestIds() {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat("SELECT ", HighestIdEver(db.dialect(), "experiments"), ", ",
                                                   HighestIdEver(db.dialect(), "trials"))));
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::InternalError("the highest ids: no row");
  return HighestIds{.experiment = s.Int(0), .trial = s.Int(1)};
}

namespace {

// An INSERT's id column and value: the id the master gave (the statement's first parameter), or a new
// one.
NewRowId GivenOrNewId(SqlDialect d, const std::string& table, int64_t given) {
  return given > 0 ? NewRowId{"id, ", "?, "} : NeverReusedId(d, table);
}

}  // namespace

absl::StatusOr<int64_t> SqlStore::InsertExperiment(const Experiment& e, const std::string& model_definition_tgz) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  NewRowId new_id = GivenOrNewId(db.dialect(), "experiments", e.id);
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(
                               "INSERT INTO experiments (", new_id.column, "name, description, labels, state, archived, ",
                               "config, original_config, model_definition, owner_id, start_time, end_time, progress, ",
                               "job_id, project_id) VALUES (", new_id.value, "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id")));
  const int first = e.id > 0 ? 2 : 1;
  if (e.id > 0) s.Bind(1, e.id);
  s.Bind(first, e.name).Bind(first + 1, e.description).Bind(first + 2, nlohmann::json(e.labels).dump());
  s.Bind(first + 3, std::string(Name(e.state))).Bind(first + 4, e.archived ? 1 : 0).Bind(first + 5, e.config_json);
  s.Bind(first + 6, e.original_config).BindBlob(first + 7, model_definition_tgz).Bind(first + 8, e.owner_id);
  s.Bind(first + 9, Micros(e.start_time)).Bind(first + 10, Micros(e.end_time)).Bind(first + 11, e.progress);
  s.Bind(first + 12, e.job_id).Bind(first + 13, e.project_id);
  ASSIGN_OR_RETURN(int64_t id, InsertedId(s));
  if (e.id > 0) RETURN_IF_ERROR(KeepSequencePast(db, "experiments", id));
  RETURN_IF_ERROR(tx.Commit());
  return id;
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

// The experiments' trial ids, in one query per 500 experiments (one per experiment would be a round
// trip each on PostgreSQL).
absl::Status FillTrialIds(SqlConnection& db, std::vector<Experiment>& experiments) {
  for (size_t first = 0; first < experiments.size(); first += 500) {
    size_t n = std::min<size_t>(500, experiments.size() - first);
    std::map<int64_t, Experiment*> by_id;
    for (size_t k = first; k < first + n; ++k) by_id[experiments[k].id] = &experiments[k];
    ASSIGN_OR_RETURN(auto trials, db.Prepare(absl::StrCat(
                                      "SELECT experiment_id, id FROM trials WHERE experiment_id IN (",
                                      absl::StrJoin(std::vector<std::string>(n, "?"), ", "), ") ORDER BY id")));
    int k = 1;
    for (const auto& [id, e] : by_id) trials.Bind(k++, id);
    while (true) {
      ASSIGN_OR_RETURN(bool row, trials.Step());
      if (!row) break;
      by_id[trials.Int(0)]->trial_ids.push_back(trials.Int(1));
    }
  }
  return absl::OkStatus();
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
  std::vector<Experiment> one;
  one.push_back(std::move(e));
  RETURN_IF_ERROR(FillTrialIds(db, one));
  return std::move(one.front());
}

}  // namespace


namespace {

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
  const ExperimentFilter::IdFilter& ids = filter.ids;
  for (const auto& [bound, op] : {std::pair{&ids.lt, "<"}, std::pair{&ids.lte, "<="}, std::pair{&ids.gt, ">"},
                                  std::pair{&ids.gte, ">="}}) {
    if (!bound->has_value()) continue;
    clauses.push_back(absl::StrCat("e.id ", op, " CAST(? AS BIGINT)"));
    binds.push_back(std::to_string(**bound));
  }
  for (const auto& [list, op] : {std::pair{&ids.incl, "IN"}, std::pair{&ids.not_in, "NOT IN"}}) {
    if (list->empty()) continue;
    std::vector<std::string> marks(list->size(), "CAST(? AS BIGINT)");
    clauses.push_back(absl::StrCat("e.id ", op, " (", absl::StrJoin(marks, ", "), ")"));
    for (int64_t id : *list) binds.push_back(std::to_string(id));
  }
  if (filter.project_id) {
    clauses.push_back("e.project_id = CAST(? AS BIGINT)");
    binds.push_back(std::to_string(*filter.project_id));
  }
  if (filter.visible_workspaces) {
    // Served by the index experiments(project_id, owner_id) (migration 0026), which covers the count.
    clauses.push_back(absl::StrCat("e.project_id IN (SELECT id FROM projects WHERE ",
                                   IdsIn("workspace_id", *filter.visible_workspaces), ")"));
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
  // The page's ids first, then their columns: the columns' subqueries (totals, display state) run for
  // the page's rows only, not for every row an OFFSET skips.
  std::string order = ExperimentOrderBy(db.dialect(), filter);
  std::string sql = absl::StrCat(ExperimentColumns(), "WHERE e.id IN (SELECT e.id FROM experiments e JOIN users u ON ",
                                 "u.id = e.owner_id ", where, order, "LIMIT ? OFFSET ?) ", order);
  ASSIGN_OR_RETURN(auto s, db.Prepare(sql));
  int i = 1;
  for (const std::string& b : binds) s.Bind(i++, b);
  s.Bind(i, filter.limit > 0 ? filter.limit : kNoLimit);
  s.Bind(i + 1, std::max<int64_t>(0, filter.offset));
  ASSIGN_OR_RETURN(std::vector<Experiment> out, All<Experiment>(s, ReadExperiment));
  RETURN_IF_ERROR(FillTrialIds(db, out));
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
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO searcher_snapshots (experiment_id, snapshot, updated_at) VALUES (?, ?, ?) "
                               "ON CONFLICT(experiment_id) DO UPDATE SET snapshot = excluded.snapshot, "
                               "updated_at = excluded.updated_at"));
  s.Bind(1, experiment_id).Bind(2, snapshot_json).Bind(3, Micros(std::chrono::system_clock::now()));
  RETURN_IF_ERROR(s.Run());
  ASSIGN_OR_RETURN(auto events, db.Prepare("DELETE FROM searcher_events WHERE experiment_id = ?"));
  events.Bind(1, experiment_id);
  RETURN_IF_ERROR(events.Run());
  return tx.Commit();
}

absl::Status SqlStore::AppendSearcherEvents(int64_t experiment_id, int64_t first_seq,
                                            const std::vector<std::string>& events) {
  if (events.empty()) return absl::OkStatus();
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto next, db.Prepare("SELECT COALESCE(MAX(seq) + 1, 0) FROM searcher_events WHERE experiment_id = ?"));
  next.Bind(1, experiment_id);
  RETURN_IF_ERROR(next.Step().status());
  if (first_seq < next.Int(0)) {
    return absl::AlreadyExistsError(absl::StrCat("experiment ", experiment_id, ": searcher event ", first_seq,
                                                 " is saved already"));
  }
  if (first_seq > next.Int(0)) {  // an append before this one failed: a snapshot must come first
    return absl::FailedPreconditionError(absl::StrCat("experiment ", experiment_id, ": searcher event ", first_seq,
                                                      " would leave a gap after event ", next.Int(0) - 1));
  }
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO searcher_events (experiment_id, seq, event) VALUES (?, ?, ?)"));
  for (size_t i = 0; i < events.size(); ++i) {
    s.Reset();
    s.Bind(1, experiment_id).Bind(2, first_seq + static_cast<int64_t>(i)).Bind(3, events[i]);
    RETURN_IF_ERROR(s.Run());
  }
  return tx.Commit();
}

absl::StatusOr<SavedSearcher> SqlStore::GetSearcher(int64_t experiment_id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  // One snapshot of the database for both reads: a snapshot saved between them deletes the events.
  // Read inside a batch of writes (on the writer's connection), the batch's transaction is that snapshot.
  const bool own_snapshot = db.open_transactions == 0;
  if (own_snapshot) RETURN_IF_ERROR(db.Exec("BEGIN"));
  absl::Cleanup end = [&db, own_snapshot] {
    if (own_snapshot) (void)db.Exec("COMMIT");
  };
  ASSIGN_OR_RETURN(auto s, db.Prepare("SELECT snapshot FROM searcher_snapshots WHERE experiment_id = ?"));
  s.Bind(1, experiment_id);
  SavedSearcher saved;
  ASSIGN_OR_RETURN(saved.snapshot, One<std::string>(s, [](const SqlStatement& st) { return st.Text(0); },
                                                    absl::StrCat("searcher snapshot of experiment ", experiment_id)));
  ASSIGN_OR_RETURN(auto events, db.Prepare("SELECT event FROM searcher_events WHERE experiment_id = ? ORDER BY seq"));
  events.Bind(1, experiment_id);
  ASSIGN_OR_RETURN(saved.events, All<std::string>(events, [](const SqlStatement& st) { return st.Text(0); }));
  return saved;
}

absl::StatusOr<int64_t> SqlStore::InsertTrial(const Trial& t) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  NewRowId new_id = GivenOrNewId(db.dialect(), "trials", t.id);
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat("INSERT INTO trials (", new_id.column,
                                                   "experiment_id, request_id, task_id, state, hparams, seed, "
                                                   "restarts, run_id, start_time, log_retention_days) VALUES (",
                                                   new_id.value, "?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id")));
  const int first = t.id > 0 ? 2 : 1;
  if (t.id > 0) s.Bind(1, t.id);
  s.Bind(first, t.experiment_id).Bind(first + 1, t.request_id).Bind(first + 2, t.task_id);
  s.Bind(first + 3, std::string(Name(t.state))).Bind(first + 4, t.hparams_json);
  s.Bind(first + 5, static_cast<int64_t>(t.seed)).Bind(first + 6, t.restarts).Bind(first + 7, t.run_id);
  s.Bind(first + 8, Micros(t.start_time)).Bind(first + 9, t.log_retention_days);
  ASSIGN_OR_RETURN(int64_t id, InsertedId(s));
  if (t.id > 0) RETURN_IF_ERROR(KeepSequencePast(db, "trials", id));
  ASSIGN_OR_RETURN(auto count, db.Prepare("UPDATE experiments SET num_trials = num_trials + 1 WHERE id = ?"));
  RETURN_IF_ERROR(count.Bind(1, t.experiment_id).Run());
  RETURN_IF_ERROR(tx.Commit());
  return id;
}

absl::Status SqlStore::UpdateTrialLifecycle(const Trial& t) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE trials SET state = ?, restarts = ?, run_id = ?, end_time = ?, "
                               "runner_state = ?, request_id = ? WHERE id = ?"));
  s.Bind(1, std::string(Name(t.state))).Bind(2, t.restarts).Bind(3, t.run_id).Bind(4, Micros(t.end_time));
  s.Bind(5, t.runner_state).Bind(6, t.request_id);
  s.Bind(7, t.id);
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

absl::Status SqlStore::SetExperimentProject(int64_t id, int64_t project_id) {
  SqlLease lease = Writer();
  ASSIGN_OR_RETURN(auto s, lease->Prepare("UPDATE experiments SET project_id = ? WHERE id = ? RETURNING id"));
  s.Bind(1, project_id).Bind(2, id);
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::NotFoundError(absl::StrCat("experiment ", id, " not found"));
  return absl::OkStatus();
}

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
  // The metric writers commit beside this one (PostgreSQL): wait for those holding these trials, and
  // keep others off them, before their metrics are deleted (AddMetricsBatch).
  ASSIGN_OR_RETURN(auto lock, db.Prepare(absl::StrCat("SELECT id FROM trials WHERE experiment_id = ? ORDER BY id",
                                                      LockedRows(db.dialect(), " FOR UPDATE"))));
  lock.Bind(1, id);
  RETURN_IF_ERROR(lock.Run());
  constexpr const char* kDeletes[] = {
      "DELETE FROM task_logs WHERE task_id IN (SELECT task_id FROM trials WHERE experiment_id = ?1)",
      "DELETE FROM metrics WHERE trial_id IN (SELECT id FROM trials WHERE experiment_id = ?1)",
      "DELETE FROM trial_source_infos WHERE trial_id IN (SELECT id FROM trials WHERE experiment_id = ?1)",
      ("DELETE FROM checkpoints WHERE experiment_id = ?1 OR trial_id IN "
       "(SELECT id FROM trials WHERE experiment_id = ?1)"),
      "DELETE FROM allocations WHERE task_id IN (SELECT task_id FROM trials WHERE experiment_id = ?1)",
      "DELETE FROM tasks WHERE task_id IN (SELECT task_id FROM trials WHERE experiment_id = ?1)",
      "DELETE FROM searcher_snapshots WHERE experiment_id = ?1",
      "DELETE FROM searcher_events WHERE experiment_id = ?1",
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
