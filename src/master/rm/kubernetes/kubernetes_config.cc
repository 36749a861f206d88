#include "master/rm/kubernetes/kubernetes_config.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "master/rm/kubernetes/kube_connection.h"
#include "master/rm/kubernetes/kube_http_client.h"
#include "scheduler/schedule.h"

namespace det::master {

using nlohmann::json;

namespace {

json PodSpecOf(const std::string& tcd_json, const char* key) {
  if (tcd_json.empty()) return json();
  json tcd = json::parse(tcd_json, nullptr, false);
  return tcd.is_object() && tcd.contains(key) ? tcd[key] : json();
}

}  // namespace

std::string MasterUrlForPods(const config::MasterConfig& config, const config::KubernetesConfig& k) {
  std::string scheme = !k.master_scheme.empty() ? k.master_scheme : config.security.tls_enabled() ? "https" : "http";
  std::string host = !k.master_host.empty()
                         ? k.master_host
                         : absl::StrCat(k.master_service_name, ".", k.namespace_name, ".svc.cluster.local");
  int port = k.master_port != 0 ? k.master_port : config.port;
  return absl::StrCat(scheme, "://", host, ":", port);
}

absl::StatusOr<KubernetesSetup> KubernetesSetupFromConfig(const config::MasterConfig& config,
                                                          const config::ResourceManagerConfig& manager,
                                                          const std::vector<config::ResourcePoolConfig>& pools,
                                                          std::function<void(std::vector<api::TaskLog>)> write_logs,
                                                          LogStore& logs) {
  const config::KubernetesConfig& k = *manager.kubernetes;
  absl::StatusOr<kube::KubeConnection> connection = kube::ResolveKubeConnection(k.kubeconfig_path);
  if (!connection.ok()) {
    return absl::Status(connection.status().code(),
                        absl::StrCat("resource manager ", manager.cluster_name,
                                     ": kubeconfig_path: ", connection.status().message()));
  }
  KubernetesSetup setup;
  setup.api = std::make_shared<kube::KubeHttpClient>(std::move(*connection));
  KubernetesOptions& o = setup.options;
  o.cluster_name = manager.cluster_name;
  o.namespace_name = k.namespace_name;
  o.max_slots_per_pod = k.max_slots_per_pod;
  o.slot_type = k.slot_type;
  o.cpu_per_slot = k.cpu_per_slot;
  o.master_url = MasterUrlForPods(config, k);
  o.leave_kubernetes_resources = k.leave_kubernetes_resources;
  o.write_logs = std::move(write_logs);
  o.last_log_time = [&logs](const std::string& task_id, const std::string& pod) -> std::optional<WallTime> {
    LogStore& store = logs;
    absl::StatusOr<std::vector<api::TaskLog>> newest =
        store.GetTaskLogsNewestFirst(task_id, 0, 1, TaskLogFilter{.container_ids = {pod}});
    if (!newest.ok() || newest->empty()) return std::nullopt;
    return newest->front().timestamp;
  };
  for (const config::ResourcePoolConfig& pool : pools) {
    // A pool's own task_container_defaults, else the master's, give its pod specs.
    const std::string& tcd = pool.task_container_defaults_json.empty() ? config.task_container_defaults_json
                                                                       : pool.task_container_defaults_json;
    o.pools.push_back({.pool = {.name = pool.pool_name,
                                .description = pool.description,
                                .scheduler = scheduler::FromMasterConfig(pool.scheduler),
                                .max_aux_containers_per_agent = pool.max_aux_containers_per_agent},
                       .cpu_pod_spec = PodSpecOf(tcd, "cpu_pod_spec"),
                       .gpu_pod_spec = PodSpecOf(tcd, "gpu_pod_spec")});
  }
  return setup;
}

}  // namespace det::master
