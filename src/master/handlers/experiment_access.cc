#include "master/handlers/experiment_access.h"

#include "common/status_macros.h"
#include "master/task/authz.h"

namespace det::master {

absl::Status CheckExperimentAccess(const Principal& who, rbac::Permission needed, const api::Experiment& experiment) {
  return DefaultAuthz().Check(
      who, needed, {"experiment", std::to_string(experiment.id), experiment.owner_id, experiment.workspace_id});
}

absl::StatusOr<api::Experiment> ExperimentForChange(Store& store, const HttpRequest& request, int64_t id,
                                                    rbac::Permission needed) {
  ASSIGN_OR_RETURN(api::Experiment e, store.GetExperiment(id));
  RETURN_IF_ERROR(CheckExperimentAccess(*request.principal, needed, e));
  return e;
}

}  // namespace det::master
