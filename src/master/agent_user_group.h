#pragma once
// A workspace's agent user group (upstream's AgentUserGroup: agentUid, agentGid, agentUser,
// agentGroup): the OS user and group that the tasks launched in the workspace run as.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "api/agent_protocol.h"

namespace det::master {

// The group an API body gives: all four fields, ids from 0 to 4294967294. InvalidArgument names the
// field (`agentUserGroup.agentUid: ...`).
absl::StatusOr<api::TaskUser> ParseAgentUserGroup(const nlohmann::json& group);

// The user a workspace's tasks run as, from its agent user group as JSON text ("" or {} = none: the
// agent's); an incomplete group is InvalidArgument, as ParseAgentUserGroup says.
absl::StatusOr<std::optional<api::TaskUser>> TaskUserOfWorkspace(const std::string& agent_user_group_json);

}  // namespace det::master
