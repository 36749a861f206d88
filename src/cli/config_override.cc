#include "cli/config_override.h"

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/json_yaml.h"

namespace det::cli {
namespace {

using nlohmann::json;

constexpr char kConfigHelp[] =
    "Arguments should be specified as `key=value`. Nested configuration keys can be specified by "
    "dot notation, e.g., `resources.slots_per_trial=4`. List values can be specified by "
    "comma-separated values.";

bool CoercedToList(const std::string& key) { return key == "bind_mounts"; }

absl::StatusOr<json> ParseValue(const std::string& key, const std::string& text) {
  auto parse = [&](const std::string& t) -> absl::StatusOr<json> {
    absl::StatusOr<json> v = ParseYaml(t);
    if (!v.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--config ", key, "=", text, ": ", v.status().message()));
    }
    return v;
  };
  if (absl::StartsWith(text, "[") || absl::StartsWith(text, "{")) {
    absl::StatusOr<json> v = parse(text);
    if (!v.ok()) return v;
    if (CoercedToList(key) && absl::StartsWith(text, "{")) return json::array({*v});
    return v;
  }
  if (text.find(',') != std::string::npos) {
    json list = json::array();
    for (absl::string_view part : absl::StrSplit(text, ',')) {
      absl::StatusOr<json> v = parse(std::string(part));
      if (!v.ok()) return v;
      list.push_back(std::move(*v));
    }
    return list;
  }
  absl::StatusOr<json> v = parse(text);
  if (!v.ok()) return v;
  if (CoercedToList(key)) return json::array({*v});
  return v;
}

}  // namespace

absl::Status ApplyConfigOverride(json& config, const std::string& key_equals_value) {
  size_t eq = key_equals_value.find('=');
  if (eq == std::string::npos || eq == 0) {
    return absl::InvalidArgumentError(absl::StrCat("Could not read configuration option '",
                                                   key_equals_value, "'. ", kConfigHelp));
  }
  std::string key = key_equals_value.substr(0, eq);
  std::string text = key_equals_value.substr(eq + 1);
  absl::StatusOr<json> value = ParseValue(key, text);
  if (!value.ok()) return value.status();

  // As upstream's CLI: the value replaces whatever is at the dotted key (an object there is not
  // merged into); missing, null or non-object keys along the path become objects.
  std::vector<std::string> path = absl::StrSplit(key, '.');
  if (!config.is_object()) config = json::object();
  json* node = &config;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    json& next = (*node)[path[i]];
    if (!next.is_object()) next = json::object();
    node = &next;
  }
  (*node)[path.back()] = std::move(*value);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ConfigTextWithOverrides(const std::string& yaml_text,
                                                    const std::vector<std::string>& overrides,
                                                    const std::string& path,
                                                    std::string_view what) {
  absl::StatusOr<json> config = ParseYaml(yaml_text);
  if (!config.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid ", std::string(what), " ", path, ": ", config.status().message()));
  }
  if (!config->is_object() || config->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid ", std::string(what), " ", path,
                     ": expected a YAML mapping of settings"));
  }
  if (overrides.empty()) return yaml_text;
  for (const std::string& o : overrides) {
    absl::Status s = ApplyConfigOverride(*config, o);
    if (!s.ok()) return s;
  }
  return ToYaml(*config);
}

}  // namespace det::cli
