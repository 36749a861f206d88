// User groups (upstream's): POST /api/v1/groups, POST /api/v1/groups/search, GET|PUT|DELETE
// /api/v1/groups/{groupId}, and PATCH /api/v1/users/assignments (several users in and out of several
// groups). Changing groups needs PERMISSION_TYPE_UPDATE_GROUP (basic: an admin); reading them is open to
// every user. Personal groups (master/db/group_store.h) are neither listed nor changed here.
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "api/types_json.h"
#include "api/wire.h"
#include "common/status_macros.h"
#include "master/handlers/group_json.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/task/authz.h"

namespace det::master {
namespace {

using nlohmann::json;

constexpr char kPersonalGroupMark[] = "DeterminedPersonalGroup";

// The user ids of body field `name` (a list); each user must exist.
absl::StatusOr<std::vector<int64_t>> UserIds(Store& store, const json& body, std::string_view name) {
  std::vector<int64_t> ids;
  const json* list = api::FindField(body, name);
  if (list == nullptr || list->is_null()) return ids;
  if (!list->is_array()) return absl::InvalidArgumentError(absl::StrCat(api::ToLowerCamel(name), ": must be a list of user ids"));
  for (const json& raw : *list) {
    ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(raw, api::ToLowerCamel(name)));
    RETURN_IF_ERROR(store.GetUser(id).status());
    ids.push_back(id);
  }
  return ids;
}

absl::Status CheckGroupName(const std::string& name) {
  if (name.empty()) return absl::InvalidArgumentError("name: required, a group name");
  if (absl::StrContains(name, kPersonalGroupMark)) {
    return absl::InvalidArgumentError(
        absl::StrCat("name: \"", name, "\" contains \"", kPersonalGroupMark, "\", which only personal groups have"));
  }
  return absl::OkStatus();
}

// A group that is not a personal one; NotFound otherwise.
absl::StatusOr<Group> SharedGroup(Store& store, int64_t id) {
  ASSIGN_OR_RETURN(Group g, store.GetGroup(id));
  if (g.personal_of) return absl::NotFoundError(absl::StrCat("group ", id, " not found"));
  return g;
}

absl::StatusOr<json> CreateGroup(MasterContext& ctx, const HttpRequest& req) {
  RETURN_IF_ERROR(DefaultAuthz().CheckCluster(*req.principal, rbac::Permission::kUpdateGroup, "create groups"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* name = api::FindField(body, "name");
  const std::string group_name = name != nullptr && name->is_string() ? name->get<std::string>() : "";
  RETURN_IF_ERROR(CheckGroupName(group_name));
  ASSIGN_OR_RETURN(std::vector<int64_t> members, UserIds(ctx.store, body, "add_users"));
  ASSIGN_OR_RETURN(Group created, ctx.store.InsertGroup(group_name, members));
  ASSIGN_OR_RETURN(json details, GroupDetailsJson(ctx.store, created));
  return json{{"group", details}};
}

absl::StatusOr<json> SearchGroups(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  GroupFilter filter;
  if (const json* user = api::FindField(body, "user_id"); user != nullptr && !user->is_null()) {
    ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(*user, "userId"));
    filter.member = id;
  }
  if (const json* name = api::FindField(body, "name"); name != nullptr && name->is_string()) {
    filter.name = name->get<std::string>();
  }
  for (auto [field, out] : {std::pair{"offset", &filter.offset}, std::pair{"limit", &filter.limit}}) {
    if (const json* v = api::FindField(body, field); v != nullptr && !v->is_null()) {
      ASSIGN_OR_RETURN(*out, api::ReadInt64(*v, field));
      if (*out < 0) return absl::InvalidArgumentError(absl::StrCat(field, ": must be >= 0, got ", *out));
    }
  }
  ASSIGN_OR_RETURN(GroupPage page, ctx.store.ListGroups(filter));
  json groups = json::array();
  for (const Group& g : page.groups) {
    groups.push_back({{"group", {{"groupId", g.id}, {"name", g.name}}}, {"numMembers", g.num_members}});
  }
  return json{{"groups", groups},
              {"pagination", Pagination(filter.offset, filter.limit, static_cast<int64_t>(page.groups.size()), page.total)}};
}

absl::StatusOr<json> GetGroup(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "group_id"));
  ASSIGN_OR_RETURN(Group g, SharedGroup(ctx.store, id));
  ASSIGN_OR_RETURN(json details, GroupDetailsJson(ctx.store, g));
  return json{{"group", details}};
}

absl::StatusOr<json> UpdateGroup(MasterContext& ctx, const HttpRequest& req) {
  RETURN_IF_ERROR(DefaultAuthz().CheckCluster(*req.principal, rbac::Permission::kUpdateGroup, "change groups"));
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "group_id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  RETURN_IF_ERROR(SharedGroup(ctx.store, id).status());
  std::optional<std::string> name;
  if (const json* n = api::FindField(body, "name"); n != nullptr && !n->is_null()) {
    if (!n->is_string()) return absl::InvalidArgumentError("name: must be a string");
    name = n->get<std::string>();
    RETURN_IF_ERROR(CheckGroupName(*name));
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> add, UserIds(ctx.store, body, "add_users"));
  ASSIGN_OR_RETURN(std::vector<int64_t> remove, UserIds(ctx.store, body, "remove_users"));
  ASSIGN_OR_RETURN(Group updated, ctx.store.UpdateGroup(id, name, add, remove));
  ASSIGN_OR_RETURN(json details, GroupDetailsJson(ctx.store, updated));
  return json{{"group", details}};
}

absl::StatusOr<json> DeleteGroup(MasterContext& ctx, const HttpRequest& req) {
  RETURN_IF_ERROR(DefaultAuthz().CheckCluster(*req.principal, rbac::Permission::kUpdateGroup, "delete groups"));
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "group_id"));
  RETURN_IF_ERROR(SharedGroup(ctx.store, id).status());
  RETURN_IF_ERROR(ctx.store.DeleteGroup(id));
  return json::object();
}

// Every named user joins addGroups and leaves removeGroups; every id is checked before anything changes.
absl::StatusOr<json> AssignMultipleGroups(MasterContext& ctx, const HttpRequest& req) {
  RETURN_IF_ERROR(DefaultAuthz().CheckCluster(*req.principal, rbac::Permission::kUpdateGroup, "change groups"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(std::vector<int64_t> users, UserIds(ctx.store, body, "user_ids"));
  std::vector<std::pair<int64_t, bool>> changes;  // group, add
  for (auto [field, add] : {std::pair{"add_groups", true}, std::pair{"remove_groups", false}}) {
    const json* list = api::FindField(body, field);
    if (list == nullptr || list->is_null()) continue;
    if (!list->is_array()) return absl::InvalidArgumentError(absl::StrCat(api::ToLowerCamel(field), ": must be a list of group ids"));
    for (const json& raw : *list) {
      ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(raw, api::ToLowerCamel(field)));
      RETURN_IF_ERROR(SharedGroup(ctx.store, id).status());
      changes.emplace_back(id, add);
    }
  }
  for (const auto& [group, add] : changes) {
    RETURN_IF_ERROR(ctx.store.UpdateGroup(group, std::nullopt, add ? users : std::vector<int64_t>{},
                                          add ? std::vector<int64_t>{} : users)
                        .status());
  }
  return json::object();
}

}  // namespace

absl::StatusOr<json> GroupDetailsJson(Store& store, const Group& g) {
  ASSIGN_OR_RETURN(std::vector<int64_t> members, store.ListGroupMembers(g.id));
  json users = json::array();
  for (int64_t id : members) {
    if (absl::StatusOr<api::User> u = store.GetUser(id); u.ok()) users.push_back(api::ToJson(*u));
  }
  return json{{"groupId", g.id}, {"name", g.name}, {"users", users}};
}

void RegisterGroupRoutes(Router& router, MasterContext& ctx) {
  router.Add("POST", "/api/v1/groups", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, CreateGroup(ctx, req)); });
  router.Add("POST", "/api/v1/groups/search", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, SearchGroups(ctx, req)); });
  router.Add("GET", "/api/v1/groups/{group_id}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, GetGroup(ctx, req)); });
  router.Add("PUT", "/api/v1/groups/{group_id}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, UpdateGroup(ctx, req)); });
  router.Add("DELETE", "/api/v1/groups/{group_id}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, DeleteGroup(ctx, req)); });
  router.Add("PATCH", "/api/v1/users/assignments", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, AssignMultipleGroups(ctx, req)); });
}

}  // namespace det::master
