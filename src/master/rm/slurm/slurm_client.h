#pragma once
// The part of Slurm the Slurm resource manager uses: submit a batch job, read the jobs' states, signal
// and cancel a job, and read the partitions and nodes. One implementation runs Slurm's commands
// (slurm_cli_client.h: sbatch, squeue --json, sinfo --json, scontrol, scancel); a slurmrestd one can
// follow behind the same interface.
//
// Errors: a refusal by Slurm (sbatch's "unrecognized option", "Requested node configuration is not
// available", "invalid partition specified") is InvalidArgument carrying Slurm's own text; an unknown job
// id is NotFound; Slurm not answering (slurmctld down, a command past its time limit) is Unavailable or
// DeadlineExceeded; output that cannot be read is Internal and names what was wrong.
//
// Threads: every call blocks (it runs a command); the resource manager calls them on its worker
// threads, never on the cluster's loop. One SlurmClient may be used from several threads at once.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det::master::slurm {

struct SubmitRequest {
  std::string partition;  // -p; "" = the cluster's default partition
  std::string job_name;   // -J
  std::string wckey;      // --wckey; "" = none
  // The tasks: `ntasks` (--ntasks, placed by Slurm, several on a node where they fit) when > 0, else
  // `nodes` x `ntasks_per_node` (-N, --ntasks-per-node).
  int ntasks = 0;
  int nodes = 1;          // -N
  int ntasks_per_node = 1;
  int gpus_per_node = 0;  // --gpus-per-node=N (TRES), or --gres=gpu[:type]:N when `gres`
  int gpus_per_task = 0;  // --gpus-per-task=N (TRES, with ntasks)
  bool gres = false;
  std::string gpu_type;  // "" = any type
  int cpus_per_task = 0;  // --cpus-per-task; 0 = Slurm's default
  std::string output_path;  // -o (sbatch's patterns, e.g. %j, allowed); "" = Slurm's default
  // The experiment's slurm.sbatch_args, one argv word each, after Determined's options. Checked with
  // CheckUserSbatchArgs (sbatch_args.h) before anything runs.
  std::vector<std::string> user_sbatch_args;
  std::string script;  // the batch script (starting "#!"), sent on sbatch's stdin
  // --export=ALL,K=V,... (the submitting environment plus these). Values must not contain ','.
  std::map<std::string, std::string> env;
  std::string run_as_user;  // "" = the master's own user; else through `sudo -n -u USER`
};

struct SlurmJob {
  std::string id;    // "1234"
  std::string name;  // -J
  // Slurm's job state: PENDING RUNNING SUSPENDED COMPLETING COMPLETED CANCELLED FAILED TIMEOUT
  // NODE_FAIL PREEMPTED BOOT_FAIL DEADLINE OUT_OF_MEMORY ...
  std::string state;
  std::string reason;  // state_reason ("Resources", "Priority", "NonZeroExitCode"); "" for "None"
  std::string partition;
  std::vector<std::string> nodes;  // expanded host names; empty while pending
  // The batch script's exit status once it ended (128+N when killed by signal N); unset before.
  std::optional<int> exit_code;
};

struct SlurmNode {
  std::string name;
  std::string state;  // sinfo's: "idle", "allocated", "mixed", "down", "drained", ...
  int cpus = 0;
  int gpus = 0;           // the GPUs among its GRES ("gpu:a100:2" -> 2)
  std::string gpu_type;   // "a100"; "" when untyped or none
  std::vector<std::string> partitions;
};

struct SlurmPartition {
  std::string name;
  std::vector<std::string> nodes;  // expanded host names
  int total_cpus = 0;
  int total_gpus = 0;  // the sum over its nodes
  bool is_default = false;
  std::string state;  // "UP", "DOWN", "DRAIN", "INACTIVE"
};

class SlurmClient {
 public:
  virtual ~SlurmClient() = default;

  // Submits a batch job; its id. Determined's options and the user's sbatch_args (refused with
  // "slurm option -G is not configurable" when they touch what Determined controls) come from
  // SbatchArgs; sbatch's own refusal is InvalidArgument with sbatch's text.
  virtual absl::StatusOr<std::string> Submit(const SubmitRequest& request) = 0;
  // The jobs with these ids that Slurm still knows (a finished job is forgotten MinJobAge, default 300 s,
  // after it ended; a missing id is simply absent); empty `ids` = every job Slurm knows.
  virtual absl::StatusOr<std::vector<SlurmJob>> Jobs(const std::vector<std::string>& ids) = 0;
  // Sends `signal` to every process of the job, the batch shell included (scancel --signal --full),
  // leaving the job to end by itself. A job with no processes yet (PENDING) is OK: nothing to signal.
  virtual absl::Status Signal(const std::string& id, int signal) = 0;
  // Ends the job (scancel: SIGTERM, then SIGKILL after Slurm's KillWait); a pending job is dequeued.
  // A job that already ended is OK.
  virtual absl::Status Cancel(const std::string& id) = 0;
  virtual absl::StatusOr<std::vector<SlurmPartition>> Partitions() = 0;
  virtual absl::StatusOr<std::vector<SlurmNode>> Nodes() = 0;
};

}  // namespace det::master::slurm
