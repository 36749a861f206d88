#include "cli/preview_search_ops.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "searcher/preview.h"

namespace det::cli {

absl::StatusOr<int> PreviewSearch(Session& session, const std::string& config_file, bool json) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(config_file));
  ASSIGN_OR_RETURN(nlohmann::json config, ParseYaml(text));
  if (!config.is_object()) {
    return absl::InvalidArgumentError(config_file + ": the experiment config must be a YAML mapping");
  }
  ASSIGN_OR_RETURN(nlohmann::json response, session.Post("/api/v1/preview-hp-search", {{"config", config}}));
  if (json) {
    std::cout << response.dump(2) << "\n";
  } else {
    std::cout << searcher::FormatPreview(response.value("preview", nlohmann::json::object()));
  }
  return 0;
}

}  // namespace det::cli
