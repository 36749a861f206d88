#pragma once
// Checkpoint GC (reference §9): when an experiment ends, the checkpoints its `checkpoint_storage`
// policy (save_experiment_best, save_trial_best, save_trial_latest) lets go are deleted from storage
// on a worker thread, and each is marked DELETED only after storage confirmed its deletion. An
// experiment's GC is pending in the store until it has finished, so it is idempotent and a restarted
// master finishes it; a storage failure is retried with backoff. The same worker deletes checkpoints a
// user names (DELETE /api/v1/checkpoints), the files of checkpoints a user names by glob (POST
// /api/v1/checkpoints/rm) and, before a deleted experiment's records go, every
// checkpoint of the experiment.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "master/checkpoint_gc_policy.h"
#include "master/db/store.h"
#include "storage/storage_manager.h"

namespace det::master {

// The experiment's policy: its config's checkpoint_storage counts, upstream's defaults where unset.
CheckpointGcPolicy GcPolicyOf(const api::Experiment& experiment);

// A completed checkpoint with the validation metrics (JSON text) its trial reported at its step;
// "" when there is none, which ranks it out of the best.
struct RankedCheckpoint {
  api::Checkpoint checkpoint;
  std::string validation_metrics_json;
};

// The experiment's completed checkpoints that `policy` lets go, except `keep` and those registered in
// the model registry (reference §9).
absl::StatusOr<std::vector<RankedCheckpoint>> CheckpointsPolicyLetsGo(Store& store, const api::Experiment& experiment,
                                                                      const CheckpointGcPolicy& policy,
                                                                      const std::set<std::string>& keep);

using StorageFactory = std::function<absl::StatusOr<std::unique_ptr<storage::StorageManager>>(
    const nlohmann::json& checkpoint_storage)>;

struct CheckpointGcOptions {
  StorageFactory make_storage = storage::MakeStorageManager;
  int max_attempts = 6;  // per experiment, then it stays pending until the master restarts
  std::chrono::milliseconds first_retry_delay{1000};  // doubled after each failed attempt
};

class CheckpointGc {
 public:
  explicit CheckpointGc(Store& store, CheckpointGcOptions options = {});
  ~CheckpointGc();  // finishes the checkpoint being deleted, drops the rest (they stay pending)
  CheckpointGc(const CheckpointGc&) = delete;
  CheckpointGc& operator=(const CheckpointGc&) = delete;

  // Marks the ended experiment's GC pending and queues it. `keep`: checkpoints that must survive
  // whatever the policy says (live trials' warm starts).
  void Schedule(int64_t experiment_id, std::set<std::string> keep);
  // Queues the ended experiment's GC, marked pending already (Store::SetCheckpointGcPending).
  void Queue(int64_t experiment_id, std::set<std::string> keep);
  // Deletes these checkpoints of the experiment from storage, each marked DELETED once storage confirmed.
  void Delete(int64_t experiment_id, std::set<std::string> uuids);
  // Removes the files of these checkpoints of the experiment that `globs` name (checkpoint_globs.h); a
  // checkpoint left with none of its files is DELETED, one left with some PARTIALLY_DELETED.
  void RemoveFiles(int64_t experiment_id, std::set<std::string> uuids, std::vector<std::string> globs);
  // Deletes the experiment's TensorBoard files (storage::TensorboardExperimentPrefix) from its
  // storage.
  void DeleteTensorboardFiles(int64_t experiment_id);
  // The cluster's id: upstream's harness, run in a task, writes an experiment's TensorBoard files under
  // CLUSTER_ID/tensorboard/experiment/ID (ours under tensorboard/experiment/ID), and both go when the
  // experiment's TensorBoard files do. Safe from any thread.
  void SetClusterId(std::string cluster_id);
  // The DELETING experiment (Store::MarkExperimentDeleting): its checkpoints and TensorBoard files are
  // deleted from storage, then the experiment with everything recorded of it; when storage keeps failing it becomes
  // DELETE_FAILED, and nothing of it is removed.
  void DeleteExperiment(int64_t experiment_id);
  // Blocks until nothing is queued or running (tests).
  void WaitIdle();

  // One pass over the experiment: deletes what the policy lets go; OK once every such checkpoint is
  // deleted and the experiment is no longer pending.
  absl::Status CollectOnce(int64_t experiment_id, const std::set<std::string>& keep);

 private:
  enum class Scope {
    kPolicy,      // what the experiment's policy lets go, except `uuids` (warm starts)
    kListed,      // `uuids`
    kExperiment,  // every checkpoint, then the experiment
    kFiles,        // the files `globs` name in each of `uuids`
    kTensorboard,  // the experiment's TensorBoard files
  };
  struct Job {
    Scope scope;
    int64_t experiment_id;
    std::set<std::string> uuids;
    std::vector<std::string> globs;
  };
  void Enqueue(Job job);
  void Run();
  absl::Status RunOnce(const Job& job);
  // Deletes `uuids` from the experiment's storage, marking each DELETED after storage confirmed.
  absl::Status DeleteFromStorage(const api::Experiment& experiment, const std::vector<std::string>& uuids);
  absl::Status DeleteTensorboardFilesFromStorage(const api::Experiment& experiment);
  absl::Status RemoveFilesFromStorage(const api::Experiment& experiment, const std::set<std::string>& uuids,
                                      const std::vector<std::string>& globs);
  // Runs `job` until it succeeds, the attempts run out, or the collector stops.
  void Collect(const Job& job);

  Store& store_;
  CheckpointGcOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  std::string cluster_id_;  // guarded by mu_
  std::thread worker_;
};

}  // namespace det::master
