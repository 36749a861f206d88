#pragma once
// GET /prom/det-http-sd-config: Prometheus HTTP service discovery (http_sd_configs) of the agents'
// hosts, as upstream serves it: one target group per connected agent, its host on the ports of
// DCGM's exporter (9400) and cAdvisor (8080), labelled det_agent_id and det_resource_pool.
#include <string>
#include <vector>

#include "master/cluster/cluster_observation.h"

namespace det::master {

// Upstream's fixed ports.
inline constexpr int kDcgmExporterPort = 9400;
inline constexpr int kCadvisorPort = 8080;

// The JSON array Prometheus reads. Agents whose address the master does not know are left out.
std::string HttpSdTargetsJson(const std::vector<ObservedAgent>& agents);

}  // namespace det::master
