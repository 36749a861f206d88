#pragma once
// Who may change an experiment (state, archive, delete, PATCH, labels, killing its trials), through the
// rule in force (master/task/authz.h) with the permission the change needs: in basic mode its owner or an
// admin; with RBAC a role granting it in the experiment's workspace. Tasks authenticated by an allocation
// token may not.
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/types.h"
#include "master/db/store.h"
#include "master/http/http_types.h"
#include "master/rbac/permissions.h"

namespace det::master {

// PermissionDenied (basic: "user X is not the owner of experiment N and is not an admin") unless allowed.
absl::Status CheckExperimentAccess(const Principal& who, rbac::Permission needed, const api::Experiment& experiment);

// Loads experiment `id` (NotFound when missing, or when the caller may not view it) and checks that the
// caller may do what `needed` allows to it.
absl::StatusOr<api::Experiment> ExperimentForChange(Store& store, const HttpRequest& request, int64_t id,
                                                    rbac::Permission needed);

}  // namespace det::master
