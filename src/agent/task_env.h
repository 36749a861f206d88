#pragma once
// The environment a task process gets (docs/task-contract.md): nothing is inherited implicitly; the
// task sees the master-side variables from StartTask, a few variables of the agent's own
// environment, and the agent-side contract variables, which win over both.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "agent/master_url.h"
#include "api/agent_protocol.h"

namespace det::agent {

// What the agent contributes to every task's environment; fixed for the agent's lifetime.
struct AgentEnvironment {
  MasterUrl master;  // https: the task gets DET_USE_TLS=true and the certificate settings below
  // The master's certificate (or CA) file as an absolute path, passed as DET_MASTER_CERT_FILE
  // (tasks run on this host, so they can read it where it is); "" = the system CAs.
  std::string master_cert_file;
  std::string master_cert_name;  // DET_MASTER_CERT_NAME when not empty
  bool skip_verify = false;      // DET_MASTER_CERT_FILE=noverify
  std::string agent_id;
  // The agent's slots (offered_slots.h): a task's slot ids pick its devices, and it sees only those.
  std::vector<api::SlotInfo> slots;
  // BIN_DIR/../python, absolute and canonical: holds the `determined` package and its pybind11
  // module.
  std::filesystem::path python_dir;
  // The agent's own directory, which holds `det` too: first on the task's PATH, so scripts and shells
  // in a task call the CLI that matches this cluster, logged in as the task's user (DET_USER_TOKEN).
  std::filesystem::path bin_dir;
  std::string agent_path;  // the agent's own PATH, appended after the system directories; may be ""
  // Passed through from the agent's environment when set there: HOME, USER, LANG, TMPDIR.
  std::map<std::string, std::string> inherited;
};

// Reads the agent's own process: /proc/self/exe for bin_dir and python_dir, and PATH/HOME/USER/LANG/TMPDIR.
AgentEnvironment AgentEnvironmentFromProcess(MasterUrl master, std::string agent_id);

// The complete environment for `task` running in `task_dir`.
std::map<std::string, std::string> BuildTaskEnv(const api::StartTask& task,
                                                const AgentEnvironment& agent,
                                                const std::filesystem::path& task_dir);

// Upstream's startup hooks: when the task's environment `env` has the pool's hook
// (task_container_defaults.startup_hook, in config::kStartupHookVariable) or `work_dir` holds a file
// `startup-hook.sh` (the top of the context), `argv` runs after bash has run them in that order in the
// task's environment (the file is sourced), so what they export reaches the entrypoint; a command of a
// hook that fails ends the task with that command's status, before the entrypoint starts. Without
// either, `argv` unchanged.
std::vector<std::string> WithStartupHook(std::vector<std::string> argv, const std::filesystem::path& work_dir,
                                         const std::map<std::string, std::string>& env);

}  // namespace det::agent
