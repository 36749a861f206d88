// Cluster::ShellSpec: sshd behind the proxy (raw TCP), letting in the key its launch chose.
#include "master/cluster/cluster.h"
#include "master/cluster/cluster_state.h"

namespace det::master {

void Cluster::ShellSpec::AddEnvironment(std::map<std::string, std::string>& env) const {
  env["DET_SHELL_AUTHORIZED_KEY"] = ServiceJson().value("public_key", "");
}

}  // namespace det::master
