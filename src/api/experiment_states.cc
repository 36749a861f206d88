#include "api/experiment_states.h"

#include <ostream>

#include "common/enum_names.h"

namespace det::api {
namespace {

constexpr EnumNames<ExperimentState, 12> kExperimentStateNames = {{
    {ExperimentState::kActive, "ACTIVE"},
    {ExperimentState::kPaused, "PAUSED"},
    {ExperimentState::kStoppingCanceled, "STOPPING_CANCELED"},
    {ExperimentState::kStoppingKilled, "STOPPING_KILLED"},
    {ExperimentState::kStoppingCompleted, "STOPPING_COMPLETED"},
    {ExperimentState::kStoppingError, "STOPPING_ERROR"},
    {ExperimentState::kCompleted, "COMPLETED"},
    {ExperimentState::kCanceled, "CANCELED"},
    {ExperimentState::kError, "ERROR"},
    {ExperimentState::kDeleting, "DELETING"},
    {ExperimentState::kDeleted, "DELETED"},
    {ExperimentState::kDeleteFailed, "DELETE_FAILED"},
}};

constexpr EnumNames<TrialState, 9> kTrialStateNames = {{
    {TrialState::kActive, "ACTIVE"},
    {TrialState::kPaused, "PAUSED"},
    {TrialState::kStoppingCanceled, "STOPPING_CANCELED"},
    {TrialState::kStoppingKilled, "STOPPING_KILLED"},
    {TrialState::kStoppingCompleted, "STOPPING_COMPLETED"},
    {TrialState::kStoppingError, "STOPPING_ERROR"},
    {TrialState::kCompleted, "COMPLETED"},
    {TrialState::kCanceled, "CANCELED"},
    {TrialState::kError, "ERROR"},
}};

}  // namespace

bool IsTerminal(ExperimentState state) {
  switch (state) {
    case ExperimentState::kCompleted:
    case ExperimentState::kCanceled:
    case ExperimentState::kError:
    case ExperimentState::kDeleting:
    case ExperimentState::kDeleted:
    case ExperimentState::kDeleteFailed:
      return true;
    case ExperimentState::kActive:
    case ExperimentState::kPaused:
    case ExperimentState::kStoppingCanceled:
    case ExperimentState::kStoppingKilled:
    case ExperimentState::kStoppingCompleted:
    case ExperimentState::kStoppingError:
      return false;
  }
  return false;
}

bool IsTerminal(TrialState state) {
  return state == TrialState::kCompleted || state == TrialState::kCanceled ||
         state == TrialState::kError;
}

bool IsStopping(ExperimentState state) {
  return state == ExperimentState::kStoppingCanceled || state == ExperimentState::kStoppingKilled ||
         state == ExperimentState::kStoppingCompleted || state == ExperimentState::kStoppingError;
}

bool IsStopping(TrialState state) {
  return state == TrialState::kStoppingCanceled || state == TrialState::kStoppingKilled ||
         state == TrialState::kStoppingCompleted || state == TrialState::kStoppingError;
}

ExperimentState TerminalStateOf(ExperimentState stopping) {
  if (stopping == ExperimentState::kStoppingCompleted) return ExperimentState::kCompleted;
  if (stopping == ExperimentState::kStoppingError) return ExperimentState::kError;
  return ExperimentState::kCanceled;
}

TrialState TerminalStateOf(TrialState stopping) {
  if (stopping == TrialState::kStoppingCompleted) return TrialState::kCompleted;
  if (stopping == TrialState::kStoppingError) return TrialState::kError;
  return TrialState::kCanceled;
}

std::optional<TrialState> TrialStateOf(ExperimentState state) {
  switch (state) {
    case ExperimentState::kActive:
      return TrialState::kActive;
    case ExperimentState::kPaused:
      return TrialState::kPaused;
    case ExperimentState::kStoppingCanceled:
      return TrialState::kStoppingCanceled;
    case ExperimentState::kStoppingKilled:
      return TrialState::kStoppingKilled;
    case ExperimentState::kStoppingCompleted:
      return TrialState::kStoppingCompleted;
    case ExperimentState::kStoppingError:
      return TrialState::kStoppingError;
    case ExperimentState::kCompleted:
      return TrialState::kCompleted;
    case ExperimentState::kCanceled:
      return TrialState::kCanceled;
    case ExperimentState::kError:
      return TrialState::kError;
    case ExperimentState::kDeleting:
    case ExperimentState::kDeleted:
    case ExperimentState::kDeleteFailed:
      return std::nullopt;
  }
  return std::nullopt;
}

absl::string_view Name(ExperimentState state) { return NameIn(kExperimentStateNames, state); }
absl::string_view Name(TrialState state) { return NameIn(kTrialStateNames, state); }

std::optional<ExperimentState> ParseExperimentState(absl::string_view name) {
  return ValueIn(kExperimentStateNames, name);
}

std::optional<TrialState> ParseTrialState(absl::string_view name) {
  return ValueIn(kTrialStateNames, name);
}

std::ostream& operator<<(std::ostream& out, ExperimentState state) { return out << Name(state); }
std::ostream& operator<<(std::ostream& out, TrialState state) { return out << Name(state); }

bool CanTransition(ExperimentState from, ExperimentState to) {
  using S = ExperimentState;
  if (from == to) return true;
  switch (from) {
    case S::kActive:
    case S::kPaused:
      // Pause and activate; any stop; or an end at once when no trial is live. Deletion needs an
      // end.
      if (to == S::kActive || to == S::kPaused) return true;
      return IsStopping(to) || to == S::kCompleted || to == S::kCanceled || to == S::kError;
    case S::kStoppingCanceled:
    case S::kStoppingCompleted:
    case S::kStoppingError:
      return to == S::kStoppingKilled || to == TerminalStateOf(from);  // killing wins
    case S::kStoppingKilled:
      return to == S::kCanceled;
    case S::kCompleted:
    case S::kCanceled:
    case S::kError:
    case S::kDeleteFailed:  // deleting may be retried
      return to == S::kDeleting;
    case S::kDeleting:
      return to == S::kDeleted || to == S::kDeleteFailed;
    case S::kDeleted:
      return false;
  }
  return false;
}

}  // namespace det::api
