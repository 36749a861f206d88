#include "master/handlers/task_access.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::master {

absl::Status CheckTaskOwnsTrial(TrialFactsCache& trial_facts, const HttpRequest& request, int64_t trial_id) {
  const std::string& alloc_id = request.principal->allocation_id;
  if (alloc_id.empty()) return absl::OkStatus();
  return trial_facts.TrialReportedBy(trial_id, alloc_id).status();
}

absl::Status CheckTaskOwnsTask(Store& store, const HttpRequest& request, const std::string& task_id) {
  const std::string& alloc_id = request.principal->allocation_id;
  if (alloc_id.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(Allocation alloc, store.GetAllocation(alloc_id));
  if (alloc.task_id != task_id) {
    return absl::PermissionDeniedError(absl::StrCat("allocation ", alloc_id, " does not belong to task ", task_id));
  }
  return absl::OkStatus();
}

}  // namespace det::master
