#pragma once
// The agent's configuration (reference §4.4): a YAML file (`--config-file`, else
// /etc/determined/agent.yaml if it exists), overridden by `DET_<FLAG>` environment variables,
// overridden by flags.
//
// Our keys and departures from upstream:
//  - `master_url` (flag --master-url, env DET_MASTER_URL): "http://HOST:PORT", an alternative to
//    master_host + master_port (what `det deploy local` passes);
//  - `slot_type` (upstream's): auto (default) offers the GPUs found (CUDA, then ROCm), else CPU slots;
//    cuda and rocm offer those GPUs and fail at start when there are none; cpu offers CPU slots; none
//    offers no slot. `visible_gpus` ("0,2") limits which GPUs are offered.
//  - `slots`: the number of CPU slots offered (default 1); upstream's `artificial_slots` is an
//  alias;
//  - `work_dir`: where task directories go (default /tmp/determined-agent-<agent_id>);
//  - `master_port` defaults to 8080 (this master's default port);
//  - `--id` is an alias of `--agent-id`.
// Upstream keys about containers, GPUs, proxies and the agent's own API are accepted so that an
// upstream agent.yaml loads, and reported in `warnings` as unused.
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "config/settings_overlay.h"

namespace det::agent {

struct AgentTlsConfig {
  bool enabled = false;
  bool skip_verify = false;
  std::string master_cert;
  std::string master_cert_name;
  std::string client_cert;
  std::string client_key;
};

enum class SlotType { kAuto, kCuda, kRocm, kCpu, kNone };

struct AgentFileConfig {
  std::string master_host;  // required (or master_url)
  int master_port = 8080;
  std::string agent_id;  // "" = the hostname
  std::string resource_pool;  // "" = the master's default compute pool
  int slots = 1;                      // CPU slots, where CPU slots are offered
  SlotType slot_type = SlotType::kAuto;
  std::vector<int> visible_gpus;      // empty = every GPU found
  std::string work_dir;               // "" = /tmp/determined-agent-<agent_id>
  std::string container_master_host;  // "" = master_host; what tasks get in DET_MASTER
  // The Docker Engine API's Unix socket that runs tasks with an environment.image; "" = DOCKER_HOST's
  // (unix://PATH), else none: such tasks run on the host, with a note in their log.
  std::string container_socket;
  int container_master_port = 0;      // 0 = master_port
  std::string log_level = "info";
  AgentTlsConfig tls;
  std::vector<std::string> warnings;
};

// The flags (and `DET_<FLAG>` variables) the agent reads; `config-file` is not a config key.
const std::vector<config::Setting>& AgentSettings();

// Parses `yaml_text` (may be empty), overlays `env` and `flags`, fills defaults and validates;
// every problem at once, each with its path. Returns InvalidArgument on any problem.
absl::StatusOr<AgentFileConfig> LoadAgentConfig(const std::string& yaml_text,
                                                const std::map<std::string, std::string>& env,
                                                const config::FlagValues& flags);

// "determined-agent" usage text with every flag.
std::string AgentUsage();

}  // namespace det::agent
