// BuildJobObjects' rules one by one, then the golden cases: every testdata/<case>.input.json is a
// JobSpecInput as JSON (keys as the struct's fields; run_as is {"uid", "gid"}; keys starting with
// "_" are comments), and testdata/<case>.golden.json the objects expected from it, written by hand
// from upstream's rules, as a v1 List in the order they are created: the PriorityClass (when there
// is one), the ConfigMap, the Job. The lists are also valid kubectl input
// (testdata/check_with_kubectl.sh).
#include "master/rm/kubernetes/job_spec.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace det::master::kube {
namespace {

using nlohmann::json;

JobSpecInput Base() {
  JobSpecInput in;
  in.namespace_name = "det";
  in.job_name = "det-1a2b-exp-3-trial-7";
  in.allocation_id = "3.7.0";
  in.task_id = "3.7";
  in.task_type = "TRIAL";
  in.user = "alice";
  in.workspace = "Uncategorized";
  in.resource_pool = "default";
  in.image = "determinedai/pytorch-ngc:0.38.1";
  in.command = {"/run/determined/pod-runner"};
  in.task_json = "{}";
  return in;
}

JobObjects Build(const JobSpecInput& in) {
  absl::StatusOr<JobObjects> objects = BuildJobObjects(in);
  EXPECT_TRUE(objects.ok()) << objects.status();
  return objects.ok() ? *std::move(objects) : JobObjects{};
}

std::string Error(const JobSpecInput& in) {
  absl::StatusOr<JobObjects> objects = BuildJobObjects(in);
  if (objects.ok()) return "ok";
  EXPECT_EQ(objects.status().code(), absl::StatusCode::kInvalidArgument) << objects.status();
  return std::string(objects.status().message());
}

const json& PodSpec(const JobObjects& objects) { return objects.job["spec"]["template"]["spec"]; }

const json& Container(const JobObjects& objects) { return PodSpec(objects)["containers"].back(); }

std::vector<std::string> EnvNames(const json& container) {
  std::vector<std::string> names;
  for (const json& var : container["env"]) names.push_back(var["name"].get<std::string>());
  return names;
}

std::string EnvValue(const json& container, const std::string& name) {
  for (const json& var : container["env"]) {
    if (var["name"] == name) return var.value("value", "<valueFrom>");
  }
  return "<unset>";
}

// Upstream's TestValidatePodLabelValues, plus a character beyond ASCII.
TEST(LabelValueTest, MakesAValidLabelValueUpstreamsWay) {
  struct Case {
    std::string input, output;
  };
  std::vector<Case> cases = {
      {"simpleCharacters", "simpleCharacters"},
      {"simple4Characters", "simple4Characters"},
      {"simple-Characters.With_Other", "simple-Characters.With_Other"},
      {"letters contain *@ other chars -=%", "letters_contain____other_chars"},
      {"-%4-simpleCharacters0", "4-simpleCharacters0"},
      {"simple-Characters4%-.#", "simple-Characters4"},
      {"simpleCharactersGoesOnForWayTooLong36384042444648505254565860-_AndThenSome",
       "simpleCharactersGoesOnForWayTooLong36384042444648505254565860"},
      {"name@domain.com", "name_domain.com"},
      {"-.*$%#$...", ""},
      {"", ""},
      {"na\xc3\xafve caf\xc3\xa9", "na_ve_caf"},  // one '_' per UTF-8 character
  };
  for (const Case& c : cases) EXPECT_EQ(LabelValue(c.input), c.output) << c.input;
}

// Upstream's TestDeterminedLabels.
TEST(AllocationLabelsTest, NameTheAllocationOnEveryObject) {
  JobSpecInput in = Base();
  in.workspace = "ML Research";
  in.extra_labels = {{"experiment_id", "3"}, {"trial_id", "7"}};
  std::map<std::string, std::string> expected = {
      {"determined", "3.7.0"},
      {"determined.ai/user", "alice"},
      {"determined.ai/workspace", "ML_Research"},
      {"determined.ai/resource_pool", "default"},
      {"determined.ai/task_type", "TRIAL"},
      {"determined.ai/task_id", "3.7"},
      {"determined.ai/allocation_id", "3.7.0"},
      {"determined.ai/container_id", "det-1a2b-exp-3-trial-7"},
      {"determined.ai/experiment_id", "3"},
      {"determined.ai/trial_id", "7"},
  };
  EXPECT_EQ(AllocationLabels(in), expected);
  JobObjects objects = Build(in);
  json labels = expected;
  EXPECT_EQ(objects.job["metadata"]["labels"], labels);
  EXPECT_EQ(objects.job["spec"]["template"]["metadata"]["labels"], labels);
  EXPECT_EQ(objects.config_map["metadata"]["labels"], labels);
}

// Upstream's TestConfigureResourcesRequirements, and the zero cases.
TEST(BuildJobObjectsTest, RequestsAndLimitsTheSlots) {
  auto resources = [](std::string slot_type, int slots, double cpu) {
    JobSpecInput in = Base();
    in.slot_type = std::move(slot_type);
    in.slots_per_pod = slots;
    in.cpu_per_slot = cpu;
    return Container(Build(in)).value("resources", json());
  };
  auto both = [](const std::string& name, const std::string& quantity) {
    return json{{"requests", {{name, quantity}}}, {"limits", {{name, quantity}}}};
  };
  EXPECT_EQ(resources("cpu", 3, 1.0), both("cpu", "3"));
  EXPECT_EQ(resources("cuda", 3, 1.0), both("nvidia.com/gpu", "3"));
  EXPECT_EQ(resources("rocm", 3, 1.0), both("amd.com/gpu", "3"));
  EXPECT_EQ(resources("cpu", 2, 0.25), both("cpu", "500m"));
  EXPECT_EQ(resources("cpu", 1, 0.29), both("cpu", "290m")) << "rounded, not cut to 289m";
  EXPECT_EQ(resources("cpu", 3, 1.5), both("cpu", "4500m"));
  EXPECT_TRUE(resources("cpu", 4, 0).is_null()) << "no slot_resource_requests.cpu: no request";
  EXPECT_TRUE(resources("cpu", 0, 2).is_null());
  EXPECT_TRUE(resources("cuda", 0, 0).is_null()) << "nvidia.com/gpu: 0 would keep CPU nodes out";
  EXPECT_TRUE(resources("rocm", 0, 0).is_null());
}

TEST(BuildJobObjectsTest, EnvIsSortedThenFromTheApiThenTheUsers) {
  JobSpecInput in = Base();
  in.slots_per_pod = 2;
  in.pods = 3;
  in.env = {{"DET_MASTER", "http://m:8080"},  {"ZED", "z"},
            {"DET_SLOT_IDS", "[7]"},          {"DET_TASK_SPEC", "ignored"},
            {"DET_AGENT_ID", "ignored"},      {"A_FIRST", "a"},
            {"NVIDIA_VISIBLE_DEVICES", "all"}};
  in.env_pod_spec = json::parse(R"({"spec": {"containers": [{"name": "determined-container",
      "env": [{"name": "USER_VAR", "value": "u"}]}]}})");
  JobObjects objects = Build(in);
  const json& container = Container(objects);
  EXPECT_EQ(
      EnvNames(container),
      (std::vector<std::string>{"A_FIRST", "DET_KUBERNETES_JOB_PARALLELISM", "DET_MASTER",
                                "DET_SLOT_IDS", "NVIDIA_VISIBLE_DEVICES", "ZED", "DET_AGENT_ID",
                                "DET_KUBERNETES_POD_IP", "DET_TASK_SPEC", "USER_VAR"}));
  EXPECT_EQ(EnvValue(container, "DET_SLOT_IDS"), "[0,1]") << "ours win";
  EXPECT_EQ(EnvValue(container, "DET_KUBERNETES_JOB_PARALLELISM"), "3");
  EXPECT_EQ(EnvValue(container, "NVIDIA_VISIBLE_DEVICES"), "all") << "a GPU pod: not ours";
  EXPECT_EQ(container["env"][8], json::parse(R"({"name": "DET_TASK_SPEC", "valueFrom":
      {"configMapKeyRef": {"name": "det-1a2b-exp-3-trial-7", "key": "task.json"}}})"));
  EXPECT_EQ(container["env"][6], json::parse(R"({"name": "DET_AGENT_ID", "valueFrom":
      {"fieldRef": {"fieldPath": "spec.nodeName"}}})"));

  in.slots_per_pod = 0;
  EXPECT_EQ(EnvValue(Container(Build(in)), "NVIDIA_VISIBLE_DEVICES"), "void");
  EXPECT_EQ(EnvValue(Container(Build(in)), "DET_SLOT_IDS"), "[]");
  in.slot_type = "cpu";
  in.slots_per_pod = 4;
  EXPECT_EQ(EnvValue(Container(Build(in)), "NVIDIA_VISIBLE_DEVICES"), "void");
}

// Upstream's modifyPodSpec, per task type.
TEST(BuildJobObjectsTest, PriorityClassPerTaskType) {
  auto run = [](const std::string& type, std::optional<int> priority, std::string user_class = "") {
    JobSpecInput in = Base();
    in.task_type = type;
    in.priority = priority;
    if (!user_class.empty()) {
      in.env_pod_spec = {{"spec", {{"priorityClassName", user_class}}}};
    }
    return Build(in);
  };
  for (const std::string type : {"TRIAL", "GENERIC"}) {
    JobObjects with = run(type, 42);
    EXPECT_EQ(PodSpec(with)["priorityClassName"], "det-1a2b-exp-3-trial-7-priorityclass");
    ASSERT_TRUE(with.priority_class.has_value());
    EXPECT_EQ((*with.priority_class)["metadata"]["name"], "det-1a2b-exp-3-trial-7-priorityclass");
    EXPECT_EQ((*with.priority_class)["value"], 42);
    EXPECT_EQ((*with.priority_class)["preemptionPolicy"], "Never");
    EXPECT_FALSE((*with.priority_class)["metadata"].contains("namespace")) << "cluster-scoped";

    JobObjects without = run(type, std::nullopt);
    EXPECT_EQ(PodSpec(without)["priorityClassName"], "determined-medium-priority");
    EXPECT_FALSE(without.priority_class.has_value());

    JobObjects users = run(type, 42, "team-a");
    EXPECT_EQ(PodSpec(users)["priorityClassName"], "team-a");
    EXPECT_FALSE(users.priority_class.has_value());
  }
  JobObjects gc = run("CHECKPOINT_GC", 42, "team-a");
  EXPECT_EQ(PodSpec(gc)["priorityClassName"], "determined-system-priority");
  EXPECT_FALSE(gc.priority_class.has_value());
  for (const std::string type : {"COMMAND", "NOTEBOOK", "SHELL", "TENSORBOARD"}) {
    JobObjects command = run(type, 42);
    EXPECT_FALSE(PodSpec(command).contains("priorityClassName")) << type;
    EXPECT_FALSE(command.priority_class.has_value()) << type;
    EXPECT_EQ(PodSpec(run(type, 42, "team-a"))["priorityClassName"], "team-a") << type;
  }
}

TEST(BuildJobObjectsTest, TheJobRunsItsPodsOnceIndexed) {
  JobSpecInput in = Base();
  in.pods = 4;
  in.force_pull_image = true;
  in.container_ports = {8888, 2222};
  JobObjects objects = Build(in);
  EXPECT_EQ(objects.job["spec"]["parallelism"], 4);
  EXPECT_EQ(objects.job["spec"]["completions"], 4);
  EXPECT_EQ(objects.job["spec"]["completionMode"], "Indexed");
  EXPECT_EQ(objects.job["spec"]["backoffLimit"], 0);
  EXPECT_EQ(objects.job["spec"]["ttlSecondsAfterFinished"], 900);
  EXPECT_EQ(PodSpec(objects)["restartPolicy"], "Never");
  EXPECT_EQ(Container(objects)["imagePullPolicy"], "Always");
  EXPECT_EQ(Container(objects)["ports"], json::parse(R"([{"containerPort": 8888},
                                                         {"containerPort": 2222}])"));
  EXPECT_EQ(Container(objects)["workingDir"], "/run/determined/workdir");
  EXPECT_EQ(objects.config_map["data"], json::parse(R"({"task.json": "{}"})"));
  EXPECT_EQ(objects.config_map["metadata"]["name"], objects.job["metadata"]["name"]);
  in.force_pull_image = false;
  EXPECT_EQ(Container(Build(in))["imagePullPolicy"], "IfNotPresent");
}

// Upstream's configureVolumes: the bind mounts as hostPath volumes, then the shm volume.
TEST(BuildJobObjectsTest, BindMountsAndShmAreOurVolumes) {
  JobSpecInput in = Base();
  in.bind_mounts = {{"/data", "/mnt/data", true, "rprivate"},
                    {"/a", "/b", false, "private"},
                    {"/c", "/d", false, "rslave"},
                    {"/e", "/f", false, "rshared"}};
  in.env_pod_spec = json::parse(R"({"spec": {"volumes": [{"name": "user", "emptyDir": {}}],
      "containers": [{"name": "determined-container",
                      "volumeMounts": [{"name": "user", "mountPath": "/u"}]}]}})");
  JobObjects objects = Build(in);
  EXPECT_EQ(PodSpec(objects)["volumes"], json::parse(R"([
      {"name": "user", "emptyDir": {}},
      {"name": "det-host-volume-0", "hostPath": {"path": "/data"}},
      {"name": "det-host-volume-1", "hostPath": {"path": "/a"}},
      {"name": "det-host-volume-2", "hostPath": {"path": "/c"}},
      {"name": "det-host-volume-3", "hostPath": {"path": "/e"}},
      {"name": "det-shm-volume", "emptyDir": {"medium": "Memory"}}])"));
  EXPECT_EQ(Container(objects)["volumeMounts"], json::parse(R"([
      {"name": "det-host-volume-0", "mountPath": "/mnt/data", "readOnly": true},
      {"name": "det-host-volume-1", "mountPath": "/b", "mountPropagation": "None"},
      {"name": "det-host-volume-2", "mountPath": "/d", "mountPropagation": "HostToContainer"},
      {"name": "det-host-volume-3", "mountPath": "/f", "mountPropagation": "Bidirectional"},
      {"name": "det-shm-volume", "mountPath": "/dev/shm"},
      {"name": "user", "mountPath": "/u"}])"));
}

TEST(BuildJobObjectsTest, HostNetworkIsOursToSay) {
  JobSpecInput in = Base();
  in.env_pod_spec = {{"spec", {{"hostNetwork", true}}}};
  EXPECT_FALSE(PodSpec(Build(in)).contains("hostNetwork"));
  in.host_network = true;
  EXPECT_EQ(PodSpec(Build(in))["hostNetwork"], true);
}

TEST(BuildJobObjectsTest, AJobNameIsMadeADnsLabelItsPodsHostnamesCanExtend) {
  JobSpecInput in = Base();
  in.job_name = "Exp_3.Trial#7";
  JobObjects objects = Build(in);
  EXPECT_EQ(objects.job_name, "exp-3-trial-7");
  EXPECT_EQ(objects.job["metadata"]["name"], "exp-3-trial-7");
  EXPECT_EQ(objects.config_map["metadata"]["name"], "exp-3-trial-7");
  EXPECT_EQ(objects.job["metadata"]["labels"]["determined.ai/container_id"], "exp-3-trial-7");

  in.job_name = std::string(70, 'a');
  in.pods = 1;
  EXPECT_EQ(Build(in).job_name, std::string(61, 'a')) << "room for -0";
  in.pods = 11;
  EXPECT_EQ(Build(in).job_name, std::string(60, 'a')) << "room for -10";
  in.job_name = std::string(59, 'a') + "-b";
  EXPECT_EQ(Build(in).job_name, std::string(59, 'a')) << "no '-' at the end";
}

TEST(BuildJobObjectsTest, RefusesInputTheObjectsCannotBeMadeFrom) {
  auto error = [](auto change) {
    JobSpecInput in = Base();
    change(in);
    return Error(in);
  };
  EXPECT_EQ(error([](JobSpecInput&) {}), "ok");
  EXPECT_EQ(error([](JobSpecInput& in) { in.namespace_name = "Det_NS"; }),
            "namespace_name: \"Det_NS\" is not a DNS-1123 label (a-z, 0-9 and '-', at most 63)");
  EXPECT_EQ(error([](JobSpecInput& in) { in.job_name = "--"; }),
            "job_name: \"--\" holds no letter or digit");
  EXPECT_EQ(error([](JobSpecInput& in) { in.allocation_id = ""; }),
            "allocation_id: must not be empty");
  EXPECT_EQ(error([](JobSpecInput& in) { in.task_type = "trial"; }),
            "task_type: \"trial\" is not one of TRIAL, COMMAND, NOTEBOOK, SHELL, TENSORBOARD, "
            "GENERIC, CHECKPOINT_GC");
  EXPECT_EQ(error([](JobSpecInput& in) { in.image = ""; }), "environment.image: must not be empty");
  EXPECT_EQ(error([](JobSpecInput& in) { in.pods = 0; }),
            "pods: must be between 1 and 100000, got 0");
  EXPECT_EQ(error([](JobSpecInput& in) { in.slots_per_pod = -1; }),
            "slots_per_pod: must be >= 0, got -1");
  EXPECT_EQ(error([](JobSpecInput& in) { in.slot_type = "tpu"; }),
            "slot_type: \"tpu\" is not cuda, cpu or rocm");
  EXPECT_EQ(error([](JobSpecInput& in) { in.cpu_per_slot = -0.5; }),
            "slot_resource_requests.cpu: must be >= 0, got -0.5");
  EXPECT_EQ(error([](JobSpecInput& in) { in.priority = 1'000'000'001; }),
            "resources.priority: 1000000001 is above 1000000000, the highest priority class value "
            "Kubernetes allows a user");
  EXPECT_EQ(error([](JobSpecInput& in) { in.container_ports = {0}; }),
            "container_ports: 0 is not a port (1 to 65535)");
  EXPECT_EQ(error([](JobSpecInput& in) {
              in.env = {{"A=B", "1"}};
            }),
            "env: \"A=B\" is not a variable name");
  EXPECT_EQ(error([](JobSpecInput& in) {
              in.extra_labels = {{"trial id", "1"}};
            }),
            "extra_labels: \"trial id\" is not a label name ([A-Za-z0-9._-], at most 63, "
            "alphanumeric at both ends)");
  EXPECT_EQ(error([](JobSpecInput& in) { in.task_json = std::string(1 << 20, 'x'); }),
            "task_json: 1048576 bytes is over the 1048576 a ConfigMap may hold");
  EXPECT_EQ(error([](JobSpecInput& in) { in.task_json = std::string((1 << 20) - 9, 'x'); }), "ok");
  EXPECT_EQ(error([](JobSpecInput& in) {
              in.run_as = JobSpecInput::RunAs{-1, 0};
            }),
            "agent_user_group: uid and gid must be >= 0");
  EXPECT_EQ(error([](JobSpecInput& in) { in.cluster_id = "a/b"; }),
            "cluster_id: \"a/b\" cannot be part of a node label name");
  EXPECT_EQ(error([](JobSpecInput& in) { in.blocked_nodes = {""}; }),
            "blocked_nodes: a node name must not be empty");
  EXPECT_EQ(error([](JobSpecInput& in) {
              in.bind_mounts = {{"/host", "relative/path", false, ""}};
            }),
            "bind_mounts: \"relative/path\" is not an absolute path");
  EXPECT_EQ(error([](JobSpecInput& in) { in.env_pod_spec = "pod"; }),
            "environment.pod_spec: must be an object (a Pod: {\"metadata\": ..., \"spec\": ...}), "
            "got string");
  EXPECT_EQ(error([](JobSpecInput& in) {
              in.pool_pod_spec = json::parse(R"({"spec": {"containers": [{"name":
                  "determined-container", "volumeMounts": {"name": "fs"}}]}})");
            }),
            "task_container_defaults.cpu_pod_spec.spec.containers[0].volumeMounts: must be a list, "
            "got object");
  EXPECT_EQ(error([](JobSpecInput& in) {
              in.slots_per_pod = 1;
              in.pool_pod_spec = json::parse(R"({"spec": {"volumes": [{"name": 1}]}})");
            }),
            "task_container_defaults.gpu_pod_spec.spec.volumes[0].name: must be a string, got "
            "number");
}

// ---- golden cases ----

JobSpecInput InputFromJson(const json& j) {
  // clang-format off
  static const std::set<std::string> kKnown = {
      "namespace_name", "job_name", "allocation_id", "task_id", "task_type", "user", "workspace",
      "resource_pool", "extra_labels", "image", "force_pull_image", "command", "env", "task_json",
      "pods", "slots_per_pod", "slot_type", "cpu_per_slot", "priority", "pool_pod_spec",
      "env_pod_spec", "container_ports", "working_dir", "run_as", "host_network", "cluster_id",
      "blocked_nodes", "bind_mounts"};
  // clang-format on
  for (const auto& [key, value] : j.items()) {
    if (key.empty() || key[0] == '_') continue;
    EXPECT_TRUE(kKnown.count(key) > 0) << "unknown input key " << key;
  }
  JobSpecInput in;
  in.namespace_name = j.value("namespace_name", "");
  in.job_name = j.value("job_name", "");
  in.allocation_id = j.value("allocation_id", "");
  in.task_id = j.value("task_id", "");
  in.task_type = j.value("task_type", "");
  in.user = j.value("user", "");
  in.workspace = j.value("workspace", "");
  in.resource_pool = j.value("resource_pool", "");
  in.extra_labels = j.value("extra_labels", std::map<std::string, std::string>{});
  in.image = j.value("image", "");
  in.force_pull_image = j.value("force_pull_image", false);
  in.command = j.value("command", std::vector<std::string>{});
  in.env = j.value("env", std::map<std::string, std::string>{});
  in.task_json = j.value("task_json", "");
  in.pods = j.value("pods", 1);
  in.slots_per_pod = j.value("slots_per_pod", 0);
  in.slot_type = j.value("slot_type", "cuda");
  in.cpu_per_slot = j.value("cpu_per_slot", 0.0);
  if (j.contains("priority")) in.priority = j["priority"].get<int>();
  in.pool_pod_spec = j.value("pool_pod_spec", json());
  in.env_pod_spec = j.value("env_pod_spec", json());
  in.container_ports = j.value("container_ports", std::vector<int>{});
  in.working_dir = j.value("working_dir", in.working_dir);
  if (j.contains("run_as")) {
    in.run_as = JobSpecInput::RunAs{j["run_as"].at("uid").get<int64_t>(),
                                    j["run_as"].at("gid").get<int64_t>()};
  }
  in.host_network = j.value("host_network", false);
  in.cluster_id = j.value("cluster_id", "");
  in.blocked_nodes = j.value("blocked_nodes", std::vector<std::string>{});
  for (const json& bind : j.value("bind_mounts", json::array())) {
    in.bind_mounts.push_back({bind.at("host_path").get<std::string>(),
                              bind.at("container_path").get<std::string>(),
                              bind.value("read_only", false), bind.value("propagation", "")});
  }
  return in;
}

json ReadJson(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return json::parse(text.str());
}

TEST(BuildJobObjectsGoldenTest, EveryCaseBuildsItsGoldenObjects) {
  std::filesystem::path dir = DET_KUBE_TESTDATA_DIR;
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string file = entry.path().filename().string();
    const std::string suffix = ".input.json";
    if (file.size() <= suffix.size() || file.substr(file.size() - suffix.size()) != suffix) {
      continue;
    }
    std::string name = file.substr(0, file.size() - suffix.size());
    SCOPED_TRACE(name);
    ++cases;
    JobSpecInput in = InputFromJson(ReadJson(entry.path()));
    absl::StatusOr<JobObjects> objects = BuildJobObjects(in);
    ASSERT_TRUE(objects.ok()) << objects.status();
    json items = json::array();
    if (objects->priority_class) items.push_back(*objects->priority_class);
    items.push_back(objects->config_map);
    items.push_back(objects->job);
    json actual = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
    json golden = ReadJson(dir / (name + ".golden.json"));
    EXPECT_EQ(actual, golden) << "differences (golden to actual): "
                              << json::diff(golden, actual).dump(1) << "\nactual:\n"
                              << actual.dump(2);
  }
  EXPECT_GE(cases, 7);
}

}  // namespace
}  // namespace det::master::kube
