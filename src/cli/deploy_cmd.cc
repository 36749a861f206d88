#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/local_agent.h"
#include "cli/local_cluster.h"
#include "cli/process_util.h"

namespace det::cli {

namespace {

std::filesystem::path DataDir(const std::string& flag) {
  return std::filesystem::absolute(flag.empty() ? DefaultLocalDataDir() : std::filesystem::path(flag));
}

void AddDataDirOption(CLI::App& app, std::string& dir) {
  app.add_option("--data-dir", dir,
                 "where the cluster keeps its database, logs, checkpoints and agents' work (default: "
                 "$DET_LOCAL_DATA_DIR, else ~/.local/share/determined-cpp/local)");
}

// cluster-up (a master and --agents agents) or master-up (the master alone; agents join with agent-up).
void AddUpCommand(CLI::App& local, CommandContext& ctx, bool with_agents) {
  CLI::App* up = with_agents ? local.add_subcommand("cluster-up", "start a master and agents on this machine")
                             : local.add_subcommand("master-up", "start a master on this machine (agents: agent-up)");
  auto up_opts = std::make_shared<ClusterUpOptions>();
  if (with_agents) {
    up->add_option("--agents", up_opts->agents, "number of agents to start")->capture_default_str();
    up->add_option("--slots", up_opts->slots, "CPU slots per agent")->capture_default_str();
    up->add_option("--agent-resource-pool", up_opts->agent_resource_pool,
                   "the resource pool the agents join (default: the master's default compute pool)");
    auto no_gpu = std::make_shared<bool>(false);  // nothing to turn off: the agents offer CPU slots only
    up->add_flag("--no-gpu", *no_gpu, "accepted as upstream's: the agents here offer CPU slots only");
  } else {
    up_opts->agents = 0;
  }
  auto up_dir = std::make_shared<std::string>();
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
  AddDataDirOption(*up, *up_dir);
  up->callback([&ctx, up_opts, up_dir, up_cert, up_key, up_config, port_opt] {
    up_opts->master_config = *up_config;
    up_opts->master_cert = *up_cert;
    up_opts->master_key = *up_key;
    if (port_opt->count() == 0 && !up_cert->empty()) up_opts->master_port = 8443;
    ctx.action = [up_opts, up_dir]() -> absl::StatusOr<int> {
      up_opts->data_dir = DataDir(*up_dir);
      absl::StatusOr<std::filesystem::path> bin = ExecutableDir();
      if (!bin.ok()) return bin.status();
      up_opts->bin_dir = *bin;
      if (const char* u = std::getenv("DET_USER"); u != nullptr && *u != '\0')
        up_opts->username = u;
      if (const char* p = std::getenv("DET_PASS"); p != nullptr) up_opts->password = p;
      return ClusterUp(*up_opts, std::cout);
    };
  });
}

// cluster-down stops the agents of agent-up too; master-down leaves them.
void AddDownCommand(CLI::App& local, CommandContext& ctx, const std::string& name, const std::string& help,
                    bool with_agents) {
  CLI::App* down = local.add_subcommand(name, help);
  auto down_dir = std::make_shared<std::string>();
  AddDataDirOption(*down, *down_dir);
  down->callback([&ctx, down_dir, with_agents] {
    ctx.action = [down_dir, with_agents]() -> absl::StatusOr<int> {
      std::filesystem::path dir = DataDir(*down_dir);
      absl::StatusOr<int> stopped = ClusterDown(dir, std::cout);
      if (!stopped.ok() || !with_agents) return stopped;
      return AgentDown(dir, "", std::cout);
    };
  });
}

}  // namespace

void AddDeployCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* deploy = det.add_subcommand("deploy", "manage deployments");
  deploy->require_subcommand(1);
  CLI::App* local =
      deploy->add_subcommand("local", "manage a local cluster (processes on this machine)");
  local->require_subcommand(1);

  AddUpCommand(*local, ctx, /*with_agents=*/true);
  AddUpCommand(*local, ctx, /*with_agents=*/false);
  AddDownCommand(*local, ctx, "cluster-down", "stop the local cluster (its master first, then its agents)",
                 /*with_agents=*/true);
  AddDownCommand(*local, ctx, "master-down", "stop the master of master-up", /*with_agents=*/false);

  CLI::App* agent_up = local->add_subcommand("agent-up", "start an agent for a master (this machine's or another's)");
  auto agent_opts = std::make_shared<AgentUpOptions>();
  auto agent_dir = std::make_shared<std::string>();
  auto agent_no_gpu = std::make_shared<bool>(false);  // nothing to turn off: CPU slots only
  agent_up->add_option("master_host", agent_opts->master_host, "the master's host (or URL)")->required();
  agent_up->add_option("--master-port", agent_opts->master_port, "the master's port")->capture_default_str();
  agent_up->add_option("--agent-name", agent_opts->name, "the agent's name (its id)")->capture_default_str();
  agent_up->add_option("--slots", agent_opts->slots, "CPU slots")->capture_default_str();
  agent_up->add_option("--agent-resource-pool", agent_opts->resource_pool,
                       "the resource pool to join (default: the master's default compute pool)");
  agent_up->add_option("--master-cert", agent_opts->master_cert, "the certificate of an https master");
  agent_up->add_flag("--no-gpu", *agent_no_gpu, "accepted as upstream's: the agents here offer CPU slots only");
  AddDataDirOption(*agent_up, *agent_dir);
  agent_up->callback([&ctx, agent_opts, agent_dir] {
    ctx.action = [agent_opts, agent_dir]() -> absl::StatusOr<int> {
      agent_opts->data_dir = DataDir(*agent_dir);
      absl::StatusOr<std::filesystem::path> bin = ExecutableDir();
      if (!bin.ok()) return bin.status();
      agent_opts->bin_dir = *bin;
      return AgentUp(*agent_opts, std::cout);
    };
  });

  CLI::App* agent_down = local->add_subcommand("agent-down", "stop agents started with agent-up");
  auto down_name = std::make_shared<std::string>();
  auto down_all = std::make_shared<bool>(false);
  auto down_agent_dir = std::make_shared<std::string>();
  CLI::Option* name_opt = agent_down->add_option("--agent-name", *down_name, "the agent to stop");
  agent_down->add_flag("--all", *down_all, "stop every agent started with agent-up")->excludes(name_opt);
  AddDataDirOption(*agent_down, *down_agent_dir);
  agent_down->callback([&ctx, down_name, down_all, down_agent_dir] {
    ctx.action = [down_name, down_all, down_agent_dir]() -> absl::StatusOr<int> {
      if (down_name->empty() && !*down_all) {
        return absl::InvalidArgumentError("name the agent to stop with --agent-name NAME, or stop them all with --all");
      }
      return AgentDown(DataDir(*down_agent_dir), *down_name, std::cout);
    };
  });
}

}  // namespace det::cli
