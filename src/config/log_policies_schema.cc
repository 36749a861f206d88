#include "config/log_policies_schema.h"

#include "absl/strings/str_cat.h"
#include "common/json_yaml.h"

namespace det::config {
namespace {

using nlohmann::json;

const std::vector<Field>& PolicyFields() {
  static const auto* f = new std::vector<Field>{{.name = "name", .kind = Kind::kString},
                                                {.name = "pattern", .kind = Kind::kString},
                                                {.name = "action"}};
  return *f;
}

const Field& ActionField() {
  static const auto* f = new Field{
      .name = "action", .kind = Kind::kEnum, .allowed = {"cancel_retries", "exclude_node"}};
  return *f;
}

const std::vector<Field>& LegacyActionFields() {
  static const auto* f = new std::vector<Field>{ActionField()};
  return *f;
}

}  // namespace

void CheckLogPolicies(json& policies, Problems& p) {
  if (policies.is_null()) policies = json::array();
  if (!policies.is_array()) {
    p.Add("log_policies", absl::StrCat("must be a list of log policies, got ", Describe(policies)));
    return;
  }
  for (size_t i = 0; i < policies.size(); ++i) {
    json& policy = policies[i];
    std::string item = IndexPath("log_policies", i);
    if (!CheckObject(policy, item, PolicyFields(), p)) continue;
    json& action = policy["action"];
    std::string action_path = JoinPath(item, "action");
    if (action.is_object()) {
      // Legacy {type: cancel_retries}: the `type` key is the action.
      json legacy = {{"action", action.value("type", json())}};
      for (const auto& [key, value] : action.items()) {
        if (key != "type")
          p.Add(action_path, absl::StrCat("unknown key \"", key, "\"; allowed keys are type"));
      }
      if (CheckObject(legacy, item, LegacyActionFields(), p) && !legacy["action"].is_null()) {
        action = legacy["action"];
      } else if (legacy["action"].is_null()) {
        p.Missing(JoinPath(action_path, "type"), "required; one of cancel_retries, exclude_node");
      }
    } else if (!action.is_null()) {
      CheckValue(action, action_path, ActionField(), p);
    }
    if (!IsSet(policy, "name") && !(IsSet(policy, "pattern") && IsSet(policy, "action"))) {
      p.Add(item, "needs a name, or (legacy form) both pattern and action");
    }
  }
  static const json kDefaults = json::array(
      {{{"name", "CUDA OOM"}, {"pattern", ".*CUDA out of memory.*"}, {"action", nullptr}},
       {{"name", "ECC Error"},
        {"pattern", ".*uncorrectable ECC error encountered.*"},
        {"action", nullptr}}});
  for (const json& d : kDefaults) {
    bool present = false;
    for (const json& policy : policies) {
      present = present || (policy.is_object() && policy.value("name", json()) == d["name"]);
    }
    if (!present) policies.push_back(d);
  }
}

}  // namespace det::config
