// The access-token area of SqlStore: rows of user_sessions with token_type ACCESS_TOKEN.
#include <chrono>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "master/db/sql_store.h"
#include "master/db/sql_store_rows.h"

namespace det::master {

using namespace sql_rows;  // NOLINT(build/namespaces): this area's half of sql_store_rows.h

namespace {

constexpr char kTokenColumns[] =
    "SELECT id, user_id, expiry, created_at, token_type, revoked_at, description FROM user_sessions ";

AccessTokenInfo ReadAccessToken(const SqlStatement& s) {
  AccessTokenInfo t;
  t.id = s.Int(0);
  t.user_id = s.Int(1);
  t.expiry = FromUnixMicros(s.Int(2));
  t.created_at = FromUnixMicros(s.Int(3));
  t.type = s.Text(4) == "ACCESS_TOKEN" ? TokenType::kAccessToken : TokenType::kUserSession;
  if (!s.IsNull(5)) t.revoked_at = FromUnixMicros(s.Int(5));
  if (!s.IsNull(6)) t.description = s.Text(6);
  return t;
}

absl::StatusOr<AccessTokenInfo> AccessTokenById(SqlConnection& db, int64_t id) {
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kTokenColumns, "WHERE id = ? AND token_type = 'ACCESS_TOKEN'")));
  s.Bind(1, id);
  return One<AccessTokenInfo>(s, ReadAccessToken, absl::StrCat("access token ", id));
}

std::string TokenOrderBy(const AccessTokenFilter& filter) {
  const char* key = "id";
  switch (filter.sort) {
    case AccessTokenSort::kId: key = "id"; break;
    case AccessTokenSort::kUserId: key = "user_id"; break;
    case AccessTokenSort::kExpiry: key = "expiry"; break;
    case AccessTokenSort::kCreatedAt: key = "created_at"; break;
    case AccessTokenSort::kTokenType: key = "token_type"; break;
    case AccessTokenSort::kRevoked: key = "revoked_at"; break;
    case AccessTokenSort::kDescription: key = "description"; break;
  }
  const char* dir = filter.descending ? " DESC" : " ASC";
  if (filter.sort == AccessTokenSort::kId) return absl::StrCat("ORDER BY id", dir);
  return absl::StrCat("ORDER BY ", key, dir, ", id ASC");
}

}  // namespace

absl::StatusOr<int64_t> SqlStore::AddAccessToken(const NewAccessToken& token) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO user_sessions (token_hash, user_id, expiry, token_type, created_at, "
                                      "description) VALUES (?, ?, ?, 'ACCESS_TOKEN', ?, ?) RETURNING id"));
  s.Bind(1, token.token_hash).Bind(2, token.user_id).Bind(3, Micros(token.expiry)).Bind(4, Micros(token.created_at));
  BindTextOrNull(s, 5, token.description);
  return InsertedId(s);
}

absl::StatusOr<AccessTokenInfo> SqlStore::GetAccessToken(int64_t id) {
  SqlLease lease = Reader();
  return AccessTokenById(*lease, id);
}

absl::StatusOr<std::vector<AccessTokenInfo>> SqlStore::ListAccessTokens(const AccessTokenFilter& filter) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  std::vector<std::string> where = {"token_type = 'ACCESS_TOKEN'"};
  if (!filter.ids.empty()) where.push_back(InList("id", filter.ids.size()));
  if (filter.user_id) where.push_back("user_id = ?");
  if (!filter.show_inactive) where.push_back("revoked_at IS NULL AND expiry > ?");
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kTokenColumns, "WHERE ", absl::StrJoin(where, " AND "), " ",
                                                   TokenOrderBy(filter))));
  int i = 1;
  for (int64_t id : filter.ids) s.Bind(i++, id);
  if (filter.user_id) s.Bind(i++, *filter.user_id);
  if (!filter.show_inactive) s.Bind(i++, Micros(filter.now));
  return All<AccessTokenInfo>(s, ReadAccessToken);
}

absl::StatusOr<AccessTokenInfo> SqlStore::UpdateAccessToken(int64_t id, const AccessTokenPatch& patch, WallTime now) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  // One conditional UPDATE: a token revoked or expired meanwhile is never changed.
  std::vector<std::string> sets;
  if (patch.description) sets.push_back("description = ?");
  if (patch.revoke) sets.push_back("revoked_at = ?");
  if (sets.empty()) sets.push_back("description = description");
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat("UPDATE user_sessions SET ", absl::StrJoin(sets, ", "),
                                                   " WHERE id = ? AND token_type = 'ACCESS_TOKEN' "
                                                   "AND revoked_at IS NULL AND expiry > ?")));
  int i = 1;
  if (patch.description) BindTextOrNull(s, i++, *patch.description);
  if (patch.revoke) s.Bind(i++, Micros(now));
  s.Bind(i, id);
  s.Bind(i + 1, Micros(now));
  RETURN_IF_ERROR(s.Run());
  const bool changed = s.Changes() > 0;
  s.Reset();
  ASSIGN_OR_RETURN(AccessTokenInfo token, AccessTokenById(db, id));
  if (!changed) {
    if (token.revoked_at) {
      return absl::FailedPreconditionError(
          absl::StrCat("access token ", id, " is revoked: an inactive token cannot be updated"));
    }
    return absl::FailedPreconditionError(absl::StrCat("access token ", id, " expired at ", FormatRfc3339(token.expiry),
                                                      ": an inactive token cannot be updated"));
  }
  return token;
}

}  // namespace det::master
