#pragma once
// Who may change an experiment (state, archive, delete, PATCH, labels, killing its trials): its
// owner or an admin. Tasks authenticated by an allocation token may not. Reading stays open to
// every authenticated user, as upstream without RBAC.
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/types.h"
#include "master/db/store.h"
#include "master/http/http_types.h"

namespace det::master {

// PermissionDenied "user X is not the owner of experiment N and is not an admin" unless allowed.
absl::Status CheckCanModifyExperiment(const Principal& who, const api::Experiment& experiment);

// Loads experiment `id` (NotFound when missing) and checks that the caller may change it.
absl::StatusOr<api::Experiment> ExperimentForChange(Store& store, const HttpRequest& request,
                                                    int64_t id);

}  // namespace det::master
