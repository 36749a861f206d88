#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/local_cluster.h"
#include "cli/process_util.h"

namespace det::cli {

void AddDeployCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* deploy = det.add_subcommand("deploy", "manage deployments");
  deploy->require_subcommand(1);
  CLI::App* local =
      deploy->add_subcommand("local", "manage a local cluster (processes on this machine)");
  local->require_subcommand(1);

  CLI::App* up = local->add_subcommand("cluster-up", "start a master and agents on this machine");
  auto up_opts = std::make_shared<ClusterUpOptions>();
  auto up_dir = std::make_shared<std::string>();
  up->add_option("--agents", up_opts->agents, "number of agents to start")->capture_default_str();
  up->add_option("--slots", up_opts->slots, "CPU slots per agent")->capture_default_str();
  CLI::Option* port_opt =
      up->add_option("--master-port", up_opts->master_port,
                     "port for the master (0: any free port; default 8080, 8443 with TLS)");
  auto up_cert = std::make_shared<std::string>();
  auto up_key = std::make_shared<std::string>();
  up->add_option("--master-cert", *up_cert,
                 "serve HTTPS with this PEM certificate (it must name 127.0.0.1); needs "
                 "--master-key");
  up->add_option("--master-key", *up_key, "the PEM private key of --master-cert");
  auto up_config = std::make_shared<std::string>();
  up->add_option("--master-config-path", *up_config,
                 "the master's config file (resource pools, scheduler, ...); the flags above win over it");
  up->add_option("--db", up_opts->db,
                 "the master's database: postgres (a PostgreSQL server of the cluster's own, in "
                 "DATA_DIR/postgres) or postgres://USER[:PASSWORD]@HOST[:PORT]/NAME (default: the "
                 "embedded SQLite file in DATA_DIR)");
  up->add_option("--cluster-name", up_opts->cluster_name, "the cluster's name (the master's cluster_name)");
  up->add_option("--agent-resource-pool", up_opts->agent_resource_pool,
                 "the resource pool the agents join (default: the master's default compute pool)");
  auto up_no_gpu = std::make_shared<bool>(false);  // nothing to turn off: the agents offer CPU slots only
  up->add_flag("--no-gpu", *up_no_gpu, "accepted as upstream's: the agents here offer CPU slots only");
  up->add_option("--data-dir", *up_dir,
                 "where the master keeps its database, logs and checkpoints (default: "
                 "$DET_LOCAL_DATA_DIR, else ~/.local/share/determined-cpp/local)");
  up->callback([&ctx, up_opts, up_dir, up_cert, up_key, up_config, port_opt] {
    up_opts->master_config = *up_config;
    up_opts->master_cert = *up_cert;
    up_opts->master_key = *up_key;
    if (port_opt->count() == 0 && !up_cert->empty()) up_opts->master_port = 8443;
    ctx.action = [up_opts, up_dir]() -> absl::StatusOr<int> {
      up_opts->data_dir = up_dir->empty() ? DefaultLocalDataDir() : std::filesystem::path(*up_dir);
      up_opts->data_dir = std::filesystem::absolute(up_opts->data_dir);
      absl::StatusOr<std::filesystem::path> bin = ExecutableDir();
      if (!bin.ok()) return bin.status();
      up_opts->bin_dir = *bin;
      if (const char* u = std::getenv("DET_USER"); u != nullptr && *u != '\0')
        up_opts->username = u;
      if (const char* p = std::getenv("DET_PASS"); p != nullptr) up_opts->password = p;
      return ClusterUp(*up_opts, std::cout);
    };
  });

  CLI::App* down = local->add_subcommand("cluster-down", "stop the local cluster");
  auto down_dir = std::make_shared<std::string>();
  down->add_option("--data-dir", *down_dir,
                   "the cluster's data directory (default: $DET_LOCAL_DATA_DIR, else "
                   "~/.local/share/determined-cpp/local)");
  down->callback([&ctx, down_dir] {
    ctx.action = [down_dir] {
      std::filesystem::path dir =
          down_dir->empty() ? DefaultLocalDataDir() : std::filesystem::path(*down_dir);
      return ClusterDown(std::filesystem::absolute(dir), std::cout);
    };
  });
}

}  // namespace det::cli
