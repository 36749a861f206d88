#pragma once
// The Core API for C++ training programs: det::harness::CoreContext::Init() is the C++ counterpart
// of Python's `det.core.init()`.
//
//   auto core = det::harness::CoreContext::Init();
//   if (!core.ok()) { ...report core.status() and exit 1... }
//   (*core)->train().ReportTrainingMetrics(steps, {{"loss", 0.5}}, nullptr);
//   if ((*core)->preempt().ShouldPreempt()) { ...checkpoint, exit 0... }
//   (*core)->Close();
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "harness/checkpoint_context.h"
#include "harness/cluster_info.h"
#include "harness/preempt_context.h"
#include "harness/train_context.h"
#include "harness/worker_group.h"

namespace det::harness {

struct InitOptions {
  // A directory for checkpoints, overriding the experiment's checkpoint_storage (on a cluster) or
  // the default $XDG_DATA_HOME/determined, ~/.local/share/determined (off-cluster).
  std::string checkpoint_storage_path;
  // Several workers in one trial: their group (see WorkerGroupFromTorchDistributed). Init joins it.
  WorkerGroupOptions distributed;
};

// The group of a worker started by determined.launch.torch_distributed: RANK, WORLD_SIZE, DET_CHIEF_IP
// (else MASTER_ADDR) and DET_CHIEF_PORT; rank 0 of 1 when WORLD_SIZE is unset.
absl::StatusOr<WorkerGroupOptions> WorkerGroupFromTorchDistributed();

class CoreContext {
 public:
  // Reads the environment; off-cluster (no DET_MASTER etc.) it builds a local context: metrics are
  // logged, checkpoints go to a local directory, preemption never comes.
  static absl::StatusOr<std::unique_ptr<CoreContext>> Init(const InitOptions& options = {});

  ~CoreContext();  // Close()s

  // nullopt off-cluster.
  const std::optional<ClusterInfo>& info() const { return info_; }
  TrainContext& train() { return *train_; }
  CheckpointContext& checkpoint() { return *checkpoint_; }
  PreemptContext& preempt() { return *preempt_; }
  // The task's workers: gather/allgather/broadcast; rank 0 of 1 unless InitOptions.distributed says more.
  // Only the chief (rank 0) should report metrics and checkpoints.
  WorkerGroup& distributed() { return *distributed_; }

  // Sends the metrics still queued and stops the preemption watcher. Idempotent.
  absl::Status Close();

 private:
  CoreContext() = default;

  std::optional<ClusterInfo> info_;
  std::unique_ptr<WorkerGroup> distributed_;
  std::unique_ptr<TrainContext> train_;
  std::unique_ptr<CheckpointContext> checkpoint_;
  std::unique_ptr<PreemptContext> preempt_;
  bool closed_ = false;
};

// Where off-cluster checkpoints go by default: $XDG_DATA_HOME/determined or
// $HOME/.local/share/determined (upstream uses appdirs.user_data_dir("determined")).
std::string DefaultLocalCheckpointDir();

}  // namespace det::harness
