#include "master/rm/kubernetes/pod_spec_merge.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace det::master::kube {
namespace {

using nlohmann::json;

std::string CheckMessage(const json& pod) {
  absl::Status s = CheckPodSpec(pod, "environment.pod_spec");
  EXPECT_TRUE(s.ok() || s.code() == absl::StatusCode::kInvalidArgument) << s;
  return s.ok() ? "ok" : std::string(s.message());
}

json Overlay(const json& pool, const json& task) {
  absl::StatusOr<json> merged = OverlayPodSpec(pool, task, "environment.pod_spec");
  EXPECT_TRUE(merged.ok()) << merged.status();
  return merged.ok() ? *merged : json();
}

// Names of a list's items (by `key`), in order.
std::vector<std::string> Keys(const json& list, const std::string& key = "name") {
  std::vector<std::string> keys;
  for (const json& item : list) keys.push_back(item.at(key).get<std::string>());
  return keys;
}

json Ours() {
  return json::parse(R"({
    "metadata": {"labels": {"determined": "a.1", "determined.ai/user": "alice"}},
    "spec": {
      "restartPolicy": "Never",
      "containers": [{
        "name": "determined-container", "image": "ours:1",
        "env": [{"name": "DET_X", "value": "1"}],
        "resources": {"requests": {"nvidia.com/gpu": "2"}, "limits": {"nvidia.com/gpu": "2"}},
        "securityContext": {"runAsUser": 1001, "runAsGroup": 1002}
      }],
      "volumes": [{"name": "ours", "emptyDir": {}}]
    }})");
}

json Merge(const json& user, json ours = Ours()) {
  absl::StatusOr<json> merged = MergePodSpec(user, std::move(ours));
  EXPECT_TRUE(merged.ok()) << merged.status();
  return merged.ok() ? *merged : json();
}

const json& Determined(const json& pod) {
  const json& containers = pod.at("spec").at("containers");
  return containers.back();
}

TEST(CheckPodSpecTest, AcceptsNoPodSpecAndAPodAndIgnoresFieldsOutsideMetadataAndSpec) {
  EXPECT_EQ(CheckMessage(json()), "ok");
  EXPECT_EQ(CheckMessage(json::object()), "ok");
  EXPECT_EQ(CheckMessage(json::parse(R"({"apiVersion": "v1", "kind": "Pod", "status": 3,
      "containers": "not looked at", "spec": {"containers": [{"name": "a", "env": []}]}})")),
            "ok");
}

TEST(CheckPodSpecTest, NamesTheFieldOfTheWrongShape) {
  EXPECT_EQ(CheckMessage(json::array()),
            "environment.pod_spec: must be an object (a Pod: {\"metadata\": ..., \"spec\": ...}), "
            "got array");
  EXPECT_EQ(CheckMessage(json::parse(R"({"spec": []})")),
            "environment.pod_spec.spec: must be an object, got array");
  EXPECT_EQ(CheckMessage(json::parse(R"({"metadata": {"labels": {"a": 1}}})")),
            "environment.pod_spec.metadata.labels.a: must be a string, got number");
  EXPECT_EQ(CheckMessage(json::parse(R"({"spec": {"containers": {"name": "a"}}})")),
            "environment.pod_spec.spec.containers: must be a list, got object");
  EXPECT_EQ(CheckMessage(json::parse(R"({"spec": {"containers": [{"image": "x"}]}})")),
            "environment.pod_spec.spec.containers[0]: has no name");
  EXPECT_EQ(CheckMessage(json::parse(R"({"spec": {"containers": [{"name": 7}]}})")),
            "environment.pod_spec.spec.containers[0].name: must be a string, got number");
  EXPECT_EQ(CheckMessage(json::parse(
                R"({"spec": {"containers": [{"name": "a"}, {"name": "determined-container",
                    "env": "A=1"}]}})")),
            "environment.pod_spec.spec.containers[1].env: must be a list, got string");
  EXPECT_EQ(
      CheckMessage(json::parse(
          R"({"spec": {"containers": [{"name": "determined-container", "env": [{"value": "1"}]}]}})")),
      "environment.pod_spec.spec.containers[0].env[0]: has no name");
  EXPECT_EQ(CheckMessage(json::parse(R"({"spec": {"initContainers": [{"name": "i",
                "resources": {"limits": {"cpu": true}}}]}})")),
            "environment.pod_spec.spec.initContainers[0].resources.limits.cpu: must be a quantity "
            "(string or number), got boolean");
  EXPECT_EQ(
      CheckMessage(json::parse(
          R"({"spec": {"containers": [{"name": "c", "ports": [{"containerPort": "80"}]}]}})")),
      "environment.pod_spec.spec.containers[0].ports[0].containerPort: must be an integer, "
      "got string");
  EXPECT_EQ(CheckMessage(json::parse(R"({"spec": {"volumes": [{"hostPath": {"path": "/"}}]}})")),
            "environment.pod_spec.spec.volumes[0]: has no name");
  EXPECT_EQ(CheckMessage(json::parse(R"({"spec": {"tolerations": {"key": "a"}}})")),
            "environment.pod_spec.spec.tolerations: must be a list, got object");
  EXPECT_EQ(CheckMessage(json::parse(R"({"spec": {"priorityClassName": 3}})")),
            "environment.pod_spec.spec.priorityClassName: must be a string, got number");
  EXPECT_EQ(CheckMessage(json::parse(R"({"spec": {"affinity": {"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                  {"matchExpressions": {"key": "a"}}]}}}}})")),
            "environment.pod_spec.spec.affinity.nodeAffinity."
            "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions: "
            "must be a list, got object");
}

TEST(NormalizePodSpecTest, DropsNullsAndKeepsOnlyMetadataAndSpec) {
  json pod = json::parse(R"({"kind": "Pod", "metadata": {"labels": null, "name": "x"},
      "spec": {"containers": null, "nodeSelector": {"a": "b"},
               "volumes": [{"name": "v", "emptyDir": {}, "hostPath": null}]}})");
  EXPECT_EQ(NormalizePodSpec(pod), json::parse(R"({"metadata": {"name": "x"},
      "spec": {"nodeSelector": {"a": "b"}, "volumes": [{"name": "v", "emptyDir": {}}]}})"));
  EXPECT_TRUE(NormalizePodSpec(json()).is_null());
}

TEST(OverlayPodSpecTest, EitherAloneIsTheResult) {
  json pod = json::parse(R"({"spec": {"nodeSelector": {"a": "b"}}})");
  EXPECT_EQ(Overlay(json(), pod), pod);
  EXPECT_EQ(Overlay(pod, json()), pod);
  EXPECT_TRUE(Overlay(json(), json()).is_null());
}

TEST(OverlayPodSpecTest, ObjectsMergeKeyByKeyAndTheTaskWinsAKey) {
  json pool = json::parse(R"({"metadata": {"labels": {"pool": "a100", "team": "x"}},
      "spec": {"nodeSelector": {"accelerator": "a100", "zone": "a"}, "schedulerName": "s1",
               "securityContext": {"fsGroup": 100, "runAsNonRoot": true}}})");
  json task = json::parse(R"({"metadata": {"labels": {"team": "y"}},
      "spec": {"nodeSelector": {"zone": "b"}, "securityContext": {"fsGroup": 200}}})");
  EXPECT_EQ(Overlay(pool, task),
            json::parse(R"({"metadata": {"labels": {"pool": "a100", "team": "y"}},
      "spec": {"nodeSelector": {"accelerator": "a100", "zone": "b"}, "schedulerName": "s1",
               "securityContext": {"fsGroup": 200, "runAsNonRoot": true}}})"));
}

TEST(OverlayPodSpecTest, ListsWithoutAMergeKeyAreReplacedWhole) {
  json pool = json::parse(R"({"spec": {
      "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
      "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Exists"}]}]}}},
      "containers": [{"name": "c", "command": ["a", "b"], "envFrom": [{"secretRef": {"name": "s"}}]}]}})");
  json task = json::parse(R"({"spec": {
      "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "t"}],
      "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "b", "operator": "Exists"}]}]}}},
      "containers": [{"name": "c", "command": ["c"], "envFrom": [{"configMapRef": {"name": "m"}}]}]}})");
  json merged = Overlay(pool, task);
  EXPECT_EQ(merged["spec"]["tolerations"], task["spec"]["tolerations"]);
  EXPECT_EQ(merged["spec"]["affinity"], task["spec"]["affinity"]);
  EXPECT_EQ(merged["spec"]["containers"], task["spec"]["containers"]);
}

TEST(OverlayPodSpecTest, NamedListsMergeItemByItem) {
  json pool = json::parse(R"({"spec": {"containers": [{"name": "determined-container",
      "env": [{"name": "NCCL_DEBUG", "value": "WARN"}, {"name": "SHARED", "value": "pool"}],
      "volumeMounts": [{"name": "fs", "mountPath": "/mnt/fs", "readOnly": true}],
      "ports": [{"containerPort": 80, "name": "http"}],
      "resources": {"limits": {"memory": "1Gi", "cpu": "1"}}}]}})");
  json task = json::parse(R"({"spec": {"containers": [{"name": "determined-container",
      "env": [{"name": "SHARED", "value": "task"}, {"name": "EXTRA", "value": "1"}],
      "volumeMounts": [{"name": "fs", "mountPath": "/mnt/fs", "readOnly": false}],
      "ports": [{"containerPort": 80, "protocol": "TCP"}],
      "resources": {"limits": {"memory": "2Gi"}}}]}})");
  EXPECT_EQ(Overlay(pool, task),
            json::parse(R"({"spec": {"containers": [{"name": "determined-container",
      "env": [{"name": "NCCL_DEBUG", "value": "WARN"}, {"name": "SHARED", "value": "task"},
              {"name": "EXTRA", "value": "1"}],
      "volumeMounts": [{"name": "fs", "mountPath": "/mnt/fs", "readOnly": false}],
      "ports": [{"containerPort": 80, "name": "http", "protocol": "TCP"}],
      "resources": {"limits": {"memory": "2Gi", "cpu": "1"}}}]}})"));
}

// Kubernetes' strategic merge order (mergeSortedSlice in apimachinery's strategicpatch).
TEST(OverlayPodSpecTest, MergedListsFollowKubernetesOrder) {
  auto order = [](const std::vector<std::string>& pool, const std::vector<std::string>& task) {
    json pool_pod = {{"spec", {{"volumes", json::array()}}}};
    for (const std::string& n : pool) {
      pool_pod["spec"]["volumes"].push_back({{"name", n}, {"emptyDir", json::object()}});
    }
    json task_pod = {{"spec", {{"volumes", json::array()}}}};
    for (const std::string& n : task) {
      task_pod["spec"]["volumes"].push_back({{"name", n}, {"emptyDir", json::object()}});
    }
    return Keys(Overlay(pool_pod, task_pod)["spec"]["volumes"]);
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(order({"a", "b"}, {"c"}), (V{"c", "a", "b"})) << "a new item goes first";
  EXPECT_EQ(order({"a", "b"}, {"b", "c"}), (V{"a", "b", "c"}));
  EXPECT_EQ(order({"a", "b"}, {"c", "a"}), (V{"c", "a", "b"}));
  EXPECT_EQ(order({"a", "b", "c"}, {"c", "a"}), (V{"b", "c", "a"})) << "the task's order wins";
  EXPECT_EQ(order({"a", "b", "c"}, {"b"}), (V{"a", "b", "c"}));
  EXPECT_EQ(order({}, {"x", "y"}), (V{"x", "y"}));
}

TEST(OverlayPodSpecTest, AVolumeInBothIsTheTasks) {
  json pool =
      json::parse(R"({"spec": {"volumes": [{"name": "shared", "hostPath": {"path": "/p"}}]}})");
  json task = json::parse(
      R"({"spec": {"volumes": [{"name": "shared", "persistentVolumeClaim": {"claimName": "c"}}]}})");
  EXPECT_EQ(Overlay(pool, task), task);
  // Keys of both are merged: the task's source over the pool's same source.
  json task_same = json::parse(
      R"({"spec": {"volumes": [{"name": "shared", "hostPath": {"type": "Directory"}}]}})");
  EXPECT_EQ(Overlay(pool, task_same), json::parse(R"({"spec": {"volumes": [{"name": "shared",
      "hostPath": {"path": "/p", "type": "Directory"}}]}})"));
}

TEST(OverlayPodSpecTest, WhatTheTaskLeavesEmptyKeepsThePools) {
  json pool = json::parse(R"({"spec": {"containers": [{"name": "determined-container",
      "volumeMounts": [{"name": "fs", "mountPath": "/fs"}]}], "priorityClassName": "p",
      "nodeSelector": {"a": "b"}, "tolerations": [{"operator": "Exists"}]}})");
  json task = json::parse(R"({"spec": {"containers": [], "priorityClassName": "",
      "nodeSelector": {}, "tolerations": [], "serviceAccountName": "sa"}})");
  json expected = pool;
  expected["spec"]["serviceAccountName"] = "sa";
  EXPECT_EQ(Overlay(pool, task), expected);
  // Upstream's typed round trip turns a task pod spec without containers into
  // "containers": null, which deletes the pool's; here they stay.
  EXPECT_EQ(Overlay(pool, json::parse(R"({"spec": {"serviceAccountName": "sa"}})")), expected);
  // false and 0 are values.
  json flags =
      Overlay(json::parse(R"({"spec": {"hostIPC": true, "terminationGracePeriodSeconds": 30}})"),
              json::parse(R"({"spec": {"hostIPC": false, "terminationGracePeriodSeconds": 0}})"));
  EXPECT_EQ(flags["spec"]["hostIPC"], false);
  EXPECT_EQ(flags["spec"]["terminationGracePeriodSeconds"], 0);
}

TEST(MergePodSpecTest, WithoutAUserPodSpecTheResultIsOurs) {
  json merged = Merge(json());
  json expected = Ours();
  EXPECT_EQ(merged, expected);
}

TEST(MergePodSpecTest, TheUsersDeterminedContainerAddsToOursWithoutChangingItsSlots) {
  json user = json::parse(R"({"spec": {"containers": [{"name": "determined-container",
      "image": "theirs:2", "command": ["ignored"], "ports": [{"containerPort": 1}],
      "env": [{"name": "HF_HOME", "value": "/data"}, {"name": "DET_X", "value": "theirs"}],
      "envFrom": [{"configMapRef": {"name": "m"}}],
      "resources": {"requests": {"memory": "32Gi", "nvidia.com/gpu": "8"},
                    "limits": {"memory": "64Gi", "nvidia.com/gpu": 8}},
      "volumeMounts": [{"name": "data", "mountPath": "/data"}],
      "volumeDevices": [{"name": "raw", "devicePath": "/dev/xvda"}],
      "securityContext": {"runAsUser": 0, "runAsGroup": 0, "privileged": true,
                          "capabilities": {"add": ["SYS_PTRACE"]}}}]}})");
  json expected = json::parse(R"({
      "name": "determined-container", "image": "ours:1",
      "env": [{"name": "DET_X", "value": "1"}, {"name": "HF_HOME", "value": "/data"},
              {"name": "DET_X", "value": "theirs"}],
      "envFrom": [{"configMapRef": {"name": "m"}}],
      "resources": {"requests": {"nvidia.com/gpu": "2", "memory": "32Gi"},
                    "limits": {"nvidia.com/gpu": "2", "memory": "64Gi"}},
      "volumeMounts": [{"name": "data", "mountPath": "/data"}],
      "volumeDevices": [{"name": "raw", "devicePath": "/dev/xvda"}],
      "securityContext": {"runAsUser": 1001, "runAsGroup": 1002, "privileged": true,
                          "capabilities": {"add": ["SYS_PTRACE"]}}})");
  EXPECT_EQ(Determined(Merge(user)), expected);
}

// Upstream's TestGetDetContainerSecurityContext: without an agent user group the user cannot pick
// the user or group either.
TEST(MergePodSpecTest, RunAsComesFromOursEvenWhenOursHasNone) {
  json ours = Ours();
  ours["spec"]["containers"][0].erase("securityContext");
  json user = json::parse(R"({"spec": {"containers": [{"name": "determined-container",
      "securityContext": {"runAsUser": 32, "runAsGroup": 33, "capabilities": {"add": ["TEST"]}}}]}})");
  EXPECT_EQ(Determined(Merge(user, ours))["securityContext"],
            json::parse(R"({"capabilities": {"add": ["TEST"]}})"));
  json only_run_as = json::parse(R"({"spec": {"containers": [{"name": "determined-container",
      "securityContext": {"runAsUser": 32}}]}})");
  EXPECT_FALSE(Determined(Merge(only_run_as, ours)).contains("securityContext"));
  EXPECT_EQ(
      Determined(Merge(json::parse(
          R"({"spec": {"containers": [{"name": "determined-container"}]}})")))["securityContext"],
      json::parse(R"({"runAsUser": 1001, "runAsGroup": 1002})"));
}

TEST(MergePodSpecTest, EveryUserDeterminedContainerIsMergedTheFirstGivesTheSecurityContext) {
  json user = json::parse(R"({"spec": {"containers": [
      {"name": "determined-container", "env": [{"name": "A", "value": "1"}],
       "securityContext": {"readOnlyRootFilesystem": true}},
      {"name": "determined-container", "env": [{"name": "B", "value": "2"}],
       "securityContext": {"privileged": true}}]}})");
  json det = Determined(Merge(user));
  EXPECT_EQ(Keys(det["env"]), (std::vector<std::string>{"DET_X", "A", "B"}));
  EXPECT_EQ(
      det["securityContext"],
      json::parse(R"({"readOnlyRootFilesystem": true, "runAsUser": 1001, "runAsGroup": 1002})"));
  EXPECT_EQ(Merge(user)["spec"]["containers"].size(), 1u);
}

TEST(MergePodSpecTest, SidecarsInitContainersVolumesAndLabelsAreKeptOursWin) {
  json user = json::parse(R"({
      "metadata": {"name": "dropped", "namespace": "dropped",
                   "labels": {"team": "vision", "determined.ai/user": "mallory"},
                   "annotations": {"example.com/owner": "vision"}},
      "spec": {
        "restartPolicy": "Always", "serviceAccountName": "trainer",
        "initContainers": [{"name": "fetch", "image": "busybox"}],
        "containers": [{"name": "log-forwarder", "image": "fluent-bit"},
                       {"name": "determined-container"},
                       {"name": "metrics", "image": "exporter"}],
        "volumes": [{"name": "data", "emptyDir": {}}]}})");
  json merged = Merge(user);
  EXPECT_EQ(merged["metadata"], json::parse(R"({
      "labels": {"team": "vision", "determined.ai/user": "alice", "determined": "a.1"},
      "annotations": {"example.com/owner": "vision"}})"));
  const json& spec = merged["spec"];
  EXPECT_EQ(Keys(spec["containers"]),
            (std::vector<std::string>{"log-forwarder", "metrics", "determined-container"}));
  EXPECT_EQ(Keys(spec["initContainers"]), (std::vector<std::string>{"fetch"}));
  EXPECT_EQ(Keys(spec["volumes"]), (std::vector<std::string>{"data", "ours"}));
  EXPECT_EQ(spec["restartPolicy"], "Never");
  EXPECT_EQ(spec["serviceAccountName"], "trainer");
}

TEST(MergePodSpecTest, OursMustHoldOneDeterminedContainer) {
  json ours = Ours();
  ours["spec"]["containers"][0]["name"] = "other";
  EXPECT_EQ(MergePodSpec(json(), ours).status().code(), absl::StatusCode::kInternal);
  ours["spec"]["containers"] =
      json::array({Ours()["spec"]["containers"][0], Ours()["spec"]["containers"][0]});
  EXPECT_EQ(MergePodSpec(json(), ours).status().code(), absl::StatusCode::kInternal);
}

// Upstream's TestAddNodeDisabledAffinityToPodSpec and TestAddDisallowedNodesToPodSpec.
TEST(AddRequiredNodeRequirementTest, AddsToEveryTermKeepsTheRestAndIsIdempotent) {
  json disabled = {{"key", "cluster-id"}, {"operator", "DoesNotExist"}};
  auto terms = [](const json& spec) {
    return spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
               ["nodeSelectorTerms"];
  };

  json spec = json::object();
  AddRequiredNodeRequirement(spec, disabled, false);
  EXPECT_EQ(terms(spec), json::array({{{"matchExpressions", json::array({disabled})}}}));

  spec = json::parse(R"({"affinity": {"podAffinity": {"x": 1}, "nodeAffinity": {
      "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1}]}}})");
  AddRequiredNodeRequirement(spec, disabled, false);
  EXPECT_EQ(spec["affinity"]["podAffinity"], json::parse(R"({"x": 1})"));
  EXPECT_EQ(
      spec["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"].size(),
      1u);
  EXPECT_EQ(terms(spec)[0]["matchExpressions"], json::array({disabled}));

  json other = {{"key", "other-id"}, {"operator", "DoesNotExist"}};
  spec = {{"affinity",
           {{"nodeAffinity",
             {{"requiredDuringSchedulingIgnoredDuringExecution",
               {{"nodeSelectorTerms", json::array({{{"matchExpressions", {other}}},
                                                   {{"matchFields", json::array()}}})}}}}}}}};
  AddRequiredNodeRequirement(spec, disabled, false);
  json copy = spec;
  AddRequiredNodeRequirement(spec, disabled, false);
  AddRequiredNodeRequirement(spec, disabled, false);
  EXPECT_EQ(spec, copy);
  EXPECT_EQ(terms(spec)[0]["matchExpressions"], json::array({other, disabled}));
  EXPECT_EQ(terms(spec)[1]["matchExpressions"], json::array({disabled}))
      << "terms are alternatives: each needs it";

  json blocked_a1 = {{"key", "metadata.name"}, {"operator", "NotIn"}, {"values", {"a1"}}};
  json blocked_a2 = {{"key", "metadata.name"}, {"operator", "NotIn"}, {"values", {"a2"}}};
  spec = json::object();
  AddRequiredNodeRequirement(spec, blocked_a1, true);
  AddRequiredNodeRequirement(spec, blocked_a2, true);
  EXPECT_EQ(terms(spec)[0]["matchFields"], json::array({blocked_a1, blocked_a2}));
  EXPECT_FALSE(terms(spec)[0].contains("matchExpressions"));
}

}  // namespace
}  // namespace det::master::kube
