#pragma once
// The master's configuration (reference §4.1-4.3): a YAML file (`--config-file`), overridden by
// `DET_<FLAG>` environment variables, overridden by flags. Parsing, defaults and validation only;
// main() decides what this build can run.
//
// Departures from upstream 0.38, each deliberate:
//  - our own keys: `data_dir` (default /var/lib/determined), `host` (bind address, 0.0.0.0),
//    `db.type` (sqlite, the default, or postgres) and `db.path` (default <data_dir>/determined.db);
//    a `db` block with postgres fields (host, user, name, password) and no `type` means postgres;
//  - `port: 0` means "any free port" (upstream: 8080), because tests and `det deploy local` use it;
//    an absent port means 8080, or 8443 when security.tls is set (as upstream);
//  - `cluster_name` defaults to "determined" (what this master has always reported);
//  - checkpoint_storage defaults to {type: shared_fs, host_path: <data_dir>/checkpoints};
//  - the round_robin and fair_share schedulers are supported, and a `scheduler` block that is
//    present without a `type` means fair_share (the product docs' rule); an absent block means the
//    upstream default {type: priority, fitting_policy: best, preemption: false,
//    default_priority: 42};
//  - a pool-level `scheduler` block, if present at all, replaces resource_manager.scheduler
//    entirely: no field is inherited.
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/task_user.h"
#include "config/settings_overlay.h"

namespace det::config {

struct SchedulerConfig {
  std::string type = "priority";        // priority | fair_share | round_robin
  std::string fitting_policy = "best";  // best | worst
  bool allow_heterogeneous_fits = false;
  bool preemption = false;    // priority only
  int default_priority = 42;  // priority only, 1..99

  bool operator==(const SchedulerConfig&) const = default;
};

struct ResourcePoolConfig {
  std::string pool_name;
  std::string description;
  SchedulerConfig scheduler;  // effective: the pool's own block, else resource_manager.scheduler
  bool has_own_scheduler = false;
  int max_aux_containers_per_agent = 100;
  bool agent_reattach_enabled = false;
  // How long a disconnected agent's tasks keep running, waiting for it to reconnect.
  std::chrono::milliseconds agent_reconnect_wait{25000};
  std::string provider_json;                 // "" when absent (dynamic agents are not provisioned)
  std::string task_container_defaults_json;  // "" = the master-level defaults
};

// resource_manager of type kubernetes (upstream's keys; docs/kubernetes.md).
struct KubernetesConfig {
  std::string namespace_name = "default";  // default_namespace (or the deprecated namespace)
  int max_slots_per_pod = 0;               // required: a task's slots are split into pods of at most this many
  std::string slot_type = "cuda";          // cuda | cpu
  double cpu_per_slot = 0;                 // slot_resource_requests.cpu; required (> 0) for slot_type cpu
  std::string master_service_name;         // where pods reach the master: <name>.<namespace>:<port>
  std::string master_scheme;               // determined_master_scheme|host|port override the above
  std::string master_host;
  int master_port = 0;
  std::string kubeconfig_path;             // "" = the pod's service account (the master runs in the cluster)
  bool leave_kubernetes_resources = false;  // keep a task's Job and ConfigMap after it ends
};

// resource_manager of type slurm (upstream's keys, less the HPE launcher's: the master runs sbatch itself).
struct SlurmPartitionOverride {
  std::string description;
  std::string slot_type;  // "" = the manager's
  std::string rendezvous_network_interface;
  std::string proxy_network_interface;
  std::string task_container_defaults_json;  // "" = none
};
struct SlurmConfig {
  std::string slot_type;  // cuda | cpu | rocm; "" = from each partition (GPUs: cuda, else cpu)
  bool tres_supported = true;  // GPUs asked as --gpus-per-node (TRES)
  bool gres_supported = true;  // else as --gres=gpu:N
  std::string job_storage_root;  // where job scripts and their output go (shared with the nodes)
  std::string user_name;         // whom jobs run as when the task names nobody ("" = the master's user)
  std::string group_name;
  bool sudo_authorized = false;  // submit as the task's user through sudo -u
  std::string rendezvous_network_interface;
  std::string proxy_network_interface;
  std::string job_project_source;  // "" | project | workspace | label | label:<prefix>: the --wckey
  std::string master_host;         // how jobs reach the master ("" = this host's name)
  int master_port = 0;             // 0 = the master's port
  std::string path;                // PATH and LD_LIBRARY_PATH of the jobs, when set
  std::string ld_library_path;
  std::map<std::string, SlurmPartitionOverride> partition_overrides;
};

struct ResourceManagerConfig {
  std::string type = "agent";  // agent | kubernetes | slurm
  std::string cluster_name = "default";
  SchedulerConfig scheduler;
  std::string default_aux_resource_pool = "default";
  std::string default_compute_resource_pool = "default";
  bool no_default_resource_pools = false;
  std::optional<KubernetesConfig> kubernetes;  // set when type is kubernetes
  std::optional<SlurmConfig> slurm;            // set when type is slurm
};

// An entry of additional_resource_managers: a Kubernetes cluster beside the main resource manager.
struct AdditionalResourceManagerConfig {
  ResourceManagerConfig resource_manager;
  std::vector<ResourcePoolConfig> resource_pools;
};

struct DbConfig {
  std::string type = "sqlite";  // sqlite | postgres
  std::string path;             // sqlite file; absolute after loading
  std::string user;
  std::string password;
  std::string host;
  std::string port;  // a string, as upstream
  std::string name;
  std::string ssl_mode = "disable";
  std::string ssl_root_cert;
};

// security.authz: who may do what (basic: owners and admins; rbac: roles assigned to groups).
struct AuthzConfig {
  std::string type = "basic";  // basic | rbac
  bool rbac_ui_enabled = false;  // GET /api/v1/master's rbacEnabled; defaults to type != basic
  // A workspace's creator gets this role on it (upstream's default: WorkspaceAdmin, 2).
  bool workspace_creator_role_enabled = true;
  int32_t workspace_creator_role_id = 2;
  bool strict_job_queue_control = false;  // rbac: reordering and priorities need CONTROL_STRICT_JOB_QUEUE
};

// security.token: lifespans of access tokens (POST /api/v1/tokens), in days. -1 in the file means
// infinite, kept as upstream keeps it: the longest Go duration, kInfiniteTokenLifespanDays.
inline constexpr int kInfiniteTokenLifespanDays = 106751;
struct TokenConfig {
  int max_lifespan_days = 30;      // a request above it is refused
  int default_lifespan_days = 30;  // a request without a lifespan
};

struct SecurityConfig {
  std::string initial_user_password;  // set for admin and determined when they are first created
  std::string tls_cert;               // both or neither
  std::string tls_key;
  // security.default_task, where the config gives it: whom tasks run as when their workspace names no
  // agent user group. Not given: the agent's own user (upstream's default, root, is what an agent run
  // as root gives).
  std::optional<TaskUser> default_task;
  AuthzConfig authz;
  TokenConfig token;
  bool tls_enabled() const { return !tls_cert.empty(); }
};

struct LogConfig {
  std::string level = "info";  // trace | debug | info | warn | error | fatal
  bool color = true;
};

// retention_policy: when task logs are deleted. A trial's own log_retention_days (its experiment
// config's retention_policy, or `det experiment set log-retention`) takes precedence.
struct RetentionPolicyConfig {
  std::optional<int> log_retention_days;  // days after a task ends; unset or -1: kept forever
  std::string schedule = "0 0 * * *";     // RetentionSchedule: when expired logs are deleted
};

// observability: upstream's Prometheus endpoints (/debug/prom/metrics, /prom/det-state-metrics,
// /prom/det-http-sd-config), on unless turned off.
struct ObservabilityConfig {
  bool enable_prometheus = true;
};

struct MasterConfig {
  std::string config_file;  // where the file part came from; "" = none
  std::string data_dir;     // absolute
  std::string host = "0.0.0.0";
  int port = 8080;  // 0 = any free port; absent: 8080, or 8443 with TLS
  std::string cluster_name = "determined";
  // Upstream's static-files directory: the web UI is served from {root}/webui. "" = look beside
  // the binary (webui.h).
  std::string root;
  LogConfig log;
  DbConfig db;
  SecurityConfig security;
  std::string checkpoint_storage_json;       // effective default checkpoint storage
  std::string task_container_defaults_json;  // with upstream defaults filled in
  std::string logging_json;                  // task-log backend, {type: default}
  int tensorboard_timeout = 300;  // seconds a TensorBoard without requests lives (0: forever)
  int notebook_timeout = 0;       // seconds an unused notebook lives unless it says otherwise (0: forever)
  // Upstream's launch_error: refuse work larger than its pool's agents (true), or queue it with the
  // warning LAUNCH_WARNING_CURRENT_SLOTS_EXCEEDED until the pool grows (false).
  bool launch_error = true;
  RetentionPolicyConfig retention_policy;
  ObservabilityConfig observability;
  ResourceManagerConfig resource_manager;
  std::vector<ResourcePoolConfig> resource_pools;  // never empty
  std::vector<AdditionalResourceManagerConfig> additional_resource_managers;
  std::vector<std::string> warnings;               // deprecated or unused keys that were accepted
  std::string effective_json;                      // the whole effective config (secrets included)

  // The pool of that name, or nullptr.
  const ResourcePoolConfig* FindPool(const std::string& name) const;
};

// The flags (and so `DET_<FLAG>` variables) the master reads, with the keys they set.
// `config-file` and `port-file` are not config keys: read them with Lookup().
const std::vector<Setting>& MasterSettings();

// Parses `yaml_text` (may be empty), overlays `env` and `flags`, fills defaults and validates.
// Every problem is reported at once, one per line with its path: "resource_pools[1].pool_name:
// duplicate pool name \"gpu\"". Returns InvalidArgument on any problem.
absl::StatusOr<MasterConfig> LoadMasterConfig(const std::string& yaml_text,
                                              const std::map<std::string, std::string>& env,
                                              const FlagValues& flags);

// The effective config as JSON with every secret (passwords, access/secret/signing keys) replaced
// by "********"; what `GET /api/v1/master/config` and `det master config` show.
std::string ToPrintableJson(const MasterConfig& config);

}  // namespace det::config
