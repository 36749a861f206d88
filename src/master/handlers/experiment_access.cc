#include "master/handlers/experiment_access.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "master/task/authz.h"

namespace det::master {

absl::Status CheckCanModifyExperiment(const Principal& who, const api::Experiment& experiment) {
  return DefaultAuthz().CanChange(who, {"experiment", std::to_string(experiment.id), experiment.owner_id});
}

absl::StatusOr<api::Experiment> ExperimentForChange(Store& store, const HttpRequest& request,
                                                    int64_t id) {
  ASSIGN_OR_RETURN(api::Experiment e, store.GetExperiment(id));
  RETURN_IF_ERROR(CheckCanModifyExperiment(*request.principal, e));
  return e;
}

}  // namespace det::master
