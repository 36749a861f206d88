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
  // One the caller may not even see does not exist for them (named in a body, the path guard has not
  // seen it).
  RETURN_IF_ERROR(CheckRead(*request.principal, rbac::Permission::kViewExperimentMetadata,
                            {"experiment", std::to_string(id), e.owner_id, e.workspace_id}));
  RETURN_IF_ERROR(CheckExperimentAccess(*request.principal, needed, e));
  return e;
}

}  // namespace det::master
