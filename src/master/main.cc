// determined-master: REST API, cluster actor, scheduler and database of the platform.
#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/file_util.h"
#include "common/logging.h"
#include "common/random_id.h"
#include "master/auth/token_authenticator.h"
#include "master/cluster/cluster.h"
#include "master/db/sqlite_store.h"
#include "master/handlers/routes.h"
#include "master/http/server.h"
#include "master/master_flags.h"

namespace {

constexpr char kVersion[] = "0.38.1";
constexpr size_t kMaxBodyBytes = 200u << 20;  // base64 of a 95 MiB context plus JSON

int Run(const det::master::MasterFlags& flags) {
  namespace fs = std::filesystem;
  using namespace det::master;
  fs::path data_dir = fs::absolute(flags.data_dir);
  if (absl::Status st = det::MakeDirs(data_dir); !st.ok()) {
    spdlog::error("{}", st.ToString());
    return 1;
  }
  auto store = SqliteStore::Open((data_dir / "determined.db").string());
  if (!store.ok()) {
    spdlog::error("{}", store.status().ToString());
    return 1;
  }
  std::string cluster_id;
  fs::path cluster_id_file = data_dir / "cluster_id";
  if (auto existing = det::ReadFile(cluster_id_file); existing.ok()) {
    cluster_id = *existing;
  } else {
    cluster_id = det::NewUuid();
    (void)det::WriteFile(cluster_id_file, cluster_id);
  }
  fs::path checkpoints = data_dir / "checkpoints";
  (void)det::MakeDirs(checkpoints);

  boost::asio::io_context io;
  auto cluster_loop = MakeStrandLoop(io);
  auto stream_loop = MakeStrandLoop(io);
  Cluster cluster(**store, *cluster_loop, {.cluster_id = cluster_id, .master_id = det::NewUuid()});
  if (absl::Status st = cluster.Recover(); !st.ok()) {
    spdlog::error("recovering the cluster state: {}", st.ToString());
    return 1;
  }
  MasterContext ctx{.store = **store,
                    .cluster = cluster,
                    .stream_loop = *stream_loop,
                    .info = {.version = kVersion, .master_id = det::NewUuid(), .cluster_id = cluster_id,
                             .cluster_name = flags.cluster_name},
                    .default_checkpoint_storage_json =
                        nlohmann::json{{"type", "shared_fs"}, {"host_path", checkpoints.string()}}.dump()};
  TokenAuthenticator authenticator(**store);
  Router router(authenticator);
  HttpServer server(io, router, kMaxBodyBytes);
  RegisterAllRoutes(router, server, ctx);
  absl::StatusOr<int> port = server.Listen(flags.host, flags.port);
  if (!port.ok()) {
    spdlog::error("{}", port.status().ToString());
    return 1;
  }
  spdlog::info("determined-master {} listening on http://{}:{} (data in {})", kVersion, flags.host, *port,
               data_dir.string());
  if (!flags.port_file.empty()) {
    if (absl::Status st = det::WriteFile(flags.port_file, std::to_string(*port)); !st.ok()) {
      spdlog::error("{}", st.ToString());
      return 1;
    }
  }
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int sig) {
    spdlog::info("signal {}: shutting down", sig);
    io.stop();
  });
  unsigned threads = std::max(2u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back([&io] { io.run(); });
  io.run();
  for (auto& t : pool) t.join();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto flags = det::master::ParseMasterFlags(args);
  if (!flags.ok()) {
    std::cerr << "determined-master: " << flags.status().message() << "\n";
    return 2;
  }
  if (flags->help) {
    std::cout << det::master::MasterUsage();
    return 0;
  }
  det::InitLogging("master", flags->log_level);
  return Run(*flags);
}
