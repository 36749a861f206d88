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


}  // namespace det::master
