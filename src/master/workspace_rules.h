#pragma once
// Upstream's rules for workspace and project names and project keys (the store stores; these check).
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "master/db/workspace_store.h"

namespace det::master {

// A workspace or project name: 1 to 80 characters, not blank. InvalidArgument names `field`.
absl::Status CheckWorkspaceOrProjectName(const std::string& name, const std::string& field);

// A key the user gave: 1 to 5 letters or digits, returned upper-cased; InvalidArgument otherwise.
absl::StatusOr<std::string> ProjectKey(const std::string& given);

// A key made from the project's name: its first (up to 3) letters or digits, upper-cased, then
// characters drawn by `random_char` (each a letter or digit) up to 5.
std::string GeneratedProjectKey(const std::string& name, const std::function<char()>& random_char);

// Creates `project` in its workspace under upstream's rules: the workspace exists and is not archived,
// the name is valid and not taken there (case-insensitively), and the key is `given_key` checked, or
// generated (with `random_char`) and drawn again while another project has it.
absl::StatusOr<Project> CreateProjectChecked(WorkspaceStore& store, Project project, const std::string& given_key,
                                             const std::function<char()>& random_char);

}  // namespace det::master
