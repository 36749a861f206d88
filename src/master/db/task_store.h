#pragma once
// Tasks of every type and their allocations.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "api/agent_protocol.h"
#include "api/types.h"
#include "master/task/task_states.h"

namespace det::master {

// The slots an allocation holds on one agent (a gang allocation holds slots on several).
struct AgentSlots {
  std::string agent_id;
  std::vector<int> slot_ids;
  // The devices behind slot_ids as the agent reported them when the allocation was placed (a command's
  // container.devices); empty in rows written before devices were kept.
  std::vector<api::SlotInfo> devices;

  bool operator==(const AgentSlots&) const = default;
};

// One run of a task on the cluster; it knows its task, not what the task is.
struct Allocation {
  std::string allocation_id;
  std::string task_id;
  AllocationState state = AllocationState::kQueued;
  std::string token_hash;
  int slots = 0;
  std::string resource_pool;  // where it runs, once placed
  std::vector<AgentSlots> placements;  // once placed: one entry per agent, one process each
  WallTime start_time;
  std::optional<WallTime> end_time;
  std::optional<int> exit_code;
  bool ready = false;           // its process said it is serving (POST .../ready)
  std::string service_address;  // "host:port" it serves on, for the proxy; "" for none
  std::string service_user;     // the OS user it serves as (a shell's sshd lets only that user in)
};

// An allocation's service_address ("host:port", the host maybe an IPv6 address) in parts; nullopt
// for "" or anything else without a port.
inline std::optional<std::pair<std::string, int>> SplitServiceAddress(const std::string& address) {
  size_t colon = address.rfind(':');
  int port = 0;
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port)) return std::nullopt;
  return std::make_pair(address.substr(0, colon), port);
}

// A workload of any type (task_states.h): a trial, a command, a generic task, ...
struct Task {
  std::string task_id;
  TaskType type = TaskType::kCommand;
  int64_t owner_id = 0;
  std::string username;  // the owner's, read from users (ignored on write)
  std::string job_id;    // "" for tasks that are not jobs of their own (trials: the experiment's)
  int64_t workspace_id = 1;
  std::string description;
  std::string config_json = "{}";  // the task's resolved config (trials: "{}", see the experiment)
  TaskState state = TaskState::kActive;
  WallTime start_time;
  std::optional<WallTime> end_time;
  std::string exit_status;  // why it ended, for people ("exited with code 3", "killed by admin")
  std::optional<int> exit_code;
  std::optional<double> queue_position;  // a job-queue move (see ExperimentPatch)
  std::string forked_from;
  // What an interactive task was made with, as JSON (written once, at insert): a notebook's
  // {"token"}, a shell's {"private_key", "public_key"}, a TensorBoard's {"experiment_ids", "trial_ids"}.
  std::string service_json = "{}";
};

enum class TaskSort { kId, kDescription, kStartTime, kWorkspaceId };

struct TaskFilter {
  std::vector<TaskType> types;       // empty = any
  bool live_only = false;            // only tasks not in a terminal state
  std::vector<int64_t> owner_ids;    // OR'ed with usernames; both empty = anyone
  std::vector<std::string> usernames;
  std::vector<int64_t> workspace_ids;  // empty = any
  // The workspaces whose rows the caller may see (rbac); nullopt: every one.
  std::optional<std::vector<int64_t>> visible_workspaces;
  TaskSort sort = TaskSort::kId;
  bool descending = false;
  int64_t offset = 0;
  int64_t limit = 0;  // 0 = all
};

class TaskStore {
 public:
  virtual ~TaskStore() = default;

  // Tasks. `context_tgz` is the task's context directory ("" = none).
  virtual absl::Status InsertTask(const Task& task, const std::string& context_tgz) = 0;
  // Writes what changes over a task's life: state, end time, exit status and code, config,
  // description, queue position.
  virtual absl::Status UpdateTask(const Task& task) = 0;
  // NotFound `task ID not found`.
  virtual absl::StatusOr<Task> GetTask(const std::string& task_id) = 0;
  virtual absl::StatusOr<std::vector<Task>> ListTasks(const TaskFilter& filter) = 0;
  // How many tasks match, offset and limit ignored.
  virtual absl::StatusOr<int64_t> CountTasks(const TaskFilter& filter) = 0;
  virtual absl::StatusOr<std::string> GetTaskContext(const std::string& task_id) = 0;
  // A task's allocations, oldest first.
  virtual absl::StatusOr<std::vector<Allocation>> ListAllocations(const std::string& task_id) = 0;
  // Every allocation that held or holds its slots at some moment of [begin, end): it started before
  // `end` and has not ended or ended after `begin`; oldest start first (usage history).
  virtual absl::StatusOr<std::vector<Allocation>> ListAllocationsOverlapping(WallTime begin, WallTime end) = 0;

  // Allocations.
  virtual absl::Status InsertAllocation(const Allocation& allocation) = 0;
  virtual absl::Status UpdateAllocation(const Allocation& allocation) = 0;
  virtual absl::StatusOr<Allocation> GetAllocation(const std::string& allocation_id) = 0;
  virtual absl::StatusOr<Allocation> GetAllocationByTokenHash(const std::string& token_hash) = 0;
};

}  // namespace det::master
