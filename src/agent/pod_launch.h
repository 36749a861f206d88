#pragma once
// What determined-pod-runner (pod_runner_main.cc) does before it runs a task in a Kubernetes pod, as
// pure functions: the task's launch from the ConfigMap (env DET_TASK_SPEC), this pod's rank and ids, and
// the environment the entrypoint gets. The Kubernetes resource manager writes both sides
// (master/rm/kubernetes/kubernetes_resource_manager.cc).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::agent {

struct PodLaunch {
  std::vector<std::string> entrypoint;
  std::string work_dir;  // "" = the task directory
  bool download_context = true;
  int pods = 1;
  int slots_per_pod = 0;
  int rank = 0;  // JOB_COMPLETION_INDEX
  std::string allocation_id;
  std::string task_id;
  std::string resources_id;  // the allocation's id, with ".<rank>" for a gang's pods
  std::string master_url;
  std::string session_token;
};

// Reads the launch from the pod's environment: DET_TASK_SPEC (JSON: entrypoint, work_dir,
// download_context, pods, slots_per_pod), JOB_COMPLETION_INDEX, DET_ALLOCATION_ID, DET_TASK_ID,
// DET_MASTER and DET_SESSION_TOKEN. Errors name the variable and what is wrong.
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

}  // namespace det::agent
