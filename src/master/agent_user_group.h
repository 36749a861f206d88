#pragma once
// Agent user groups (upstream's AgentUserGroup: agentUid, agentGid, agentUser, agentGroup): the OS user
// and group that tasks run as. A workspace may name one for the tasks launched in it, a user for their
// own tasks (`det user link-with-agent-user`), and the master config a default (security.default_task).
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "api/agent_protocol.h"
#include "master/db/user_store.h"
#include "master/db/workspace_store.h"

namespace det::master {

// The group an API body gives: all four fields, ids from 0 to 4294967294. InvalidArgument names the
// field (`agentUserGroup.agentUid: ...`).
absl::StatusOr<api::TaskUser> ParseAgentUserGroup(const nlohmann::json& group);

// A request body's agentUserGroup, as the JSON text to store: unset when absent or null, "" (none) when
// {}; any other object is checked as ParseAgentUserGroup says.
absl::StatusOr<std::optional<std::string>> AgentUserGroupField(const nlohmann::json& body);

// The user a stored group names ("" or {} = none); an incomplete group is InvalidArgument, as
// ParseAgentUserGroup says.
absl::StatusOr<std::optional<api::TaskUser>> TaskUserOfGroup(const std::string& agent_user_group_json);

// Whom a task runs as: its workspace's group, else its owner's, else `default_user` (none: the agent's
// own user). The Uncategorized workspace names none; an owner of id 0 or not stored has none.
absl::StatusOr<std::optional<api::TaskUser>> TaskUserFor(WorkspaceStore& workspaces, UserStore& users,
                                                          int64_t workspace_id, int64_t owner_id,
                                                          const std::optional<api::TaskUser>& default_user);

}  // namespace det::master
