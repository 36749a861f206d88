#pragma once
// The agent's brain: turns StartTask/KillTask from the master into task runs and reports
// TaskStarted/TaskExited back. It knows nothing about websockets or HTTP: the master link, the
// runtime, the log sink and the context download are injected, so tests can run it with fakes.
//
// Per task, what the master sees, in order: TaskStarted (once the process runs), its log lines
// (through the log sink), then TaskExited, sent only after the task's last log batch was shipped. A
// task that cannot start gets a log line saying why and TaskExited{exit_code=-1, error}.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "agent/log_shipper.h"
#include "agent/log_sink.h"
#include "agent/task_env.h"
#include "agent/container_engine.h"
#include "agent/task_runtime.h"
#include "api/agent_protocol.h"

namespace det::agent {

struct AgentConfig {
  std::string agent_id;
  std::filesystem::path work_dir;  // absolute; tasks run in work_dir/tasks/ALLOCATION_ID
  AgentEnvironment env;
  // On shutdown tasks get SIGTERM, then SIGKILL after this long.
  std::chrono::milliseconds shutdown_grace{5000};
};

struct AgentDeps {
  std::unique_ptr<TaskRuntime> runtime;
  // Sends a message to the master; must not block (the link queues it while disconnected).
  // `on_written` is called once the message went out on a connection. Thread-safe.
  std::function<void(const api::AgentMessage& msg, std::function<void()> on_written)> send;
  // The sink for one task's logs (production: RestLogSink with the task's allocation token).
  std::function<std::unique_ptr<LogSink>(const api::StartTask& task, const LogMetadata& meta)>
      make_log_sink;
  // Fills `dest` with the task's context directory (production: DownloadContext).
  std::function<absl::Status(const api::StartTask& task, const std::filesystem::path& dest)>
      download_context;
  LogShipperOptions log_options;
  // The engine that pulls the images of tasks that name one (the runtime then runs them in containers);
  // null: none, and such tasks run on the host with a note in their log.
  std::shared_ptr<ContainerEngine> engine;
};

class Agent {
 public:
  Agent(AgentConfig config, AgentDeps deps);
  // Shutdown()s.
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // The first message on every (re)connection: the slots, and every allocation the master has not
  // yet been told the end of (still running, or its TaskExited not yet written). Thread-safe.
  api::AgentHello Hello() const;

  // Takes over the tasks an earlier agent process left running (or ended while no agent watched)
  // in this work directory: their output is shipped from where the earlier process stopped, and
  // they are listed by Hello() and reported as if this agent had started them. Call once, before
  // connecting to the master.
  void Recover();

  // Handles one message from the master without blocking on it (a start runs on its own thread).
  // Thread-safe.
  void Handle(const api::MasterMessage& msg);

  // Refuses new tasks, kills the running ones (SIGTERM, SIGKILL after shutdown_grace) and waits
  // until their TaskExited messages were handed to `send`. Returns false if something was still
  // running after the wait (then the caller should exit without destroying the agent). Idempotent.
  bool Shutdown();

 private:
  struct Task;

  void StartTask(const api::StartTask& start);
  void KillTask(const api::KillTask& kill);
  // Runs on a launcher thread: prepares the directory, downloads the context, starts the process.
  void Launch(std::shared_ptr<Task> task, uint64_t serial);
  // The task's log shipper, which acknowledges shipped lines to the runtime: those after the
  // `agent_lines` the agent shipped itself first.
  std::shared_ptr<LogShipper> MakeShipper(const api::StartTask& start,
                                          std::shared_ptr<const std::atomic<uint64_t>> agent_lines);
  // What the runtime reports for `task`: its lines go to the shipper, its exit to the master.
  TaskCallbacks Callbacks(const std::shared_ptr<Task>& task);
  // Ships `error` as the task's last log line and reports TaskExited{-1, error}.
  void FailTask(const std::shared_ptr<Task>& task, const std::string& error);
  // Reports the end of `task` and forgets it. `task`'s logs must already be flushed.
  void ReportExit(const std::shared_ptr<Task>& task, int exit_code, const std::string& error);
  void SendTaskStarted(const std::string& allocation_id, int pid);
  void JoinFinishedLaunchersLocked();

  const AgentConfig config_;
  AgentDeps deps_;

  mutable std::mutex mu_;
  std::condition_variable task_gone_;  // signalled whenever a task's TaskExited was sent
  std::map<std::string, std::shared_ptr<Task>> tasks_;  // by allocation id; guarded by mu_
  // Allocations whose TaskExited was sent but not yet written to a connection; guarded by mu_.
  std::set<std::string> unwritten_exits_;
  bool shutting_down_ = false;  // guarded by mu_
  // ReportExit calls between forgetting a task and handing its TaskExited to send; guarded by mu_.
  int exits_in_flight_ = 0;
  uint64_t next_serial_ = 0;                     // guarded by mu_
  std::map<uint64_t, std::thread> launchers_;    // guarded by mu_
  std::vector<std::thread> finished_launchers_;  // guarded by mu_
};

// Whether `id` can name a directory under WORK_DIR/tasks (no '/', not "." or "..", not empty).
bool IsSafeAllocationId(const std::string& id);

}  // namespace det::agent
