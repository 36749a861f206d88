#pragma once
// `det deploy local cluster-up|cluster-down`: a master and N agents as local background processes,
// started from the directory `det` lives in, recorded in DATA_DIR/cluster.json:
//   {"master_url": "http://127.0.0.1:8080", "master_pid": 123, "agent_pids": [124]}
// (https://127.0.0.1:PORT when started with a TLS certificate), with "postgres_dir" and
// "master_db_flags" when the master runs on a PostgreSQL of the cluster's own (`--db postgres`).
#include <sys/types.h>

#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::cli {

struct ClusterRecord {
  std::string master_url;
  pid_t master_pid = 0;
  std::vector<pid_t> agent_pids;
  std::string postgres_dir;                  // the cluster's own PostgreSQL, stopped with it
  std::vector<std::string> master_db_flags;  // what the master was told of its database
};

nlohmann::json ClusterRecordToJson(const ClusterRecord& record);
absl::StatusOr<ClusterRecord> ClusterRecordFromJson(const nlohmann::json& doc);
// nullopt when DATA_DIR/cluster.json does not exist.
absl::StatusOr<std::optional<ClusterRecord>> ReadClusterRecord(
    const std::filesystem::path& data_dir);

// $DET_LOCAL_DATA_DIR, else ~/.local/share/determined-cpp/local.
std::filesystem::path DefaultLocalDataDir();

struct ClusterUpOptions {
  int agents = 1;
  int slots = 2;
  int master_port = 8080;  // 0: any free port
  // Both or neither: the master serves HTTPS/WSS with this PEM certificate and key; the agents and
  // det verify it against the certificate (so it must name 127.0.0.1, where the master listens).
  std::filesystem::path master_cert;
  std::filesystem::path master_key;
  // The master's config file (upstream's --master-config-path); cluster-up's own flags win over it.
  std::filesystem::path master_config;
  // The master's database: "" (the embedded SQLite file in the data dir), "postgres" (a PostgreSQL
  // server of the cluster's own in DATA_DIR/postgres, from Debian's postgresql package, started and
  // stopped with the cluster), or postgres://USER[:PASSWORD]@HOST[:PORT]/NAME[?sslmode=MODE].
  std::string db;
  std::filesystem::path data_dir;
  std::filesystem::path bin_dir;  // holds determined-master and determined-agent
  std::string cluster_name;         // the master's cluster_name; "" = its default
  std::string agent_resource_pool;  // the pool the agents join; "" = the master's default compute pool
  int timeout_seconds = 60;
  std::string username = "admin";  // used to list agents while waiting
  std::string password;
};

// The master's flags for `--db postgres://...`; InvalidArgument naming what is missing.
absl::StatusOr<std::vector<std::string>> PostgresUrlFlags(const std::string& url);

// Starts the cluster and waits until the master lists all agents. Refuses if a cluster recorded in
// the data dir still runs. On failure or timeout stops what it started and prints the logs' tails
// to stderr.
absl::StatusOr<int> ClusterUp(const ClusterUpOptions& options, std::ostream& out);

// SIGTERMs the recorded agents, then the master; SIGKILLs what is left after 10 s; removes the
// record. Pids whose command line is not a determined binary any more are left alone.
absl::StatusOr<int> ClusterDown(const std::filesystem::path& data_dir, std::ostream& out);

}  // namespace det::cli
