// determined-master: REST API, cluster actor, scheduler and database of the platform.
#include <spdlog/spdlog.h>

#include <sys/resource.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/crypto.h"
#include "common/file_util.h"
#include "common/json_yaml.h"
#include "common/logging.h"
#include "common/random_id.h"
#include "master/auth/token_authenticator.h"
#include "config/master_config.h"
#include "config/settings_overlay.h"
#include "master/checkpoint_gc.h"
#include "master/log_retention.h"
#include "common/version.h"
#include "master/cluster/cluster.h"
#include "master/db/db_copy.h"
#include "master/db/open_store.h"
#include "master/handlers/routes.h"
#include "master/http/server.h"
#include "master/observability/master_metrics.h"
#include "master/proxy/proxy_resolver.h"
#include "master/proxy/service_registry.h"
#include "master/rbac/rbac_authz.h"
#include "master/rm/kubernetes/kubernetes_config.h"
#include "master/rm/slurm/slurm_setup.h"
#include "scheduler/schedule.h"
#include "master/master_flags.h"
#include "master/master_log.h"

namespace {

// task_container_defaults.shm_size_bytes in a task_container_defaults JSON; 0 when it has none.
constexpr size_t kMaxBodyBytes = 200u << 20;  // base64 of a 95 MiB context plus JSON

constexpr char kDefaultConfigFile[] = "/etc/determined/master.yaml";


// Upstream's rule: security.initial_user_password is the password of admin and determined when
// they are first created, i.e. when the database is new. Later changes to it have no effect.
absl::Status ApplyInitialUserPassword(det::master::SqlStore& store, const std::string& password) {
  if (password.empty()) return absl::OkStatus();
  if (!store.created()) {
    spdlog::info("security.initial_user_password is ignored: the users already exist");
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> hash = det::BcryptHash(det::ClientSidePasswordHash(password));
  if (!hash.ok()) return hash.status();
  for (const char* name : {"admin", "determined"}) {
    absl::StatusOr<det::api::User> user = store.GetUserByName(name);
    if (!user.ok()) return user.status();
    if (absl::Status st = store.SetUserPasswordHash(user->id, *hash); !st.ok()) return st;
  }
  spdlog::info("set the initial password of users admin and determined");
  return absl::OkStatus();
}

// Every client connection is a descriptor: lift the soft limit to the hard one (Go does the same
// for upstream's master), so a thousand concurrent clients do not meet the usual 1024.
void RaiseOpenFileLimit() {
  struct rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  rlim_t before = limit.rlim_cur;
  limit.rlim_cur = limit.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    spdlog::warn("cannot raise the open file limit from {}: {}", before, std::strerror(errno));
  }
}

// With print_routes, the master sets itself up as usual, prints "METHOD /pattern" of every route it
// would serve and exits instead of listening (the contract tests' list of endpoints).
int Run(const det::config::MasterConfig& config, const std::string& port_file,
        std::shared_ptr<det::master::MasterLog> master_log, bool print_routes) {
  namespace fs = std::filesystem;
  using namespace det::master;
  fs::path data_dir = config.data_dir;
  if (absl::Status st = det::MakeDirs(data_dir); !st.ok()) {
    spdlog::error("{}", st.ToString());
    return 1;
  }
  auto store = OpenStore(config.db);
  if (!store.ok()) {
    spdlog::error("database {}: {}", DescribeStore(config.db), store.status().ToString());
    return 1;
  }
  if (absl::Status st = (*store)->database().ClaimForMaster(); !st.ok()) {
    spdlog::error("database {}: {}", DescribeStore(config.db), std::string(st.message()));
    return 1;
  }
  spdlog::info("database: {}", DescribeStore(config.db));
  if (absl::Status st = ApplyInitialUserPassword(**store, config.security.initial_user_password);
      !st.ok()) {
    spdlog::error("security.initial_user_password: {}", st.ToString());
    return 1;
  }
  if (config.security.authz.type == "rbac") {
    if (absl::Status st = det::master::rbac::SeedRbacOnce(**store, **store); !st.ok()) {
      spdlog::error("security.authz: seeding the first role assignments: {}", st.ToString());
      return 1;
    }
    InstallAuthz(std::make_shared<det::master::rbac::RbacAuthz>(**store));
    spdlog::info("security.authz: rbac");
  }
  std::string cluster_id;
  fs::path cluster_id_file = data_dir / "cluster_id";
  if (auto existing = det::ReadFile(cluster_id_file); existing.ok()) {
    cluster_id = *existing;
  } else {
    cluster_id = det::NewUuid();
    (void)det::WriteFile(cluster_id_file, cluster_id);
  }
  // The default storage is created eagerly so that the first trial can write into it.
  if (auto storage = det::ParseJson(config.checkpoint_storage_json);
      storage.ok() && storage->value("type", "") == "shared_fs" && storage->contains("host_path") &&
      (*storage)["host_path"].is_string()) {
    (void)det::MakeDirs((*storage)["host_path"].get<std::string>());
  }

  boost::asio::io_context io;
  auto cluster_loop = MakeStrandLoop(io);
  auto stream_loop = MakeStrandLoop(io);
  ClusterOptions cluster_options{.default_compute_pool = config.resource_manager.default_compute_resource_pool,
                                 .default_aux_pool = config.resource_manager.default_aux_resource_pool,
                                 .cluster_id = cluster_id,
                                 .master_id = det::NewUuid(),
                                 .launch_error = config.launch_error};
  for (const det::config::ResourcePoolConfig& pool : config.resource_pools) {
    cluster_options.pools.push_back({.name = pool.pool_name,
                                     .description = pool.description,
                                     .scheduler = det::scheduler::FromMasterConfig(pool.scheduler),
                                     .max_aux_containers_per_agent = pool.max_aux_containers_per_agent,
                                     .agent_reconnect_wait = pool.agent_reconnect_wait,
                                     .container_defaults = ContainerDefaultsOf(pool.task_container_defaults_json.empty()
                                                                                   ? config.task_container_defaults_json
                                                                                   : pool.task_container_defaults_json)});
  }
  CheckpointGc checkpoint_gc(**store);
  cluster_options.checkpoint_gc = &checkpoint_gc;
  absl::StatusOr<std::unique_ptr<LogRetention>> log_retention = LogRetention::Start(**store, config.retention_policy);
  if (!log_retention.ok()) {
    spdlog::error("{}", log_retention.status().ToString());
    return 1;
  }
  ServiceRegistry services;
  cluster_options.services = &services;
  cluster_options.notebook_timeout = std::chrono::seconds(config.notebook_timeout);
  cluster_options.tensorboard_timeout = std::chrono::seconds(config.tensorboard_timeout);
  cluster_options.default_task_user = config.security.default_task;
  // The pods' output is written as their lines arrive; the cluster watches it for log policies.
  Cluster* cluster_for_logs = nullptr;
  auto write_pod_logs = [&store = **store, &cluster_for_logs](std::vector<det::api::TaskLog> logs) {
    if (absl::Status st = store.AddTaskLogs(logs); !st.ok()) {
      spdlog::warn("writing task logs from a pod: {}", st.ToString());
      return;
    }
    if (cluster_for_logs != nullptr) cluster_for_logs->ObserveTaskLogs(std::move(logs));
  };
  // Kubernetes managers: the main one (resource_manager.type kubernetes) and additional_resource_managers.
  auto kubernetes_manager = [&](const det::config::ResourceManagerConfig& manager,
                                const std::vector<det::config::ResourcePoolConfig>& pools)
      -> absl::StatusOr<ResourceManagerFactory> {
    absl::StatusOr<KubernetesSetup> setup = KubernetesSetupFromConfig(config, manager, pools, write_pod_logs, **store);
    if (!setup.ok()) return setup.status();
    spdlog::info("resource manager {}: kubernetes (namespace {}, pods reach the master at {})", manager.cluster_name,
                 setup->options.namespace_name, setup->options.master_url);
    return [setup = std::move(*setup)](EventLoop& loop, AllocationEvents& events) mutable -> std::unique_ptr<ResourceManager> {
      return std::make_unique<KubernetesResourceManager>(loop, events, setup.api, std::move(setup.options));
    };
  };
  if (config.resource_manager.kubernetes) {
    absl::StatusOr<ResourceManagerFactory> made = kubernetes_manager(config.resource_manager, config.resource_pools);
    if (!made.ok()) {
      spdlog::error("{}", made.status().ToString());
      return 1;
    }
    cluster_options.main_resource_manager = std::move(*made);
  }
  if (config.resource_manager.slurm) {
    std::error_code ec;
    const std::string bin_dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path().string();
    absl::StatusOr<SlurmSetup> setup = SlurmSetupFromConfig(config, bin_dir);
    if (!setup.ok()) {
      spdlog::error("{}", setup.status().ToString());
      return 1;
    }
    spdlog::info("resource manager {}: slurm ({} partition(s), jobs reach the master at {}, job_storage_root {})",
                 config.resource_manager.cluster_name, setup->options.partitions.size(), setup->options.master_url,
                 setup->options.job_storage_root);
    cluster_options.default_compute_pool = setup->default_compute_pool;
    cluster_options.default_aux_pool = setup->default_aux_pool;
    cluster_options.main_resource_manager = [setup = std::move(*setup)](EventLoop& loop, AllocationEvents& events) mutable
        -> std::unique_ptr<ResourceManager> {
      return std::make_unique<SlurmResourceManager>(loop, events, setup.client, std::move(setup.options));
    };
  }
  for (const det::config::AdditionalResourceManagerConfig& more : config.additional_resource_managers) {
    absl::StatusOr<ResourceManagerFactory> made = kubernetes_manager(more.resource_manager, more.resource_pools);
    if (!made.ok()) {
      spdlog::error("{}", made.status().ToString());
      return 1;
    }
    cluster_options.additional_resource_managers.push_back(std::move(*made));
  }
  Cluster cluster(**store, *cluster_loop, std::move(cluster_options));
  cluster_for_logs = &cluster;
  if (absl::Status st = cluster.Recover(); !st.ok()) {
    spdlog::error("recovering the cluster state: {}", st.ToString());
    return 1;
  }
  MetricsWriter metrics_writer(**store);
  TrialFactsCache trial_facts(**store);
  MasterContext ctx{.store = **store,
                    .cluster = cluster,
                    .metrics_writer = metrics_writer,
                    .trial_facts = trial_facts,
                    .stream_loop = *stream_loop,
                    .info = {.version = det::kVersion, .master_id = det::NewUuid(), .cluster_id = cluster_id,
                             .cluster_name = config.cluster_name},
                    .default_checkpoint_storage_json = config.checkpoint_storage_json,
                    .config = config,
                    .master_log = std::move(master_log)};
  TokenAuthenticator authenticator(**store);
  // observability.enable_prometheus: the Prometheus endpoints, and request counts from the router.
  std::unique_ptr<MasterMetrics> prometheus_metrics;
  if (config.observability.enable_prometheus)
    prometheus_metrics = std::make_unique<MasterMetrics>();
  Router router(authenticator);
  if (prometheus_metrics) router.SetObserver(prometheus_metrics.get());
  HttpServer server(io, router, kMaxBodyBytes);
  RegisterAllRoutes(router, server, ctx);
  if (prometheus_metrics) RegisterPrometheusRoutes(router, ctx, *prometheus_metrics);
  if (print_routes) {
    for (const std::string& pattern : router.Patterns()) std::cout << pattern << "\n";
    return 0;
  }
  server.AddRelay(kProxyPrefix, MakeProxyResolver(services, authenticator, DefaultAuthz()));
  if (config.security.tls_enabled()) {
    if (absl::Status st = server.EnableTls(config.security.tls_cert, config.security.tls_key);
        !st.ok()) {
      spdlog::error("{}", std::string(st.message()));
      return 2;
    }
  }
  absl::StatusOr<int> port = server.Listen(config.host, config.port);
  if (!port.ok()) {
    spdlog::error("{}", port.status().ToString());
    return 1;
  }
  spdlog::info("determined-master {} listening on {}://{}:{} (data in {}, config file {})", det::kVersion,
               server.tls_enabled() ? "https" : "http", config.host, *port, data_dir.string(),
               config.config_file.empty() ? "none" : config.config_file);
  for (const auto& pool : config.resource_pools) {
    spdlog::info("resource pool {}: scheduler {} (fitting {})", pool.pool_name, pool.scheduler.type,
                 pool.scheduler.fitting_policy);
  }
  if (!port_file.empty()) {
    if (absl::Status st = det::WriteFile(port_file, std::to_string(*port)); !st.ok()) {
      spdlog::error("{}", st.ToString());
      return 1;
    }
  }
  // The first SIGTERM or SIGINT stops the master gracefully: its running trials checkpoint and exit
  // (Cluster::Shutdown) within kShutdownGrace; a second one stops it at once.
  constexpr std::chrono::seconds kShutdownGrace(30);
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  bool cluster_stopping = false;  // only touched by the signal handler, one at a time
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& ec, int sig) {
        if (ec) return;
        if (cluster_stopping) {
          spdlog::info("signal {}: stopping now", sig);
          return io.stop();
        }
        cluster_stopping = true;
        spdlog::info("signal {}: shutting down; running trials checkpoint and exit first", sig);
        cluster.Shutdown(kShutdownGrace, [&io] { io.stop(); });
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);
  unsigned threads = std::max(2u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back([&io] { io.run(); });
  io.run();
  for (auto& t : pool) t.join();
  return 0;
}

constexpr char kDbUsage[] =
    "usage: determined-master db copy --from DATABASE --to DATABASE\n"
    "  Copies every table and row of a cluster's database into an empty one, ids kept (e.g. from the\n"
    "  embedded SQLite file to PostgreSQL). Neither may be in use by a running master.\n"
    "  DATABASE: sqlite:PATH, or postgres://USER[:PASSWORD]@HOST[:PORT]/NAME[?sslmode=...]\n";

// `determined-master db copy --from A --to B`.
int RunDbCommand(const std::vector<std::string>& args) {
  std::string from, to;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      std::cout << kDbUsage;
      return 0;
    }
    if ((args[i] == "--from" || args[i] == "--to") && i + 1 < args.size()) {
      (args[i] == "--from" ? from : to) = args[i + 1];
      ++i;
      continue;
    }
    std::cerr << "determined-master db: unexpected argument '" << args[i] << "'\n" << kDbUsage;
    return 2;
  }
  if (args.empty() || args[0] != "copy" || from.empty() || to.empty()) {
    std::cerr << kDbUsage;
    return 2;
  }
  auto source = det::master::OpenDatabaseUrl(from);
  if (!source.ok()) {
    std::cerr << "determined-master db copy: --from " << from << ": " << source.status().message() << "\n";
    return 1;
  }
  auto destination = det::master::OpenDatabaseUrl(to);
  if (!destination.ok()) {
    std::cerr << "determined-master db copy: --to " << to << ": " << destination.status().message() << "\n";
    return 1;
  }
  std::string table;
  absl::Status st = det::master::CopyDatabase(**source, **destination, [&](const det::master::CopyProgress& p) {
    if (p.table != table || p.rows == p.total || p.rows % 100000 == 0) {
      std::cerr << "copying " << p.table << ": " << p.rows << " of " << p.total << " rows\n";
    }
    table = p.table;
  });
  if (!st.ok()) {
    std::cerr << "determined-master db copy: " << st.message() << " (the destination is unchanged)\n";
    return 1;
  }
  std::cout << "copied " << (*source)->Describe() << " to " << (*destination)->Describe() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "db") return RunDbCommand({args.begin() + 1, args.end()});
  // Not a setting of the master's config: a question about this binary (tests/e2e/test_upstream_contract.py).
  const bool print_routes = std::erase(args, "--print-routes") > 0;
  auto flags = det::master::ParseMasterFlags(args);
  if (!flags.ok()) {
    std::cerr << "determined-master: " << flags.status().message() << "\n";
    return 2;
  }
  if (flags->help) {
    std::cout << det::master::MasterUsage();
    return 0;
  }
  auto startup = det::master::LoadMasterStartup(*flags, det::config::DetEnvironment(), kDefaultConfigFile);
  if (!startup.ok()) {
    std::cerr << "determined-master: " << startup.status().message() << "\n";
    return 2;
  }
  const det::config::MasterConfig& config = startup->config;
  det::InitLogging("master", config.log.level);
  // Every line from here on is also kept for GET /api/v1/master/logs.
  auto master_log = std::make_shared<det::master::MasterLog>();
  spdlog::default_logger()->sinks().push_back(std::make_shared<det::master::MasterLogSink>(master_log));
  for (const std::string& warning : config.warnings) spdlog::warn("config: {}", warning);
  RaiseOpenFileLimit();
  return Run(config, startup->port_file, std::move(master_log), print_routes);
}
