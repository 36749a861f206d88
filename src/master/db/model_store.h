#pragma once
// The model registry (upstream's): models, each in a workspace, and their numbered versions, each a
// registered checkpoint.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/time_util.h"

namespace det::master {

struct Model {
  int64_t id = 0;
  std::string name;
  std::string description;
  std::string metadata_json = "{}";
  std::vector<std::string> labels;
  std::string notes;
  int64_t workspace_id = 1;
  int64_t user_id = 0;
  std::string username;
  bool archived = false;
  WallTime creation_time;
  WallTime last_updated_time;
  int64_t num_versions = 0;
};

struct ModelFilter {
  std::string name;         // exact; "" = any
  std::string description;  // case-insensitive substring; "" = any
  std::vector<std::string> labels;  // the model has every one
  std::optional<bool> archived;
  std::vector<std::string> usernames;
  std::vector<int64_t> user_ids;
  std::vector<int64_t> workspace_ids;
  std::vector<std::string> workspace_names;
  // The workspaces whose rows the caller may see (rbac); nullopt: every one.
  std::optional<std::vector<int64_t>> visible_workspaces;
  int64_t id = 0;  // 0 = any
  enum class SortBy { kName, kDescription, kCreationTime, kLastUpdatedTime, kNumVersions, kWorkspace } sort_by =
      SortBy::kName;
  bool descending = false;
  int64_t offset = 0;
  int64_t limit = 0;  // 0 = all
};

struct ModelPage {
  std::vector<Model> models;
  int64_t total = 0;
};

// A model's changes; unset = unchanged.
struct ModelPatch {
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::optional<std::string> metadata_json;
  std::optional<std::vector<std::string>> labels;
  std::optional<std::string> notes;
  std::optional<int64_t> workspace_id;
};

struct ModelVersion {
  int64_t id = 0;
  int64_t model_id = 0;
  int64_t version = 0;  // 1, 2, ... within its model
  std::string checkpoint_uuid;
  std::string name;
  std::string comment;
  std::string metadata_json = "{}";
  std::vector<std::string> labels;
  std::string notes;
  int64_t user_id = 0;
  std::string username;
  WallTime creation_time;
  WallTime last_updated_time;
};

struct ModelVersionPatch {
  std::optional<std::string> name;
  std::optional<std::string> comment;
  std::optional<std::string> metadata_json;
  std::optional<std::vector<std::string>> labels;
  std::optional<std::string> notes;
};

// A checkpoint's place in the registry: which model's which version holds it.
struct Registration {
  std::string checkpoint_uuid;
  std::string model_name;
  int64_t version = 0;
};

// A trial that used a checkpoint (upstream's trial source info): an inference or fine-tuning run,
// linked to the model version that holds the checkpoint when it named one.
struct TrialSourceInfo {
  int64_t trial_id = 0;
  std::string checkpoint_uuid;
  std::optional<int64_t> model_id;
  std::optional<int64_t> model_version;
  std::string type;  // upstream's enum name: TRIAL_SOURCE_INFO_TYPE_INFERENCE or _FINE_TUNING
};

// Which links to list: those of a checkpoint, or of a model version; unset = any.
struct TrialSourceFilter {
  std::string checkpoint_uuid;
  std::optional<int64_t> model_id;
  std::optional<int64_t> model_version;
  std::string type;
};

class ModelStore {
 public:
  virtual ~ModelStore() = default;

  // Returns the model as stored; AlreadyExists `a model named "NAME" already exists`.
  virtual absl::StatusOr<Model> InsertModel(const Model& model) = 0;
  // NotFound `model ID not found` / `model "NAME" not found`.
  virtual absl::StatusOr<Model> GetModel(int64_t id) = 0;
  virtual absl::StatusOr<Model> GetModelByName(const std::string& name) = 0;
  virtual absl::StatusOr<ModelPage> ListModels(const ModelFilter& filter) = 0;
  // Sets the fields given and last_updated_time; AlreadyExists on a name another model has.
  virtual absl::StatusOr<Model> PatchModel(int64_t id, const ModelPatch& patch) = 0;
  virtual absl::Status SetModelArchived(int64_t id, bool archived) = 0;
  // Removes the model and its versions.
  virtual absl::Status DeleteModel(int64_t id) = 0;
  // The labels of the models in `workspace_id` (0 = all), most used first.
  virtual absl::StatusOr<std::vector<std::string>> ListModelLabels(int64_t workspace_id) = 0;

  // Registers `version.checkpoint_uuid` as the model's next version (one more than its highest ever)
  // and returns it as stored.
  virtual absl::StatusOr<ModelVersion> InsertModelVersion(const ModelVersion& version) = 0;
  // NotFound `model ID has no version N`.
  virtual absl::StatusOr<ModelVersion> GetModelVersion(int64_t model_id, int64_t version) = 0;
  // Oldest first (or newest with `descending`).
  virtual absl::StatusOr<std::vector<ModelVersion>> ListModelVersions(int64_t model_id, bool descending) = 0;
  virtual absl::StatusOr<ModelVersion> PatchModelVersion(int64_t model_id, int64_t version,
                                                         const ModelVersionPatch& patch) = 0;
  virtual absl::Status DeleteModelVersion(int64_t model_id, int64_t version) = 0;

  // Where these checkpoints are registered, or the checkpoints of one experiment (0 = not by experiment).
  virtual absl::StatusOr<std::vector<Registration>> ListRegistrations(const std::vector<std::string>& uuids,
                                                                      int64_t experiment_id) = 0;

  virtual absl::Status AddTrialSourceInfo(const TrialSourceInfo& info) = 0;
  // Oldest first.
  virtual absl::StatusOr<std::vector<TrialSourceInfo>> ListTrialSourceInfos(const TrialSourceFilter& filter) = 0;
};

}  // namespace det::master
