#include "master/observability/http_sd_targets.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace det::master {

std::string HttpSdTargetsJson(const std::vector<ObservedAgent>& agents) {
  nlohmann::json out = nlohmann::json::array();
  for (const ObservedAgent& agent : agents) {
    if (agent.address.empty()) continue;
    // An IPv6 address is bracketed before its port.
    const std::string host =
        agent.address.find(':') != std::string::npos && agent.address.front() != '['
            ? absl::StrCat("[", agent.address, "]")
            : agent.address;
    out.push_back(
        {{"targets",
          {absl::StrCat(host, ":", kDcgmExporterPort), absl::StrCat(host, ":", kCadvisorPort)}},
         {"labels", {{"det_agent_id", agent.id}, {"det_resource_pool", agent.resource_pool}}}});
  }
  return out.dump();
}

}  // namespace det::master
