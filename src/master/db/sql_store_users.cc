// The users and sessions area of SqlStore.
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
absl::StatusOr<User> UserById(SqlConnection& db, int64_t id);
}  // namespace

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
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO user_sessions (token_hash, user_id, expiry, token_type, created_at) VALUES (?, ?, ?, 'USER_SESSION', ?)"));
  s.Bind(1, token_hash).Bind(2, user_id).Bind(3, Micros(expiry)).Bind(4, Micros(std::chrono::system_clock::now()));
  return s.Run();
}

absl::StatusOr<int64_t> SqlStore::LookupSession(const std::string& token_hash, WallTime now) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("SELECT user_id FROM user_sessions WHERE token_hash = ? AND expiry > ? AND revoked_at IS NULL"));
  s.Bind(1, token_hash).Bind(2, Micros(now));
  return One<int64_t>(s, [](const SqlStatement& st) { return st.Int(0); }, "session");
}

absl::Status SqlStore::DeleteSession(const std::string& token_hash) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("DELETE FROM user_sessions WHERE token_hash = ? AND token_type = 'USER_SESSION'"));
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
                                      "modified_at, agent_user_group) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id"));
  s.Bind(1, user.username).Bind(2, user.password_hash).Bind(3, user.admin ? 1 : 0).Bind(4, user.active ? 1 : 0);
  s.Bind(5, user.display_name).Bind(6, Micros(std::chrono::system_clock::now()));
  BindTextOrNull(s, 7, user.agent_user_group_json);
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
  if (patch.agent_user_group_json) sets.push_back("agent_user_group = ?");
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat("UPDATE users SET ", absl::StrJoin(sets, ", "), " WHERE id = ?")
                                        ));
  int i = 1;
  s.Bind(i++, Micros(std::chrono::system_clock::now()));
  if (patch.username) s.Bind(i++, *patch.username);
  if (patch.display_name) s.Bind(i++, *patch.display_name);
  if (patch.admin) s.Bind(i++, *patch.admin ? 1 : 0);
  if (patch.active) s.Bind(i++, *patch.active ? 1 : 0);
  if (patch.password_hash) s.Bind(i++, *patch.password_hash);
  if (patch.agent_user_group_json) BindTextOrNull(s, i++, *patch.agent_user_group_json);
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
  ASSIGN_OR_RETURN(auto s, db.Prepare("DELETE FROM user_sessions WHERE user_id = ? AND token_type = 'USER_SESSION'"));
  s.Bind(1, user_id);
  return s.Run();
}


}  // namespace det::master
