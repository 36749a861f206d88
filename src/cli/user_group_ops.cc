#include "cli/user_group_ops.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/format.h"
#include "cli/rbac_names.h"
#include "cli/session.h"
#include "cli/table.h"

namespace det::cli {
namespace {

using nlohmann::json;

constexpr char kWhat[] = "user-group";

// `"name" (ID n)` of a group in a reply.
std::string GroupLabel(const json& group) {
  return absl::StrCat("\"", Str(group, "name"), "\" (ID ", Cell(group.value("groupId", json())),
                      ")");
}

// Names with their ids: `alice (ID 2), bob (ID 3)`.
std::string UsersLabel(const std::vector<std::string>& names, const std::vector<int64_t>& ids) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < names.size() && i < ids.size(); ++i)
    parts.push_back(absl::StrCat(names[i], " (ID ", ids[i], ")"));
  return absl::StrJoin(parts, ", ");
}

}  // namespace

absl::StatusOr<int> CreateGroup(Session& session, const std::string& name,
                                const std::vector<std::string>& add_users, std::ostream& out) {
  if (absl::Status s = RequireRbac(session, kWhat); !s.ok()) return s;
  absl::StatusOr<std::vector<int64_t>> ids = UserIdsByName(session, add_users);
  if (!ids.ok()) return ids.status();
  absl::StatusOr<json> resp = session.Post("/api/v1/groups", {{"name", name}, {"addUsers", *ids}});
  if (!resp.ok()) return resp.status();
  const json group = resp->value("group", json::object());
  out << "Created user group " << GroupLabel(group) << ".\n";
  std::vector<std::string> members;
  for (const json& u : group.value("users", json::array())) members.push_back(Str(u, "username"));
  if (!members.empty()) out << "Members: " << absl::StrJoin(members, ", ") << "\n";
  return 0;
}

absl::StatusOr<int> ListGroups(Session& session, const ListGroupsArgs& args, std::ostream& out) {
  if (absl::Status s = RequireRbac(session, kWhat); !s.ok()) return s;
  json body = json::object();
  if (!args.member.empty()) {
    absl::StatusOr<std::vector<int64_t>> ids = UserIdsByName(session, {args.member});
    if (!ids.ok()) return ids.status();
    body["userId"] = ids->front();
  }
  absl::StatusOr<json> resp =
      PostPages(session, "/api/v1/groups/search", body, "groups", args.pages);
  if (!resp.ok()) return resp.status();
  if (args.json) {
    out << resp->dump(2) << "\n";
    return 0;
  }
  Table table({"Groupid", "Name", "Nummembers"});
  for (const json& g : (*resp)["groups"]) {
    const json group = g.value("group", json::object());
    table.AddRow({PyCell(group.value("groupId", json())), PyCell(group.value("name", json())),
                  PyCell(g.value("numMembers", json()))});
  }
  out << table.Render();
  return 0;
}

absl::StatusOr<int> DescribeGroup(Session& session, const std::string& name, bool as_json,
                                  std::ostream& out) {
  if (absl::Status s = RequireRbac(session, kWhat); !s.ok()) return s;
  absl::StatusOr<int64_t> id = GroupIdByName(session, name);
  if (!id.ok()) return id.status();
  absl::StatusOr<json> resp = session.Get(absl::StrCat("/api/v1/groups/", *id));
  if (!resp.ok()) return resp.status();
  const json group = resp->value("group", json::object());
  if (as_json) {
    out << group.dump(2) << "\n";
    return 0;
  }
  out << "User group " << GroupLabel(group) << ", its users:\n";
  Table table({"Id", "Username", "Displayname", "Admin", "Active", "Agentusergroup", "Modifiedat"});
  for (const json& u : group.value("users", json::array())) {
    std::vector<std::string> row;
    for (const char* key :
         {"id", "username", "displayName", "admin", "active", "agentUserGroup", "modifiedAt"}) {
      row.push_back(PyCell(u.value(key, json())));
    }
    table.AddRow(std::move(row));
  }
  out << table.Render();
  return 0;
}

absl::StatusOr<int> ChangeGroupMembers(Session& session, const std::string& group,
                                       const std::string& usernames, bool add, std::ostream& out) {
  std::vector<std::string> names = absl::StrSplit(usernames, ',', absl::SkipWhitespace());
  if (names.empty())
    return absl::InvalidArgumentError(
        "usernames: give one or more, separated by commas (alice,bob)");
  if (absl::Status s = RequireRbac(session, kWhat); !s.ok()) return s;
  absl::StatusOr<int64_t> id = GroupIdByName(session, group);
  if (!id.ok()) return id.status();
  absl::StatusOr<std::vector<int64_t>> user_ids = UserIdsByName(session, names);
  if (!user_ids.ok()) return user_ids.status();
  json body = {{"groupId", *id}, {add ? "addUsers" : "removeUsers", *user_ids}};
  absl::StatusOr<json> resp = session.Put(absl::StrCat("/api/v1/groups/", *id), body);
  if (!resp.ok()) return resp.status();
  const std::string label = GroupLabel(resp->value("group", json::object()));
  out << (add ? "Added " : "Removed ") << UsersLabel(names, *user_ids) << (add ? " to" : " from")
      << " user group " << label << ".\n";
  return 0;
}

absl::StatusOr<int> RenameGroup(Session& session, const std::string& old_name,
                                const std::string& new_name, std::ostream& out) {
  if (absl::Status s = RequireRbac(session, kWhat); !s.ok()) return s;
  absl::StatusOr<int64_t> id = GroupIdByName(session, old_name);
  if (!id.ok()) return id.status();
  absl::StatusOr<json> resp =
      session.Put(absl::StrCat("/api/v1/groups/", *id), {{"groupId", *id}, {"name", new_name}});
  if (!resp.ok()) return resp.status();
  const json group = resp->value("group", json::object());
  out << "Renamed user group \"" << old_name << "\" (ID " << *id << ") to \"" << Str(group, "name")
      << "\".\n";
  return 0;
}

absl::StatusOr<int> DeleteGroup(Session& session, const std::string& name, std::ostream& out) {
  if (absl::Status s = RequireRbac(session, kWhat); !s.ok()) return s;
  absl::StatusOr<int64_t> id = GroupIdByName(session, name);
  if (!id.ok()) return id.status();
  absl::StatusOr<json> resp = session.Delete(absl::StrCat("/api/v1/groups/", *id));
  if (!resp.ok()) return resp.status();
  out << "Deleted user group \"" << name << "\" (ID " << *id << ").\n";
  return 0;
}

}  // namespace det::cli
