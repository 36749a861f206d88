#pragma once
// What a resource pool's task_container_defaults (master config, reference §4.3) give the tasks that run
// in it, as config layers under the user's: the experiment config's keys it has, and its startup hook.
#include <nlohmann/json.hpp>

#include "config/master_config.h"

namespace det::config {

// The environment variable that carries task_container_defaults.startup_hook to the task: the agent
// runs its text (bash) before the context's startup-hook.sh (agent/task_env.h WithStartupHook).
inline constexpr char kStartupHookVariable[] = "DET_TCD_STARTUP_HOOK";

// The task_container_defaults that apply to a task's or an experiment's `config`: those of its pool
// (resources.resource_pool in `config`, else in the template `tmpl`, else the default compute pool)
// when that pool has its own, else the master's.
nlohmann::json TaskContainerDefaultsFor(const MasterConfig& master, const nlohmann::json& config,
                                        const nlohmann::json& tmpl);

// The experiment config that task_container_defaults `tcd` amounts to, to merge under the user's
// (MergeExperimentConfig(user, this)): environment_variables (plus the startup hook's variable),
// image, force_pull_image, registry_auth, add_capabilities, drop_capabilities, bind_mounts, devices
// (resources.devices), log_policies and preemption_timeout. Keys only a container runtime or another
// resource manager reads (shm_size_bytes, network_mode, pod specs, slurm, pbs, ...) are left out.
nlohmann::json ExperimentConfigDefaults(const nlohmann::json& tcd);

// tcd's environment_variables with the startup hook's variable added (as upstream's RuntimeItems:
// a list, or {cpu, cuda, rocm} lists); null when it has neither.
nlohmann::json EnvironmentVariablesWithStartupHook(const nlohmann::json& tcd);

}  // namespace det::config
