#pragma once
// For tests: starts a task the way ProcessRuntime would, but without one, as if an agent that has
// since died had started it. The caller SIGKILLs the group and reaps the pid when done.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "agent/task_state.h"

namespace det::agent {

// Runs `sh -c script` in `cwd` under the task shim (DET_TASK_SHIM) with its state in
// state_root/id and `annotation` in its record. Returns the shim's pid, or -1.
inline int StartOrphanTask(const std::filesystem::path& state_root, const std::string& id,
                           const std::string& script, const std::string& annotation,
                           const std::filesystem::path& cwd) {
  TaskState state(state_root / id);
  if (!state.Create().ok()) return -1;
  std::vector<std::string> args = {DET_TASK_SHIM, state.exit_status_path().string(), "/bin/sh",
                                   "sh", "-c", script};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out = ::open(state.stdout_path().c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  int err = ::open(state.stderr_path().c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  std::string dir = cwd.string();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    if (::chdir(dir.c_str()) != 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(126);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(out);
  ::close(err);
  if (pid < 0) return -1;
  std::optional<uint64_t> start_time = ProcessStartTime(pid);
  if (!start_time || !state.WriteRecord({pid, *start_time, annotation}).ok()) return -1;
  return pid;
}

}  // namespace det::agent
