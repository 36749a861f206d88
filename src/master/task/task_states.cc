#include "master/task/task_states.h"

#include "common/enum_names.h"

namespace det::master {
namespace {

constexpr EnumNames<TaskType, 7> kTaskTypeNames = {{
    {TaskType::kTrial, "TRIAL"},
    {TaskType::kCommand, "COMMAND"},
    {TaskType::kNotebook, "NOTEBOOK"},
    {TaskType::kShell, "SHELL"},
    {TaskType::kTensorboard, "TENSORBOARD"},
    {TaskType::kGeneric, "GENERIC"},
    {TaskType::kCheckpointGc, "CHECKPOINT_GC"},
}};

constexpr EnumNames<TaskState, 7> kTaskStateNames = {{
    {TaskState::kActive, "ACTIVE"},
    {TaskState::kPaused, "PAUSED"},
    {TaskState::kStoppingPaused, "STOPPING_PAUSED"},
    {TaskState::kStoppingCanceled, "STOPPING_CANCELED"},
    {TaskState::kCompleted, "COMPLETED"},
    {TaskState::kCanceled, "CANCELED"},
    {TaskState::kError, "ERROR"},
}};

constexpr EnumNames<AllocationState, 5> kAllocationStateNames = {{
    {AllocationState::kQueued, "QUEUED"},
    {AllocationState::kAssigned, "ASSIGNED"},
    {AllocationState::kRunning, "RUNNING"},
    {AllocationState::kTerminating, "TERMINATING"},
    {AllocationState::kTerminated, "TERMINATED"},
}};

}  // namespace

bool IsTerminal(TaskState state) {
  return state == TaskState::kCompleted || state == TaskState::kCanceled || state == TaskState::kError;
}

bool IsTerminal(AllocationState state) { return state == AllocationState::kTerminated; }

absl::string_view Name(TaskType type) { return NameIn(kTaskTypeNames, type); }
absl::string_view Name(TaskState state) { return NameIn(kTaskStateNames, state); }
absl::string_view Name(AllocationState state) { return NameIn(kAllocationStateNames, state); }
std::optional<TaskType> ParseTaskType(absl::string_view name) { return ValueIn(kTaskTypeNames, name); }
std::optional<TaskState> ParseTaskState(absl::string_view name) { return ValueIn(kTaskStateNames, name); }
std::optional<AllocationState> ParseAllocationState(absl::string_view name) {
  return ValueIn(kAllocationStateNames, name);
}

bool CanTransition(TaskState from, TaskState to) {
  if (from == to) return true;
  if (IsTerminal(from)) return false;
  switch (to) {
    case TaskState::kActive:
      return from == TaskState::kPaused;
    case TaskState::kStoppingPaused:
      return from == TaskState::kActive;
    case TaskState::kPaused:
      return from == TaskState::kStoppingPaused || from == TaskState::kActive;
    case TaskState::kStoppingCanceled:
      return true;  // kill wins over everything that has not ended
    case TaskState::kCompleted:
    case TaskState::kError:
      return from == TaskState::kActive || from == TaskState::kStoppingPaused;
    case TaskState::kCanceled:
      return true;
  }
  return false;
}

}  // namespace det::master
