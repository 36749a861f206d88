#include "master/experiment_template.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "config/merge.h"

namespace det::master {

absl::StatusOr<nlohmann::json> ApplyTemplate(Store& store, const std::string& user_yaml,
                                          const std::string& template_name) {
  ASSIGN_OR_RETURN(nlohmann::json user, ParseYaml(user_yaml));
  if (user.is_object() && user.contains("template")) {
    return absl::InvalidArgumentError(
        "template: an experiment configuration cannot name a template; give the template's name "
        "with the request instead (det experiment create CONFIG DIR --template NAME)");
  }
  if (template_name.empty()) return user;
  if (!user.is_null() && !user.is_object()) {
    return absl::InvalidArgumentError("experiment configuration must be a YAML mapping");
  }
  ASSIGN_OR_RETURN(Template tpl, store.GetTemplate(template_name));
  absl::StatusOr<nlohmann::json> tpl_config = ParseJson(tpl.config_json);
  if (!tpl_config.ok() || !tpl_config->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("template \"", template_name, "\": its config is not a JSON object"));
  }
  if (tpl_config->contains("template")) {
    return absl::InvalidArgumentError(
        absl::StrCat("template \"", template_name,
                     "\": a configuration template cannot use another configuration template "
                     "(remove its `template` key)"));
  }
  return config::MergeExperimentConfig(user, *tpl_config);
}

}  // namespace det::master
