#pragma once
// `det model` (alias m): the model registry, /api/v1/models. Models are named by name (or id) on the
// command line, as upstream's CLI does.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/experiment_view.h"
#include "cli/table.h"

namespace det::cli {

class Session;

struct ModelListArgs {
  std::vector<std::string> workspace_names;
  std::string sort_by = "name";  // name, description, creation_time, last_updated_time
  std::string order_by = "asc";
};

// `det model list`: ID, Name, Description, Workspace, # Versions, Labels, Last Updated, Archived.
absl::StatusOr<int> ListModels(Session& session, const ModelListArgs& args, OutputFormat format, std::ostream& out);
// `det model create NAME [--description D] [-w WS]`; prints the new model.
absl::StatusOr<int> CreateModel(Session& session, const std::string& name, const std::string& description,
                                const std::string& workspace, OutputFormat format, std::ostream& out);
// `det model describe NAME [--version N]`: the model and one version (the latest when not given).
absl::StatusOr<int> DescribeModel(Session& session, const std::string& name, std::optional<int64_t> version,
                                  OutputFormat format, std::ostream& out);
// `det model list-versions NAME`.
absl::StatusOr<int> ListModelVersions(Session& session, const std::string& name, OutputFormat format,
                                      std::ostream& out);
// `det model register-version NAME UUID`; prints the new version.
absl::StatusOr<int> RegisterModelVersion(Session& session, const std::string& name, const std::string& uuid,
                                         OutputFormat format, std::ostream& out);
// `det model delete NAME`.
absl::StatusOr<int> DeleteModel(Session& session, const std::string& name, std::ostream& out);
// `det model move NAME -w WS`.
absl::StatusOr<int> MoveModel(Session& session, const std::string& name, const std::string& workspace,
                              std::ostream& out);
// `det model download NAME [--version N] [-o DIR]`: that version's (the latest's) checkpoint, as `det
// checkpoint download` fetches it.
absl::StatusOr<int> DownloadModelVersion(Session& session, const std::string& name, std::optional<int64_t> version,
                                         const std::string& output_dir, std::ostream& out);

// Exposed for tests.
Table ModelTable(const nlohmann::json& models);
Table ModelVersionTable(const nlohmann::json& versions);

}  // namespace det::cli
