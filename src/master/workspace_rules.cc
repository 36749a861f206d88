#include "master/workspace_rules.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace det::master {

namespace {
constexpr size_t kMaxNameLength = 80;
constexpr size_t kKeyLength = 5;
}  // namespace

absl::Status CheckWorkspaceOrProjectName(const std::string& name, const std::string& field) {
  if (absl::StripAsciiWhitespace(name).empty()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": a name is required (1 to 80 characters)"));
  }
  if (name.size() > kMaxNameLength) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": at most 80 characters, got ", name.size(), " (\"", name.substr(0, 20), "...\")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ProjectKey(const std::string& given) {
  bool alnum = !given.empty() && given.size() <= kKeyLength;
  for (char c : given) alnum = alnum && absl::ascii_isalnum(static_cast<unsigned char>(c));
  if (!alnum) {
    return absl::InvalidArgumentError(
        absl::StrCat("key: 1 to 5 letters or digits, got \"", given, "\""));
  }
  return absl::AsciiStrToUpper(given);
}

std::string GeneratedProjectKey(const std::string& name, const std::function<char()>& random_char) {
  std::string key;
  for (char c : name) {
    if (key.size() == 3) break;
    if (absl::ascii_isalnum(static_cast<unsigned char>(c))) key += absl::ascii_toupper(static_cast<unsigned char>(c));
  }
  while (key.size() < kKeyLength) key += absl::ascii_toupper(static_cast<unsigned char>(random_char()));
  return key;
}

absl::StatusOr<Project> CreateProjectChecked(WorkspaceStore& store, Project project, const std::string& given_key,
                                             const std::function<char()>& random_char) {
  absl::StatusOr<Workspace> workspace = store.GetWorkspace(project.workspace_id);
  if (!workspace.ok()) return workspace.status();
  if (workspace->archived) {
    return absl::FailedPreconditionError(absl::StrCat("workspace ", workspace->id, " (", workspace->name,
                                                      ") is archived; unarchive it to add projects"));
  }
  if (absl::Status name = CheckWorkspaceOrProjectName(project.name, "name"); !name.ok()) return name;
  absl::StatusOr<ProjectPage> same_name = store.ListProjects({.workspace_id = workspace->id, .name = project.name});
  if (!same_name.ok()) return same_name.status();
  if (same_name->total > 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("workspace ", workspace->name, " already has a project named \"", project.name, "\""));
  }
  if (!given_key.empty()) {
    absl::StatusOr<std::string> key = ProjectKey(given_key);
    if (!key.ok()) return key.status();
    project.key = *key;
    absl::StatusOr<Project> created = store.InsertProject(project);
    if (absl::IsAlreadyExists(created.status())) {
      return absl::AlreadyExistsError(absl::StrCat("key ", project.key, " is another project's; choose another"));
    }
    return created;
  }
  constexpr int kKeyDraws = 20;
  for (int draw = 1;; ++draw) {
    project.key = GeneratedProjectKey(project.name, random_char);
    absl::StatusOr<Project> created = store.InsertProject(project);
    if (created.ok() || !absl::IsAlreadyExists(created.status()) || draw == kKeyDraws) return created;
  }
}

}  // namespace det::master
