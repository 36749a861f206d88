// The tasks and allocations area of SqlStore.
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
  for (const AgentSlots& p : a.placements) {
    nlohmann::json devices = nlohmann::json::array();
    for (const api::SlotInfo& d : p.devices) {
      devices.push_back({{"id", d.id}, {"type", d.type}, {"brand", d.device}, {"uuid", d.uuid}});
    }
    placements.push_back({{"agent_id", p.agent_id}, {"slot_ids", p.slot_ids}, {"devices", devices}});
  }
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

absl::StatusOr<std::vector<Allocation>> SqlStore::ListAllocationsOverlapping(WallTime begin, WallTime end) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kAllocationColumns,
                                                   "WHERE start_time < ? AND (end_time IS NULL OR end_time > ?) "
                                                   "ORDER BY start_time, rowid")));
  s.Bind(1, Micros(end)).Bind(2, Micros(begin));
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
  if (!f.workspace_ids.empty()) where.push_back(IdsIn("k.workspace_id", f.workspace_ids));
  if (f.visible_workspaces) where.push_back(IdsIn("k.workspace_id", *f.visible_workspaces));
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


}  // namespace det::master
