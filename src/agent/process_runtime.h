#pragma once
// Runs each task as a local process: its own session and process group (setsid), started in the
// task's work directory with exactly the given environment, stdin from /dev/null, stdout and stderr
// through pipes. One supervisor thread per task reads both pipes, watches for the exit and enforces
// the kill grace period.
//
// When the task's main process exits, whatever is left of its process group is SIGKILLed (as a
// container's processes die with its init process), so a task never leaves orphans behind.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/task_runtime.h"

namespace det::agent {

class ProcessRuntime : public TaskRuntime {
 public:
  ProcessRuntime() = default;
  // SIGKILLs the process groups of the tasks still running and waits for their supervisors.
  ~ProcessRuntime() override;
  ProcessRuntime(const ProcessRuntime&) = delete;
  ProcessRuntime& operator=(const ProcessRuntime&) = delete;

  absl::StatusOr<int> Start(const TaskSpec& spec, TaskCallbacks callbacks) override;
  absl::Status Kill(const std::string& id, std::chrono::milliseconds grace) override;
  std::vector<std::string> RunningTasks() const override;
  bool WaitAll(std::chrono::milliseconds timeout) override;

  // How long output is still read after the main process exited, for pipes held open by processes
  // that escaped the group.
  static constexpr std::chrono::milliseconds kDrainTimeout{2000};

 private:
  struct Process;

  void Supervise(std::shared_ptr<Process> process, TaskCallbacks callbacks, uint64_t serial);
  void JoinFinishedLocked();

  mutable std::mutex mu_;
  std::condition_variable all_done_;
  std::map<std::string, std::shared_ptr<Process>> running_;  // guarded by mu_
  int active_ = 0;            // supervisors whose on_exit has not returned yet; guarded by mu_
  uint64_t next_serial_ = 0;  // guarded by mu_
  // Supervisor threads by serial; a finished one moves to finished_ and is joined on the next
  // Start() or in the destructor.
  std::map<uint64_t, std::thread> threads_;  // guarded by mu_
  std::vector<std::thread> finished_;        // guarded by mu_
};

}  // namespace det::agent
