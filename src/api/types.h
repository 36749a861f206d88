#pragma once
// The records the master stores and serves, in upstream's vocabulary (reference §1b). JSON-valued
// fields are kept as JSON text so that this header stays light; `types_json.h` renders them on the wire.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/experiment_states.h"
#include "common/time_util.h"

namespace det::api {

struct User {
  int64_t id = 0;
  std::string username;
  bool admin = false;
  bool active = true;
  std::string display_name;
  std::optional<std::string> password_hash;  // bcrypt of the client-side hash; nullopt = blank password
  WallTime modified_at;
  // The OS user and group the user's tasks run as where their workspace names none, as JSON
  // ({agentUid, agentGid, agentUser, agentGroup}); "" = none.
  std::string agent_user_group_json;
};

struct Experiment {
  int64_t id = 0;
  std::string name;
  std::string description;
  std::string notes;
  std::vector<std::string> labels;
  ExperimentState state = ExperimentState::kActive;
  bool archived = false;
  std::string config_json;       // fully defaulted config
  std::string original_config;   // the user's YAML text
  int64_t owner_id = 0;
  std::string username;
  WallTime start_time;
  std::optional<WallTime> end_time;
  double progress = 0;
  std::string job_id;
  std::string searcher_type;
  std::string searcher_metric;
  bool smaller_is_better = true;  // of searcher_metric
  std::string resource_pool;
  std::vector<int64_t> trial_ids;
  int64_t model_definition_size = 0;
  int64_t checkpoint_size = 0;   // the trials' total, in bytes
  int64_t checkpoint_count = 0;  // the trials' total
  // What the API shows instead of an ACTIVE state (RUNNING, QUEUED: display-only, not a state of
  // the enum); "" = `state`.
  std::string display_state;
  // The master's own, not on the wire: the job's queue position set by ahead-of/behind-of (null:
  // submission order).
  std::optional<double> queue_position;
  // Where it is organised (workspace 1 / project 1, Uncategorized, unless placed or moved).
  int64_t project_id = 1;
  std::string project_name = "Uncategorized";
  int64_t project_owner_id = 1;
  int64_t workspace_id = 1;
  std::string workspace_name = "Uncategorized";
  bool parent_archived = false;  // its project or workspace is archived
};

struct Trial {
  int64_t id = 0;
  int64_t experiment_id = 0;
  std::string request_id;
  std::string task_id;
  TrialState state = TrialState::kActive;
  std::string hparams_json = "{}";
  uint32_t seed = 0;
  int restarts = 0;
  int run_id = 0;
  WallTime start_time;
  std::optional<WallTime> end_time;
  int64_t total_batches = 0;
  std::string latest_validation_json;  // MetricsWorkload JSON or ""
  std::string best_validation_json;    // MetricsWorkload JSON or ""
  std::string summary_metrics_json = "{}";
  std::optional<double> searcher_metric_value;
  std::string runner_state;
  std::string latest_checkpoint_uuid;
  int64_t checkpoint_count = 0;
  int64_t total_checkpoint_size = 0;
  // Days its logs are kept after it ends (-1: forever); unset: the master's retention_policy decides.
  std::optional<int> log_retention_days;
  // What the API shows instead of an ACTIVE state (RUNNING, QUEUED: display-only, not a state of
  // the enum); "" = `state`.
  std::string display_state;
};

struct Checkpoint {
  std::string uuid;
  std::string task_id;
  std::string allocation_id;
  int64_t trial_id = 0;
  int64_t experiment_id = 0;
  WallTime report_time;
  std::string state = "COMPLETED";
  std::string resources_json = "{}";  // relative path -> size
  std::string metadata_json = "{}";
  int64_t steps_completed = 0;
  std::optional<int64_t> storage_id;  // its checkpoint_storage config's (CheckpointStore::CheckpointStorageId)
};

struct MetricsReport {
  int64_t id = 0;
  int64_t trial_id = 0;
  int trial_run_id = 0;
  std::string group;  // "training", "validation", ...
  int64_t total_batches = 0;
  WallTime end_time;
  std::string metrics_json = "{}";        // avg_metrics
  std::string batch_metrics_json = "[]";
};

struct TaskLog {
  int64_t id = 0;
  std::string task_id;
  std::string allocation_id;
  std::string agent_id;
  std::string container_id;
  std::optional<int> rank_id;
  WallTime timestamp;
  std::string level = "LOG_LEVEL_INFO";
  std::string log;
  std::string source = "task";
  std::string stdtype;
};

}  // namespace det::api
