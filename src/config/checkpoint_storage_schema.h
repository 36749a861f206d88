#pragma once
// The `checkpoint_storage` section (reference §2.5): shared_fs, s3, gcs, azure, directory.
#include <nlohmann/json.hpp>

#include "absl/strings/string_view.h"
#include "config/schema_fields.h"

namespace det::config {

// The experiment's storage merged with the master's default (§3.1 step 5): the user's keys win.
// The default's variant keys are taken only when the user names no type or the same type; the
// save_* GC keys are always taken when the user leaves them out.
nlohmann::json MergeCheckpointStorage(const nlohmann::json& user,
                                      const nlohmann::json& master_default);

// Checks the merged storage at `path` in place: `type` required, each variant's fields and required
// keys, azure's exclusivity rules, shared_fs storage_path under host_path; fills
// save_experiment_best 0, save_trial_best 1, save_trial_latest 1 and the variant's defaults.
void CheckCheckpointStorage(nlohmann::json& cs, absl::string_view path, Problems& p);

// tensorboard_storage: deprecated and ignored. Accepted (any storage-shaped object) with a warning;
// the save_* keys are refused.
void CheckTensorboardStorage(const nlohmann::json& ts, Problems& p);

}  // namespace det::config
