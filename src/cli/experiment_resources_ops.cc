#include "cli/experiment_resources_ops.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "cli/job_ops.h"
#include "cli/paging.h"
#include "cli/session.h"

namespace det::cli {

using nlohmann::json;

namespace {

// Weight and max_slots are the fair-share scheduler's: under another, says the value is kept but
// not enforced (empty when it is, or when the pool cannot be read).
std::string UnenforcedNote(Session& session, const json& patched, const std::string& field) {
  const json& experiment = patched.is_object() ? patched.value("experiment", json::object()) : json::object();
  std::string pool = experiment.value("resourcePool", "");
  if (pool.empty()) return "";
  absl::StatusOr<json> pools = GetAllPages(session, "/api/v1/resource-pools", "resourcePools");
  if (!pools.ok() || !pools->is_array()) return "";
  for (const json& p : *pools) {
    if (!p.is_object() || p.value("name", "") != pool) continue;
    std::string scheduler = p.value("schedulerType", "");
    if (scheduler == "SCHEDULER_TYPE_FAIR_SHARE") return "";
    std::string name = scheduler == "SCHEDULER_TYPE_PRIORITY" ? "priority"
                       : scheduler == "SCHEDULER_TYPE_ROUND_ROBIN" ? "round_robin" : scheduler;
    return absl::StrCat(" (kept, but not enforced: resource pool \"", pool, "\" uses the ", name,
                        " scheduler, and only fair_share uses ", field, ")");
  }
  return "";
}

}  // namespace

absl::StatusOr<json> ExperimentResourcesPatch(int experiment_id,
                                              const ExperimentResourcesChange& change) {
  int set = change.priority.has_value() + change.weight.has_value() + change.max_slots.has_value();
  if (set != 1) return absl::InvalidArgumentError("set exactly one of priority, weight, max_slots");
  json resources = json::object();
  if (change.priority) resources["priority"] = *change.priority;
  if (change.weight) resources["weight"] = *change.weight;
  if (change.max_slots) resources["maxSlots"] = *change.max_slots;
  return json{{"id", experiment_id}, {"resources", resources}};
}

absl::StatusOr<int> SetExperimentResources(Session& session, int experiment_id,
                                           const ExperimentResourcesChange& change,
                                           std::ostream& out) {
  absl::StatusOr<json> body = ExperimentResourcesPatch(experiment_id, change);
  if (!body.ok()) return body.status();
  absl::StatusOr<json> resp =
      session.Patch(absl::StrCat("/api/v1/experiments/", experiment_id), *body);
  if (!resp.ok()) return resp.status();
  std::string field = change.priority ? "priority" : change.weight ? "weight" : "max_slots";
  std::string value = change.priority ? std::to_string(*change.priority)
                      : change.weight ? PythonFloat(*change.weight)
                                      : std::to_string(*change.max_slots);
  out << "Set `" << field << "` of experiment " << experiment_id << " to " << value;
  if (!change.priority) out << UnenforcedNote(session, *resp, field);
  out << "\n";
  return 0;
}

}  // namespace det::cli
