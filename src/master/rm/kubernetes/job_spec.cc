#include "master/rm/kubernetes/job_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "master/rm/kubernetes/pod_spec_merge.h"

namespace det::master::kube {
namespace {

using nlohmann::json;

constexpr size_t kMaxLabel = 63;           // a label value, a label name, a DNS-1123 label
constexpr size_t kMaxConfigMap = 1 << 20;  // Kubernetes' limit on a ConfigMap's data
constexpr int64_t kMaxUserPriority = 1'000'000'000;  // above: reserved for system classes
constexpr int kMaxIndexedPods = 100'000;             // completions of an Indexed Job
constexpr int kTtlSecondsAfterFinished = 15 * 60;
constexpr absl::string_view kTaskSpecKey = "task.json";
constexpr absl::string_view kShmVolume = "det-shm-volume";
constexpr absl::string_view kLabelPrefix = "determined.ai/";
constexpr absl::string_view kMediumPriorityClass = "determined-medium-priority";
constexpr absl::string_view kSystemPriorityClass = "determined-system-priority";
constexpr absl::string_view kTaskTypes[] = {"TRIAL",       "COMMAND", "NOTEBOOK",     "SHELL",
                                            "TENSORBOARD", "GENERIC", "CHECKPOINT_GC"};
// Variables ours come from the API server, whatever `env` says.
constexpr absl::string_view kFromApiEnv[] = {"DET_AGENT_ID", "DET_KUBERNETES_POD_IP",
                                             "DET_TASK_SPEC"};

absl::Status InvalidField(absl::string_view field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", problem));
}

bool IsAlnum(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)); }

bool IsUtf8Continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Characters for which `keep` is false become `replacement`, one per UTF-8 character.
std::string ReplaceOthers(absl::string_view raw, bool (*keep)(char), char replacement) {
  std::string out;
  out.reserve(raw.size());
  for (char c : raw) {
    if (keep(c)) {
      out.push_back(c);
    } else if (!IsUtf8Continuation(c)) {
      out.push_back(replacement);
    }
  }
  return out;
}

// Drops non-alphanumerics from both ends, cutting to `max` in between (the order upstream uses).
std::string TrimToAlnum(std::string value, size_t max) {
  size_t start = 0;
  while (start < value.size() && !IsAlnum(value[start])) ++start;
  value.erase(0, start);
  if (value.size() > max) value.resize(max);
  while (!value.empty() && !IsAlnum(value.back())) value.pop_back();
  return value;
}

bool IsLabelChar(char c) { return IsAlnum(c) || c == '.' || c == '_' || c == '-'; }

bool IsDnsLabelChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

bool IsDnsLabel(absl::string_view name) {
  if (name.empty() || name.size() > kMaxLabel) return false;
  for (char c : name) {
    if (!IsDnsLabelChar(c)) return false;
  }
  return IsAlnum(name.front()) && IsAlnum(name.back());
}

bool IsLabelName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxLabel) return false;
  for (char c : name) {
    if (!IsLabelChar(c)) return false;
  }
  return IsAlnum(name.front()) && IsAlnum(name.back());
}

// The longest job name whose pods' hostnames ("<job>-<index>") are DNS-1123 labels.
size_t MaxJobName(int pods) {
  size_t digits = std::to_string(std::max(pods - 1, 0)).size();
  return kMaxLabel - 1 - digits;
}

std::string SanitizeJobName(absl::string_view raw, int pods) {
  std::string lower = absl::AsciiStrToLower(raw);
  return TrimToAlnum(ReplaceOthers(lower, IsDnsLabelChar, '-'), MaxJobName(pods));
}

bool HasGpuSlots(const JobSpecInput& in) {
  return in.slots_per_pod > 0 && (in.slot_type == "cuda" || in.slot_type == "rocm");
}

std::string MilliQuantity(int64_t millis) {
  if (millis % 1000 == 0) return std::to_string(millis / 1000);
  return absl::StrCat(millis, "m");
}

json Resources(const JobSpecInput& in) {
  json quantities = json::object();
  if (in.slot_type == "cpu") {
    int64_t millis = std::llround(in.cpu_per_slot * in.slots_per_pod * 1000);
    if (millis > 0) quantities["cpu"] = MilliQuantity(millis);
  } else if (in.slots_per_pod > 0) {
    std::string name = in.slot_type == "rocm" ? "amd.com/gpu" : "nvidia.com/gpu";
    quantities[name] = std::to_string(in.slots_per_pod);
  }
  if (quantities.empty()) return json::object();
  return {{"requests", quantities}, {"limits", quantities}};
}

json Env(const JobSpecInput& in, const std::string& config_map) {
  std::map<std::string, std::string> plain = in.env;
  for (absl::string_view name : kFromApiEnv) plain.erase(std::string(name));
  std::vector<int> slot_ids;
  for (int i = 0; i < in.slots_per_pod; ++i) slot_ids.push_back(i);
  plain["DET_SLOT_IDS"] = absl::StrCat("[", absl::StrJoin(slot_ids, ","), "]");
  plain["DET_KUBERNETES_JOB_PARALLELISM"] = std::to_string(in.pods);
  // Without it a pod with no GPU slots sees every GPU of its node (NVIDIA's device plugin).
  if (!HasGpuSlots(in)) plain["NVIDIA_VISIBLE_DEVICES"] = "void";

  json env = json::array();
  for (const auto& [name, value] : plain) env.push_back({{"name", name}, {"value", value}});
  auto field_ref = [](absl::string_view path) { return json{{"fieldRef", {{"fieldPath", path}}}}; };
  env.push_back({{"name", "DET_AGENT_ID"}, {"valueFrom", field_ref("spec.nodeName")}});
  env.push_back({{"name", "DET_KUBERNETES_POD_IP"}, {"valueFrom", field_ref("status.podIP")}});
  env.push_back(
      {{"name", "DET_TASK_SPEC"},
       {"valueFrom", {{"configMapKeyRef", {{"name", config_map}, {"key", kTaskSpecKey}}}}}});
  return env;
}

// Kubernetes' mount propagation for a bind mount's, or "" for none (upstream's mapping).
std::string MountPropagation(const std::string& propagation) {
  if (propagation == "private") return "None";
  if (propagation == "rslave") return "HostToContainer";
  if (propagation == "rshared") return "Bidirectional";
  return "";
}

// Our volumes and determined-container's mounts of them: the bind mounts, then the shm volume.
std::pair<json, json> VolumesAndMounts(const JobSpecInput& in) {
  json volumes = json::array();
  json mounts = json::array();
  for (size_t i = 0; i < in.bind_mounts.size(); ++i) {
    const JobSpecInput::BindMount& bind = in.bind_mounts[i];
    std::string name = absl::StrCat("det-host-volume-", i);
    volumes.push_back({{"name", name}, {"hostPath", {{"path", bind.host_path}}}});
    json mount = {{"name", name}, {"mountPath", bind.container_path}};
    if (bind.read_only) mount["readOnly"] = true;
    if (std::string mode = MountPropagation(bind.propagation); !mode.empty()) {
      mount["mountPropagation"] = mode;
    }
    mounts.push_back(std::move(mount));
  }
  volumes.push_back({{"name", kShmVolume}, {"emptyDir", {{"medium", "Memory"}}}});
  mounts.push_back({{"name", kShmVolume}, {"mountPath", "/dev/shm"}});
  return {std::move(volumes), std::move(mounts)};
}

json DeterminedContainer(const JobSpecInput& in, const std::string& job_name, json volume_mounts) {
  json container = {
      {"name", kDeterminedContainerName},
      {"image", in.image},
      {"imagePullPolicy", in.force_pull_image ? "Always" : "IfNotPresent"},
      {"env", Env(in, job_name)},
  };
  if (!in.command.empty()) container["command"] = in.command;
  if (json resources = Resources(in); !resources.empty()) container["resources"] = resources;
  if (!in.working_dir.empty()) container["workingDir"] = in.working_dir;
  container["volumeMounts"] = std::move(volume_mounts);
  if (!in.container_ports.empty()) {
    json ports = json::array();
    for (int port : in.container_ports) ports.push_back({{"containerPort", port}});
    container["ports"] = std::move(ports);
  }
  if (in.run_as) {
    container["securityContext"] = {{"runAsUser", in.run_as->uid}, {"runAsGroup", in.run_as->gid}};
  }
  return container;
}

absl::Status CheckInput(const JobSpecInput& in, const std::string& job_name) {
  if (!IsDnsLabel(in.namespace_name)) {
    return InvalidField("namespace_name",
                        absl::StrCat("\"", in.namespace_name,
                                     "\" is not a DNS-1123 label (a-z, 0-9 and '-', at most 63)"));
  }
  if (job_name.empty()) {
    return InvalidField("job_name", absl::StrCat("\"", in.job_name, "\" holds no letter or digit"));
  }
  if (in.allocation_id.empty()) return InvalidField("allocation_id", "must not be empty");
  bool known_type = false;
  for (absl::string_view type : kTaskTypes) known_type = known_type || in.task_type == type;
  if (!known_type) {
    return InvalidField("task_type", absl::StrCat("\"", in.task_type, "\" is not one of ",
                                                  absl::StrJoin(kTaskTypes, ", ")));
  }
  if (in.image.empty()) return InvalidField("environment.image", "must not be empty");
  if (in.pods < 1 || in.pods > kMaxIndexedPods) {
    return InvalidField("pods",
                        absl::StrCat("must be between 1 and ", kMaxIndexedPods, ", got ", in.pods));
  }
  if (in.slots_per_pod < 0) {
    return InvalidField("slots_per_pod", absl::StrCat("must be >= 0, got ", in.slots_per_pod));
  }
  if (in.slot_type != "cuda" && in.slot_type != "cpu" && in.slot_type != "rocm") {
    return InvalidField("slot_type",
                        absl::StrCat("\"", in.slot_type, "\" is not cuda, cpu or rocm"));
  }
  if (!std::isfinite(in.cpu_per_slot) || in.cpu_per_slot < 0) {
    return InvalidField("slot_resource_requests.cpu",
                        absl::StrCat("must be >= 0, got ", in.cpu_per_slot));
  }
  if (in.priority && *in.priority > kMaxUserPriority) {
    return InvalidField(
        "resources.priority",
        absl::StrCat(*in.priority, " is above ", kMaxUserPriority,
                     ", the highest priority class value Kubernetes allows a user"));
  }
  for (int port : in.container_ports) {
    if (port < 1 || port > 65535) {
      return InvalidField("container_ports", absl::StrCat(port, " is not a port (1 to 65535)"));
    }
  }
  for (const auto& [name, value] : in.env) {
    if (name.empty() || name.find('=') != std::string::npos) {
      return InvalidField("env", absl::StrCat("\"", name, "\" is not a variable name"));
    }
  }
  for (const auto& [key, value] : in.extra_labels) {
    if (!IsLabelName(key)) {
      return InvalidField("extra_labels",
                          absl::StrCat("\"", key,
                                       "\" is not a label name ([A-Za-z0-9._-], at most 63, "
                                       "alphanumeric at both ends)"));
    }
  }
  if (in.task_json.size() + kTaskSpecKey.size() > kMaxConfigMap) {
    return InvalidField("task_json", absl::StrCat(in.task_json.size(), " bytes is over the ",
                                                  kMaxConfigMap, " a ConfigMap may hold"));
  }
  if (in.run_as && (in.run_as->uid < 0 || in.run_as->gid < 0)) {
    return InvalidField("agent_user_group", "uid and gid must be >= 0");
  }
  if (!in.cluster_id.empty() && !IsLabelName(absl::StrCat("cluster-id-", in.cluster_id))) {
    return InvalidField(
        "cluster_id", absl::StrCat("\"", in.cluster_id, "\" cannot be part of a node label name"));
  }
  for (const std::string& node : in.blocked_nodes) {
    if (node.empty()) return InvalidField("blocked_nodes", "a node name must not be empty");
  }
  for (const JobSpecInput::BindMount& bind : in.bind_mounts) {
    for (const std::string& path : {bind.host_path, bind.container_path}) {
      if (path.empty() || path[0] != '/') {
        return InvalidField("bind_mounts", absl::StrCat("\"", path, "\" is not an absolute path"));
      }
    }
  }
  return absl::OkStatus();
}

// The priority class of the pod (spec.priorityClassName) and the PriorityClass to create, if any.
std::optional<json> ApplyPriority(const JobSpecInput& in, const std::string& job_name,
                                  const std::map<std::string, std::string>& labels, json& spec) {
  if (in.task_type == "CHECKPOINT_GC") {
    spec["priorityClassName"] = kSystemPriorityClass;
    return std::nullopt;
  }
  if (in.task_type != "TRIAL" && in.task_type != "GENERIC") return std::nullopt;
  if (spec.contains("priorityClassName")) return std::nullopt;
  if (!in.priority) {
    spec["priorityClassName"] = kMediumPriorityClass;
    return std::nullopt;
  }
  std::string name = PriorityClassName(job_name);
  spec["priorityClassName"] = name;
  return json{
      {"apiVersion", "scheduling.k8s.io/v1"},
      {"kind", "PriorityClass"},
      {"metadata", {{"name", name}, {"labels", labels}}},
      {"value", *in.priority},
      {"globalDefault", false},
      {"preemptionPolicy", "Never"},
      {"description",
       absl::StrCat("Determined allocation ", in.allocation_id, ", priority ", *in.priority)},
  };
}

}  // namespace

std::string LabelValue(absl::string_view raw) {
  return TrimToAlnum(ReplaceOthers(raw, IsLabelChar, '_'), kMaxLabel);
}

std::string PriorityClassName(absl::string_view job_name) {
  return absl::StrCat(job_name, "-priorityclass");
}

std::map<std::string, std::string> AllocationLabels(const JobSpecInput& in) {
  std::string prefix(kLabelPrefix);
  std::map<std::string, std::string> labels = {
      {"determined", LabelValue(in.allocation_id)},
      {prefix + "user", LabelValue(in.user)},
      {prefix + "workspace", LabelValue(in.workspace)},
      {prefix + "resource_pool", LabelValue(in.resource_pool)},
      {prefix + "task_type", LabelValue(in.task_type)},
      {prefix + "task_id", LabelValue(in.task_id)},
      {prefix + "allocation_id", LabelValue(in.allocation_id)},
      {prefix + "container_id", SanitizeJobName(in.job_name, in.pods)},
  };
  for (const auto& [key, value] : in.extra_labels) labels[prefix + key] = LabelValue(value);
  return labels;
}

absl::StatusOr<JobObjects> BuildJobObjects(const JobSpecInput& in) {
  std::string job_name = SanitizeJobName(in.job_name, in.pods);
  if (absl::Status s = CheckInput(in, job_name); !s.ok()) return s;
  std::string pool_field = in.slots_per_pod > 0 ? "task_container_defaults.gpu_pod_spec"
                                                : "task_container_defaults.cpu_pod_spec";
  constexpr absl::string_view kEnvField = "environment.pod_spec";
  if (absl::Status s = CheckPodSpec(in.pool_pod_spec, pool_field); !s.ok()) return s;
  if (absl::Status s = CheckPodSpec(in.env_pod_spec, kEnvField); !s.ok()) return s;
  absl::StatusOr<json> user = OverlayPodSpec(NormalizePodSpec(in.pool_pod_spec),
                                             NormalizePodSpec(in.env_pod_spec), kEnvField);
  if (!user.ok()) return user.status();

  std::map<std::string, std::string> labels = AllocationLabels(in);
  auto [volumes, mounts] = VolumesAndMounts(in);
  json ours = {
      {"metadata", {{"labels", labels}}},
      {"spec",
       {{"containers", json::array({DeterminedContainer(in, job_name, std::move(mounts))})},
        {"volumes", std::move(volumes)},
        {"restartPolicy", "Never"}}},
  };
  absl::StatusOr<json> pod = MergePodSpec(*user, std::move(ours));
  if (!pod.ok()) return pod.status();
  json& spec = (*pod)["spec"];

  if (in.host_network) {
    spec["hostNetwork"] = true;
  } else {
    spec.erase("hostNetwork");
  }
  if (!in.cluster_id.empty()) {
    AddRequiredNodeRequirement(spec,
                               {{"key", absl::StrCat(kLabelPrefix, "cluster-id-", in.cluster_id)},
                                {"operator", "DoesNotExist"}},
                               /*match_fields=*/false);
  }
  for (const std::string& node : in.blocked_nodes) {
    // One requirement per node: Kubernetes allows a single value for NotIn on a node field.
    AddRequiredNodeRequirement(
        spec, {{"key", "metadata.name"}, {"operator", "NotIn"}, {"values", json::array({node})}},
        /*match_fields=*/true);
  }

  JobObjects out;
  out.job_name = job_name;
  out.priority_class = ApplyPriority(in, job_name, labels, spec);

  json job_metadata = (*pod)["metadata"];
  job_metadata["name"] = job_name;
  job_metadata["namespace"] = in.namespace_name;
  out.job = {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata", std::move(job_metadata)},
      {"spec",
       {{"parallelism", in.pods},
        {"completions", in.pods},
        {"completionMode", "Indexed"},
        {"backoffLimit", 0},
        {"ttlSecondsAfterFinished", kTtlSecondsAfterFinished},
        {"template", std::move(*pod)}}},
  };
  out.config_map = {
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata", {{"name", job_name}, {"namespace", in.namespace_name}, {"labels", labels}}},
      {"data", {{kTaskSpecKey, in.task_json}}},
  };
  return out;
}

}  // namespace det::master::kube
