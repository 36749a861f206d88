#pragma once
// An agent user group as the CLI's flags give it (`--agent-uid --agent-gid --agent-user --agent-group`,
// for `det workspace create|edit` and `det user link-with-agent-user`), and its request JSON
// (upstream's AgentUserGroup).
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace det::cli {

struct AgentUserGroupArgs {
  int64_t uid = 0;
  int64_t gid = 0;
  std::string user;
  std::string group;
};

inline nlohmann::json AgentUserGroupJson(const AgentUserGroupArgs& group) {
  return {{"agentUid", group.uid}, {"agentGid", group.gid}, {"agentUser", group.user}, {"agentGroup", group.group}};
}

}  // namespace det::cli
