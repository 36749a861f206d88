#pragma once
// `--config KEY=VALUE` overrides, with upstream's rules
// (determined.cli.ntsc.parse_config_overrides):
//  - KEY is a dotted path (`resources.slots_per_trial`); missing or null objects on the way are
//    created, non-objects replaced;
//  - VALUE starting with '[' or '{' is parsed as (flow) YAML; otherwise a VALUE with commas becomes
//  a
//    list of YAML-typed items; otherwise it is one YAML-typed scalar ("4" -> 4, "true" -> true);
//  - `bind_mounts` always gets a list (a single value or object is wrapped);
//  - object values are merged into existing objects, other values replace.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det::cli {

absl::Status ApplyConfigOverride(nlohmann::json& config, const std::string& key_equals_value);

// Parses a config file's text. Without overrides the text is returned unchanged (keeping the
// user's comments, as upstream does); with overrides it is re-dumped as YAML. Errors name the file
// as "invalid <what> <path>". The config must be a non-empty YAML mapping.
absl::StatusOr<std::string> ConfigTextWithOverrides(
    const std::string& yaml_text, const std::vector<std::string>& overrides,
    const std::string& path, std::string_view what = "experiment config file");

}  // namespace det::cli
