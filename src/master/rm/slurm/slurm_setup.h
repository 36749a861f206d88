#pragma once
// The Slurm resource manager that a master config of resource_manager.type slurm asks for: the client
// (Slurm's commands), the partitions it starts with (asked of Slurm now: a Slurm that does not answer
// stops the master with Slurm's own message), and the manager's options.
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "config/master_config.h"
#include "master/rm/slurm/slurm_client.h"
#include "master/rm/slurm/slurm_resource_manager.h"

namespace det::master {

struct SlurmSetup {
  std::shared_ptr<slurm::SlurmClient> client;
  SlurmOptions options;
  // The pools that "default" stands for when the config names no existing partition: Slurm's default
  // partition.
  std::string default_compute_pool;
  std::string default_aux_pool;
};

// `bin_dir` is where this master's programs are (determined-pod-runner, which the nodes run from the same
// path: the install must be on a shared file system, or at that path on every node).
absl::StatusOr<SlurmSetup> SlurmSetupFromConfig(const config::MasterConfig& config, const std::string& bin_dir);

// How jobs reach the master: master_host (default: this host's name) and master_port (default: the
// master's port), with the master's scheme.
std::string MasterUrlForSlurmJobs(const config::MasterConfig& config, const config::SlurmConfig& slurm);

}  // namespace det::master
