#pragma once
// Upstream's agentv1 Agent and Slot messages (reference §1f) from the cluster's AgentSummary, and
// the GetAgents query (sort, order, paging, excludeSlots/excludeContainers). Kept apart from the
// routes so they can be tested without a server.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "master/cluster/cluster.h"
#include "master/http/http_types.h"

namespace det::master {

struct AgentListQuery {
  bool by_time = false;  // SORT_BY_TIME (registered time); else SORT_BY_ID
  bool descending = false;
  int64_t offset = 0;
  int64_t limit = 0;
  bool exclude_slots = false;
  bool exclude_containers = false;
};
absl::StatusOr<AgentListQuery> ParseAgentListQuery(const HttpRequest& request);

// The agents sorted and ordered as the query asks (ties by id), before paging.
std::vector<AgentSummary> SortAgents(std::vector<AgentSummary> agents, const AgentListQuery& query);

// Agent: id, registeredTime, slots (map "/agents/<id>/slots/<device>" -> Slot), containers (map
// allocation id -> Container), addresses, enabled, draining, version, resourcePools, slotStats.
// A slot takes the agent's enabled/draining (slots cannot be disabled one by one).
nlohmann::json AgentJson(const AgentSummary& agent, bool exclude_slots = false,
                         bool exclude_containers = false);
// Slot: id (device id as a decimal string), device, enabled, container (null when free), draining.
nlohmann::json SlotJson(const AgentSummary& agent, const api::SlotInfo& slot);
// Upstream's v1Device of a slot: {id, brand, uuid, type (TYPE_CUDA, TYPE_ROCM, TYPE_CPU)}.
nlohmann::json DeviceJson(const api::SlotInfo& slot);

// The agent with `id`, or NotFound naming it and how to list the connected agents.
absl::StatusOr<AgentSummary> FindAgent(const std::vector<AgentSummary>& agents,
                                       const std::string& id);

}  // namespace det::master
