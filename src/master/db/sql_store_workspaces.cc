// The workspaces area of SqlStore: workspaces and their projects, with their counts of projects and
// experiments computed in the query.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "master/db/sql/sql_dialect.h"
#include "master/db/sql_store.h"
#include "master/db/sql_store_rows.h"

namespace det::master {

using namespace sql_rows;  // NOLINT(build/namespaces): this area's half of sql_store_rows.h

namespace {

constexpr char kWorkspaceColumns[] =
    "SELECT w.id, w.name, w.archived, w.immutable, w.user_id, coalesce(u.username, ''), w.created_at, "
    "coalesce(w.agent_user_group, ''), coalesce(w.checkpoint_storage_config, ''), w.default_compute_pool, "
    "w.default_aux_pool, (SELECT count(*) FROM projects p WHERE p.workspace_id = w.id), "
    "(SELECT count(*) FROM experiments e JOIN projects p ON p.id = e.project_id WHERE p.workspace_id = w.id), "
    "wp.pinned_at ";

// The workspaces with their owners and the pins of the user bound to the first parameter.
constexpr char kWorkspacesFrom[] =
    "FROM workspaces w LEFT JOIN users u ON u.id = w.user_id "
    "LEFT JOIN workspace_pins wp ON wp.workspace_id = w.id AND wp.user_id = ? ";

Workspace ReadWorkspace(const SqlStatement& s) {
  return Workspace{.id = s.Int(0),
                   .name = s.Text(1),
                   .archived = s.Int(2) != 0,
                   .immutable = s.Int(3) != 0,
                   .user_id = s.Int(4),
                   .username = s.Text(5),
                   .created_at = FromUnixMicros(s.Int(6)),
                   .agent_user_group_json = s.Text(7),
                   .checkpoint_storage_config_json = s.Text(8),
                   .default_compute_pool = s.Text(9),
                   .default_aux_pool = s.Text(10),
                   .num_projects = s.Int(11),
                   .num_experiments = s.Int(12),
                   .pinned_at = OptTime(s, 13)};
}

constexpr char kProjectColumns[] =
    "SELECT p.id, p.name, p.workspace_id, w.name, p.description, "
    "CASE WHEN p.archived <> 0 OR w.archived <> 0 THEN 1 ELSE 0 END, p.immutable, p.user_id, "
    "coalesce(u.username, ''), p.created_at, p.notes, p.key, "
    "(SELECT count(*) FROM experiments e WHERE e.project_id = p.id), "
    "(SELECT count(*) FROM experiments e WHERE e.project_id = p.id AND e.state = 'ACTIVE'), "
    "(SELECT max(e.start_time) FROM experiments e WHERE e.project_id = p.id) "
    "FROM projects p JOIN workspaces w ON w.id = p.workspace_id LEFT JOIN users u ON u.id = p.user_id ";

Project ReadProject(const SqlStatement& s) {
  return Project{.id = s.Int(0),
                 .name = s.Text(1),
                 .workspace_id = s.Int(2),
                 .workspace_name = s.Text(3),
                 .description = s.Text(4),
                 .archived = s.Int(5) != 0,
                 .immutable = s.Int(6) != 0,
                 .user_id = s.Int(7),
                 .username = s.Text(8),
                 .created_at = FromUnixMicros(s.Int(9)),
                 .notes_json = s.Text(10),
                 .key = s.Text(11),
                 .num_experiments = s.Int(12),
                 .num_active_experiments = s.Int(13),
                 .last_experiment_started_at = OptTime(s, 14)};
}

}  // namespace

absl::StatusOr<Workspace> SqlStore::InsertWorkspace(const Workspace& w) {
  int64_t id = 0;
  {
    SqlLease lease = Writer();
    ASSIGN_OR_RETURN(auto s, lease->Prepare("INSERT INTO workspaces (name, user_id, created_at, agent_user_group, "
                                            "checkpoint_storage_config, default_compute_pool, default_aux_pool) "
                                            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id"));
    s.Bind(1, w.name).Bind(2, w.user_id).Bind(3, Micros(w.created_at));
    BindTextOrNull(s, 4, w.agent_user_group_json);
    BindTextOrNull(s, 5, w.checkpoint_storage_config_json);
    s.Bind(6, w.default_compute_pool).Bind(7, w.default_aux_pool);
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return absl::AlreadyExistsError(absl::StrCat("workspace \"", w.name, "\" already exists"));
    id = s.Int(0);
  }
  return GetWorkspace(id, w.user_id);
}

absl::StatusOr<Workspace> SqlStore::GetWorkspace(int64_t id, int64_t viewer_id) {
  SqlLease lease = Reader();
  ASSIGN_OR_RETURN(auto s, lease->Prepare(absl::StrCat(kWorkspaceColumns, kWorkspacesFrom, "WHERE w.id = ?")));
  s.Bind(1, viewer_id).Bind(2, id);
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::NotFoundError(absl::StrCat("workspace ", id, " not found"));
  return ReadWorkspace(s);
}

absl::StatusOr<WorkspacePage> SqlStore::ListWorkspaces(const WorkspaceFilter& filter) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  std::vector<std::string> clauses;
  if (!filter.name.empty()) clauses.push_back(filter.name_case_sensitive ? "w.name = ?" : "lower(w.name) = lower(?)");
  if (filter.archived) clauses.push_back("w.archived = ?");
  if (!filter.usernames.empty()) clauses.push_back(InList("u.username", filter.usernames.size()));
  if (!filter.user_ids.empty()) clauses.push_back(InList("w.user_id", filter.user_ids.size()));
  if (filter.pinned) clauses.push_back(*filter.pinned ? "wp.pinned_at IS NOT NULL" : "wp.pinned_at IS NULL");
  if (filter.visible_workspaces) clauses.push_back(IdsIn("w.id", *filter.visible_workspaces));
  std::string where = clauses.empty() ? "" : absl::StrCat("WHERE ", absl::StrJoin(clauses, " AND "), " ");
  auto bind_where = [&](SqlStatement& s) {
    int i = 1;
    s.Bind(i++, filter.viewer_id);
    if (!filter.name.empty()) s.Bind(i++, filter.name);
    if (filter.archived) s.Bind(i++, *filter.archived ? 1 : 0);
    for (const std::string& name : filter.usernames) s.Bind(i++, name);
    for (int64_t id : filter.user_ids) s.Bind(i++, id);
    return i;
  };
  WorkspacePage page;
  ASSIGN_OR_RETURN(auto count, db.Prepare(absl::StrCat("SELECT count(*) ", kWorkspacesFrom, where)));
  bind_where(count);
  ASSIGN_OR_RETURN(page.total, One<int64_t>(count, [](const SqlStatement& st) { return st.Int(0); }, "count"));
  const char* direction = filter.descending ? "DESC" : "ASC";
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kWorkspaceColumns, kWorkspacesFrom, where, "ORDER BY ",
                                                   filter.by_name ? absl::StrCat("w.name ", direction, ", ") : "",
                                                   "w.id ", direction, " LIMIT ? OFFSET ?")));
  int i = bind_where(s);
  s.Bind(i, filter.limit > 0 ? filter.limit : kNoLimit).Bind(i + 1, std::max<int64_t>(0, filter.offset));
  ASSIGN_OR_RETURN(page.workspaces, All<Workspace>(s, ReadWorkspace));
  return page;
}

absl::StatusOr<Workspace> SqlStore::PatchWorkspace(int64_t id, const WorkspacePatch& patch) {
  {
    SqlLease lease = Writer();
    std::vector<std::pair<const char*, const std::optional<std::string>*>> fields = {
        {"name", &patch.name},
        {"agent_user_group", &patch.agent_user_group_json},
        {"checkpoint_storage_config", &patch.checkpoint_storage_config_json},
        {"default_compute_pool", &patch.default_compute_pool},
        {"default_aux_pool", &patch.default_aux_pool}};
    std::vector<std::string> sets;
    for (const auto& [column, value] : fields) {
      if (value->has_value()) sets.push_back(absl::StrCat(column, " = ?"));
    }
    if (!sets.empty()) {
      ASSIGN_OR_RETURN(auto s, lease->Prepare(absl::StrCat("UPDATE workspaces SET ", absl::StrJoin(sets, ", "),
                                                           " WHERE id = ?")));
      int i = 1;
      for (const auto& [column, value] : fields) {
        if (!value->has_value()) continue;
        // The JSON settings are NULL when cleared; the pools are "".
        bool json_setting = value == &patch.agent_user_group_json || value == &patch.checkpoint_storage_config_json;
        if (json_setting) {
          BindTextOrNull(s, i++, **value);
        } else {
          s.Bind(i++, **value);
        }
      }
      s.Bind(i, id);
      absl::Status updated = s.Run();
      if (absl::IsAlreadyExists(updated)) {
        return absl::AlreadyExistsError(absl::StrCat("workspace \"", *patch.name, "\" already exists"));
      }
      RETURN_IF_ERROR(updated);
    }
  }
  return GetWorkspace(id, 0);
}

absl::Status SqlStore::SetWorkspaceArchived(int64_t id, bool archived) {
  SqlLease lease = Writer();
  ASSIGN_OR_RETURN(auto s, lease->Prepare("UPDATE workspaces SET archived = ? WHERE id = ?"));
  s.Bind(1, archived ? 1 : 0).Bind(2, id);
  return s.Run();
}

absl::Status SqlStore::SetWorkspacePinned(int64_t id, int64_t user_id, bool pinned) {
  SqlLease lease = Writer();
  ASSIGN_OR_RETURN(auto s, lease->Prepare(pinned ? "INSERT INTO workspace_pins (workspace_id, user_id, pinned_at) "
                                                   "VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
                                                 : "DELETE FROM workspace_pins WHERE workspace_id = ? AND user_id = ?"));
  s.Bind(1, id).Bind(2, user_id);
  if (pinned) s.Bind(3, Micros(std::chrono::system_clock::now()));
  return s.Run();
}

absl::Status SqlStore::DeleteWorkspace(int64_t id) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  for (const char* sql : {"DELETE FROM workspace_pins WHERE workspace_id = ?", "DELETE FROM templates WHERE workspace_id = ?",
                          "DELETE FROM pool_bindings WHERE workspace_id = ?", "DELETE FROM role_assignments WHERE scope_workspace_id = ?",
                          "DELETE FROM projects WHERE workspace_id = ?", "DELETE FROM workspaces WHERE id = ?"}) {
    ASSIGN_OR_RETURN(auto s, db.Prepare(sql));
    s.Bind(1, id);
    RETURN_IF_ERROR(s.Run());
  }
  return tx.Commit();
}

absl::StatusOr<std::vector<PoolBinding>> SqlStore::ListPoolBindings() {
  SqlLease lease = Reader();
  ASSIGN_OR_RETURN(auto s, lease->Prepare("SELECT pool_name, workspace_id FROM pool_bindings ORDER BY pool_name, "
                                          "workspace_id"));
  return All<PoolBinding>(s, [](const SqlStatement& st) { return PoolBinding{st.Text(0), st.Int(1)}; });
}

absl::Status SqlStore::BindPool(const std::string& pool, const std::vector<int64_t>& workspace_ids, bool overwrite) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  if (overwrite) {
    ASSIGN_OR_RETURN(auto clear, db.Prepare("DELETE FROM pool_bindings WHERE pool_name = ?"));
    clear.Bind(1, pool);
    RETURN_IF_ERROR(clear.Run());
  }
  for (int64_t id : workspace_ids) {
    ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO pool_bindings (pool_name, workspace_id) VALUES (?, ?) "
                                        "ON CONFLICT DO NOTHING"));
    s.Bind(1, pool).Bind(2, id);
    RETURN_IF_ERROR(s.Run());
  }
  return tx.Commit();
}

absl::Status SqlStore::UnbindPool(const std::string& pool, const std::vector<int64_t>& workspace_ids) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  for (int64_t id : workspace_ids) {
    ASSIGN_OR_RETURN(auto s, db.Prepare("DELETE FROM pool_bindings WHERE pool_name = ? AND workspace_id = ?"));
    s.Bind(1, pool).Bind(2, id);
    RETURN_IF_ERROR(s.Run());
  }
  return tx.Commit();
}

absl::StatusOr<Project> SqlStore::InsertProject(const Project& p) {
  int64_t id = 0;
  {
    SqlLease lease = Writer();
    ASSIGN_OR_RETURN(auto s, lease->Prepare("INSERT INTO projects (name, workspace_id, description, user_id, "
                                            "created_at, key) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING "
                                            "RETURNING id"));
    s.Bind(1, p.name).Bind(2, p.workspace_id).Bind(3, p.description).Bind(4, p.user_id);
    s.Bind(5, Micros(p.created_at)).Bind(6, p.key);
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) {
      return absl::AlreadyExistsError(absl::StrCat("workspace ", p.workspace_id, " already has a project named \"",
                                                   p.name, "\", or another project has the key ", p.key));
    }
    id = s.Int(0);
  }
  return GetProject(id);
}

absl::StatusOr<Project> SqlStore::GetProject(int64_t id) {
  SqlLease lease = Reader();
  ASSIGN_OR_RETURN(auto s, lease->Prepare(absl::StrCat(kProjectColumns, "WHERE p.id = ?")));
  s.Bind(1, id);
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::NotFoundError(absl::StrCat("project ", id, " not found"));
  return ReadProject(s);
}

absl::StatusOr<Project> SqlStore::GetProjectByKey(const std::string& key) {
  SqlLease lease = Reader();
  ASSIGN_OR_RETURN(auto s, lease->Prepare(absl::StrCat(kProjectColumns, "WHERE p.key = ?")));
  s.Bind(1, key);
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::NotFoundError(absl::StrCat("no project has the key ", key));
  return ReadProject(s);
}

absl::StatusOr<ProjectPage> SqlStore::ListProjects(const ProjectFilter& filter) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  std::vector<std::string> clauses;
  if (filter.workspace_id != 0) clauses.push_back("p.workspace_id = ?");
  if (!filter.name.empty()) clauses.push_back("lower(p.name) = lower(?)");
  if (filter.archived) {
    clauses.push_back(*filter.archived ? "(p.archived <> 0 OR w.archived <> 0)" : "(p.archived = 0 AND w.archived = 0)");
  }
  if (!filter.usernames.empty()) clauses.push_back(InList("u.username", filter.usernames.size()));
  if (!filter.user_ids.empty()) clauses.push_back(InList("p.user_id", filter.user_ids.size()));
  if (filter.visible_workspaces) clauses.push_back(IdsIn("p.workspace_id", *filter.visible_workspaces));
  std::string where = clauses.empty() ? "" : absl::StrCat("WHERE ", absl::StrJoin(clauses, " AND "), " ");
  auto bind_where = [&](SqlStatement& s) {
    int i = 1;
    if (filter.workspace_id != 0) s.Bind(i++, filter.workspace_id);
    if (!filter.name.empty()) s.Bind(i++, filter.name);
    for (const std::string& name : filter.usernames) s.Bind(i++, name);
    for (int64_t id : filter.user_ids) s.Bind(i++, id);
    return i;
  };
  ProjectPage page;
  ASSIGN_OR_RETURN(auto count, db.Prepare(absl::StrCat("SELECT count(*) FROM projects p JOIN workspaces w ON "
                                                       "w.id = p.workspace_id LEFT JOIN users u ON u.id = p.user_id ",
                                                       where)));
  bind_where(count);
  ASSIGN_OR_RETURN(page.total, One<int64_t>(count, [](const SqlStatement& st) { return st.Int(0); }, "count"));
  std::string order;
  switch (filter.sort_by) {
    case ProjectFilter::SortBy::kId: order = "p.id"; break;
    case ProjectFilter::SortBy::kName: order = "p.name"; break;
    case ProjectFilter::SortBy::kCreationTime: order = "p.created_at"; break;
    case ProjectFilter::SortBy::kDescription: order = "p.description"; break;
    case ProjectFilter::SortBy::kLastExperimentStartTime:
      order = "(SELECT coalesce(max(e.start_time), 0) FROM experiments e WHERE e.project_id = p.id)";
      break;
  }
  const char* direction = filter.descending ? " DESC" : " ASC";
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kProjectColumns, where, "ORDER BY ", order, direction, ", p.id",
                                                   direction, " LIMIT ? OFFSET ?")));
  int i = bind_where(s);
  s.Bind(i, filter.limit > 0 ? filter.limit : kNoLimit).Bind(i + 1, std::max<int64_t>(0, filter.offset));
  ASSIGN_OR_RETURN(page.projects, All<Project>(s, ReadProject));
  return page;
}

absl::StatusOr<Project> SqlStore::PatchProject(int64_t id, const ProjectPatch& patch) {
  {
    SqlLease lease = Writer();
    std::vector<std::string> sets;
    if (patch.name) sets.push_back("name = ?");
    if (patch.description) sets.push_back("description = ?");
    if (patch.key) sets.push_back("key = ?");
    if (patch.notes_json) sets.push_back("notes = ?");
    if (patch.workspace_id) sets.push_back("workspace_id = ?");
    if (!sets.empty()) {
      ASSIGN_OR_RETURN(auto s, lease->Prepare(absl::StrCat("UPDATE projects SET ", absl::StrJoin(sets, ", "),
                                                           " WHERE id = ?")));
      int i = 1;
      for (const auto* text : {&patch.name, &patch.description, &patch.key, &patch.notes_json}) {
        if (*text) s.Bind(i++, **text);
      }
      if (patch.workspace_id) s.Bind(i++, *patch.workspace_id);
      s.Bind(i, id);
      absl::Status updated = s.Run();
      if (absl::IsAlreadyExists(updated)) {
        return absl::AlreadyExistsError(absl::StrCat(
            "project ", id, ": its workspace already has a project of that name, or another project has the key"));
      }
      RETURN_IF_ERROR(updated);
    }
  }
  return GetProject(id);
}

absl::Status SqlStore::SetProjectArchived(int64_t id, bool archived) {
  SqlLease lease = Writer();
  ASSIGN_OR_RETURN(auto s, lease->Prepare("UPDATE projects SET archived = ? WHERE id = ?"));
  s.Bind(1, archived ? 1 : 0).Bind(2, id);
  return s.Run();
}

absl::Status SqlStore::DeleteProject(int64_t id) {
  SqlLease lease = Writer();
  ASSIGN_OR_RETURN(auto s, lease->Prepare("DELETE FROM projects WHERE id = ?"));
  s.Bind(1, id);
  return s.Run();
}

}  // namespace det::master
