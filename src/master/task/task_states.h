#pragma once
// The typed states of tasks and allocations, each with one IsTerminal. Strings appear only where
// JSON and SQL are read and written (Name / Parse*).
#include <optional>
#include <string>
#include "absl/strings/string_view.h"

namespace det::master {

// What a task runs (upstream's model.TaskType).
enum class TaskType { kTrial, kCommand, kNotebook, kShell, kTensorboard, kGeneric, kCheckpointGc };

// A task's lifecycle. Commands and generic tasks go ACTIVE → (STOPPING_CANCELED) → COMPLETED |
// CANCELED | ERROR; a generic task may also be PAUSED (its process stopped, resumed on unpause).
enum class TaskState {
  kActive,
  kPaused,
  kStoppingPaused,    // asked to pause: its process is being stopped
  kStoppingCanceled,  // killed: its process is being stopped
  kCompleted,
  kCanceled,
  kError,
};

// One run of a task on the cluster (upstream's allocation states, QUEUED = PENDING).
enum class AllocationState { kQueued, kAssigned, kRunning, kTerminating, kTerminated };

// Every TaskState, in declaration order.
inline constexpr TaskState kTaskStates[] = {TaskState::kActive,           TaskState::kPaused,
                                            TaskState::kStoppingPaused,   TaskState::kStoppingCanceled,
                                            TaskState::kCompleted,        TaskState::kCanceled,
                                            TaskState::kError};

bool IsTerminal(TaskState state);
bool IsTerminal(AllocationState state);

// Stored and wire names: "COMMAND", "ACTIVE", "RUNNING", ...
absl::string_view Name(TaskType type);
absl::string_view Name(TaskState state);
absl::string_view Name(AllocationState state);
std::optional<TaskType> ParseTaskType(absl::string_view name);
std::optional<TaskState> ParseTaskState(absl::string_view name);
std::optional<AllocationState> ParseAllocationState(absl::string_view name);

// Whether `from` may move to `to` (the transitions the task core makes; staying put is allowed).
bool CanTransition(TaskState from, TaskState to);

}  // namespace det::master
