// Cluster::NotebookSpec: Jupyter behind the proxy with its own token, killed after idle_timeout unused.
#include "master/cluster/cluster.h"
#include "master/cluster/cluster_state.h"

namespace det::master {

ServiceAccess Cluster::NotebookSpec::Service() const { return {.tcp = false, .token = ServiceJson().value("token", "")}; }

std::optional<std::chrono::milliseconds> Cluster::NotebookSpec::IdleTimeout() const {
  return IdleTimeoutOr(cluster_.options_.notebook_timeout);
}

void Cluster::NotebookSpec::AddEnvironment(std::map<std::string, std::string>& env) const {
  env["DET_NOTEBOOK_TOKEN"] = ServiceJson().value("token", "");
  env["DET_NOTEBOOK_IDLE_TYPE"] = config_.notebook_idle_type;
}

}  // namespace det::master
