#pragma once
// What the workspace and project handlers share: their JSON (upstream's workspacev1.Workspace and
// projectv1.Project), who may change them (the owner, for a project its workspace's owner too, or an
// admin), and deleting the experiments that go with them.
#include <cstdint>
#include <vector>
#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "master/db/store.h"
#include "master/handlers/master_context.h"
#include "master/http/http_types.h"

namespace det::master {

nlohmann::json WorkspaceJson(const Workspace& workspace);
nlohmann::json ProjectJson(const Project& project);

// Loads the workspace or project (NotFound when missing) and checks that the caller may change it
// (PermissionDenied otherwise).
absl::StatusOr<Workspace> WorkspaceForChange(WorkspaceStore& store, const Principal& who, int64_t id);
absl::StatusOr<Project> ProjectForChange(WorkspaceStore& store, const Principal& who, int64_t id);

// Starts deleting each experiment (DELETING, then its checkpoints and records go on the GC worker).
absl::Status DeleteExperimentsOf(MasterContext& ctx, const std::vector<int64_t>& experiment_ids);

}  // namespace det::master
