#pragma once
// The Kubernetes objects of one allocation, as JSON for the API server: a batch/v1 Job (one pod per
// `pods`, Indexed), the ConfigMap holding the task's spec, and when the allocation's priority calls
// for it a PriorityClass. Upstream's rules (its Kubernetes resource manager, spec.go), restated:
//
// - Labels (AllocationLabels) on every object and on the pods: determined.ai/{user, workspace,
//   resource_pool, task_type, task_id, allocation_id, container_id} plus `determined` =
//   allocation_id (upstream's selector label) and determined.ai/<key> for each extra label; values
//   made valid by LabelValue. The Job and its pods also carry the user pod spec's labels and
//   annotations (ours win a key).
// - The pod: the user's pod spec (environment.pod_spec laid over the pool's; pod_spec_merge.h) with
//   our `determined-container` put in: image, imagePullPolicy (Always when force_pull_image, else
//   IfNotPresent), command, workingDir, containerPort per port, env, resources, and volumes: a
//   hostPath volume per bind mount, then det-shm-volume (an emptyDir in memory) at /dev/shm, as
//   Kubernetes has no shm size of its own. restartPolicy Never; hostNetwork only with host_network;
//   a required node affinity keeps the pods off nodes labelled
//   determined.ai/cluster-id-<cluster_id> (disabled nodes) and off blocked_nodes.
// - Env of determined-container, in this order: the plain variables sorted by name (`env`, then
//   ours, which win a name: DET_SLOT_IDS "[0,1,...]" for slots_per_pod,
//   DET_KUBERNETES_JOB_PARALLELISM = pods, NVIDIA_VISIBLE_DEVICES=void when the pod has no GPU
//   slots), then DET_AGENT_ID (the node's name), DET_KUBERNETES_POD_IP (the pod's IP) and
//   DET_TASK_SPEC (key task.json of the ConfigMap) from the API; then the user pod spec's
//   determined-container env. Kubernetes also sets JOB_COMPLETION_INDEX (the pod's rank) in an
//   Indexed Job.
// - Resources, in requests and limits alike: cuda nvidia.com/gpu = slots_per_pod, rocm amd.com/gpu
//   = slots_per_pod (none with zero slots); cpu: cpu = slots_per_pod * cpu_per_slot (in millicores,
//   rounded; none when 0). A user pod spec may add other resources, never change these.
// - Priority: TRIAL and GENERIC tasks use the user pod spec's priorityClassName if it has one;
//   else, with a priority, their own PriorityClass `<job_name>-priorityclass` (value = the
//   priority as given, preemptionPolicy Never: it orders the queue, it evicts nothing); else
//   determined-medium-priority. CHECKPOINT_GC always uses determined-system-priority. COMMAND,
//   NOTEBOOK, SHELL and TENSORBOARD get no priority class from us (the user's, if any, stays):
//   upstream leaves its commands alone. The two named classes are the cluster's (upstream's Helm
//   chart creates them), not created here.
// - The Job: parallelism = completions = pods, completionMode Indexed, backoffLimit 0 (a failed pod
//   fails the allocation), ttlSecondsAfterFinished 900 (upstream's: the exit codes stay readable a
//   while after a master restart).
//
// Pure: no I/O, no clock. Safe to call from any thread.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace det::master::kube {

struct JobSpecInput {
  std::string namespace_name;  // where the Job and ConfigMap are created (a DNS-1123 label)
  // The Job's name, also the ConfigMap's: a DNS-1123 label short enough that "<name>-<index>" (a
  // pod's hostname) is one too. Anything else is made so (JobObjects::job_name says the result).
  std::string job_name;
  // task_type: TRIAL, COMMAND, NOTEBOOK, SHELL, TENSORBOARD, GENERIC or CHECKPOINT_GC.
  std::string allocation_id, task_id, task_type;
  std::string user, workspace, resource_pool;
  std::map<std::string, std::string> extra_labels;  // each becomes determined.ai/<key>
  std::string image;                                // environment.image, resolved by the caller
  bool force_pull_image = false;                    // imagePullPolicy Always, else IfNotPresent
  std::vector<std::string> command;                 // determined-container's command
  std::map<std::string, std::string> env;           // plain env of determined-container
  // The ConfigMap's "task.json"; the container reads it from env DET_TASK_SPEC. At most 1 MiB with
  // the rest of the ConfigMap (Kubernetes' limit).
  std::string task_json;
  int pods = 1;  // parallelism = completions
  int slots_per_pod = 0;
  std::string slot_type = "cuda";  // cuda | cpu | rocm: the resource manager's slot_type
  double cpu_per_slot = 0;         // slot_resource_requests.cpu, for slot_type cpu
  std::optional<int> priority;     // the job's priority, for TRIAL and GENERIC tasks
  // The pool's task_container_defaults.cpu_pod_spec (tasks with no slots) or gpu_pod_spec, and the
  // task's environment.pod_spec, which wins over it. Null: none.
  nlohmann::json pool_pod_spec;
  nlohmann::json env_pod_spec;
  std::vector<int> container_ports;  // ports the task serves on (containerPort entries)
  // The task's bind_mounts: each a hostPath volume det-host-volume-<i> mounted in
  // determined-container. propagation (bind_mounts[].propagation) maps private to None, rslave to
  // HostToContainer, rshared to Bidirectional; anything else (rprivate, the default) sets none.
  struct BindMount {
    std::string host_path;
    std::string container_path;
    bool read_only = false;
    std::string propagation;
  };
  std::vector<BindMount> bind_mounts;
  std::string working_dir = "/run/determined/workdir";
  // The agent user group (link-with-agent-user): runAsUser / runAsGroup of determined-container.
  // Unset: neither, even when the user's pod spec names them.
  struct RunAs {
    int64_t uid = 0;
    int64_t gid = 0;
  };
  std::optional<RunAs> run_as;
  bool host_network = false;  // task_container_defaults.network_mode: host
  // The master's cluster id: nodes labelled determined.ai/cluster-id-<id> (disabled ones) are
  // avoided. Empty: no such rule.
  std::string cluster_id;
  std::vector<std::string> blocked_nodes;  // node names the task must not run on (log policies)
};

struct JobObjects {
  std::string job_name;  // the name used: JobSpecInput::job_name, made valid when it was not
  nlohmann::json job;
  nlohmann::json config_map;
  std::optional<nlohmann::json> priority_class;  // to create before the Job when set
};

// InvalidArgument naming the field for input the objects cannot be made from (an empty image or
// allocation_id, pods < 1, an unknown slot_type or task_type, a pod spec of the wrong shape, a
// priority Kubernetes would refuse, a task_json over 1 MiB, ...).
absl::StatusOr<JobObjects> BuildJobObjects(const JobSpecInput& in);

// A valid Kubernetes label value made from `raw`, upstream's way: characters other than
// [A-Za-z0-9._-] become '_' (one per UTF-8 character), leading non-alphanumerics are dropped, the
// rest is cut to 63 characters, trailing non-alphanumerics are dropped. May be empty.
std::string LabelValue(absl::string_view raw);

// The labels of every object of the allocation (the header's first rule), values through
// LabelValue; container_id is the job's name as BuildJobObjects makes it (JobObjects::job_name).
std::map<std::string, std::string> AllocationLabels(const JobSpecInput& in);

// The PriorityClass name an allocation with a priority gets.
std::string PriorityClassName(absl::string_view job_name);

}  // namespace det::master::kube
