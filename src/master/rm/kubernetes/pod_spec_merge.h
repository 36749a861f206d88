#pragma once
// How a user's pod_spec and ours become one pod: upstream's rules (its Kubernetes resource
// manager's spec.go and expconf's PodSpec.Merge), restated. A user's pod spec is a Pod written as
// JSON,
// `{"metadata": {...}, "spec": {...}}`: an experiment's or task's `environment.pod_spec`, or a
// pool's `task_container_defaults.cpu_pod_spec` / `gpu_pod_spec`. BuildJobObjects (job_spec.h)
// applies the three steps below in order: check both, lay the task's over the pool's, put ours in.
//
// 1. CheckPodSpec. Keys outside of `metadata` and `spec` are ignored, as upstream's typed decoding
//    ignores them; nulls are dropped (NormalizePodSpec). The parts these rules read or merge must
//    have Kubernetes' shape (containers are objects with a string name, env is a list, ...);
//    anything else is InvalidArgument naming the field, e.g.
//    `environment.pod_spec.spec.containers[0].env: must be a list, got string`.
//
// 2. OverlayPodSpec(pool, task): the task's pod spec wins over the pool's, merged the way
//    Kubernetes' strategic merge treats a Pod:
//    - objects merge key by key; for anything else the task's value replaces the pool's;
//    - lists of things with a key merge item by item on that key: containers, initContainers,
//      ephemeralContainers, volumes, imagePullSecrets, schedulingGates, resourceClaims (on name),
//      hostAliases (ip), topologySpreadConstraints (topologyKey), and inside a container env
//      (name), volumeMounts (mountPath), volumeDevices (devicePath), ports (containerPort). An item
//      in both lists is merged recursively. The order is Kubernetes' one: items only in the pool's
//      list keep their relative order, the task's items keep theirs, and a pool-only item goes
//      before a task item only when it also came before that item in the pool's list (so a new
//      task item lands in front of the pool-only items that follow it);
//    - every other list (tolerations, nodeSelectorTerms, command, args, envFrom, ...) is replaced;
//    - a value the task leaves empty (null, "", [], {}) keeps the pool's.
//    Two deliberate differences from upstream, whose typed round trip makes them accidents: a task
//    pod spec without containers keeps the pool's containers (upstream's marshalled
//    `"containers": null` deletes them), and a volume named in both is the task's (its source
//    replaces the pool's, as `retainKeys` intends) instead of a volume with two sources.
//
// 3. MergePodSpec(user, ours): ours, a pod template whose spec holds the container named
//    `determined-container`, goes into the user's (the result of step 2):
//    - labels and annotations: the user's, then ours (ours win a key); the rest of the user's
//      metadata (name, namespace, ...) is dropped;
//    - the spec starts as the user's; user containers other than `determined-container` are kept in
//      their order, ours follow, `determined-container` last;
//    - the user's `determined-container` (every one by that name, in order) is merged into ours:
//      its env, envFrom, volumeMounts and volumeDevices are appended to ours; its resource requests
//      and limits are added for the resource names ours does not set (ours win: a pod spec cannot
//      change the slots); its securityContext (the first one's) is used with runAsUser and
//      runAsGroup taken from ours, present or absent (the agent user group decides them). Every
//      other field of it (image, command, ports, probes, ...) is ignored;
//    - initContainers and volumes: the user's, then ours;
//    - every other key of our spec (restartPolicy, ...) replaces the user's.
//
// Pure functions of their arguments: no I/O, safe to call from any thread.
#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace det::master::kube {

// The container whose command is the task's: the name upstream's rules and its tools look for.
inline constexpr char kDeterminedContainerName[] = "determined-container";

// Null (no pod spec) or a Pod of the shape step 1 describes; `field` names it in messages
// ("environment.pod_spec").
absl::Status CheckPodSpec(const nlohmann::json& pod, absl::string_view field);

// The pod with every null dropped, at any depth, and only its metadata and spec kept; null stays
// null. Expects a pod CheckPodSpec accepted.
nlohmann::json NormalizePodSpec(const nlohmann::json& pod);

// Step 2: `task` over `pool`. Either may be null (then the other is the result). Both must have
// passed CheckPodSpec (an item lacking its merge key here is InvalidArgument naming `task_field`).
absl::StatusOr<nlohmann::json> OverlayPodSpec(const nlohmann::json& pool,
                                              const nlohmann::json& task,
                                              absl::string_view task_field);

// Step 3: `ours` put into `user` (null: no user pod spec). `ours` must hold exactly one container
// named determined-container (else Internal: a bug of the caller); `user` must have passed
// CheckPodSpec. The result is a pod: {"metadata": {labels, annotations}, "spec": {...}}.
absl::StatusOr<nlohmann::json> MergePodSpec(const nlohmann::json& user, nlohmann::json ours);

// Adds `requirement` to every term of the pod spec's (`spec` of a pod) required node affinity,
// creating the affinity and one term when there is none, unless a term already holds an equal one.
// `match_fields`: to matchFields (node fields such as metadata.name), else to matchExpressions
// (node labels). Upstream adds to the first term only; a requirement must hold in every term, since
// terms are alternatives.
void AddRequiredNodeRequirement(nlohmann::json& spec, const nlohmann::json& requirement,
                                bool match_fields);

}  // namespace det::master::kube
