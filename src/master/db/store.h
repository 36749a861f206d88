#pragma once
// The master's persistent state. Implementations are safe for concurrent use from any thread.
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "api/types.h"
#include "master/task/task_states.h"

namespace det::master {

// The slots an allocation holds on one agent (a gang allocation holds slots on several).
struct AgentSlots {
  std::string agent_id;
  std::vector<int> slot_ids;

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
  TaskSort sort = TaskSort::kId;
  bool descending = false;
  int64_t offset = 0;
  int64_t limit = 0;  // 0 = all
};

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
  ExperimentSort sort = ExperimentSort::kId;
  bool descending = false;               // ties break by id in the same direction
  int64_t offset = 0;                    // >= 0
  int64_t limit = 0;  // 0 = all
};

// The fields of PATCH /api/v1/experiments/{id}; unset = unchanged.
// Which task log lines a query returns (upstream's TaskLogs/TrialLogs filters); an empty list or an
// unset bound lets everything through.
struct TaskLogFilter {
  std::vector<std::string> agent_ids;
  std::vector<std::string> container_ids;
  std::vector<int64_t> rank_ids;
  std::vector<std::string> sources;
  std::vector<std::string> stdtypes;
  std::vector<std::string> levels;  // LOG_LEVEL_INFO, ...
  std::optional<WallTime> before;   // timestamp < before
  std::optional<WallTime> after;    // timestamp > after
  std::string search_text;          // the line contains it (no wildcards)
  bool search_is_regex = false;     // search_text is a regular expression (common/search_regex.h)
};

// The distinct values of a task's log lines (upstream's TaskLogsFields), each list sorted.
struct TaskLogFields {
  std::vector<std::string> allocation_ids;
  std::vector<std::string> agent_ids;
  std::vector<std::string> container_ids;
  std::vector<int64_t> rank_ids;
  std::vector<std::string> stdtypes;
  std::vector<std::string> sources;

  bool operator==(const TaskLogFields&) const = default;
};

struct SearcherMetric {
  std::string name;
  bool smaller_is_better = true;
};

// Which of a trial's reports a metrics query returns: start <= total_batches (<= end when set).
struct BatchRange {
  int64_t start = 0;
  std::optional<int64_t> end;
};

struct ExperimentPatch {
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::optional<std::string> notes;
  std::optional<std::vector<std::string>> labels;
  std::optional<std::string> config_json;  // the whole (expanded) config, as JSON
  std::optional<std::optional<double>> queue_position;  // set, or cleared with nullopt inside
};

// Users list order (upstream's GetUsersRequest.SortBy).
enum class UserSort { kId, kUsername, kDisplayName, kAdmin, kActive, kModifiedTime };

struct UserFilter {
  std::string name_contains;  // case-insensitive substring of the username or display name
  std::optional<bool> active;
  std::optional<bool> admin;
  UserSort sort = UserSort::kId;
  bool descending = false;
  int64_t offset = 0;  // >= 0
  int64_t limit = 0;   // 0 = all
};

struct UserPage {
  std::vector<api::User> users;
  int64_t total = 0;  // matching users before offset/limit
};

// The fields of PatchUser; unset = unchanged.
struct UserPatch {
  std::optional<std::string> username;
  std::optional<std::string> display_name;
  std::optional<bool> admin;
  std::optional<bool> active;
  // Set: replaces the stored hash (inner nullopt = no password).
  std::optional<std::optional<std::string>> password_hash;
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
  // Creates a user (id, modified_at assigned); AlreadyExists `user "NAME" already exists`.
  virtual absl::StatusOr<api::User> InsertUser(const api::User& user) = 0;
  // NotFound `user ID not found`; AlreadyExists when renaming onto a taken username.
  virtual absl::StatusOr<api::User> UpdateUser(int64_t id, const UserPatch& patch) = 0;
  virtual absl::StatusOr<UserPage> ListUsers(const UserFilter& filter) = 0;
  // Revokes every session of the user (deactivation, password change).
  virtual absl::Status DeleteUserSessions(int64_t user_id) = 0;

  // Experiments. `experiment.id` is assigned.
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
  // Only finished experiments not being deleted (COMPLETED, CANCELED, ERROR, DELETE_FAILED) can be
  // (un)archived; else FailedPrecondition.
  virtual absl::Status SetExperimentArchived(int64_t id, bool archived) = 0;
  // Deleting an experiment: a terminal (or DELETE_FAILED) experiment becomes DELETING while its
  // checkpoints are deleted from storage; FailedPrecondition `experiment in non terminal state
  // 'STATE_X', try again later` otherwise. DELETE_FAILED when storage would not delete them.
  virtual absl::Status MarkExperimentDeleting(int64_t id) = 0;
  virtual absl::Status MarkExperimentDeleteFailed(int64_t id) = 0;
  // Removes a terminal or DELETING experiment with its trials, allocations, metrics, checkpoint
  // records, logs and searcher state; FailedPrecondition (as above) otherwise.
  virtual absl::Status DeleteExperiment(int64_t id) = 0;
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

  // Allocations.
  virtual absl::Status InsertAllocation(const Allocation& allocation) = 0;
  virtual absl::Status UpdateAllocation(const Allocation& allocation) = 0;
  virtual absl::StatusOr<Allocation> GetAllocation(const std::string& allocation_id) = 0;
  virtual absl::StatusOr<Allocation> GetAllocationByTokenHash(const std::string& token_hash) = 0;

  // Metrics: inserts reports of one trial and, in the same transaction (all stored or none), applies
  // `update_summary` for each report in order to the trial's summary fields (total_batches, latest/best
  // validation, summary metrics, searcher metric value). Returns their ids.
  virtual absl::StatusOr<std::vector<int64_t>> AddMetrics(
      const std::vector<api::MetricsReport>& reports,
      const std::function<void(api::Trial&, const api::MetricsReport&)>& update_summary) = 0;
  // Reports of one trial and group within `range`, ordered by total_batches then id.
  virtual absl::StatusOr<std::vector<api::MetricsReport>> GetMetrics(int64_t trial_id, const std::string& group,
                                                                     const BatchRange& range) = 0;

  // Checkpoints: inserting also updates the trial's latest checkpoint, count and total size.
  virtual absl::Status AddCheckpoint(const api::Checkpoint& checkpoint, int64_t size_bytes) = 0;
  virtual absl::StatusOr<api::Checkpoint> GetCheckpoint(const std::string& uuid) = 0;
  virtual absl::StatusOr<std::vector<api::Checkpoint>> ListCheckpoints(int64_t experiment_id) = 0;
  // After storage confirmed the deletion: the checkpoint becomes DELETED and leaves its trial's count and
  // total size (the sum of its resources); if it was the trial's latest, the latest one reported before
  // it that is left takes its place (none: ""). Deleting a DELETED checkpoint changes nothing.
  virtual absl::Status MarkCheckpointDeleted(const std::string& uuid) = 0;
  // Terminal experiments whose checkpoint GC has not finished yet.
  virtual absl::Status SetCheckpointGcPending(int64_t experiment_id, bool pending) = 0;
  virtual absl::StatusOr<std::vector<int64_t>> ListCheckpointGcPending() = 0;

  // Task logs: ids are assigned in insertion order.
  virtual absl::Status AddTaskLogs(const std::vector<api::TaskLog>& logs) = 0;
  // Up to `limit` lines of `task_id` that pass `filter` with id > after_id, oldest first.
  virtual absl::StatusOr<std::vector<api::TaskLog>> GetTaskLogs(const std::string& task_id,
                                                                int64_t after_id, int limit,
                                                                const TaskLogFilter& filter) = 0;
  // Up to `limit` lines of `task_id` that pass `filter` with id < before_id (0 = no bound), newest
  // first.
  virtual absl::StatusOr<std::vector<api::TaskLog>> GetTaskLogsNewestFirst(const std::string& task_id,
                                                                           int64_t before_id, int limit,
                                                                           const TaskLogFilter& filter) = 0;
  virtual absl::StatusOr<TaskLogFields> GetTaskLogFields(const std::string& task_id) = 0;

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
