#pragma once
// `det deploy local agent-up|agent-down`: agents started on their own, for a master anywhere (a local
// one of `master-up`, or another machine's), each recorded in DATA_DIR/agents/NAME.json:
//   {"name": "agent-a", "pid": 124, "master_url": "http://10.0.0.5:8080"}
// and working in DATA_DIR/NAME. `cluster-down` stops them too.
#include <filesystem>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"

namespace det::cli {

inline constexpr char kAgentBinary[] = "determined-agent";

struct AgentUpOptions {
  std::string master_host;  // a host name or address, or a URL (http[s]://HOST[:PORT])
  int master_port = 8080;   // when master_host names no port
  std::string name = "det-agent";
  int slots = 2;
  std::string resource_pool;  // "" = the master's default compute pool
  std::filesystem::path master_cert;  // the master's certificate, for an https master
  std::filesystem::path data_dir;
  std::filesystem::path bin_dir;  // holds determined-agent
  int timeout_seconds = 30;       // to connect to the master
};

// "http://HOST:PORT" from a host (or a URL, kept with its own port) and a port.
std::string AgentMasterUrl(const std::string& host, int port);

// Starts the agent and waits until it has connected to the master (its log says so); on failure or
// timeout stops it and prints its log's tail to stderr. Refuses a name whose recorded agent still runs.
absl::StatusOr<int> AgentUp(const AgentUpOptions& options, std::ostream& out);

// Stops the recorded agent `name`, or every recorded agent when `name` is "" (SIGTERM, SIGKILL after
// 5 s), and removes their records. NotFound for an unknown name.
absl::StatusOr<int> AgentDown(const std::filesystem::path& data_dir, const std::string& name, std::ostream& out);

}  // namespace det::cli
