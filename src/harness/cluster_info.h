#pragma once
// What a task learns about itself from the environment the master and agent set up
// (docs/task-contract.md; reference §1c "Environment variables set for task containers").
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::harness {

// The trial-only part: DET_TRIAL_ID, DET_EXPERIMENT_ID, DET_TRIAL_RUN_ID, DET_TRIAL_SEED,
// DET_HPARAMS, DET_EXPERIMENT_CONFIG, DET_STEPS_COMPLETED.
struct TrialInfo {
  int64_t trial_id = 0;
  int64_t experiment_id = 0;
  int64_t trial_run_id = 0;
  uint32_t trial_seed = 0;
  int64_t steps_completed = 0;
  std::string hparams_json = "{}";  // a JSON object (nested hyperparameters stay nested)
  std::string config_json = "{}";   // the full, defaulted experiment config as a JSON object
};

// Where the allocation's processes (one per agent) find each other: DET_RENDEZVOUS_INFO, upstream's
// rendezvous.json `{container_addrs, container_rank, container_slot_counts}`. A lone process is rank 0 of
// one at 127.0.0.1.
struct RendezvousInfo {
  std::vector<std::string> container_addrs;  // by rank, the chief first
  int container_rank = 0;
  std::vector<int> container_slot_counts;  // by rank
};

struct ClusterInfo {
  std::string master_url;                        // DET_MASTER
  std::string cluster_id;                        // DET_CLUSTER_ID
  std::string master_id;                         // DET_MASTER_ID
  std::string agent_id;                          // DET_AGENT_ID
  std::vector<int> slot_ids;                     // DET_SLOT_IDS, a JSON list
  std::string task_id;                           // DET_TASK_ID
  std::string allocation_id;                     // DET_ALLOCATION_ID
  std::string session_token;                     // DET_SESSION_TOKEN (the allocation token)
  std::string task_type;                         // DET_TASK_TYPE: TRIAL, COMMAND, NOTEBOOK, ...
  std::string user;                              // DET_USER
  std::string user_token;                        // DET_USER_TOKEN
  std::string workdir;                           // DET_WORKDIR
  std::optional<std::string> latest_checkpoint;  // DET_LATEST_CHECKPOINT (uuid), trials only
  std::optional<TrialInfo> trial;                // present iff task_type == "TRIAL"
  RendezvousInfo rendezvous;
};

// Returns the value of an environment variable, or nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// Reads the task environment. nullopt means "not on a cluster": DET_MASTER is unset, or it is set
// (as users do for the CLI) but neither DET_ALLOCATION_ID nor DET_TRIAL_ID is. On a cluster,
// missing or malformed variables are errors that name them.
absl::StatusOr<std::optional<ClusterInfo>> ParseClusterInfo(const EnvLookup& env);

// ParseClusterInfo over the process environment (getenv).
absl::StatusOr<std::optional<ClusterInfo>> ClusterInfoFromEnvironment();

}  // namespace det::harness
