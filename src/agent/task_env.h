#pragma once
// The environment a task process gets (docs/task-contract.md): nothing is inherited implicitly; the
// task sees the master-side variables from StartTask, a few variables of the agent's own
// environment, and the agent-side contract variables, which win over both.
#include <filesystem>
#include <map>
#include <string>

#include "agent/master_url.h"
#include "api/agent_protocol.h"

namespace det::agent {

// What the agent contributes to every task's environment; fixed for the agent's lifetime.
struct AgentEnvironment {
  MasterUrl master;
  std::string agent_id;
  // BIN_DIR/../python, absolute and canonical: holds the `determined` package and its pybind11
  // module.
  std::filesystem::path python_dir;
  std::string agent_path;  // the agent's own PATH, appended after the system directories; may be ""
  // Passed through from the agent's environment when set there: HOME, USER, LANG, TMPDIR.
  std::map<std::string, std::string> inherited;
};

// Reads the agent's own process: /proc/self/exe for python_dir, and PATH/HOME/USER/LANG/TMPDIR.
AgentEnvironment AgentEnvironmentFromProcess(MasterUrl master, std::string agent_id);

// The complete environment for `task` running in `task_dir`.
std::map<std::string, std::string> BuildTaskEnv(const api::StartTask& task,
                                                const AgentEnvironment& agent,
                                                const std::filesystem::path& task_dir);

}  // namespace det::agent
