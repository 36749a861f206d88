#pragma once
// What determined-pod-runner (pod_runner_main.cc) does before it runs a task in a Kubernetes pod or a
// Slurm job step, as pure functions: the task's launch (env DET_TASK_SPEC: from the ConfigMap, or
// exported by the Slurm batch script), this process's rank and ids, and the environment the entrypoint
// gets. The Kubernetes and Slurm resource managers write the other side
// (master/rm/kubernetes/kubernetes_resource_manager.cc, master/rm/slurm/slurm_batch_script.cc).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::agent {

// Where the runner runs: a pod (its output is the pod's log, which the master follows; the rank is
// JOB_COMPLETION_INDEX; peers' addresses come from the master) or a task of a Slurm job step (its output
// is shipped to the master's task-log API; the rank is SLURM_PROCID; peers are the step's hosts).
enum class RunnerPlatform { kKubernetes, kSlurm };

struct PodLaunch {
  RunnerPlatform platform = RunnerPlatform::kKubernetes;
  std::vector<std::string> entrypoint;
  std::string work_dir;  // "" = the task directory
  bool download_context = true;
  int pods = 1;
  int slots_per_pod = 0;
  int rank = 0;  // JOB_COMPLETION_INDEX, or SLURM_PROCID
  std::string allocation_id;
  std::string task_id;
  std::string resources_id;  // the allocation's id, with ".<rank>" for a gang's pods
  std::string master_url;
  std::string session_token;
};

// Reads the launch from the pod's environment: DET_TASK_SPEC (JSON: entrypoint, work_dir,
// download_context, pods, slots_per_pod, platform "kubernetes" (default) or "slurm"), the rank
// (JOB_COMPLETION_INDEX, or SLURM_PROCID on Slurm, where SLURM_NTASKS must equal pods), DET_ALLOCATION_ID,
// DET_TASK_ID, DET_MASTER and DET_SESSION_TOKEN. Errors name the variable and what is wrong.
absl::StatusOr<PodLaunch> ReadPodLaunch(const std::map<std::string, std::string>& env);

// The entrypoint's environment: the pod's, with this install's directories first on PATH and
// PYTHONPATH (the harness), the task directory, the pod's resources id, and `rendezvous_json`
// (DET_RENDEZVOUS_INFO) when the pod is one of several.
std::map<std::string, std::string> PodTaskEnv(std::map<std::string, std::string> pod_env, const PodLaunch& launch,
                                              const std::filesystem::path& bin_dir,
                                              const std::filesystem::path& task_dir,
                                              const std::optional<std::string>& rendezvous_json);

// DET_RENDEZVOUS_INFO from the master's rendezvous reply ({"rendezvousInfo": {addresses, rank, slots}}).
absl::StatusOr<std::string> RendezvousInfoJson(const std::string& reply_body);

// DET_RENDEZVOUS_INFO for task `rank` of a Slurm job step: `hosts` are the step's nodes in order
// (space-separated, as `scontrol show hostnames` prints them), `tasks_per_node` Slurm's
// SLURM_STEP_TASKS_PER_NODE ("2(x3),1": two tasks on each of three nodes, then one); tasks are laid out
// in blocks (srun's default distribution), so rank r runs on the node whose block holds r. Each task has
// `slots_per_task` slots.
absl::StatusOr<std::string> SlurmRendezvousJson(const std::string& hosts, const std::string& tasks_per_node,
                                                int rank, int slots_per_task);

}  // namespace det::agent
