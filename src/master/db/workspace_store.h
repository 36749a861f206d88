#pragma once
// Workspaces and their projects (upstream's): where experiments are organised. Workspace 1 and project
// 1, "Uncategorized", are built in and immutable.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/time_util.h"

namespace det::master {

struct Workspace {
  int64_t id = 0;
  std::string name;
  bool archived = false;
  bool immutable = false;
  int64_t user_id = 0;
  std::string username;
  WallTime created_at;
  std::string agent_user_group_json;           // "" = none
  std::string checkpoint_storage_config_json;  // "" = none
  std::string default_compute_pool;
  std::string default_aux_pool;
  int64_t num_projects = 0;
  int64_t num_experiments = 0;
};

struct WorkspaceFilter {
  std::string name;                 // exact, case-insensitive unless name_case_sensitive; "" = any
  bool name_case_sensitive = false;
  std::optional<bool> archived;
  std::vector<std::string> usernames;
  std::vector<int64_t> user_ids;
  bool by_name = false;  // else by id
  bool descending = false;
  int64_t offset = 0;
  int64_t limit = 0;  // 0 = all
};

struct WorkspacePage {
  std::vector<Workspace> workspaces;
  int64_t total = 0;  // matching before offset/limit
};

struct Project {
  int64_t id = 0;
  std::string name;
  int64_t workspace_id = 0;
  std::string workspace_name;
  std::string description;
  bool archived = false;  // its own flag or its workspace's
  bool immutable = false;
  int64_t user_id = 0;
  std::string username;
  WallTime created_at;
  std::string notes_json = "[]";  // [{name, contents}]
  std::string key;
  int64_t num_experiments = 0;
  int64_t num_active_experiments = 0;
  std::optional<WallTime> last_experiment_started_at;
};

struct ProjectFilter {
  int64_t workspace_id = 0;  // 0 = any
  std::string name;          // exact, case-insensitive; "" = any
  std::optional<bool> archived;
  std::vector<std::string> usernames;
  std::vector<int64_t> user_ids;
  enum class SortBy { kId, kName, kCreationTime, kLastExperimentStartTime, kDescription } sort_by = SortBy::kCreationTime;
  bool descending = false;
  int64_t offset = 0;
  int64_t limit = 0;  // 0 = all
};

struct ProjectPage {
  std::vector<Project> projects;
  int64_t total = 0;
};

class WorkspaceStore {
 public:
  virtual ~WorkspaceStore() = default;

  // Creates `workspace` (its name, owner, settings and created_at) and returns it as stored;
  // AlreadyExists `workspace "NAME" already exists`.
  virtual absl::StatusOr<Workspace> InsertWorkspace(const Workspace& workspace) = 0;
  // NotFound `workspace ID not found`.
  virtual absl::StatusOr<Workspace> GetWorkspace(int64_t id) = 0;
  virtual absl::StatusOr<WorkspacePage> ListWorkspaces(const WorkspaceFilter& filter) = 0;
  // Creates `project` (its name, workspace, description, owner, key and created_at) and returns it as
  // stored; AlreadyExists when its workspace holds a project of that name or another has its key.
  virtual absl::StatusOr<Project> InsertProject(const Project& project) = 0;
  // NotFound `project ID not found`.
  virtual absl::StatusOr<Project> GetProject(int64_t id) = 0;
  virtual absl::StatusOr<ProjectPage> ListProjects(const ProjectFilter& filter) = 0;
};

}  // namespace det::master
