// The task logs area of SqlStore.
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

absl::Status SetLogRetentionDays(SqlConnection& db, const char* where, int64_t id, int days, const std::string& what) {
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat("UPDATE trials SET log_retention_days = ? WHERE ", where)));
  s.Bind(1, days).Bind(2, id);
  RETURN_IF_ERROR(s.Run());
  if (s.Changes() == 0) return absl::NotFoundError(absl::StrCat(what, " not found"));
  return absl::OkStatus();
}

}  // namespace

absl::Status SqlStore::SetExperimentLogRetentionDays(int64_t experiment_id, int days) {
  SqlLease lease = Writer();
  return SetLogRetentionDays(*lease, "experiment_id = ?", experiment_id, days,
                             absl::StrCat("trials of experiment ", experiment_id));
}

absl::Status SqlStore::SetTrialLogRetentionDays(int64_t trial_id, int days) {
  SqlLease lease = Writer();
  return SetLogRetentionDays(*lease, "id = ?", trial_id, days, absl::StrCat("trial ", trial_id));
}

absl::StatusOr<int64_t> SqlStore::DeleteExpiredTaskLogs(WallTime now, std::optional<int> default_days) {
  constexpr int64_t kMicrosPerDay = 86'400'000'000;
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  // ?1: the default days (NULL: kept), ?2: now; a task ended at end_time expires at end_time + days.
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(
                               "DELETE FROM task_logs WHERE task_id IN ("
                               "SELECT task_id FROM trials WHERE end_time IS NOT NULL "
                               "AND COALESCE(log_retention_days, CAST(?1 AS BIGINT)) >= 0 "
                               "AND end_time + COALESCE(log_retention_days, CAST(?1 AS BIGINT)) * ", kMicrosPerDay,
                               " <= ?2 "
                               "UNION SELECT task_id FROM tasks WHERE task_type <> 'TRIAL' AND end_time IS NOT NULL "
                               "AND CAST(?1 AS BIGINT) >= 0 AND end_time + CAST(?1 AS BIGINT) * ", kMicrosPerDay,
                               " <= ?2)")));
  s.Bind(1, default_days).Bind(2, Micros(now));
  RETURN_IF_ERROR(s.Run());
  return s.Changes();
}

}  // namespace det::master
