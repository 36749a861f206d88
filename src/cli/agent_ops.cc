#include "cli/agent_ops.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/format.h"
#include "cli/paging.h"
#include "cli/session.h"
#include "client/rest_client.h"
#include "common/json_yaml.h"

namespace det::cli {
namespace {

using nlohmann::json;

std::string Joined(const json& list) {
  std::vector<std::string> parts;
  if (list.is_array()) {
    for (const json& v : list) parts.push_back(Cell(v));
  }
  return absl::StrJoin(parts, ", ");
}

size_t SizeOf(const json& obj, const char* key) {
  const json& v = Field(obj, key);
  return v.is_object() || v.is_array() ? v.size() : 0;
}

// Agents sorted by id, as upstream lists them.
absl::StatusOr<json> SortedAgents(Session& session) {
  absl::StatusOr<json> agents = GetAllPages(session, "/api/v1/agents", "agents");
  if (!agents.ok()) return agents.status();
  std::vector<json> sorted(agents->begin(), agents->end());
  std::sort(sorted.begin(), sorted.end(),
            [](const json& a, const json& b) { return Str(a, "id") < Str(b, "id"); });
  return json(sorted);
}

// allocation id -> task name from GET /api/v1/tasks; empty when the master does not serve it.
json TaskNames(Session& session) {
  json names = json::object();
  absl::StatusOr<json> tasks = session.Get("/api/v1/tasks");
  if (!tasks.ok()) return names;
  const json& by_alloc = Field(*tasks, "allocationIdToSummary");
  if (!by_alloc.is_object()) return names;
  for (const auto& [id, summary] : by_alloc.items()) names[id] = Str(summary, "name");
  return names;
}

absl::StatusOr<int> Print(const json& rows, const Table& table, OutputFormat format,
                          std::ostream& out) {
  if (format == OutputFormat::kJson) {
    out << rows.dump(4) << "\n";
  } else {
    out << Render(table, format);
  }
  return 0;
}

}  // namespace

std::string BoolCell(const json& value) {
  return value.is_boolean() && value.get<bool>() ? "True" : "False";
}

// A boolean field, false when absent or not a boolean.
json Flag(const json& obj, const char* key) {
  const json& v = Field(obj, key);
  return v.is_boolean() ? v : json(false);
}

json AgentRows(const json& agents) {
  json rows = json::array();
  if (!agents.is_array()) return rows;
  for (const json& a : agents) {
    rows.push_back(
        {{"id", Str(a, "id")},
         {"version", Str(a, "version")},
         {"registered_time", FormatTime(Field(a, "registeredTime"))},
         {"num_slots", SizeOf(a, "slots")},
         {"num_containers", SizeOf(a, "containers")},
         {"resource_pools", Joined(Field(a, "resourcePools"))},
         {"enabled", Flag(a, "enabled")},
         {"draining", Flag(a, "draining")},
         {"addresses", Joined(Field(a, "addresses"))}});
  }
  return rows;
}

Table AgentTable(const json& rows) {
  Table t({"Agent ID", "Version", "Registered Time", "Slots", "Containers", "Resource Pool",
           "Enabled", "Draining", "Addresses"});
  for (const json& r : rows) {
    t.AddRow({Str(r, "id"), Str(r, "version"), Str(r, "registered_time"),
              Cell(Field(r, "num_slots")), Cell(Field(r, "num_containers")),
              Str(r, "resource_pools"), BoolCell(Field(r, "enabled")),
              BoolCell(Field(r, "draining")), Str(r, "addresses")});
  }
  return t;
}

json SlotRows(const json& agents, const json& task_names) {
  json rows = json::array();
  if (!agents.is_array()) return rows;
  for (const json& a : agents) {
    const json& slots = Field(a, "slots");
    if (!slots.is_object()) continue;
    std::vector<json> sorted;
    for (const auto& [key, slot] : slots.items()) sorted.push_back(slot);
    std::sort(sorted.begin(), sorted.end(), [](const json& x, const json& y) {
      const json& dx = Field(Field(x, "device"), "id");
      const json& dy = Field(Field(y, "device"), "id");
      if (dx.is_number() && dy.is_number()) return dx.get<int64_t>() < dy.get<int64_t>();
      return Str(x, "id") < Str(y, "id");
    });
    for (const json& slot : sorted) {
      const json& container = Field(slot, "container");
      std::string allocation = container.is_object() ? Str(container, "id") : "";
      std::string task = "None";
      if (!allocation.empty())
        task = task_names.is_object() ? task_names.value(allocation, "") : "";
      const json& device = Field(slot, "device");
      rows.push_back(
          {{"agent_id", Str(a, "id")},
           {"resource_pool", Joined(Field(a, "resourcePools"))},
           {"slot_id", Str(slot, "id")},
           {"enabled", Flag(slot, "enabled")},
           {"draining", Flag(slot, "draining")},
           {"allocation_id", allocation.empty() ? "FREE" : allocation},
           {"task_name", task},
           {"type", Str(device, "type")},
           {"device", Str(device, "brand")},
           {"uuid", Str(device, "uuid")}});
    }
  }
  return rows;
}

Table SlotTable(const json& rows) {
  // Upstream's columns, then each GPU's uuid (empty for CPU slots).
  Table t({"Agent ID", "Resource Pool", "Slot ID", "Enabled", "Draining", "Allocation ID",
           "Task Name", "Type", "Device", "UUID"});
  for (const json& r : rows) {
    t.AddRow({Str(r, "agent_id"), Str(r, "resource_pool"), Str(r, "slot_id"),
              BoolCell(Field(r, "enabled")), BoolCell(Field(r, "draining")),
              Str(r, "allocation_id"), Str(r, "task_name"), Str(r, "type"), Str(r, "device"), Str(r, "uuid")});
  }
  return t;
}

absl::StatusOr<int> ListAgents(Session& session, OutputFormat format, std::ostream& out) {
  absl::StatusOr<json> agents = SortedAgents(session);
  if (!agents.ok()) return agents.status();
  json rows = AgentRows(*agents);
  return Print(rows, AgentTable(rows), format, out);
}

absl::StatusOr<int> ListSlots(Session& session, OutputFormat format, std::ostream& out) {
  absl::StatusOr<json> agents = SortedAgents(session);
  if (!agents.ok()) return agents.status();
  json rows = SlotRows(*agents, TaskNames(session));
  return Print(rows, SlotTable(rows), format, out);
}

absl::StatusOr<int> SetSlotEnabled(Session& session, const std::string& agent_id, int slot_id, bool enabled,
                                   std::ostream& out) {
  const std::string verb = enabled ? "enable" : "disable";
  absl::StatusOr<json> resp = session.Post(
      absl::StrCat("/api/v1/agents/", client::UrlEncode(agent_id), "/slots/", slot_id, "/", verb), json::object());
  if (!resp.ok()) {
    return absl::Status(resp.status().code(),
                        absl::StrCat("cannot ", verb, " slot ", slot_id, " of agent ", agent_id, ": ",
                                     resp.status().message()));
  }
  out << (enabled ? "Enabled" : "Disabled") << " slot " << slot_id << " of agent " << agent_id << ".\n";
  return 0;
}

absl::StatusOr<int> SetAgentEnabled(Session& session, const SetAgentArgs& args, std::ostream& out) {
  if (args.all == !args.agent_id.empty()) {
    return absl::InvalidArgumentError("name exactly one agent, or use --all for every agent");
  }
  std::vector<std::string> ids;
  if (args.all) {
    absl::StatusOr<json> agents = SortedAgents(session);
    if (!agents.ok()) return agents.status();
    for (const json& a : *agents) ids.push_back(Str(a, "id"));
  } else {
    ids.push_back(args.agent_id);
  }
  const std::string verb = args.enabled ? "enable" : "disable";
  bool busy = false;
  for (const std::string& id : ids) {
    json body = json::object();
    if (!args.enabled && args.drain) body["drain"] = true;
    absl::StatusOr<json> resp =
        session.Post(absl::StrCat("/api/v1/agents/", client::UrlEncode(id), "/", verb), body);
    if (!resp.ok()) {
      return absl::Status(resp.status().code(), absl::StrCat("cannot ", verb, " agent ", id, ": ",
                                                             resp.status().message()));
    }
    busy = busy || SizeOf(Field(*resp, "agent"), "containers") > 0;
    out << (args.enabled ? "Enabled" : "Disabled") << " agent " << id << ".\n";
  }
  if (!args.enabled && args.drain) {
    out << (busy ? "Tasks still in progress on draining nodes.\n"
                 : "No tasks in progress on draining nodes.\n");
  }
  return 0;
}

}  // namespace det::cli
