// The metrics area of SqlStore: group-committed reports.
#include "master/db/sql_store.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <type_traits>
#include <nlohmann/json.hpp>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "master/db/sql/sql_dialect.h"
#include "master/db/sql_store_rows.h"

namespace det::master {

using namespace sql_rows;  // NOLINT(build/namespaces): this area's half of sql_store_rows.h

namespace {

constexpr const char* kInsertMetrics =
    "INSERT INTO metrics (trial_id, trial_run_id, metric_group, total_batches, end_time, metrics, batch_metrics) ";

// The ids of the rows in the order of the statement's rows: the ids a connection draws only grow
// (whatever other connections draw, and PostgreSQL's cache of 1,000 ids a connection included), so
// sorting them gives that order, whatever order RETURNING uses.
absl::StatusOr<std::vector<int64_t>> ReturnedIds(SqlStatement& insert, size_t rows) {
  std::vector<int64_t> ids;
  ids.reserve(rows);
  while (true) {
    ASSIGN_OR_RETURN(bool row, insert.Step());
    if (!row) break;
    ids.push_back(insert.Int(0));
  }
  if (ids.size() != rows) return absl::InternalError("an insert of metrics returned the wrong number of ids");
  std::sort(ids.begin(), ids.end());
  return ids;
}

// PostgreSQL: every row in one statement, each column one array parameter, so the server parses and
// plans seven parameters rather than seven a row, and does not set up each VALUES row's expressions.
absl::StatusOr<std::vector<int64_t>> InsertMetricColumns(SqlConnection& db, const std::vector<const MetricsReport*>& rows) {
  std::vector<int64_t> trial_ids, run_ids, batches, end_times;
  std::vector<std::string_view> groups, metrics, batch_metrics;
  for (const MetricsReport* m : rows) {
    trial_ids.push_back(m->trial_id);
    run_ids.push_back(m->trial_run_id);
    groups.push_back(m->group);
    batches.push_back(m->total_batches);
    end_times.push_back(Micros(m->end_time));
    metrics.push_back(m->metrics_json);
    batch_metrics.push_back(m->batch_metrics_json);
  }
  ASSIGN_OR_RETURN(auto insert, db.Prepare(absl::StrCat(
                                    kInsertMetrics,
                                    "SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::text[], ?::bigint[], ?::bigint[], "
                                    "?::text[], ?::text[]) RETURNING id")));
  insert.BindArray(1, trial_ids).BindArray(2, run_ids).BindArray(3, groups).BindArray(4, batches);
  insert.BindArray(5, end_times).BindArray(6, metrics).BindArray(7, batch_metrics);
  return ReturnedIds(insert, rows.size());
}

// SQLite: 1,000 rows a multi-row VALUES (7,000 parameters; SQLite allows 32,766).
absl::StatusOr<std::vector<int64_t>> InsertMetricValues(SqlConnection& db, const std::vector<const MetricsReport*>& rows) {
  std::vector<int64_t> ids;
  for (size_t first = 0; first < rows.size(); first += 1000) {
    size_t n = std::min<size_t>(1000, rows.size() - first);
    ASSIGN_OR_RETURN(auto insert, db.Prepare(absl::StrCat(
                                      kInsertMetrics, "VALUES ",
                                      absl::StrJoin(std::vector<std::string>(n, "(?, ?, ?, ?, ?, ?, ?)"), ", "),
                                      " RETURNING id")));
    int b = 1;
    for (size_t k = first; k < first + n; ++k) {
      const MetricsReport& m = *rows[k];
      insert.Bind(b, m.trial_id).Bind(b + 1, m.trial_run_id).Bind(b + 2, m.group).Bind(b + 3, m.total_batches);
      insert.Bind(b + 4, Micros(m.end_time)).Bind(b + 5, m.metrics_json).Bind(b + 6, m.batch_metrics_json);
      b += 7;
    }
    ASSIGN_OR_RETURN(std::vector<int64_t> chunk, ReturnedIds(insert, n));
    ids.insert(ids.end(), chunk.begin(), chunk.end());
  }
  return ids;
}

absl::StatusOr<std::vector<int64_t>> InsertMetricRows(SqlConnection& db, const std::vector<const MetricsReport*>& rows) {
  if (db.dialect() == SqlDialect::kPostgres) return InsertMetricColumns(db, rows);
  return InsertMetricValues(db, rows);
}

}  // namespace

absl::StatusOr<std::vector<std::vector<int64_t>>> SqlStore::AddMetricsBatch(const std::vector<TrialReports>& parts,
                                                                           int writer) {
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
  SqlLease lease = db_->SideWriters() > 0 ? db_->SideWriter(writer) : Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  // Few statements whatever the number of reports (each is a round trip on PostgreSQL): the
  // trials' summaries in one query per 500 trials, the rows in one INSERT (SQLite: one per 1,000).
  // Beside the writer (PostgreSQL), the trials are locked as they are read, without waiting: the
  // summaries are written back unchanged by anyone else, and a trial's deletion (which locks its
  // trials before it deletes their metrics) cannot leave metrics behind.
  std::map<int64_t, Trial> summaries;
  for (const TrialReports& part : parts) {
    if (!part.reports.empty()) summaries.try_emplace(part.reports.front().trial_id);
  }
  std::vector<int64_t> trial_ids;
  for (const auto& [id, trial] : summaries) trial_ids.push_back(id);
  for (size_t first = 0; first < trial_ids.size(); first += 500) {
    size_t n = std::min<size_t>(500, trial_ids.size() - first);
    ASSIGN_OR_RETURN(auto read, db.Prepare(absl::StrCat(
                                    "SELECT id, total_batches, latest_validation, best_validation, summary_metrics, "
                                    "searcher_metric_value FROM trials WHERE id IN (",
                                    absl::StrJoin(std::vector<std::string>(n, "?"), ", "), ")",
                                    LockedRows(db.dialect(), " FOR NO KEY UPDATE NOWAIT"))));
    for (size_t k = 0; k < n; ++k) read.Bind(static_cast<int>(k + 1), trial_ids[first + k]);
    while (true) {
      ASSIGN_OR_RETURN(bool row, read.Step());
      if (!row) break;
      Trial& trial = summaries[read.Int(0)];
      trial.id = read.Int(0);
      trial.total_batches = read.Int(1);
      trial.latest_validation_json = read.Text(2);
      trial.best_validation_json = read.Text(3);
      trial.summary_metrics_json = read.Text(4);
      if (!read.IsNull(5)) trial.searcher_metric_value = read.Double(5);
    }
  }
  for (const auto& [id, trial] : summaries) {
    if (trial.id != id) return absl::NotFoundError(absl::StrCat("trial ", id, " not found"));
  }
  std::vector<const MetricsReport*> rows;  // in order: the reports of parts[0], then of parts[1], ...
  for (const TrialReports& part : parts) {
    for (const MetricsReport& m : part.reports) rows.push_back(&m);
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> inserted, InsertMetricRows(db, rows));
  auto next = inserted.begin();
  for (size_t i = 0; i < parts.size(); ++i) {
    ids[i].assign(next, next + static_cast<std::ptrdiff_t>(parts[i].reports.size()));
    next += static_cast<std::ptrdiff_t>(parts[i].reports.size());
  }
  for (const TrialReports& part : parts) {
    if (!part.reports.empty()) part.update_summary(summaries[part.reports.front().trial_id], part.reports);
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
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(
                               "SELECT id, trial_id, trial_run_id, metric_group, total_batches, end_time, metrics, "
                               "batch_metrics FROM metrics WHERE trial_id = ? AND ",
                               group.empty() ? "? = ''" : "metric_group = ?",
                               " AND total_batches >= ? AND total_batches <= ? ORDER BY total_batches, id")));
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


}  // namespace det::master
