#include "master/rm/slurm/slurm_setup.h"

#include <unistd.h>

#include <tuple>

#include "absl/strings/str_cat.h"
#include "master/rm/slurm/slurm_cli_client.h"

namespace det::master {

std::string MasterUrlForSlurmJobs(const config::MasterConfig& config, const config::SlurmConfig& slurm) {
  std::string host = slurm.master_host;
  if (host.empty()) {
    char name[256] = {};
    host = ::gethostname(name, sizeof(name) - 1) == 0 ? name : "localhost";
  }
  return absl::StrCat(config.security.tls_enabled() ? "https" : "http", "://", host, ":",
                      slurm.master_port != 0 ? slurm.master_port : config.port);
}

absl::StatusOr<SlurmSetup> SlurmSetupFromConfig(const config::MasterConfig& config, const std::string& bin_dir) {
  const config::ResourceManagerConfig& manager = config.resource_manager;
  const config::SlurmConfig& s = *manager.slurm;
  SlurmSetup setup;
  setup.client = std::make_shared<slurm::SlurmCliClient>(slurm::SlurmCliOptions{});
  absl::StatusOr<std::vector<slurm::SlurmPartition>> partitions = setup.client->Partitions();
  absl::StatusOr<std::vector<slurm::SlurmNode>> nodes = setup.client->Nodes();
  if (!partitions.ok() || !nodes.ok()) {
    const absl::Status& why = !partitions.ok() ? partitions.status() : nodes.status();
    return absl::Status(why.code(), absl::StrCat("resource manager ", manager.cluster_name,
                                                 ": cannot read Slurm's partitions (is this host a Slurm client, "
                                                 "with SLURM_CONF or /etc/slurm/slurm.conf?): ",
                                                 why.message()));
  }
  if (partitions->empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("resource manager ", manager.cluster_name, ": Slurm has no partitions to use as resource pools"));
  }
  SlurmOptions& o = setup.options;
  o.cluster_name = manager.cluster_name;
  o.partitions = std::move(*partitions);
  o.nodes = std::move(*nodes);
  o.slot_type = s.slot_type;
  o.tres_supported = s.tres_supported;
  o.gres_supported = s.gres_supported;
  o.job_storage_root = !s.job_storage_root.empty() ? s.job_storage_root : absl::StrCat(config.data_dir, "/slurm-jobs");
  o.master_url = MasterUrlForSlurmJobs(config, s);
  o.runner = absl::StrCat(bin_dir, "/determined-pod-runner");
  o.path = s.path;
  o.ld_library_path = s.ld_library_path;
  o.sudo_authorized = s.sudo_authorized;
  o.user_name = s.user_name;
  o.rendezvous_network_interface = s.rendezvous_network_interface;
  o.job_project_source = s.job_project_source;
  for (const auto& [name, override] : s.partition_overrides) {
    o.partition_slot_types[name] = override.slot_type;
    if (!override.description.empty()) o.partition_descriptions[name] = override.description;
    o.partition_rendezvous_interfaces[name] = override.rendezvous_network_interface;
  }
  std::string slurm_default = o.partitions.front().name;
  for (const slurm::SlurmPartition& p : o.partitions) {
    if (p.is_default) slurm_default = p.name;
  }
  // "default" (also what an unset key reads as) is Slurm's default partition unless one is named so.
  for (auto [key, configured, resolved] :
       {std::tuple{"default_compute_resource_pool", manager.default_compute_resource_pool, &setup.default_compute_pool},
        std::tuple{"default_aux_resource_pool", manager.default_aux_resource_pool, &setup.default_aux_pool}}) {
    bool found = false;
    for (const slurm::SlurmPartition& p : o.partitions) found = found || p.name == configured;
    if (!found && configured != "default") {
      std::string names;
      for (const slurm::SlurmPartition& p : o.partitions) absl::StrAppend(&names, names.empty() ? "" : ", ", p.name);
      return absl::InvalidArgumentError(absl::StrCat("resource_manager.", key, ": Slurm has no partition \"",
                                                     configured, "\"; its partitions are: ", names));
    }
    *resolved = found ? configured : slurm_default;
  }
  return setup;
}

}  // namespace det::master
