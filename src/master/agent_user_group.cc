#include "master/agent_user_group.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::master {

namespace {

absl::StatusOr<uint32_t> Id(const nlohmann::json& group, const char* field) {
  const nlohmann::json* v = api::FindField(group, field);
  const std::string name = absl::StrCat("agentUserGroup.", api::ToLowerCamel(field));
  if (v == nullptr) return absl::InvalidArgumentError(absl::StrCat(name, " is required"));
  ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(*v, name));
  // 2^32-1 is (uid_t)-1, which setuid() takes as "unchanged".
  if (id < 0 || id >= 4294967295) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be from 0 to 4294967294, got ", id));
  }
  return static_cast<uint32_t>(id);
}

absl::StatusOr<std::string> Name(const nlohmann::json& group, const char* field) {
  const nlohmann::json* v = api::FindField(group, field);
  if (v == nullptr || !v->is_string() || v->get<std::string>().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("agentUserGroup.", api::ToLowerCamel(field), " is required: the name of the user or group"));
  }
  return v->get<std::string>();
}

}  // namespace

absl::StatusOr<api::TaskUser> ParseAgentUserGroup(const nlohmann::json& group) {
  if (!group.is_object()) return absl::InvalidArgumentError("agentUserGroup must be a JSON object");
  api::TaskUser user;
  ASSIGN_OR_RETURN(user.uid, Id(group, "agent_uid"));
  ASSIGN_OR_RETURN(user.gid, Id(group, "agent_gid"));
  ASSIGN_OR_RETURN(user.user, Name(group, "agent_user"));
  ASSIGN_OR_RETURN(user.group, Name(group, "agent_group"));
  return user;
}

absl::StatusOr<std::optional<std::string>> AgentUserGroupField(const nlohmann::json& body) {
  const nlohmann::json* value = api::FindField(body, "agent_user_group");
  if (value == nullptr) return std::nullopt;
  if (!value->is_object()) return absl::InvalidArgumentError("agentUserGroup must be a JSON object");
  if (value->empty()) return std::string();
  RETURN_IF_ERROR(ParseAgentUserGroup(*value).status());
  return DumpJson(*value);
}

absl::StatusOr<std::optional<api::TaskUser>> TaskUserOfGroup(const std::string& agent_user_group_json) {
  if (agent_user_group_json.empty()) return std::nullopt;
  ASSIGN_OR_RETURN(nlohmann::json group, ParseJson(agent_user_group_json));
  if (group.is_object() && group.empty()) return std::nullopt;
  ASSIGN_OR_RETURN(api::TaskUser user, ParseAgentUserGroup(group));
  return user;
}

absl::StatusOr<std::optional<api::TaskUser>> TaskUserFor(WorkspaceStore& workspaces, UserStore& users,
                                                          int64_t workspace_id, int64_t owner_id,
                                                          const std::optional<api::TaskUser>& default_user) {
  if (workspace_id != kUncategorizedWorkspace) {
    ASSIGN_OR_RETURN(Workspace workspace, workspaces.GetWorkspace(workspace_id, 0));
    ASSIGN_OR_RETURN(std::optional<api::TaskUser> user, TaskUserOfGroup(workspace.agent_user_group_json));
    if (user) return user;
  }
  if (owner_id != 0) {
    absl::StatusOr<api::User> owner = users.GetUser(owner_id);
    if (!owner.ok() && !absl::IsNotFound(owner.status())) return owner.status();
    if (owner.ok()) {
      ASSIGN_OR_RETURN(std::optional<api::TaskUser> user, TaskUserOfGroup(owner->agent_user_group_json));
      if (user) return user;
    }
  }
  return default_user;
}

}  // namespace det::master
