#pragma once
// Experiments, their trials and their searcher state.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/types.h"

namespace det::master {

// Experiment list order (upstream's GetExperimentsRequest.SortBy, without the SORT_BY_ prefix).
enum class ExperimentSort {
  kId,
  kDescription,
  kStartTime,
  kEndTime,
  kState,
  kNumTrials,
  kProgress,
  kUser,
  kName,
  kResourcePool,
  kCheckpointSize,
  kCheckpointCount,
};

// All set conditions must hold. Filtering, sorting and paging happen in SQL.
struct ExperimentFilter {
  bool include_archived = true;          // false = only unarchived
  std::optional<bool> archived;          // exactly this archived flag (wins over include_archived)
  std::vector<std::string> usernames;    // owners (OR'ed with user_ids); empty = anyone
  std::vector<int64_t> user_ids;         // owners; empty = anyone
  std::vector<api::ExperimentState> states;  // empty = any
  std::vector<std::string> labels;       // the experiment has every one of them
  std::string name_contains;             // case-insensitive substring of the name
  std::string description_contains;     // case-insensitive substring of the description
  // Upstream's experimentIdFilter (an Int32FieldFilter): every bound that is set holds.
  struct IdFilter {
    std::optional<int64_t> lt, lte, gt, gte;
    std::vector<int64_t> incl;    // one of these, when not empty
    std::vector<int64_t> not_in;  // none of these
  } ids;
  std::optional<int64_t> project_id;
  // The workspaces whose rows the caller may see (rbac); nullopt: every one.
  std::optional<std::vector<int64_t>> visible_workspaces;
  ExperimentSort sort = ExperimentSort::kId;
  bool descending = false;               // ties break by id in the same direction
  int64_t offset = 0;                    // >= 0
  int64_t limit = 0;  // 0 = all
};

struct SearcherMetric {
  std::string name;
  bool smaller_is_better = true;
};

// The fields of PATCH /api/v1/experiments/{id}; unset = unchanged.
// An experiment's searcher as saved: its last snapshot and the events given to it since, oldest
// first (searcher/searcher_journal.h).
struct SavedSearcher {
  std::string snapshot;
  std::vector<std::string> events;
};

struct ExperimentPatch {
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::optional<std::string> notes;
  std::optional<std::vector<std::string>> labels;
  std::optional<std::string> config_json;  // the whole (expanded) config, as JSON
  std::optional<std::optional<double>> queue_position;  // set, or cleared with nullopt inside
};

struct HighestIds {
  int64_t experiment = 0;
  int64_t trial = 0;
};

class ExperimentStore {
 public:
  virtual ~ExperimentStore() = default;

  // The highest experiment and trial ids ever given, deleted rows' included: the master gives the
  // next ones itself.
  virtual absl::StatusOr<HighestIds> GetHighestIds() = 0;

  // Experiments. `experiment.id` is the one given, or 0 for the store to give one.
  virtual absl::StatusOr<int64_t> InsertExperiment(const api::Experiment& experiment,
                                                   const std::string& model_definition_tgz) = 0;
  virtual absl::Status UpdateExperimentState(int64_t id, api::ExperimentState state,
                                             std::optional<WallTime> end_time, double progress) = 0;
  virtual absl::StatusOr<api::Experiment> GetExperiment(int64_t id) = 0;
  virtual absl::StatusOr<std::vector<api::Experiment>> ListExperiments(const ExperimentFilter& filter) = 0;
  virtual absl::StatusOr<int64_t> CountExperiments(const ExperimentFilter& filter) = 0;
  virtual absl::StatusOr<std::string> GetModelDefinition(int64_t experiment_id) = 0;
  // The experiment's searcher.metric and searcher.smaller_is_better, without reading the whole
  // experiment (every metrics report needs them).
  virtual absl::StatusOr<SearcherMetric> GetSearcherMetric(int64_t experiment_id) = 0;
  // Name, description, notes, labels; NotFound `experiment ID not found`.
  virtual absl::StatusOr<api::Experiment> PatchExperiment(int64_t id, const ExperimentPatch& patch) = 0;
  // The conditional writes below act only while the experiment's state is one of `only_in` (the
  // master's rules decide which: experiment_rules.h) and return the state they found, changed or not;
  // NotFound `experiment ID not found`.
  virtual absl::StatusOr<api::ExperimentState> SetExperimentArchived(
      int64_t id, bool archived, const std::vector<api::ExperimentState>& only_in) = 0;
  virtual absl::StatusOr<api::ExperimentState> SetExperimentState(
      int64_t id, api::ExperimentState state, const std::vector<api::ExperimentState>& only_in) = 0;
  // Puts the experiment in another project (the rules are the master's: experiment_moves.h);
  // NotFound `experiment ID not found`.
  virtual absl::Status SetExperimentProject(int64_t id, int64_t project_id) = 0;
  // Removes the experiment with its trials, their tasks, allocations, metrics, checkpoint records,
  // logs and searcher state.
  virtual absl::StatusOr<api::ExperimentState> DeleteExperiment(
      int64_t id, const std::vector<api::ExperimentState>& only_in) = 0;
  // The experiment's searcher state: its last snapshot (JSON text) and the events given to it since
  // (searcher/searcher_journal.h). Saving a snapshot replaces the last one and deletes the events,
  // in one transaction; events are then numbered from 0 again.
  virtual absl::Status SaveSearcherSnapshot(int64_t experiment_id, const std::string& snapshot_json) = 0;
  // Appends events numbered first_seq, first_seq + 1, ..., in one transaction; a number already
  // written is AlreadyExists and writes none of them.
  virtual absl::Status AppendSearcherEvents(int64_t experiment_id, int64_t first_seq,
                                            const std::vector<std::string>& events) = 0;
  // NotFound before the first snapshot.
  virtual absl::StatusOr<SavedSearcher> GetSearcher(int64_t experiment_id) = 0;

  // Trials. `trial.id` is the one given, or 0 for the store to give one.
  virtual absl::StatusOr<int64_t> InsertTrial(const api::Trial& trial) = 0;
  // Writes the lifecycle fields: state, restarts, run_id, end_time, runner_state, and request_id (a
  // continued experiment's fresh searcher knows its trial by a new one).
  virtual absl::Status UpdateTrialLifecycle(const api::Trial& trial) = 0;
  virtual absl::StatusOr<api::Trial> GetTrial(int64_t id) = 0;
  virtual absl::StatusOr<api::Trial> GetTrialByTaskId(const std::string& task_id) = 0;
  virtual absl::StatusOr<std::vector<api::Trial>> ListTrials(int64_t experiment_id) = 0;
};

}  // namespace det::master
