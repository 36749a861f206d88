#include "master/task/task_states.h"

#include <array>
#include <utility>

namespace det::master {
namespace {

template <typename E, size_t N>
std::optional<E> ParseName(const std::array<std::pair<E, absl::string_view>, N>& names, absl::string_view name) {
  for (const auto& [value, text] : names) {
    if (text == name) return value;
  }
  return std::nullopt;
}

template <typename E, size_t N>
absl::string_view NameOf(const std::array<std::pair<E, absl::string_view>, N>& names, E value) {
  for (const auto& [v, text] : names) {
    if (v == value) return text;
  }
  return "UNSPECIFIED";
}

constexpr std::array<std::pair<TaskType, absl::string_view>, 7> kTaskTypes = {{
    {TaskType::kTrial, "TRIAL"},
    {TaskType::kCommand, "COMMAND"},
    {TaskType::kNotebook, "NOTEBOOK"},
    {TaskType::kShell, "SHELL"},
    {TaskType::kTensorboard, "TENSORBOARD"},
    {TaskType::kGeneric, "GENERIC"},
    {TaskType::kCheckpointGc, "CHECKPOINT_GC"},
}};

constexpr std::array<std::pair<TaskState, absl::string_view>, 7> kTaskStates = {{
    {TaskState::kActive, "ACTIVE"},
    {TaskState::kPaused, "PAUSED"},
    {TaskState::kStoppingPaused, "STOPPING_PAUSED"},
    {TaskState::kStoppingCanceled, "STOPPING_CANCELED"},
    {TaskState::kCompleted, "COMPLETED"},
    {TaskState::kCanceled, "CANCELED"},
    {TaskState::kError, "ERROR"},
}};

constexpr std::array<std::pair<AllocationState, absl::string_view>, 5> kAllocationStates = {{
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

absl::string_view Name(TaskType type) { return NameOf(kTaskTypes, type); }
absl::string_view Name(TaskState state) { return NameOf(kTaskStates, state); }
absl::string_view Name(AllocationState state) { return NameOf(kAllocationStates, state); }
std::optional<TaskType> ParseTaskType(absl::string_view name) { return ParseName(kTaskTypes, name); }
std::optional<TaskState> ParseTaskState(absl::string_view name) { return ParseName(kTaskStates, name); }
std::optional<AllocationState> ParseAllocationState(absl::string_view name) {
  return ParseName(kAllocationStates, name);
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
