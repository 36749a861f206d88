#pragma once
// What a request is about must be visible to its caller. A route's path names the things it acts on
// (/experiments/{experiment_id}/kill, /commands/{id}, /models/{model_name}/versions): when the caller may
// not view one of them under the rule in force, the request is answered 404 "experiment 7 not found",
// whatever its method, as if it did not exist (upstream hides what one may not see the same way). The
// handler then checks what the action itself needs (403 naming the permission).
//
// Which thing a parameter names is read from the collection before it:
//   experiments, trials          VIEW_EXPERIMENT_METADATA in the experiment's workspace, or
//                                VIEW_EXPERIMENT_ARTIFACTS for its logs, checkpoints, files and model
//   checkpoints                  VIEW_EXPERIMENT_ARTIFACTS (a task's checkpoint: as its task)
//   tasks, commands, notebooks,  a trial's task as its trial; others VIEW_NSC in their workspace
//   shells, tensorboards
//   workspaces, projects, models, templates   VIEW_WORKSPACE, VIEW_PROJECT, VIEW_MODEL_REGISTRY, VIEW_TEMPLATES
// A thing that does not exist passes: the handler says so in its own words. Where the rule lets the
// caller view everywhere (basic mode; a cluster-wide role), nothing is read. A task always reaches its
// own trial and task (its reports, from `trial_facts`: no reads), whatever its owner's roles since it
// started; its other requests read as its owner.
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "master/db/store.h"
#include "master/http/http_types.h"
#include "master/rbac/permissions.h"
#include "master/trial_facts.h"

namespace det::master {

// The router's guard (Router::SetGuard): every thing `pattern`'s parameters name in `request`.
absl::Status CheckPathVisible(Store& store, TrialFactsCache& trial_facts, const HttpRequest& request,
                              const std::string& pattern);

// The same for things named elsewhere (a query parameter, a body): NotFound "trial 7 not found" when
// `who` may not view the trial's experiment with `view`.
absl::Status CheckTrialVisible(Store& store, const Principal& who, int64_t trial_id);
absl::Status CheckExperimentVisible(Store& store, const Principal& who, int64_t experiment_id,
                                    rbac::Permission view = rbac::Permission::kViewExperimentMetadata);

}  // namespace det::master
