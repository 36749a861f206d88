#pragma once
// `det template` (alias tpl): configuration templates stored by the master (reference §1f).
// Each returns the process exit code, or an error for main() to print as "Error: <message>".
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <map>
#include <string>

#include "absl/status/statusor.h"

namespace det::cli {

class Session;

struct ListTemplatesArgs {
  bool details = false;  // -d/--details: add a Config column with each template's YAML
  bool json = false;     // --json: the templates as the master returns them
};

// Table "Name | Workspace" (upstream's render_objects of TemplateClean), or with details
// "Name | Workspace | Config".
absl::StatusOr<int> ListTemplates(Session& session, const ListTemplatesArgs& args,
                                  std::ostream& out);
// Prints the template's config as YAML.
absl::StatusOr<int> DescribeTemplate(Session& session, const std::string& name, std::ostream& out);
// Creates the template from a YAML file, or replaces the config of an existing one (GET, then
// PATCH or POST, as upstream's `det template set`). Prints "Set template NAME".
absl::StatusOr<int> SetTemplate(Session& session, const std::string& name, const std::string& file,
                                std::ostream& out);
// POST only, in the workspace named `workspace` ("" = the default one): AlreadyExists when the name
// is taken. Prints "Created template NAME".
absl::StatusOr<int> CreateTemplate(Session& session, const std::string& name, const std::string& file,
                                   const std::string& workspace, std::ostream& out);
// PATCH only: NotFound when the template does not exist. Prints "Updated template NAME".
absl::StatusOr<int> UpdateTemplateConfig(Session& session, const std::string& name,
                                         const std::string& file, std::ostream& out);
// Prints "Removed template NAME".
absl::StatusOr<int> RemoveTemplate(Session& session, const std::string& name, std::ostream& out);

// The template config in a YAML file: must be a mapping. Exposed for tests.
absl::StatusOr<nlohmann::json> ReadTemplateFile(const std::string& file);
// `det template list`'s table, each template's workspace named from `workspaces` (id -> name); exposed
// for tests.
std::string RenderTemplates(const nlohmann::json& templates, bool details,
                            const std::map<int64_t, std::string>& workspaces);

}  // namespace det::cli
