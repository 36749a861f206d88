#pragma once
// The Kubernetes resource manager that a master config of resource_manager.type kubernetes asks for:
// the API client (kubeconfig_path, else the service account of the master's own pod) and the manager's
// options (namespace, slots, pools with their pod specs, where pods reach the master).
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "api/types.h"
#include "config/master_config.h"
#include "master/db/log_store.h"
#include "master/rm/kubernetes/kube_api.h"
#include "master/rm/kubernetes/kubernetes_resource_manager.h"

namespace det::master {

struct KubernetesSetup {
  std::shared_ptr<kube::KubeApi> api;
  KubernetesOptions options;
};

// The manager of `manager` (type kubernetes: the config's resource_manager, or an entry of its
// additional_resource_managers) and its `pools`. Fails, naming the key, when the credentials cannot be
// read. `logs` has the task logs: the pods' output goes there, and a restarted master resumes each pod's
// log after the last line it has.
absl::StatusOr<KubernetesSetup> KubernetesSetupFromConfig(const config::MasterConfig& config,
                                                          const config::ResourceManagerConfig& manager,
                                                          const std::vector<config::ResourcePoolConfig>& pools,
                                                          std::function<void(std::vector<api::TaskLog>)> write_logs,
                                                          LogStore& logs);

// How task pods reach the master: determined_master_scheme://host:port, each defaulting to the master's
// own scheme, the master Service's cluster DNS name, and the master's port.
std::string MasterUrlForPods(const config::MasterConfig& config, const config::KubernetesConfig& k);

}  // namespace det::master
