#pragma once
// Applying a configuration template at experiment creation (reference §3.1 step 2).
#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "master/db/store.h"

namespace det::master {

// The configuration to validate for a new experiment: `user_yaml` parsed when `template_name` is
// empty, else the user's config merged over the named template (config::MergeExperimentConfig: the
// user wins, the template fills gaps). The result is not validated here.
// Errors: InvalidArgument when the user's config is not a YAML mapping or has a `template` key
// (templates are named in the request, not in the config), or when the template's config itself
// names a template; NotFound `template "NAME" not found`.
absl::StatusOr<nlohmann::json> ApplyTemplate(Store& store, const std::string& user_yaml,
                                          const std::string& template_name);

}  // namespace det::master
