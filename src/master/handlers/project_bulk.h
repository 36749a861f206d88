#pragma once
// The experiments a project's bulk action acts on (POST /api/v1/projects/{id}/experiments/move, PUT
// .../experiments/retain_logs): those `experimentIds` names, or those upstream's `filters` match, and
// always only experiments in that project. Upstream's "select all" once acted on other projects'
// experiments; here an id from elsewhere gets its own error and is left alone.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>
#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "master/db/store.h"

namespace det::master {

struct BulkTarget {
  int64_t id = 0;
  absl::Status status;  // not OK: the experiment is left alone, and this is its result's error
};

// Upstream's project id of a bulk action over every project (the web UI's "all experiments" view).
inline constexpr int64_t kAllProjects = -1;

// NotFound when the project is missing; InvalidArgument when the body names neither ids nor filters,
// or filters that cannot be read. `project_id` kAllProjects: experiments of any project (filters may
// then name one in filters.projectId). Filters match only experiments of `visible_workspaces` (nullopt:
// any), the caller's (VisibleWorkspaces), so that nothing the caller may not see gets a result.
absl::StatusOr<std::vector<BulkTarget>> ProjectBulkTargets(
    Store& store, int64_t project_id, const nlohmann::json& body,
    std::optional<std::vector<int64_t>> visible_workspaces = std::nullopt);

// Upstream's `{results: [{error, id}]}` of the targets, in their order ("" where the status is OK).
nlohmann::json BulkResults(const std::vector<BulkTarget>& targets);

// Runs `action` on every target whose status is OK, then answers BulkResults.
nlohmann::json RunBulk(std::vector<BulkTarget> targets, const std::function<absl::Status(int64_t)>& action);

}  // namespace det::master
