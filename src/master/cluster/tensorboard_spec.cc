// Cluster::TensorboardSpec: TensorBoard over experiments' and trials' event files, killed after
// idle_timeout unused.
#include "master/cluster/cluster.h"
#include "master/cluster/cluster_state.h"

namespace det::master {

std::optional<std::chrono::milliseconds> Cluster::TensorboardSpec::IdleTimeout() const {
  return IdleTimeoutOr(cluster_.options_.tensorboard_timeout);
}

void Cluster::TensorboardSpec::AddEnvironment(std::map<std::string, std::string>& env) const {
  env["DET_TENSORBOARD_SOURCES"] = ServiceJson().value("sources", nlohmann::json::array()).dump();
  env["DET_TENSORBOARD_ARGS"] = nlohmann::json(config_.tensorboard_args).dump();
}

}  // namespace det::master
