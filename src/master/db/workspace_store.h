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

inline constexpr int64_t kUncategorizedWorkspace = 1;

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
  std::optional<WallTime> pinned_at;  // by the user who asked; unset = not pinned
};

// The fields of PATCH /api/v1/workspaces/{id}; unset = unchanged, "" clears a JSON setting.
struct WorkspacePatch {
  std::optional<std::string> name;
  std::optional<std::string> agent_user_group_json;
  std::optional<std::string> checkpoint_storage_config_json;
  std::optional<std::string> default_compute_pool;
  std::optional<std::string> default_aux_pool;
};

struct WorkspaceFilter {
  std::string name;                 // exact, case-insensitive unless name_case_sensitive; "" = any
  bool name_case_sensitive = false;
  std::optional<bool> archived;
  std::vector<std::string> usernames;
  std::vector<int64_t> user_ids;
  int64_t viewer_id = 0;          // whose pins `pinned_at` and `pinned` mean
  std::optional<bool> pinned;     // pinned by viewer_id or not
  bool by_name = false;  // else by id
  // The workspaces whose rows the caller may see (rbac); nullopt: every one.
  std::optional<std::vector<int64_t>> visible_workspaces;
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

// A project's changes (PATCH, move, notes); unset = unchanged.
struct ProjectPatch {
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::optional<std::string> key;
  std::optional<std::string> notes_json;
  std::optional<int64_t> workspace_id;
};

// One resource pool bound to one workspace.
struct PoolBinding {
  std::string pool;
  int64_t workspace_id = 0;
};

struct ProjectFilter {
  int64_t workspace_id = 0;  // 0 = any
  // The workspaces whose rows the caller may see (rbac); nullopt: every one.
  std::optional<std::vector<int64_t>> visible_workspaces;
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
  // NotFound `workspace ID not found`; `pinned_at` is `viewer_id`'s pin.
  virtual absl::StatusOr<Workspace> GetWorkspace(int64_t id, int64_t viewer_id) = 0;
  virtual absl::StatusOr<WorkspacePage> ListWorkspaces(const WorkspaceFilter& filter) = 0;
  // Returns the workspace afterwards; AlreadyExists when another has the new name.
  virtual absl::StatusOr<Workspace> PatchWorkspace(int64_t id, const WorkspacePatch& patch) = 0;
  virtual absl::Status SetWorkspaceArchived(int64_t id, bool archived) = 0;
  // Pins or unpins the workspace for one user; idempotent.
  virtual absl::Status SetWorkspacePinned(int64_t id, int64_t user_id, bool pinned) = 0;
  // Every pool binding, by pool then workspace.
  virtual absl::StatusOr<std::vector<PoolBinding>> ListPoolBindings() = 0;
  // Binds or unbinds `pool` and these workspaces (idempotent); `overwrite` first removes the pool's
  // other bindings. One transaction.
  virtual absl::Status BindPool(const std::string& pool, const std::vector<int64_t>& workspace_ids,
                                bool overwrite) = 0;
  virtual absl::Status UnbindPool(const std::string& pool, const std::vector<int64_t>& workspace_ids) = 0;
  // Removes the workspace's row, its projects' rows, its templates, pins and pool bindings; its
  // experiments are the caller's to delete first.
  virtual absl::Status DeleteWorkspace(int64_t id) = 0;
  // Creates `project` (its name, workspace, description, owner, key and created_at) and returns it as
  // stored; AlreadyExists when its workspace holds a project of that name or another has its key.
  virtual absl::StatusOr<Project> InsertProject(const Project& project) = 0;
  // NotFound `project ID not found`.
  virtual absl::StatusOr<Project> GetProject(int64_t id) = 0;
  // NotFound `no project has the key KEY`; keys are upper-case.
  virtual absl::StatusOr<Project> GetProjectByKey(const std::string& key) = 0;
  virtual absl::StatusOr<ProjectPage> ListProjects(const ProjectFilter& filter) = 0;
  // Returns the project afterwards; AlreadyExists when its (new) workspace has a project of that name or
  // another project has the key.
  virtual absl::StatusOr<Project> PatchProject(int64_t id, const ProjectPatch& patch) = 0;
  virtual absl::Status SetProjectArchived(int64_t id, bool archived) = 0;
  // Removes the project's row; its experiments are the caller's to delete first.
  virtual absl::Status DeleteProject(int64_t id) = 0;
};

}  // namespace det::master
