#pragma once
// The agent's interface to whatever actually runs a task's process. `ProcessRuntime` runs it as a
// local process group; a container runtime can implement the same interface later.
//
// Tasks outlive the runtime object that started them: a runtime made later on the same state (an
// agent restarted after a crash) finds them with Orphans() and takes them over with Adopt().
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det::agent {

enum class StdType { kStdout, kStderr };

// "stdout" / "stderr", as the task-log API spells it.
const char* StdTypeName(StdType type);

// The container a task runs in, for a runtime that runs containers (container_runtime.h): absent, the task is
// a process on the host.
struct ContainerSettings {
  std::string image;
  // "host:container" or "host:container:ro", host paths absolute; the runtime adds its own.
  std::vector<std::string> binds;
  std::string network_mode = "host";
  int64_t shm_size = 0;  // bytes; 0 = the engine's default (64 MiB)
  std::vector<std::string> cap_add;
  std::vector<std::string> cap_drop;
  std::vector<std::string> devices;  // "/dev/fuse" or "/dev/x:/dev/y:rwm"
  std::vector<std::string> gpus;     // NVIDIA GPUs by UUID (a DeviceRequest of the "nvidia" driver)
};

struct TaskSpec {
  std::string id;                          // the allocation id; unique among running tasks
  std::vector<std::string> argv;           // argv[0] is looked up in env's PATH unless it has a '/'
  std::map<std::string, std::string> env;  // the complete environment; nothing else is inherited
  std::filesystem::path work_dir;          // must exist; the process starts there
  std::string annotation;  // kept with the task and handed back by Orphans(); opaque to the runtime
  // The user and group the program runs as (the runtime must then run as root); none = the runtime's.
  struct User {
    uint32_t uid = 0;
    uint32_t gid = 0;
  };
  std::optional<User> user;
  std::optional<ContainerSettings> container;
};

// A task started by an earlier runtime (on the same state) that no runtime supervises now. It may
// have ended since; Adopt() then reports its recorded exit.
struct OrphanTask {
  std::string id;
  int pid = 0;
  std::string annotation;
};

// Callbacks from the runtime. `on_line` and `on_exit` run on a runtime-owned thread, one per task,
// so a task's lines arrive in order and `on_exit` comes after its last line. They must not call
// back into the runtime's Start() for the same task id.
struct TaskCallbacks {
  // Called from inside Start() once the process runs, before any on_line/on_exit of the task.
  std::function<void(int pid)> on_started;
  // One line of output, without its terminator ('\n', '\r' or "\r\n"). Lines are numbered from 1
  // in the order delivered (both streams together); see Acknowledge().
  std::function<void(StdType type, std::string line)> on_line;
  // The process ended: its exit code, or 128+N when signal N killed it. The task is no longer
  // listed by RunningTasks() when this is called.
  std::function<void(int exit_code)> on_exit;
};

class TaskRuntime {
 public:
  virtual ~TaskRuntime() = default;

  // Starts a task. Returns its pid, or an error when it could not be started (no callbacks are
  // called then). Thread-safe.
  virtual absl::StatusOr<int> Start(const TaskSpec& spec, TaskCallbacks callbacks) = 0;

  // Asks a task to stop: SIGTERM to its process group now, SIGKILL once `grace` has passed. Returns
  // NotFound for an unknown (or already finished) task. Thread-safe; a second call can only shorten
  // the grace period.
  virtual absl::Status Kill(const std::string& id, std::chrono::milliseconds grace) = 0;

  // Ids of the tasks whose on_exit has not been called yet. Thread-safe.
  virtual std::vector<std::string> RunningTasks() const = 0;

  // The first `lines` lines delivered for the task (since its Start or Adopt) are safe elsewhere: an
  // adopting runtime delivers the output after them, not again. Unknown ids are ignored.
  // Thread-safe.
  virtual void Acknowledge(const std::string& id, uint64_t lines) = 0;

  // Tasks left by an earlier runtime, running or ended; each should be adopted. Records that cannot
  // be read (a crash while starting) are cleaned up and skipped. Call before starting tasks.
  virtual std::vector<OrphanTask> Orphans() = 0;

  // Supervises an orphan as if this runtime had started it: its unacknowledged output, then its
  // exit, reach `callbacks` (on_started is not called). NotFound for an id Orphans() did not list.
  virtual absl::Status Adopt(const std::string& id, TaskCallbacks callbacks) = 0;

  // Blocks until every task has finished (its on_exit returned) or `timeout` passed; true when none
  // is left. Thread-safe.
  virtual bool WaitAll(std::chrono::milliseconds timeout) = 0;
};

}  // namespace det::agent
