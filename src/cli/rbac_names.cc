#include "cli/rbac_names.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/format.h"
#include "cli/session.h"
#include "cli/workspace_ops.h"
#include "client/rest_client.h"

namespace det::cli {

using nlohmann::json;

absl::Status RequireRbac(Session& session, const std::string& what) {
  absl::StatusOr<json> info = session.Get("/api/v1/master");
  if (!info.ok()) return info.status();
  const json enabled = info->value("rbacEnabled", json(false));
  if (enabled.is_boolean() && enabled.get<bool>()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("`det ", what,
                   "` needs role-based access control, which this master has off "
                   "(its configuration sets it on with `security: {authz: {type: rbac}}`)"));
}

absl::StatusOr<std::vector<int64_t>> UserIdsByName(Session& session,
                                                   const std::vector<std::string>& usernames) {
  std::vector<int64_t> ids;
  std::vector<std::string> missing;
  for (const std::string& name : usernames) {
    absl::StatusOr<json> resp =
        session.Get(absl::StrCat("/api/v1/users/", client::UrlEncode(name), "/by-username"));
    if (absl::IsNotFound(resp.status())) {
      missing.push_back(absl::StrCat("\"", name, "\""));
      continue;
    }
    if (!resp.ok()) return resp.status();
    const json user = resp->value("user", json::object());
    if (!user.contains("id") || !user["id"].is_number_integer()) {
      return absl::InternalError(
          absl::StrCat("the master's answer for user \"", name, "\" has no id"));
    }
    ids.push_back(user["id"].get<int64_t>());
  }
  if (!missing.empty()) {
    return absl::NotFoundError(absl::StrCat(
        missing.size() == 1 ? "no user named " : "no users named ", absl::StrJoin(missing, ", ")));
  }
  return ids;
}

absl::StatusOr<int64_t> GroupIdByName(Session& session, const std::string& name) {
  absl::StatusOr<json> resp =
      session.Post("/api/v1/groups/search", {{"name", name}, {"offset", 0}, {"limit", 1}});
  if (!resp.ok()) return resp.status();
  for (const json& g : resp->value("groups", json::array())) {
    const json group = g.value("group", json::object());
    if (Str(group, "name") == name && group.contains("groupId") &&
        group["groupId"].is_number_integer()) {
      return group["groupId"].get<int64_t>();
    }
  }
  return absl::NotFoundError(
      absl::StrCat("no user group named \"", name, "\" (`det user-group list` shows them)"));
}

absl::StatusOr<int64_t> RoleIdByName(Session& session, const std::string& name) {
  // The roles are few and fixed: one page holds them all.
  absl::StatusOr<json> resp = session.Post("/api/v1/roles/search", {{"offset", 0}, {"limit", 500}});
  if (!resp.ok()) return resp.status();
  std::vector<std::string> names;
  for (const json& r : resp->value("roles", json::array())) {
    if (Str(r, "name") == name && r.contains("roleId") && r["roleId"].is_number_integer()) {
      return r["roleId"].get<int64_t>();
    }
    names.push_back(Str(r, "name"));
  }
  return absl::NotFoundError(absl::StrCat("no role named \"", name,
                                          "\" (the roles are: ", absl::StrJoin(names, ", "), ")"));
}

absl::StatusOr<int64_t> WorkspaceIdByName(Session& session, const std::string& name) {
  absl::StatusOr<json> workspace = FindWorkspace(session, name);
  if (!workspace.ok()) return workspace.status();
  const json id = workspace->value("id", json());
  if (!id.is_number_integer()) {
    return absl::InternalError(
        absl::StrCat("the master's answer for workspace \"", name, "\" has no id"));
  }
  return id.get<int64_t>();
}

absl::StatusOr<std::string> NameCache::Workspace(int64_t id) {
  return Lookup(absl::StrCat("/api/v1/workspaces/", id), "workspace", "name");
}

absl::StatusOr<std::string> NameCache::Group(int64_t id) {
  return Lookup(absl::StrCat("/api/v1/groups/", id), "group", "name");
}

absl::StatusOr<std::string> NameCache::User(int64_t id) {
  return Lookup(absl::StrCat("/api/v1/users/", id), "user", "username");
}

absl::StatusOr<std::string> NameCache::Lookup(const std::string& path, const char* object,
                                              const char* field) {
  if (auto it = names_.find(path); it != names_.end()) return it->second;
  absl::StatusOr<json> resp = session_.Get(path);
  if (!resp.ok()) return resp.status();
  std::string name = Str(resp->value(object, json::object()), field);
  names_.emplace(path, name);
  return name;
}

}  // namespace det::cli
