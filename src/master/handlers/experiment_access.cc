#include "master/handlers/experiment_access.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::master {

absl::Status CheckCanModifyExperiment(const Principal& who, const api::Experiment& experiment) {
  if (!who.allocation_id.empty()) {
    return absl::PermissionDeniedError("tasks cannot change experiments with an allocation token");
  }
  if (who.admin || who.user_id == experiment.owner_id) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat("user ", who.username,
                                                  " is not the owner of experiment ", experiment.id,
                                                  " and is not an admin"));
}

absl::StatusOr<api::Experiment> ExperimentForChange(Store& store, const HttpRequest& request,
                                                    int64_t id) {
  ASSIGN_OR_RETURN(api::Experiment e, store.GetExperiment(id));
  RETURN_IF_ERROR(CheckCanModifyExperiment(*request.principal, e));
  return e;
}

}  // namespace det::master
