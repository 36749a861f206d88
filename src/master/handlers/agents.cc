// Agents and slots (reference §1f): list, get, slots, enable/disable, and the agents' websocket.
// Enabling and disabling an agent needs UPDATE_AGENTS (basic: an admin); an agent's addresses are shown to
// holders of VIEW_SENSITIVE_AGENT_INFO.
#include <memory>
#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/status_macros.h"
#include "master/handlers/agent_json.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/page.h"
#include "master/handlers/routes.h"
#include "master/task/authz.h"

namespace det::master {
namespace {

using nlohmann::json;

std::string PathParam(const HttpRequest& req, const std::string& name) {
  auto it = req.path_params.find(name);
  return it == req.path_params.end() ? "" : it->second;
}

// Whether `who` may see where agents are (VIEW_SENSITIVE_AGENT_INFO cluster-wide; basic mode: everyone).
// Others see agents without their addresses, as upstream shows them.
bool SeesAddresses(const Principal& who) {
  return DefaultAuthz().CheckCluster(who, rbac::Permission::kViewSensitiveAgentInfo, "see agents' addresses").ok();
}

json ShownAgent(const AgentSummary& agent, bool addresses, bool exclude_slots = false, bool exclude_containers = false) {
  json j = AgentJson(agent, exclude_slots, exclude_containers);
  if (!addresses) j["addresses"] = json::array();
  return j;
}

json ListAgentsJson(std::vector<AgentSummary> agents, const AgentListQuery& q, bool addresses) {
  agents = SortAgents(std::move(agents), q);
  int64_t total = static_cast<int64_t>(agents.size());
  PageRange range = PageOf(total, q.offset, q.limit);
  json out = json::array();
  for (int64_t i = range.begin; i < range.end; ++i) {
    out.push_back(ShownAgent(agents[static_cast<size_t>(i)], addresses, q.exclude_slots, q.exclude_containers));
  }
  return {{"agents", out}, {"pagination", PagePagination(q.offset, q.limit, range, total)}};
}

absl::StatusOr<json> OneAgentJson(const std::vector<AgentSummary>& agents, const std::string& agent_id,
                                  bool addresses) {
  ASSIGN_OR_RETURN(AgentSummary agent, FindAgent(agents, agent_id));
  return json{{"agent", ShownAgent(agent, addresses)}};
}

absl::StatusOr<json> SlotsJson(const std::vector<AgentSummary>& agents,
                               const std::string& agent_id) {
  ASSIGN_OR_RETURN(AgentSummary agent, FindAgent(agents, agent_id));
  json slots = json::array();
  for (const api::SlotInfo& s : agent.slots) slots.push_back(SlotJson(agent, s));
  return json{{"slots", slots}};
}

absl::StatusOr<json> OneSlotJson(const std::vector<AgentSummary>& agents,
                                 const std::string& agent_id, const std::string& slot_id) {
  ASSIGN_OR_RETURN(AgentSummary agent, FindAgent(agents, agent_id));
  int id = -1;
  if (absl::SimpleAtoi(slot_id, &id)) {
    for (const api::SlotInfo& s : agent.slots) {
      if (s.id == id) return json{{"slot", SlotJson(agent, s)}};
    }
  }
  return absl::NotFoundError(absl::StrCat("slot \"", slot_id, "\" not found on agent \"", agent_id,
                                          "\"; `det slot list` shows the slots of every agent"));
}

// POST .../enable and .../disable of an agent, or of one of its slots when the path names `slot_id`
// (the reply is then {"slot": ...}): the body may be empty; disable reads {"drain": bool}. The
// cluster replies.
absl::Status SetEnabled(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r, bool enabled) {
  const bool of_slot = req.path_params.count("slot_id") > 0;
  RETURN_IF_ERROR(DefaultAuthz().CheckCluster(*req.principal, rbac::Permission::kUpdateAgents,
                                              absl::StrCat(enabled ? "enable " : "disable ", of_slot ? "slots" : "agents")));
  bool drain = false;
  if (!enabled) {
    ASSIGN_OR_RETURN(json body, JsonBody(req));
    if (const json* d = api::FindField(body, "drain")) {
      if (!d->is_boolean()) return absl::InvalidArgumentError("drain: expected true or false");
      drain = d->get<bool>();
    }
  }
  std::string agent_id = PathParam(req, "agent_id");
  if (!of_slot) {
    ctx.cluster.SetAgentEnabled(agent_id, enabled, drain, ReplyWith(r, [](const AgentSummary& agent) {
                                  return json{{"agent", AgentJson(agent)}};
                                }));
    return absl::OkStatus();
  }
  int slot_id = -1;
  if (!absl::SimpleAtoi(PathParam(req, "slot_id"), &slot_id)) {
    return absl::InvalidArgumentError(
        absl::StrCat("slotId: expected a slot number, got \"", PathParam(req, "slot_id"), "\""));
  }
  ctx.cluster.SetSlotEnabled(agent_id, slot_id, enabled, drain,
                             ReplyWith(r, [agent_id, slot_id](const AgentSummary& agent) {
                               return OneSlotJson({agent}, agent_id, std::to_string(slot_id));
                             }));
  return absl::OkStatus();
}

}  // namespace

void RegisterAgentRoutes(Router& router, HttpServer& server, MasterContext& ctx) {
  router.Add("GET", "/api/v1/agents", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               ReplyIfError(r, [&]() -> absl::Status {
                 ASSIGN_OR_RETURN(AgentListQuery q, ParseAgentListQuery(req));
                 const bool addresses = SeesAddresses(*req.principal);
                 ctx.cluster.ListAgents([r, q, addresses](std::vector<AgentSummary> agents) {
                   ReplyJson(r, ListAgentsJson(std::move(agents), q, addresses));
                 });
                 return absl::OkStatus();
               }());
             });
  router.Add("GET", "/api/v1/agents/{agent_id}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               const bool addresses = SeesAddresses(*req.principal);
               ctx.cluster.ListAgents([r, id = PathParam(req, "agent_id"), addresses](std::vector<AgentSummary> agents) {
                 Reply(r, OneAgentJson(agents, id, addresses));
               });
             });
  router.Add("GET", "/api/v1/agents/{agent_id}/slots", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               ctx.cluster.ListAgents(
                   [r, id = PathParam(req, "agent_id")](std::vector<AgentSummary> agents) {
                     Reply(r, SlotsJson(agents, id));
                   });
             });
  router.Add(
      "GET", "/api/v1/agents/{agent_id}/slots/{slot_id}", Access::kAuthenticated,
      [&ctx](HttpRequest& req, ResponderPtr r) {
        ctx.cluster.ListAgents(
            [r, id = PathParam(req, "agent_id"), slot = PathParam(req, "slot_id")](
                std::vector<AgentSummary> agents) { Reply(r, OneSlotJson(agents, id, slot)); });
      });
  router.Add("POST", "/api/v1/agents/{agent_id}/enable", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, SetEnabled(ctx, req, r, true)); });
  router.Add("POST", "/api/v1/agents/{agent_id}/disable", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, SetEnabled(ctx, req, r, false)); });
  router.Add("POST", "/api/v1/agents/{agent_id}/slots/{slot_id}/enable", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, SetEnabled(ctx, req, r, true)); });
  router.Add("POST", "/api/v1/agents/{agent_id}/slots/{slot_id}/disable", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, SetEnabled(ctx, req, r, false)); });
  server.AddWebSocket(
      "/agents", [&ctx](const HttpRequest& req, std::shared_ptr<WebSocketConnection> conn) {
        AgentIdentity id{.id = req.Query("id").value_or(""),
                         .resource_pool = req.Query("resource_pool").value_or(""),  // "": the default compute pool
                         .hostname = req.Query("hostname").value_or(""),
                         .version = req.Query("version").value_or(""),
                         .address = req.remote_address};
        return ctx.cluster.ConnectAgent(std::move(id), std::move(conn));
      });
}

}  // namespace det::master
