#pragma once
// Request parsing for the experiment list and edit endpoints (upstream's GetExperimentsRequest and
// PatchExperiment), kept apart from the routes so it can be tested without a server.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "master/checkpoint_gc_policy.h"
#include "master/db/store.h"
#include "master/http/http_types.h"

namespace det::master {

struct ExperimentListQuery {
  ExperimentFilter filter;  // offset left 0: the caller resolves `offset` against the total
  int64_t offset = 0;       // as requested; negative = from the end
};

// One `states` query value (experimentv1.State: STATE_X, X or the number); the display-only
// QUEUED..RUNNING mean ACTIVE. InvalidArgument names the bad value.
absl::StatusOr<api::ExperimentState> ParseExperimentStateQuery(const std::string& raw);

// Query parameters (both spellings): states[] (STATE_X, X or the enum number; the display-only
// QUEUED..RUNNING mean ACTIVE), users[], userIds[], labels[], name, description, archived
// (true/false), sortBy (SORT_BY_X or number), orderBy (ORDER_BY_ASC/DESC or number), offset, limit.
// InvalidArgument names the parameter and the bad value.
absl::StatusOr<ExperimentListQuery> ParseExperimentListQuery(const HttpRequest& request);

// The PATCH body (the PatchExperiment message itself): name, description, notes (strings or null),
// labels (list of strings or null). `resources` is read by ParseResourcesPatch
// (job_queue_request.h), `checkpointStorage` by ParseCheckpointStoragePatch. An `id` in the body
// must match `experiment_id`.
absl::StatusOr<ExperimentPatch> ParseExperimentPatch(const nlohmann::json& body,
                                                     int64_t experiment_id);

// The PATCH body's `checkpointStorage` {saveExperimentBest, saveTrialBest, saveTrialLatest}: counts
// >= 0, an absent one 0; nullopt when not in the body.
absl::StatusOr<std::optional<CheckpointGcPolicy>> ParseCheckpointStoragePatch(const nlohmann::json& body);

// `labels` with `label` added (at the end, once) or removed.
std::vector<std::string> WithLabel(std::vector<std::string> labels, const std::string& label,
                                   bool add);

}  // namespace det::master
