#pragma once
// Runs the tasks whose TaskSpec has a container in that container, through a ContainerEngine (the Docker
// Engine API of dockerd or podman), and every other task with the runtime it wraps (the ProcessRuntime).
//
// A task's container runs its argv with its environment, as its user, in its work directory. The task's
// directory, this install's bin directory, the harness (python) and the libraries the harness's native
// module needs are bind-mounted at the same paths as on the host, so the environment the agent built
// (PATH, PYTHONPATH, DET_*) holds unchanged inside and the user's image needs nothing of ours: only a shell
// and, for trials, a Python the harness runs on. The network is the host's unless the task says otherwise.
//
// The engine keeps a container's output and exit code after it stops, so neither depends on the agent.
// Containers carry the labels ai.determined.agent and ai.determined.allocation; a restarted agent adopts
// those the engine lists with its agent label, by their records (state_root/containers/det-ID.json: the
// container's id and pid, the task's annotation and how many output lines were acknowledged), re-reading
// their output after those lines. A listed container without a record (its agent stopped between create
// and start) is removed; a record without a container is forgotten.
// A task's container is removed once its exit was reported.
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agent/container_engine.h"
#include "agent/task_runtime.h"

namespace det::agent {

struct ContainerRuntimeOptions {
  std::string agent_id;
  std::filesystem::path state_root;  // task records go to state_root/containers
  // Mounted read-only into every container at the same path.
  std::vector<std::filesystem::path> read_only_dirs;
  // LD_LIBRARY_PATH in the container (the directory of the harness's libraries); "" = none.
  std::string library_path;
};

class ContainerRuntime : public TaskRuntime {
 public:
  ContainerRuntime(std::unique_ptr<TaskRuntime> processes, std::shared_ptr<ContainerEngine> engine,
                   ContainerRuntimeOptions options);
  // The containers keep running (an agent started later adopts them); their supervisors end with them.
  ~ContainerRuntime() override;

  absl::StatusOr<int> Start(const TaskSpec& spec, TaskCallbacks callbacks) override;
  absl::Status Kill(const std::string& id, std::chrono::milliseconds grace) override;
  std::vector<std::string> RunningTasks() const override;
  void Acknowledge(const std::string& id, uint64_t lines) override;
  std::vector<OrphanTask> Orphans() override;
  absl::Status Adopt(const std::string& id, TaskCallbacks callbacks) override;
  bool WaitAll(std::chrono::milliseconds timeout) override;

  // The container's name for task `id` (a valid Docker name).
  static std::string ContainerName(const std::string& id);

 private:
  struct State;  // what the supervisor threads share with the runtime (container_runtime.cc)

  std::unique_ptr<TaskRuntime> processes_;
  std::shared_ptr<State> state_;
};

}  // namespace det::agent
