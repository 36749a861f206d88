#pragma once
// SlurmClient over Slurm's commands: sbatch (script on stdin), squeue --json, sinfo --json,
// scontrol show partition, scancel. Safe for concurrent use (each call runs its own processes).
#include <chrono>
#include <map>
#include <string>

#include "master/rm/slurm/slurm_client.h"

namespace det::master::slurm {

struct SlurmCliOptions {
  std::string bin_dir;  // where sbatch, squeue, ... are; "" = looked up on PATH
  // Added to the commands' environment, e.g. {"SLURM_CONF": "/etc/slurm/slurm.conf"}. With
  // run_as_user, sudo's env_reset may drop them; SLURM_CONF and friends must be kept by sudoers.
  std::map<std::string, std::string> env;
  std::chrono::milliseconds command_timeout = std::chrono::seconds(30);
  std::string sudo = "sudo";  // the program used for run_as_user ("sudo -n -u USER sbatch ...")
};

class SlurmCliClient : public SlurmClient {
 public:
  explicit SlurmCliClient(SlurmCliOptions options) : options_(std::move(options)) {}

  absl::StatusOr<std::string> Submit(const SubmitRequest& request) override;
  absl::StatusOr<std::vector<SlurmJob>> Jobs(const std::vector<std::string>& ids) override;
  absl::Status Signal(const std::string& id, int signal) override;
  absl::Status Cancel(const std::string& id) override;
  absl::StatusOr<std::vector<SlurmPartition>> Partitions() override;
  absl::StatusOr<std::vector<SlurmNode>> Nodes() override;

 private:
  std::string Program(const std::string& name) const;

  SlurmCliOptions options_;
};

}  // namespace det::master::slurm
