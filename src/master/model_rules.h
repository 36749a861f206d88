#pragma once
// Upstream's rules for the model registry: model names, what an archived model refuses, which
// checkpoints a version may hold, and that a registered checkpoint is never deleted (the store
// stores; these check).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "master/db/store.h"

namespace det::master {

// Not blank, no '/' or '\', no two spaces in a row, not only digits (a path's {model_name} takes an
// id too). InvalidArgument otherwise.
absl::Status CheckModelName(const std::string& name);

// The model a path's {model_name} names: all digits is its id, anything else its name.
absl::StatusOr<Model> FindModel(ModelStore& store, const std::string& name_or_id);

// Creates `model`: a valid, unused name, in a workspace that exists and is not archived.
absl::StatusOr<Model> CreateModelChecked(Store& store, const Model& model);
// Changes a model: not while it is archived; a new name is checked; a new workspace exists and is not
// archived. Labels are de-duplicated, in their first order.
absl::StatusOr<Model> PatchModelChecked(Store& store, const Model& model, ModelPatch patch);
// Registers a COMPLETED checkpoint as the model's next version; an archived model takes none.
absl::StatusOr<ModelVersion> RegisterVersionChecked(Store& store, const Model& model, ModelVersion version);
// Changes a version; not while its model is archived.
absl::StatusOr<ModelVersion> PatchVersionChecked(Store& store, const Model& model, int64_t version,
                                                 ModelVersionPatch patch);

// Links a trial to the checkpoint it used (and the model version holding it, when named): the
// checkpoint exists (NotFound), and a named version exists and holds that checkpoint (InvalidArgument).
absl::Status AddTrialSourceInfoChecked(Store& store, const TrialSourceInfo& source);

// FailedPrecondition naming the model and version that hold one of `uuids` (or, with
// `experiment_id`, one of that experiment's checkpoints): registered checkpoints are never deleted.
absl::Status RefuseRegisteredCheckpoints(ModelStore& store, const std::vector<std::string>& uuids,
                                         int64_t experiment_id);

}  // namespace det::master
