#pragma once
// Runs each task as a local process group: its own session (setsid), started in the task's work
// directory with exactly the given environment and stdin from /dev/null. The group's first process
// is determined-task-shim (task_shim.cc), which runs the task's program, records its exit status
// and then kills what is left of the group, so a task never leaves orphans behind.
//
// Output goes to files in the task's state directory (task_state.h), not through the agent: a task
// keeps running, and keeps its output and exit status, when the agent dies. One supervisor thread
// per task follows the files (inotify), watches for the exit (pidfd) and enforces the kill grace
// period. A runtime made later on the same state root adopts what an earlier one left behind.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/task_runtime.h"
#include "agent/task_state.h"

namespace det::agent {

class ProcessRuntime : public TaskRuntime {
 public:
  // Tasks keep their state in state_root/ID (created on demand); `shim` is the
  // determined-task-shim executable.
  ProcessRuntime(std::filesystem::path state_root, std::filesystem::path shim);
  // SIGKILLs the process groups of the tasks still running and waits for their supervisors.
  ~ProcessRuntime() override;
  ProcessRuntime(const ProcessRuntime&) = delete;
  ProcessRuntime& operator=(const ProcessRuntime&) = delete;

  absl::StatusOr<int> Start(const TaskSpec& spec, TaskCallbacks callbacks) override;
  absl::Status Kill(const std::string& id, std::chrono::milliseconds grace) override;
  std::vector<std::string> RunningTasks() const override;
  bool WaitAll(std::chrono::milliseconds timeout) override;
  void Acknowledge(const std::string& id, uint64_t lines) override;
  std::vector<OrphanTask> Orphans() override;
  absl::Status Adopt(const std::string& id, TaskCallbacks callbacks) override;

 private:
  struct Process;

  void Launch(std::shared_ptr<Process> process, TaskCallbacks callbacks);
  void Supervise(std::shared_ptr<Process> process, TaskCallbacks callbacks, uint64_t serial);
  void JoinFinishedLocked();

  const std::filesystem::path state_root_;
  const std::filesystem::path shim_;

  mutable std::mutex mu_;
  std::condition_variable all_done_;
  std::map<std::string, std::shared_ptr<Process>> running_;  // guarded by mu_
  std::map<std::string, TaskRecord> orphans_;  // listed by Orphans(), not adopted; guarded by mu_
  int active_ = 0;            // supervisors whose on_exit has not returned yet; guarded by mu_
  uint64_t next_serial_ = 0;  // guarded by mu_
  // Supervisor threads by serial; a finished one moves to finished_ and is joined on the next
  // Start() or in the destructor.
  std::map<uint64_t, std::thread> threads_;  // guarded by mu_
  std::vector<std::thread> finished_;        // guarded by mu_
};

}  // namespace det::agent
