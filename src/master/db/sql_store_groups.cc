// The groups and role assignments area of SqlStore.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "master/db/sql_store.h"
#include "master/db/sql_store_rows.h"

namespace det::master {

using namespace sql_rows;  // NOLINT(build/namespaces): One, All, InsertedId

namespace {

constexpr char kGroupColumns[] =
    "SELECT g.id, g.group_name, g.user_id, (SELECT COUNT(*) FROM user_group_membership m WHERE m.group_id = g.id) "
    "FROM groups g ";

Group ReadGroup(const SqlStatement& s) {
  Group g{.id = s.Int(0), .name = s.Text(1), .num_members = s.Int(3)};
  if (!s.IsNull(2)) g.personal_of = s.Int(2);
  return g;
}

rbac::Assignment ReadAssignment(const SqlStatement& s) {
  rbac::Assignment a{.group_id = s.Int(0), .role_id = static_cast<int32_t>(s.Int(1))};
  if (s.Int(2) != 0) a.workspace_id = s.Int(2);
  return a;
}

absl::StatusOr<Group> GroupById(SqlConnection& db, int64_t id) {
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kGroupColumns, "WHERE g.id = ?")));
  s.Bind(1, id);
  return One<Group>(s, ReadGroup, absl::StrCat("group ", id));
}

absl::Status AddMembers(SqlConnection& db, int64_t group_id, const std::vector<int64_t>& users) {
  for (int64_t user : users) {
    ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO user_group_membership (user_id, group_id) VALUES (?, ?) "
                                        "ON CONFLICT DO NOTHING"));
    s.Bind(1, user).Bind(2, group_id);
    RETURN_IF_ERROR(s.Run());
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SqlStore::EachAssignment(const char* sql, const std::vector<rbac::Assignment>& assignments) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  for (const rbac::Assignment& a : assignments) {
    ASSIGN_OR_RETURN(auto s, db.Prepare(sql));
    s.Bind(1, a.group_id).Bind(2, int64_t{a.role_id}).Bind(3, a.workspace_id.value_or(0));
    RETURN_IF_ERROR(s.Run());
  }
  return tx.Commit();
}

absl::StatusOr<Group> SqlStore::InsertGroup(const std::string& name, const std::vector<int64_t>& members) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO groups (group_name) VALUES (?) ON CONFLICT DO NOTHING RETURNING id"));
  s.Bind(1, name);
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::AlreadyExistsError(absl::StrCat("group \"", name, "\" already exists"));
  const int64_t id = s.Int(0);
  ASSIGN_OR_RETURN(bool more, s.Step());
  (void)more;
  RETURN_IF_ERROR(AddMembers(db, id, members));
  ASSIGN_OR_RETURN(Group g, GroupById(db, id));
  RETURN_IF_ERROR(tx.Commit());
  return g;
}

absl::StatusOr<Group> SqlStore::GetGroup(int64_t id) {
  SqlLease lease = Reader();
  return GroupById(*lease, id);
}

absl::StatusOr<GroupPage> SqlStore::ListGroups(const GroupFilter& filter) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  std::string where = "WHERE g.user_id IS NULL";
  if (filter.member) {
    absl::StrAppend(&where, " AND g.id IN (SELECT group_id FROM user_group_membership WHERE user_id = ?)");
  }
  if (!filter.name.empty()) absl::StrAppend(&where, " AND g.group_name = ?");
  auto bind = [&](SqlStatement& s) {
    int i = 1;
    if (filter.member) s.Bind(i++, *filter.member);
    if (!filter.name.empty()) s.Bind(i++, filter.name);
    return i;
  };
  GroupPage page;
  {
    ASSIGN_OR_RETURN(auto count, db.Prepare(absl::StrCat("SELECT COUNT(*) FROM groups g ", where)));
    bind(count);
    ASSIGN_OR_RETURN(page.total, One<int64_t>(count, [](const SqlStatement& s) { return s.Int(0); }, "count"));
  }
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kGroupColumns, where, " ORDER BY g.id LIMIT ? OFFSET ?")));
  int next = bind(s);
  s.Bind(next, filter.limit > 0 ? filter.limit : kNoLimit).Bind(next + 1, std::max<int64_t>(0, filter.offset));
  ASSIGN_OR_RETURN(page.groups, All<Group>(s, ReadGroup));
  return page;
}

absl::StatusOr<std::vector<int64_t>> SqlStore::ListGroupMembers(int64_t id) {
  SqlLease lease = Reader();
  ASSIGN_OR_RETURN(auto s, lease->Prepare("SELECT user_id FROM user_group_membership WHERE group_id = ? ORDER BY user_id"));
  s.Bind(1, id);
  return All<int64_t>(s, [](const SqlStatement& st) { return st.Int(0); });
}

absl::StatusOr<Group> SqlStore::UpdateGroup(int64_t id, const std::optional<std::string>& name,
                                            const std::vector<int64_t>& add, const std::vector<int64_t>& remove) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  RETURN_IF_ERROR(GroupById(db, id).status());
  if (name) {
    ASSIGN_OR_RETURN(auto taken, db.Prepare("SELECT id FROM groups WHERE group_name = ? AND id <> ?"));
    taken.Bind(1, *name).Bind(2, id);
    ASSIGN_OR_RETURN(bool exists, taken.Step());
    if (exists) return absl::AlreadyExistsError(absl::StrCat("group \"", *name, "\" already exists"));
    ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE groups SET group_name = ? WHERE id = ?"));
    s.Bind(1, *name).Bind(2, id);
    RETURN_IF_ERROR(s.Run());
  }
  RETURN_IF_ERROR(AddMembers(db, id, add));
  for (int64_t user : remove) {
    ASSIGN_OR_RETURN(auto s, db.Prepare("DELETE FROM user_group_membership WHERE user_id = ? AND group_id = ?"));
    s.Bind(1, user).Bind(2, id);
    RETURN_IF_ERROR(s.Run());
  }
  ASSIGN_OR_RETURN(Group g, GroupById(db, id));
  RETURN_IF_ERROR(tx.Commit());
  return g;
}

absl::Status SqlStore::DeleteGroup(int64_t id) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  RETURN_IF_ERROR(GroupById(db, id).status());
  for (const char* sql : {"DELETE FROM role_assignments WHERE group_id = ?",
                          "DELETE FROM user_group_membership WHERE group_id = ?", "DELETE FROM groups WHERE id = ?"}) {
    ASSIGN_OR_RETURN(auto s, db.Prepare(sql));
    s.Bind(1, id);
    RETURN_IF_ERROR(s.Run());
  }
  return tx.Commit();
}

absl::StatusOr<int64_t> SqlStore::PersonalGroupOf(int64_t user_id) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto existing, db.Prepare("SELECT id FROM groups WHERE user_id = ?"));
  existing.Bind(1, user_id);
  ASSIGN_OR_RETURN(bool found, existing.Step());
  if (found) return existing.Int(0);
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO groups (group_name, user_id) VALUES (?, ?) RETURNING id"));
  s.Bind(1, absl::StrCat(user_id, "DeterminedPersonalGroup")).Bind(2, user_id);
  ASSIGN_OR_RETURN(int64_t id, InsertedId(s));
  RETURN_IF_ERROR(AddMembers(db, id, {user_id}));
  RETURN_IF_ERROR(tx.Commit());
  return id;
}

absl::Status SqlStore::AddRoleAssignments(const std::vector<rbac::Assignment>& assignments) {
  return EachAssignment("INSERT INTO role_assignments (group_id, role_id, scope_workspace_id) VALUES (?, ?, ?) "
                        "ON CONFLICT DO NOTHING",
                        assignments);
}

absl::Status SqlStore::RemoveRoleAssignments(const std::vector<rbac::Assignment>& assignments) {
  return EachAssignment("DELETE FROM role_assignments WHERE group_id = ? AND role_id = ? AND scope_workspace_id = ?",
                        assignments);
}

absl::StatusOr<std::vector<rbac::Assignment>> SqlStore::ListUserRoleAssignments(int64_t user_id) {
  SqlLease lease = Reader();
  ASSIGN_OR_RETURN(auto s, lease->Prepare(
                               "SELECT r.group_id, r.role_id, r.scope_workspace_id FROM role_assignments r "
                               "JOIN user_group_membership m ON m.group_id = r.group_id WHERE m.user_id = ? "
                               "ORDER BY r.group_id, r.role_id, r.scope_workspace_id"));
  s.Bind(1, user_id);
  return All<rbac::Assignment>(s, ReadAssignment);
}

absl::StatusOr<std::vector<rbac::Assignment>> SqlStore::ListRoleAssignments(const RoleAssignmentFilter& filter) {
  SqlLease lease = Reader();
  std::string sql = "SELECT group_id, role_id, scope_workspace_id FROM role_assignments WHERE 1 = 1";
  if (filter.group_id) absl::StrAppend(&sql, " AND group_id = ?");
  if (filter.role_id) absl::StrAppend(&sql, " AND role_id = ?");
  if (filter.workspace_id) {
    absl::StrAppend(&sql, filter.with_cluster ? " AND scope_workspace_id IN (?, 0)" : " AND scope_workspace_id = ?");
  }
  absl::StrAppend(&sql, " ORDER BY role_id, group_id, scope_workspace_id");
  ASSIGN_OR_RETURN(auto s, lease->Prepare(sql));
  int i = 1;
  if (filter.group_id) s.Bind(i++, *filter.group_id);
  if (filter.role_id) s.Bind(i++, int64_t{*filter.role_id});
  if (filter.workspace_id) s.Bind(i++, *filter.workspace_id);
  return All<rbac::Assignment>(s, ReadAssignment);
}

absl::StatusOr<std::optional<int64_t>> SqlStore::RbacSeededAt() {
  SqlLease lease = Reader();
  ASSIGN_OR_RETURN(auto s, lease->Prepare("SELECT rbac_seeded_at FROM authz_state WHERE id = 1"));
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row || s.IsNull(0)) return std::optional<int64_t>();
  return std::optional<int64_t>(s.Int(0));
}

absl::Status SqlStore::SetRbacSeededAt(int64_t micros) {
  SqlLease lease = Writer();
  ASSIGN_OR_RETURN(auto s, lease->Prepare("INSERT INTO authz_state (id, rbac_seeded_at) VALUES (1, ?) "
                                          "ON CONFLICT (id) DO UPDATE SET rbac_seeded_at = excluded.rbac_seeded_at"));
  s.Bind(1, micros);
  return s.Run();
}

}  // namespace det::master
