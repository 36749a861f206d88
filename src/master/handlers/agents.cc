#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"

namespace det::master {
namespace {

using nlohmann::json;

json AgentJson(const AgentSummary& a) {
  json slots = json::object();
  for (const api::SlotInfo& s : a.slots) {
    auto used = a.slot_allocations.find(s.id);
    json container = nullptr;
    if (used != a.slot_allocations.end()) container = {{"id", used->second}, {"state", "STATE_RUNNING"}};
    slots[absl::StrCat("/agents/", a.identity.id, "/slots/", s.id)] = {
        {"id", std::to_string(s.id)},
        {"device", {{"id", s.id}, {"brand", s.device}, {"uuid", ""}, {"type", s.type == "cuda" ? "TYPE_CUDA" : "TYPE_CPU"}}},
        {"enabled", true},
        {"container", container},
        {"draining", false}};
  }
  return {{"id", a.identity.id},
          {"registeredTime", FormatRfc3339(a.registered_time)},
          {"slots", slots},
          {"containers", json::object()},
          {"addresses", json::array({a.identity.hostname})},
          {"enabled", true},
          {"draining", false},
          {"version", a.identity.version},
          {"resourcePools", json::array({a.identity.resource_pool})}};
}

}  // namespace

void RegisterAgentRoutes(Router& router, HttpServer& server, MasterContext& ctx) {
  router.Add("GET", "/api/v1/agents", Access::kAuthenticated, [&ctx](HttpRequest&, ResponderPtr r) {
    ctx.cluster.ListAgents([r](std::vector<AgentSummary> agents) {
      json out = json::array();
      for (const AgentSummary& a : agents) out.push_back(AgentJson(a));
      int64_t n = static_cast<int64_t>(agents.size());
      ReplyJson(r, {{"agents", out}, {"pagination", Pagination(0, 0, n, n)}});
    });
  });
  server.AddWebSocket("/agents", [&ctx](const HttpRequest& req, std::shared_ptr<WebSocketConnection> conn) {
    AgentIdentity id{.id = req.Query("id").value_or(""),
                     .resource_pool = req.Query("resource_pool").value_or("default"),
                     .hostname = req.Query("hostname").value_or(""),
                     .version = req.Query("version").value_or("")};
    return ctx.cluster.ConnectAgent(std::move(id), std::move(conn));
  });
}

}  // namespace det::master
