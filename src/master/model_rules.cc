#include "master/model_rules.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "master/workspace_rules.h"

namespace det::master {
namespace {

absl::Status RefuseArchived(const Model& model, const char* what) {
  if (!model.archived) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("model \"", model.name, "\" is archived: it ", what, "; unarchive it first"));
}

std::vector<std::string> Deduplicated(const std::vector<std::string>& labels) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& l : labels) {
    if (seen.insert(l).second) out.push_back(l);
  }
  return out;
}

}  // namespace

absl::Status CheckModelName(const std::string& name) {
  if (absl::StripAsciiWhitespace(name).empty()) return absl::InvalidArgumentError("name: a model needs a name");
  if (absl::StrContains(name, "/") || absl::StrContains(name, "\\")) {
    return absl::InvalidArgumentError(absl::StrCat("name: \"", name, "\" has a slash; model names may not"));
  }
  if (absl::StrContains(name, "  ")) {
    return absl::InvalidArgumentError(absl::StrCat("name: \"", name, "\" has two spaces in a row; use one"));
  }
  if (std::all_of(name.begin(), name.end(), [](char c) { return absl::ascii_isdigit(static_cast<unsigned char>(c)); })) {
    return absl::InvalidArgumentError(
        absl::StrCat("name: \"", name, "\" is only digits, which paths read as a model id; add a letter"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Model> FindModel(ModelStore& store, const std::string& name_or_id) {
  int64_t id = 0;
  if (!name_or_id.empty() && absl::SimpleAtoi(name_or_id, &id) &&
      std::all_of(name_or_id.begin(), name_or_id.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return store.GetModel(id);
  }
  return store.GetModelByName(name_or_id);
}

absl::StatusOr<Model> CreateModelChecked(Store& store, const Model& model) {
  RETURN_IF_ERROR(CheckModelName(model.name));
  RETURN_IF_ERROR(WorkspaceForNewWork(store, model.workspace_id, "models").status());
  Model deduplicated = model;
  deduplicated.labels = Deduplicated(model.labels);
  return store.InsertModel(deduplicated);
}

absl::StatusOr<Model> PatchModelChecked(Store& store, const Model& model, ModelPatch patch) {
  RETURN_IF_ERROR(RefuseArchived(model, "cannot be changed"));
  if (patch.name) RETURN_IF_ERROR(CheckModelName(*patch.name));
  if (patch.workspace_id) RETURN_IF_ERROR(WorkspaceForNewWork(store, *patch.workspace_id, "models").status());
  if (patch.labels) patch.labels = Deduplicated(*patch.labels);
  return store.PatchModel(model.id, patch);
}

absl::StatusOr<ModelVersion> RegisterVersionChecked(Store& store, const Model& model, ModelVersion version) {
  RETURN_IF_ERROR(RefuseArchived(model, "takes no new versions"));
  absl::StatusOr<api::Checkpoint> checkpoint = store.GetCheckpoint(version.checkpoint_uuid);
  if (absl::IsNotFound(checkpoint.status())) {
    return absl::NotFoundError(absl::StrCat("checkpoint ", version.checkpoint_uuid, " not found"));
  }
  if (!checkpoint.ok()) return checkpoint.status();
  if (checkpoint->state != "COMPLETED") {
    return absl::FailedPreconditionError(absl::StrCat("checkpoint ", version.checkpoint_uuid, " is ",
                                                      checkpoint->state, ": only a COMPLETED checkpoint is registered"));
  }
  version.model_id = model.id;
  version.labels = Deduplicated(version.labels);
  return store.InsertModelVersion(version);
}

absl::Status AddTrialSourceInfoChecked(Store& store, const TrialSourceInfo& source) {
  absl::StatusOr<api::Checkpoint> checkpoint = store.GetCheckpoint(source.checkpoint_uuid);
  if (absl::IsNotFound(checkpoint.status())) {
    return absl::NotFoundError(absl::StrCat("checkpoint ", source.checkpoint_uuid, " not found"));
  }
  RETURN_IF_ERROR(checkpoint.status());
  if (source.model_id) {
    ASSIGN_OR_RETURN(ModelVersion version, store.GetModelVersion(*source.model_id, source.model_version.value_or(0)));
    if (version.checkpoint_uuid != source.checkpoint_uuid) {
      return absl::InvalidArgumentError(absl::StrCat("model ", *source.model_id, " version ", version.version,
                                                     " holds checkpoint ", version.checkpoint_uuid, ", not ",
                                                     source.checkpoint_uuid));
    }
  }
  return store.AddTrialSourceInfo(source);
}

absl::StatusOr<ModelVersion> PatchVersionChecked(Store& store, const Model& model, int64_t version,
                                                 ModelVersionPatch patch) {
  RETURN_IF_ERROR(RefuseArchived(model, "cannot have its versions changed"));
  RETURN_IF_ERROR(store.GetModelVersion(model.id, version).status());
  if (patch.labels) patch.labels = Deduplicated(*patch.labels);
  return store.PatchModelVersion(model.id, version, patch);
}

absl::Status RefuseRegisteredCheckpoints(ModelStore& store, const std::vector<std::string>& uuids,
                                         int64_t experiment_id) {
  ASSIGN_OR_RETURN(std::vector<Registration> registered, store.ListRegistrations(uuids, experiment_id));
  if (registered.empty()) return absl::OkStatus();
  const Registration& r = registered.front();
  return absl::FailedPreconditionError(absl::StrCat(
      "checkpoint ", r.checkpoint_uuid, " is registered in model \"", r.model_name, "\" version ", r.version,
      registered.size() > 1 ? absl::StrCat(" (and ", registered.size() - 1, " more registrations)") : "",
      ": delete the version first"));
}

}  // namespace det::master
