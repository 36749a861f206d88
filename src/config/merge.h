#pragma once
// Configuration template merge (reference §3.2, upstream `schemas.Merge(obj, src)`), on untyped
// JSON.
//
// `obj` has precedence (the user's experiment config), `src` fills its gaps (the template):
//  - a key that is absent or null in obj takes src's value; scalars: obj wins, even false / 0 / "";
//  - objects (maps and typed sections alike) merge key by key, recursively;
//  - lists: obj's list wins entirely, except these, which combine both sides:
//      bind_mounts, resources.devices   obj entries, then src entries whose container_path obj
//      lacks environment.proxy_ports          obj entries, then src entries whose proxy_port obj
//      lacks environment.environment_variables  src ++ obj, per cpu/cuda/rocm list (a plain list
//      means the
//                                       same list for all three; the result keeps a plain list only
//                                       when both sides are plain lists)
//      log_policies                     obj entries, then src entries whose name obj lacks (unnamed
//                                       legacy entries compare by "action:pattern")
//  - searcher (variant key `name`) and checkpoint_storage (variant key `type`) are unions: common
//    fields (searcher: metric, smaller_is_better, source_trial_id, source_checkpoint_uuid;
//    checkpoint_storage: save_experiment_best, save_trial_best, save_trial_latest) merge normally;
//    src's variant fields are used only when obj names no variant or the same one as src;
//  - hyperparameters.<name>: obj's hyperparameter wins wholesale unless both are nested (objects
//    without `type`), which merge per key by the same rule;
//  - environment.image: a string on one side and a {cpu,cuda,rocm} map on the other merge as if the
//    string were given for all three.
// Departure: environment.pod_spec merges as a plain object (no Kubernetes-specific pod merge).
// Neither input is validated: the merged result is checked by the experiment config parser.
#include <nlohmann/json_fwd.hpp>

namespace det::config {

nlohmann::json MergeExperimentConfig(const nlohmann::json& obj, const nlohmann::json& src);

}  // namespace det::config
