#pragma once
// The master's persistent state. Implementations are safe for concurrent use from any thread.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/types.h"

namespace det::master {

struct Allocation {
  std::string allocation_id;
  std::string task_id;
  int64_t trial_id = 0;
  std::string state = "QUEUED";  // QUEUED, RUNNING, TERMINATED
  std::string token_hash;
  std::string agent_id;
  int slots = 0;
  std::vector<int> slot_ids;  // on agent_id, once placed
  WallTime start_time;
  std::optional<WallTime> end_time;
  std::optional<int> exit_code;
};

struct ExperimentFilter {
  bool include_archived = true;
  std::vector<std::string> usernames;  // owners; empty = anyone
  std::vector<int64_t> user_ids;       // owners; empty = anyone
  int64_t offset = 0;
  int64_t limit = 0;  // 0 = all
};

// A configuration template (reference §1f): an arbitrary JSON object stored as given; it is validated
// only when an experiment uses it.
struct Template {
  std::string name;
  std::string config_json;  // a JSON object
  int64_t workspace_id = 1;  // 1 = the default workspace
};

struct TemplateFilter {
  std::string name_contains;            // case-insensitive substring of the name; "" = any
  std::vector<int64_t> workspace_ids;   // empty = any
  bool descending = false;              // by name
  int64_t offset = 0;
  int64_t limit = 0;  // 0 = all
};

struct TemplatePage {
  std::vector<Template> templates;
  int64_t total = 0;  // matching templates before offset/limit
};

class Store {
 public:
  virtual ~Store() = default;

  // Users and sessions.
  virtual absl::StatusOr<api::User> GetUserByName(const std::string& username) = 0;
  virtual absl::StatusOr<api::User> GetUser(int64_t id) = 0;
  virtual absl::Status AddSession(const std::string& token_hash, int64_t user_id, WallTime expiry) = 0;
  // NotFound when the token is unknown or expired at `now`.
  virtual absl::StatusOr<int64_t> LookupSession(const std::string& token_hash, WallTime now) = 0;
  virtual absl::Status DeleteSession(const std::string& token_hash) = 0;
  // Replaces a user's stored password hash (bcrypt of the client-side form); nullopt = no password.
  virtual absl::Status SetUserPasswordHash(int64_t user_id, const std::optional<std::string>& hash) = 0;

  // Experiments. `experiment.id` is assigned.
  virtual absl::StatusOr<int64_t> InsertExperiment(const api::Experiment& experiment,
                                                   const std::string& model_definition_tgz) = 0;
  virtual absl::Status UpdateExperimentState(int64_t id, const std::string& state,
                                             std::optional<WallTime> end_time, double progress) = 0;
  virtual absl::StatusOr<api::Experiment> GetExperiment(int64_t id) = 0;
  virtual absl::StatusOr<std::vector<api::Experiment>> ListExperiments(const ExperimentFilter& filter) = 0;
  virtual absl::StatusOr<int64_t> CountExperiments(const ExperimentFilter& filter) = 0;
  virtual absl::StatusOr<std::string> GetModelDefinition(int64_t experiment_id) = 0;
  // The experiment's searcher state (JSON text), replaced on every save; NotFound before the first.
  virtual absl::Status SaveSearcherSnapshot(int64_t experiment_id, const std::string& snapshot_json) = 0;
  virtual absl::StatusOr<std::string> GetSearcherSnapshot(int64_t experiment_id) = 0;

  // Trials. `trial.id` is assigned.
  virtual absl::StatusOr<int64_t> InsertTrial(const api::Trial& trial) = 0;
  // Writes the lifecycle fields: state, restarts, run_id, end_time, runner_state.
  virtual absl::Status UpdateTrialLifecycle(const api::Trial& trial) = 0;
  virtual absl::StatusOr<api::Trial> GetTrial(int64_t id) = 0;
  virtual absl::StatusOr<api::Trial> GetTrialByTaskId(const std::string& task_id) = 0;
  virtual absl::StatusOr<std::vector<api::Trial>> ListTrials(int64_t experiment_id) = 0;

  // Allocations.
  virtual absl::Status InsertAllocation(const Allocation& allocation) = 0;
  virtual absl::Status UpdateAllocation(const Allocation& allocation) = 0;
  virtual absl::StatusOr<Allocation> GetAllocation(const std::string& allocation_id) = 0;
  virtual absl::StatusOr<Allocation> GetAllocationByTokenHash(const std::string& token_hash) = 0;

  // Metrics: inserts the report and, in the same transaction, applies `update_summary` to the trial's
  // summary fields (total_batches, latest/best validation, summary metrics, searcher metric value).
  virtual absl::StatusOr<int64_t> AddMetrics(const api::MetricsReport& report,
                                             const std::function<void(api::Trial&)>& update_summary) = 0;
  // Reports of one trial and group, ordered by total_batches then id.
  virtual absl::StatusOr<std::vector<api::MetricsReport>> GetMetrics(int64_t trial_id,
                                                                     const std::string& group) = 0;

  // Checkpoints: inserting also updates the trial's latest checkpoint, count and total size.
  virtual absl::Status AddCheckpoint(const api::Checkpoint& checkpoint, int64_t size_bytes) = 0;
  virtual absl::StatusOr<api::Checkpoint> GetCheckpoint(const std::string& uuid) = 0;
  virtual absl::StatusOr<std::vector<api::Checkpoint>> ListCheckpoints(int64_t experiment_id) = 0;

  // Task logs: ids are assigned in insertion order.
  virtual absl::Status AddTaskLogs(const std::vector<api::TaskLog>& logs) = 0;
  // Up to `limit` lines of `task_id` with id > after_id, oldest first.
  virtual absl::StatusOr<std::vector<api::TaskLog>> GetTaskLogs(const std::string& task_id,
                                                                int64_t after_id, int limit) = 0;
  // Up to `limit` lines of `task_id` with id < before_id (0 = no bound), newest first.
  virtual absl::StatusOr<std::vector<api::TaskLog>> GetTaskLogsNewestFirst(const std::string& task_id,
                                                                           int64_t before_id, int limit) = 0;

  // Templates, keyed by name. Errors: NotFound `template "NAME" not found`, AlreadyExists
  // `template "NAME" already exists`.
  // Creates; AlreadyExists when the name is taken.
  virtual absl::Status InsertTemplate(const Template& tpl) = 0;
  // Creates or replaces (config and workspace).
  virtual absl::Status PutTemplate(const Template& tpl) = 0;
  virtual absl::StatusOr<Template> GetTemplate(const std::string& name) = 0;
  virtual absl::StatusOr<TemplatePage> ListTemplates(const TemplateFilter& filter) = 0;
  // Replaces the config of an existing template.
  virtual absl::Status UpdateTemplateConfig(const std::string& name, const std::string& config_json) = 0;
  // NotFound when `old_name` is unknown, AlreadyExists when `new_name` is taken.
  virtual absl::Status RenameTemplate(const std::string& old_name, const std::string& new_name) = 0;
  virtual absl::Status DeleteTemplate(const std::string& name) = 0;
};

}  // namespace det::master
