#include "cli/resource_pool_ops.h"

#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/agent_ops.h"
#include "cli/format.h"
#include "cli/paging.h"
#include "cli/session.h"
#include "client/rest_client.h"

namespace det::cli {

using nlohmann::json;

std::string SchedulerName(const std::string& scheduler_type) {
  std::string s = scheduler_type;
  if (absl::StartsWith(s, "SCHEDULER_TYPE_")) s = s.substr(15);
  return absl::AsciiStrToLower(s);
}

Table ResourcePoolTable(const json& pools) {
  Table t({"resource pool", "Num of Agents", "Slots per Agent", "Slots Available", "Slot Used",
           "Default Compute Pool", "Default Aux Pool", "Scheduler"});
  if (!pools.is_array()) return t;
  for (const json& p : pools) {
    t.AddRow({Str(p, "name"), Cell(Field(p, "numAgents")), Cell(Field(p, "slotsPerAgent")),
              Cell(Field(p, "slotsAvailable")), Cell(Field(p, "slotsUsed")),
              BoolCell(Field(p, "defaultComputePool")), BoolCell(Field(p, "defaultAuxPool")),
              SchedulerName(Str(p, "schedulerType"))});
  }
  return t;
}

absl::StatusOr<int> ListResourcePools(Session& session, OutputFormat format, std::ostream& out) {
  absl::StatusOr<json> pools = GetAllPages(session, "/api/v1/resource-pools", "resourcePools");
  if (!pools.ok()) return pools.status();
  if (format == OutputFormat::kJson) {
    out << pools->dump(4) << "\n";
  } else {
    out << Render(ResourcePoolTable(*pools), format);
  }
  return 0;
}

namespace {

std::string BindingsPath(const std::string& pool) {
  return absl::StrCat("/api/v1/resource-pools/", client::UrlEncode(pool), "/workspace-bindings");
}

}  // namespace

absl::StatusOr<int> ListPoolBindings(Session& session, const std::string& pool, OutputFormat format,
                                     std::ostream& out) {
  std::vector<std::string> pools;
  if (!pool.empty()) {
    pools.push_back(pool);
  } else {
    absl::StatusOr<json> all = GetAllPages(session, "/api/v1/resource-pools", "resourcePools");
    if (!all.ok()) return all.status();
    for (const json& p : *all) pools.push_back(Str(p, "name"));
  }
  absl::StatusOr<json> workspaces = GetAllPages(session, "/api/v1/workspaces", "workspaces");
  if (!workspaces.ok()) return workspaces.status();
  std::map<int64_t, std::string> names;
  for (const json& w : *workspaces) names[Field(w, "id").get<int64_t>()] = Str(w, "name");
  json listed = json::array();
  Table t({"Resource Pool", "Workspaces"});
  for (const std::string& name : pools) {
    absl::StatusOr<json> bound = session.Get(BindingsPath(name));
    if (!bound.ok()) return bound.status();
    std::vector<std::string> bound_names;
    for (const json& id : Field(*bound, "workspaceIds")) {
      auto it = names.find(id.get<int64_t>());
      bound_names.push_back(it == names.end() ? Cell(id) : it->second);
    }
    listed.push_back({{"resourcePool", name}, {"workspaceIds", Field(*bound, "workspaceIds")},
                      {"workspaceNames", bound_names}});
    t.AddRow({name, bound_names.empty() ? "(unbound: every workspace)" : absl::StrJoin(bound_names, ", ")});
  }
  out << (format == OutputFormat::kJson ? listed.dump(4) + "\n" : Render(t, format));
  return 0;
}

absl::StatusOr<int> ChangePoolBindings(Session& session, const std::string& pool,
                                       const std::vector<std::string>& workspaces, bool bind, std::ostream& out) {
  json body = {{"workspaceNames", workspaces}};
  absl::StatusOr<json> done = bind ? session.Post(BindingsPath(pool), body) : session.Delete(BindingsPath(pool), body);
  if (!done.ok()) return done.status();
  out << (bind ? "Bound" : "Unbound") << " resource pool \"" << pool << "\" " << (bind ? "to" : "from")
      << " workspace(s) " << absl::StrJoin(workspaces, ", ") << ".\n";
  return 0;
}

}  // namespace det::cli
