#include "master/handlers/agent_json.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/time_util.h"
#include "master/handlers/handler_util.h"

namespace det::master {
namespace {

using nlohmann::json;

std::string DeviceType(const api::SlotInfo& slot) {
  if (slot.type == "cuda") return "TYPE_CUDA";
  if (slot.type == "rocm") return "TYPE_ROCM";
  return "TYPE_CPU";
}

}  // namespace

nlohmann::json DeviceJson(const api::SlotInfo& slot) {
  return {{"id", slot.id}, {"brand", slot.device}, {"uuid", slot.uuid}, {"type", DeviceType(slot)}};
}

namespace {

// Containers are the allocations running on the agent; their ids are the allocation ids.
json ContainerJson(const AgentSummary& agent, const std::string& allocation_id) {
  json devices = json::array();
  for (const api::SlotInfo& s : agent.slots) {
    auto used = agent.slot_allocations.find(s.id);
    if (used != agent.slot_allocations.end() && used->second == allocation_id) {
      devices.push_back(DeviceJson(s));
    }
  }
  return {{"parent", ""},
          {"id", allocation_id},
          {"state", "STATE_RUNNING"},
          {"devices", devices},
          {"permissionDenied", false}};
}

// slotStats: {typeStats, brandStats}, each a map to DeviceStats {draining, disabled, total,
// states}.
json SlotStatsJson(const AgentSummary& agent) {
  json type_stats = json::object();
  json brand_stats = json::object();
  auto count = [&agent](json& stats, const std::string& key, bool used) {
    if (!stats.contains(key)) {
      stats[key] = {{"draining", 0}, {"disabled", 0}, {"total", 0}, {"states", json::object()}};
    }
    json& s = stats[key];
    s["total"] = s["total"].get<int>() + 1;
    if (!agent.enabled) s["disabled"] = s["disabled"].get<int>() + 1;
    if (agent.draining) s["draining"] = s["draining"].get<int>() + 1;
    if (used) {
      json& states = s["states"];
      states["STATE_RUNNING"] = states.value("STATE_RUNNING", 0) + 1;
    }
  };
  for (const api::SlotInfo& s : agent.slots) {
    bool used = agent.slot_allocations.count(s.id) > 0;
    count(type_stats, DeviceType(s), used);
    count(brand_stats, s.device, used);
  }
  return {{"typeStats", type_stats}, {"brandStats", brand_stats}};
}

absl::StatusOr<bool> ParseSortByTime(const std::string& raw) {
  if (raw.empty() || raw == "SORT_BY_UNSPECIFIED" || raw == "0" || raw == "SORT_BY_ID" ||
      raw == "1") {
    return false;
  }
  if (raw == "SORT_BY_TIME" || raw == "2") return true;
  return absl::InvalidArgumentError(absl::StrCat(
      "sortBy: expected SORT_BY_ID, SORT_BY_TIME or SORT_BY_UNSPECIFIED, got \"", raw, "\""));
}

}  // namespace

absl::StatusOr<AgentListQuery> ParseAgentListQuery(const HttpRequest& request) {
  AgentListQuery q;
  ASSIGN_OR_RETURN(q.by_time, ParseSortByTime(request.Query("sort_by").value_or("")));
  ASSIGN_OR_RETURN(q.descending, QueryOrderDescending(request));
  ASSIGN_OR_RETURN(q.offset, QueryInt(request, "offset", 0));
  ASSIGN_OR_RETURN(q.limit, QueryInt(request, "limit", 0));
  ASSIGN_OR_RETURN(std::optional<bool> no_slots, QueryOptionalBool(request, "exclude_slots"));
  ASSIGN_OR_RETURN(std::optional<bool> no_containers,
                   QueryOptionalBool(request, "exclude_containers"));
  q.exclude_slots = no_slots.value_or(false);
  q.exclude_containers = no_containers.value_or(false);
  return q;
}

std::vector<AgentSummary> SortAgents(std::vector<AgentSummary> agents,
                                     const AgentListQuery& query) {
  std::sort(agents.begin(), agents.end(), [&query](const AgentSummary& a, const AgentSummary& b) {
    if (query.by_time && a.registered_time != b.registered_time) {
      return a.registered_time < b.registered_time;
    }
    return a.identity.id < b.identity.id;
  });
  if (query.descending) std::reverse(agents.begin(), agents.end());
  return agents;
}

json SlotJson(const AgentSummary& agent, const api::SlotInfo& slot) {
  auto used = agent.slot_allocations.find(slot.id);
  json container = nullptr;
  if (used != agent.slot_allocations.end()) container = ContainerJson(agent, used->second);
  return {{"id", std::to_string(slot.id)},
          {"device", DeviceJson(slot)},
          {"enabled", agent.enabled && !agent.disabled_slots.count(slot.id)},
          {"container", container},
          {"draining", agent.draining}};
}

json AgentJson(const AgentSummary& agent, bool exclude_slots, bool exclude_containers) {
  json slots = json::object();
  if (!exclude_slots) {
    for (const api::SlotInfo& s : agent.slots) {
      slots[absl::StrCat("/agents/", agent.identity.id, "/slots/", s.id)] = SlotJson(agent, s);
    }
  }
  json containers = json::object();
  if (!exclude_containers) {
    for (const auto& [slot_id, allocation_id] : agent.slot_allocations) {
      if (!containers.contains(allocation_id)) {
        containers[allocation_id] = ContainerJson(agent, allocation_id);
      }
    }
  }
  json addresses = json::array();
  if (!agent.identity.hostname.empty()) addresses.push_back(agent.identity.hostname);
  return {{"id", agent.identity.id},
          {"registeredTime", FormatRfc3339(agent.registered_time)},
          {"slots", slots},
          {"containers", containers},
          {"addresses", addresses},
          {"enabled", agent.enabled},
          {"draining", agent.draining},
          {"version", agent.identity.version},
          {"resourcePools", json::array({agent.identity.resource_pool})},
          {"slotStats", SlotStatsJson(agent)}};
}

absl::StatusOr<AgentSummary> FindAgent(const std::vector<AgentSummary>& agents,
                                       const std::string& id) {
  for (const AgentSummary& a : agents) {
    if (a.identity.id == id) return a;
  }
  return absl::NotFoundError(
      absl::StrCat("agent \"", id, "\" not found; `det agent list` shows the connected agents"));
}

}  // namespace det::master
