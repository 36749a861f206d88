#pragma once
// Store over a SqlDatabase: the same SQL on SQLite and PostgreSQL (sql/sql_dialect.h has the few
// spellings that differ). Each area's methods live in sql_store_<area>.cc.
#include <algorithm>
#include <memory>
#include <string>

#include "master/db/migrations.h"
#include "master/db/sql/sql_connection.h"
#include "master/db/store.h"

namespace det::master {

class SqlStore : public Store {
 public:
  // Applies the pending migrations of the database's dialect.
  static absl::StatusOr<std::unique_ptr<SqlStore>> Open(std::unique_ptr<SqlDatabase> db);

  SqlDialect dialect() const { return db_->dialect(); }
  SqlDatabase& database() { return *db_; }
  // True when this Open created the schema (and with it the admin and determined users).
  bool created() const { return created_; }

  std::vector<absl::Status> WriteBatch(const std::vector<Write>& writes) override;

  absl::StatusOr<api::User> GetUserByName(const std::string& username) override;
  absl::StatusOr<api::User> GetUser(int64_t id) override;
  absl::Status AddSession(const std::string& token_hash, int64_t user_id, WallTime expiry) override;
  absl::StatusOr<int64_t> LookupSession(const std::string& token_hash, WallTime now) override;
  absl::Status DeleteSession(const std::string& token_hash) override;
  absl::Status SetUserPasswordHash(int64_t user_id, const std::optional<std::string>& hash) override;
  absl::StatusOr<api::User> InsertUser(const api::User& user) override;
  absl::StatusOr<api::User> UpdateUser(int64_t id, const UserPatch& patch) override;
  absl::StatusOr<UserPage> ListUsers(const UserFilter& filter) override;
  absl::Status DeleteUserSessions(int64_t user_id) override;

  absl::StatusOr<int64_t> AddAccessToken(const NewAccessToken& token) override;
  absl::StatusOr<AccessTokenInfo> GetAccessToken(int64_t id) override;
  absl::StatusOr<std::vector<AccessTokenInfo>> ListAccessTokens(const AccessTokenFilter& filter) override;
  absl::StatusOr<AccessTokenInfo> UpdateAccessToken(int64_t id, const AccessTokenPatch& patch,
                                                    WallTime now) override;

  absl::StatusOr<HighestIds> GetHighestIds() override;
  absl::StatusOr<int64_t> InsertExperiment(const api::Experiment& experiment,
                                           const std::string& model_definition_tgz) override;
  absl::Status UpdateExperimentState(int64_t id, api::ExperimentState state,
                                     std::optional<WallTime> end_time, double progress) override;
  absl::StatusOr<api::Experiment> GetExperiment(int64_t id) override;
  absl::StatusOr<std::vector<api::Experiment>> ListExperiments(const ExperimentFilter& filter) override;
  absl::StatusOr<int64_t> CountExperiments(const ExperimentFilter& filter) override;
  absl::StatusOr<std::string> GetModelDefinition(int64_t experiment_id) override;
  absl::StatusOr<SearcherMetric> GetSearcherMetric(int64_t experiment_id) override;
  absl::StatusOr<api::Experiment> PatchExperiment(int64_t id, const ExperimentPatch& patch) override;
  absl::Status SetExperimentProject(int64_t id, int64_t project_id) override;
  absl::StatusOr<api::ExperimentState> SetExperimentArchived(
      int64_t id, bool archived, const std::vector<api::ExperimentState>& only_in) override;
  absl::StatusOr<api::ExperimentState> SetExperimentState(
      int64_t id, api::ExperimentState state, const std::vector<api::ExperimentState>& only_in) override;
  absl::StatusOr<api::ExperimentState> DeleteExperiment(int64_t id,
                                                        const std::vector<api::ExperimentState>& only_in) override;
  absl::Status SaveSearcherSnapshot(int64_t experiment_id, const std::string& snapshot_json) override;
  absl::Status AppendSearcherEvents(int64_t experiment_id, int64_t first_seq,
                                    const std::vector<std::string>& events) override;
  absl::StatusOr<SavedSearcher> GetSearcher(int64_t experiment_id) override;

  absl::StatusOr<int64_t> InsertTrial(const api::Trial& trial) override;
  absl::Status UpdateTrialLifecycle(const api::Trial& trial) override;
  absl::StatusOr<api::Trial> GetTrial(int64_t id) override;
  absl::StatusOr<api::Trial> GetTrialByTaskId(const std::string& task_id) override;
  absl::StatusOr<std::vector<api::Trial>> ListTrials(int64_t experiment_id) override;

  absl::Status InsertTask(const Task& task, const std::string& context_tgz) override;
  absl::Status UpdateTask(const Task& task) override;
  absl::StatusOr<Task> GetTask(const std::string& task_id) override;
  absl::StatusOr<std::vector<Task>> ListTasks(const TaskFilter& filter) override;
  absl::StatusOr<int64_t> CountTasks(const TaskFilter& filter) override;
  absl::StatusOr<std::string> GetTaskContext(const std::string& task_id) override;
  absl::StatusOr<std::vector<Allocation>> ListAllocations(const std::string& task_id) override;
  absl::StatusOr<std::vector<Allocation>> ListAllocationsOverlapping(WallTime begin, WallTime end) override;

  absl::Status InsertAllocation(const Allocation& allocation) override;
  absl::Status UpdateAllocation(const Allocation& allocation) override;
  absl::StatusOr<Allocation> GetAllocation(const std::string& allocation_id) override;
  absl::StatusOr<Allocation> GetAllocationByTokenHash(const std::string& token_hash) override;

  // SQLite: one, the writer. PostgreSQL: one a side writer (sql_connection.h).
  int MetricWriters() const override { return std::max(1, db_->SideWriters()); }
  absl::StatusOr<std::vector<std::vector<int64_t>>> AddMetricsBatch(const std::vector<TrialReports>& parts,
                                                                    int writer) override;
  absl::StatusOr<std::vector<api::MetricsReport>> GetMetrics(int64_t trial_id, const std::string& group,
                                                             const BatchRange& range) override;

  absl::Status AddCheckpoint(const api::Checkpoint& checkpoint, int64_t size_bytes) override;
  absl::StatusOr<api::Checkpoint> GetCheckpoint(const std::string& uuid) override;
  absl::StatusOr<std::vector<api::Checkpoint>> ListCheckpoints(int64_t experiment_id) override;
  absl::Status MarkCheckpointDeleted(const std::string& uuid) override;
  absl::StatusOr<int64_t> CheckpointStorageId(const std::string& config_json) override;
  absl::Status MarkCheckpointPartiallyDeleted(const std::string& uuid, const std::string& resources_json) override;
  absl::Status SetCheckpointMetadata(const std::string& uuid, const std::string& metadata_json) override;
  absl::Status SetCheckpointGcPending(int64_t experiment_id, bool pending) override;
  absl::StatusOr<std::vector<int64_t>> ListCheckpointGcPending() override;

  absl::Status AddTaskLogs(const std::vector<api::TaskLog>& logs) override;
  absl::StatusOr<std::vector<api::TaskLog>> GetTaskLogs(const std::string& task_id, int64_t after_id,
                                                        int limit, const TaskLogFilter& filter) override;
  absl::StatusOr<std::vector<api::TaskLog>> GetTaskLogsNewestFirst(const std::string& task_id, int64_t before_id,
                                                                   int limit, const TaskLogFilter& filter) override;
  absl::StatusOr<TaskLogFields> GetTaskLogFields(const std::string& task_id) override;
  absl::Status SetExperimentLogRetentionDays(int64_t experiment_id, int days) override;
  absl::Status SetTrialLogRetentionDays(int64_t trial_id, int days) override;
  absl::StatusOr<int64_t> DeleteExpiredTaskLogs(WallTime now, std::optional<int> default_days) override;

  absl::Status InsertTemplate(const Template& tpl) override;
  absl::Status PutTemplate(const Template& tpl) override;
  absl::StatusOr<Template> GetTemplate(const std::string& name) override;
  absl::StatusOr<TemplatePage> ListTemplates(const TemplateFilter& filter) override;
  absl::Status UpdateTemplateConfig(const std::string& name, const std::string& config_json) override;
  absl::Status RenameTemplate(const std::string& old_name, const std::string& new_name) override;
  absl::Status DeleteTemplate(const std::string& name) override;

  absl::StatusOr<Model> InsertModel(const Model& model) override;
  absl::StatusOr<Model> GetModel(int64_t id) override;
  absl::StatusOr<Model> GetModelByName(const std::string& name) override;
  absl::StatusOr<ModelPage> ListModels(const ModelFilter& filter) override;
  absl::StatusOr<Model> PatchModel(int64_t id, const ModelPatch& patch) override;
  absl::Status SetModelArchived(int64_t id, bool archived) override;
  absl::Status DeleteModel(int64_t id) override;
  absl::StatusOr<std::vector<std::string>> ListModelLabels(int64_t workspace_id) override;
  absl::StatusOr<ModelVersion> InsertModelVersion(const ModelVersion& version) override;
  absl::StatusOr<ModelVersion> GetModelVersion(int64_t model_id, int64_t version) override;
  absl::StatusOr<std::vector<ModelVersion>> ListModelVersions(int64_t model_id, bool descending) override;
  absl::StatusOr<ModelVersion> PatchModelVersion(int64_t model_id, int64_t version,
                                                 const ModelVersionPatch& patch) override;
  absl::Status DeleteModelVersion(int64_t model_id, int64_t version) override;
  absl::StatusOr<std::vector<Registration>> ListRegistrations(const std::vector<std::string>& uuids,
                                                              int64_t experiment_id) override;
  absl::Status AddTrialSourceInfo(const TrialSourceInfo& info) override;
  absl::StatusOr<std::vector<TrialSourceInfo>> ListTrialSourceInfos(const TrialSourceFilter& filter) override;
  absl::StatusOr<Workspace> InsertWorkspace(const Workspace& workspace) override;
  absl::StatusOr<Workspace> GetWorkspace(int64_t id, int64_t viewer_id) override;
  absl::StatusOr<WorkspacePage> ListWorkspaces(const WorkspaceFilter& filter) override;
  absl::StatusOr<Workspace> PatchWorkspace(int64_t id, const WorkspacePatch& patch) override;
  absl::Status SetWorkspaceArchived(int64_t id, bool archived) override;
  absl::Status SetWorkspacePinned(int64_t id, int64_t user_id, bool pinned) override;
  absl::Status DeleteWorkspace(int64_t id) override;
  absl::StatusOr<std::vector<PoolBinding>> ListPoolBindings() override;
  absl::Status BindPool(const std::string& pool, const std::vector<int64_t>& workspace_ids, bool overwrite) override;
  absl::Status UnbindPool(const std::string& pool, const std::vector<int64_t>& workspace_ids) override;
  absl::StatusOr<Project> InsertProject(const Project& project) override;
  absl::StatusOr<Project> GetProject(int64_t id) override;
  absl::StatusOr<Project> GetProjectByKey(const std::string& key) override;
  absl::StatusOr<ProjectPage> ListProjects(const ProjectFilter& filter) override;
  absl::StatusOr<Project> PatchProject(int64_t id, const ProjectPatch& patch) override;
  absl::Status SetProjectArchived(int64_t id, bool archived) override;
  absl::Status DeleteProject(int64_t id) override;

  absl::StatusOr<Group> InsertGroup(const std::string& name, const std::vector<int64_t>& members) override;
  absl::StatusOr<Group> GetGroup(int64_t id) override;
  absl::StatusOr<GroupPage> ListGroups(const GroupFilter& filter) override;
  absl::StatusOr<std::vector<int64_t>> ListGroupMembers(int64_t id) override;
  absl::StatusOr<Group> UpdateGroup(int64_t id, const std::optional<std::string>& name, const std::vector<int64_t>& add,
                                    const std::vector<int64_t>& remove) override;
  absl::Status DeleteGroup(int64_t id) override;
  absl::StatusOr<int64_t> PersonalGroupOf(int64_t user_id) override;
  absl::Status AddRoleAssignments(const std::vector<rbac::Assignment>& assignments) override;
  absl::Status RemoveRoleAssignments(const std::vector<rbac::Assignment>& assignments) override;
  absl::StatusOr<std::vector<rbac::Assignment>> ListUserRoleAssignments(int64_t user_id) override;
  absl::StatusOr<std::vector<rbac::Assignment>> ListRoleAssignments(const RoleAssignmentFilter& filter) override;
  absl::StatusOr<std::optional<int64_t>> RbacSeededAt() override;
  absl::Status SetRbacSeededAt(int64_t micros) override;

 private:
  explicit SqlStore(std::unique_ptr<SqlDatabase> db) : db_(std::move(db)) {}
  // Runs `sql` (binding group_id, role_id, scope_workspace_id) for each assignment, in one transaction.
  absl::Status EachAssignment(const char* sql, const std::vector<rbac::Assignment>& assignments);
  SqlLease Writer() { return db_->Writer(); }
  SqlLease Reader() { return db_->Reader(); }

  std::unique_ptr<SqlDatabase> db_;
  bool created_ = false;
};

}  // namespace det::master
