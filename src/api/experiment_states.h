#pragma once
// The typed states of experiments and trials (upstream's experimentv1.State and trialv1.State),
// each with one IsTerminal. Strings appear only where JSON and SQL are read and written: the store
// keeps the bare name ("STOPPING_CANCELED", Name / Parse*), the wire says "STATE_" + Name.
//
// An experiment's life (reference §7.1; CanTransition has the full table):
//
//   ACTIVE <-> PAUSED -> STOPPING_{CANCELED,KILLED,COMPLETED,ERROR} -> COMPLETED | CANCELED | ERROR
//   ACTIVE | PAUSED -> COMPLETED | CANCELED | ERROR   (the searcher ends with no live trials)
//   COMPLETED | CANCELED | ERROR | DELETE_FAILED -> DELETING -> DELETE_FAILED | (record removed)
//
// A stopping experiment settles in TerminalStateOf(its stopping state) once its last trial ended;
// killing wins over every other stop. DELETED is a wire value only: a deleted experiment's record
// is removed, so the store never holds it.
//
// Which states are terminal, and what each former definition's callers get:
//  - IsTerminal(ExperimentState) is "the experiment's run is over and it never runs again":
//    COMPLETED, CANCELED, ERROR and the deletion states DELETING, DELETED, DELETE_FAILED (reached
//    only from the first three). Recovery skips these experiments and the CLI's wait loops
//    (`det e wait`, `det e create --follow`, the trial progress board) stop at them, as before.
//    GET /api/v1/experiments/{id} adds a jobSummary only for a non-terminal experiment; it used to
//    ask the cluster for DELETING and DELETE_FAILED ones too, but those have no job, so the
//    response is the same.
//  - Archiving, and marking for deletion, need a finished experiment that is not being deleted:
//    COMPLETED, CANCELED, ERROR or DELETE_FAILED, i.e. CanTransition(state, kDeleting) without
//    staying DELETING (removing the records also accepts DELETING). Checked in master/experiment_rules.cc.
//  - The metric-names stream (trial_series.cc) ends when every experiment is terminal, except
//    that DELETING and DELETE_FAILED keep it open as they always did (a DELETING experiment's
//    stream ends when its record goes). Spelled out at that call site.
//  - IsTerminal(TrialState) is COMPLETED, CANCELED, ERROR (trials have no deletion states): trial
//    recovery and the end of a followed trial's logs.
#include <iosfwd>
#include <optional>

#include "absl/strings/string_view.h"

namespace det::api {

enum class ExperimentState {
  kActive,
  kPaused,
  kStoppingCanceled,   // canceled by the user: trials checkpoint and exit
  kStoppingKilled,     // killed: trials' processes are killed
  kStoppingCompleted,  // the searcher finished with trials still live
  kStoppingError,      // the searcher failed with trials still live (they are canceled)
  kCompleted,
  kCanceled,
  kError,
  kDeleting,      // checkpoints are being deleted from storage; then the records go
  kDeleted,       // wire only: the store removes a deleted experiment's record
  kDeleteFailed,  // storage would not delete its checkpoints; deleting may be retried
};

// A trial moves with its experiment (activate, pause, cancel, kill) or on its own (a searcher's
// stop, a kill, its process's exit). No transition table is kept for trials: the cluster moves
// them from any live state (kill wins over other stops; activating an experiment makes all its
// live trials ACTIVE).
enum class TrialState {
  kActive,
  kPaused,
  kStoppingCanceled,
  kStoppingKilled,
  kStoppingCompleted,  // stopped by the searcher
  kStoppingError,      // upstream's; this master cancels the trials of a failing experiment instead
  kCompleted,
  kCanceled,
  kError,
};

// See the header comment for what "terminal" covers for experiments.
bool IsTerminal(ExperimentState state);
bool IsTerminal(TrialState state);

// STOPPING_*: asked to stop, waiting for its trials (or its process) to exit.
bool IsStopping(ExperimentState state);
bool IsStopping(TrialState state);

// Where a stopping experiment or trial settles (reference §7.1): a search that completed
// completes, an error errs, and canceling or killing ends CANCELED. Callers pass a stopping state;
// any other state gives CANCELED.
ExperimentState TerminalStateOf(ExperimentState stopping);
TrialState TerminalStateOf(TrialState stopping);

// The trial state of the same name; nullopt for the deletion states, which trials do not have.
std::optional<TrialState> TrialStateOf(ExperimentState state);

// Stored names, without "STATE_": "ACTIVE", "STOPPING_KILLED", ...
absl::string_view Name(ExperimentState state);
absl::string_view Name(TrialState state);
std::optional<ExperimentState> ParseExperimentState(absl::string_view name);
std::optional<TrialState> ParseTrialState(absl::string_view name);

// Name on a stream: for logs and test failure messages.
std::ostream& operator<<(std::ostream& out, ExperimentState state);
std::ostream& operator<<(std::ostream& out, TrialState state);

// Whether an experiment may move from `from` to `to` (staying put is allowed): the diagram above.
// Changes the user or the searcher asks for (Cluster::SetExperimentState) are checked against it.
bool CanTransition(ExperimentState from, ExperimentState to);

}  // namespace det::api
