#include "agent/pod_launch.h"

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/build_layout.h"

namespace det::agent {

using nlohmann::json;

namespace {

std::string Get(const std::map<std::string, std::string>& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? "" : it->second;
}

}  // namespace

absl::StatusOr<PodLaunch> ReadPodLaunch(const std::map<std::string, std::string>& env) {
  PodLaunch out;
  for (const char* name : {"DET_TASK_SPEC", "DET_ALLOCATION_ID", "DET_TASK_ID", "DET_MASTER"}) {
    if (Get(env, name).empty()) {
      return absl::InvalidArgumentError(absl::StrCat("environment variable ", name,
                                                     " is not set: determined-pod-runner runs in the pods and Slurm "
                                                     "jobs that the master's resource managers create"));
    }
  }
  json spec = json::parse(Get(env, "DET_TASK_SPEC"), nullptr, false);
  if (!spec.is_object() || !spec.contains("entrypoint") || !spec["entrypoint"].is_array() || spec["entrypoint"].empty()) {
    return absl::InvalidArgumentError("environment variable DET_TASK_SPEC: want a JSON object with a non-empty "
                                      "\"entrypoint\" list");
  }
  for (const json& arg : spec["entrypoint"]) {
    if (!arg.is_string()) return absl::InvalidArgumentError("DET_TASK_SPEC: entrypoint holds a non-string");
    out.entrypoint.push_back(arg.get<std::string>());
  }
  out.work_dir = spec.value("work_dir", "");
  out.download_context = spec.value("download_context", true);
  out.pods = spec.value("pods", 1);
  out.slots_per_pod = spec.value("slots_per_pod", 0);
  const std::string platform = spec.value("platform", "kubernetes");
  if (platform != "kubernetes" && platform != "slurm") {
    return absl::InvalidArgumentError(
        absl::StrCat("DET_TASK_SPEC: platform \"", platform, "\" is neither \"kubernetes\" nor \"slurm\""));
  }
  out.platform = platform == "slurm" ? RunnerPlatform::kSlurm : RunnerPlatform::kKubernetes;
  const char* rank_name = out.platform == RunnerPlatform::kSlurm ? "SLURM_PROCID" : "JOB_COMPLETION_INDEX";
  if (std::string index = Get(env, rank_name); !index.empty() && !absl::SimpleAtoi(index, &out.rank)) {
    return absl::InvalidArgumentError(absl::StrCat(rank_name, ": want a number, got \"", index, "\""));
  }
  if (out.rank < 0 || out.rank >= out.pods) {
    return absl::InvalidArgumentError(
        absl::StrCat(rank_name, " ", out.rank, " is not below the task's ", out.pods, " pod(s)"));
  }
  if (out.platform == RunnerPlatform::kSlurm) {
    int tasks = 0;
    if (!absl::SimpleAtoi(Get(env, "SLURM_NTASKS"), &tasks) || tasks != out.pods) {
      return absl::InvalidArgumentError(absl::StrCat("SLURM_NTASKS \"", Get(env, "SLURM_NTASKS"),
                                                     "\" is not the task's ", out.pods,
                                                     " process(es): the runner must be started by the job's srun"));
    }
  }
  out.allocation_id = Get(env, "DET_ALLOCATION_ID");
  out.task_id = Get(env, "DET_TASK_ID");
  out.master_url = Get(env, "DET_MASTER");
  out.session_token = Get(env, "DET_SESSION_TOKEN");
  out.resources_id = out.pods > 1 ? absl::StrCat(out.allocation_id, ".", out.rank) : out.allocation_id;
  return out;
}

std::map<std::string, std::string> PodTaskEnv(std::map<std::string, std::string> env, const PodLaunch& launch,
                                              const std::filesystem::path& bin_dir,
                                              const std::filesystem::path& task_dir,
                                              const std::optional<std::string>& rendezvous_json) {
  auto prepend = [&env](const std::string& name, const std::string& dir) {
    std::string rest = env.count(name) ? env[name] : "";
    env[name] = rest.empty() ? dir : absl::StrCat(dir, ":", rest);
  };
  if (env.count("PATH") == 0 || env["PATH"].empty()) env["PATH"] = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
  prepend("PATH", bin_dir.string());
  prepend("PYTHONPATH", HarnessPythonDir(bin_dir).string());
  if (env.count("LANG") == 0) env["LANG"] = "C.UTF-8";
  env["PYTHONUNBUFFERED"] = "1";
  env["PYENV_VERSION"] = "system";
  env["DET_WORKDIR"] = task_dir.string();
  env["DET_RESOURCES_ID"] = env["DET_CONTAINER_ID"] = launch.resources_id;
  if (env.count("DET_AGENT_ID") == 0) env["DET_AGENT_ID"] = env.count("HOSTNAME") ? env["HOSTNAME"] : "pod";
  env.erase("DET_TASK_SPEC");
  if (rendezvous_json) {
    env["DET_RENDEZVOUS_INFO"] = *rendezvous_json;
  } else {
    env.erase("DET_RENDEZVOUS_INFO");
  }
  return env;
}

absl::StatusOr<std::string> RendezvousInfoJson(const std::string& reply_body) {
  json reply = json::parse(reply_body, nullptr, false);
  const json* info = reply.is_object() && reply.contains("rendezvousInfo") ? &reply["rendezvousInfo"] : nullptr;
  if (info == nullptr || !info->is_object() || !info->contains("addresses") || !(*info)["addresses"].is_array() ||
      !info->contains("slots") || !(*info)["slots"].is_array() || !info->contains("rank") ||
      !(*info)["rank"].is_number_integer()) {
    return absl::InternalError(absl::StrCat("the master's rendezvous reply is not {rendezvousInfo: {addresses, rank, "
                                            "slots}}: ",
                                            reply_body.substr(0, 200)));
  }
  return json{{"container_addrs", (*info)["addresses"]},
              {"container_rank", (*info)["rank"]},
              {"container_slot_counts", (*info)["slots"]}}
      .dump();
}

absl::StatusOr<std::string> SlurmRendezvousJson(const std::string& hosts, const std::string& tasks_per_node,
                                                int rank, int slots_per_task) {
  const std::vector<std::string> nodes = absl::StrSplit(hosts, ' ', absl::SkipWhitespace());
  auto bad_counts = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("SLURM_STEP_TASKS_PER_NODE \"", tasks_per_node, "\": ", why));
  };
  // Each element is "N" or "N(xM)": N tasks on each of the next M nodes.
  std::vector<std::string> addresses;
  size_t node = 0;
  for (absl::string_view part : absl::StrSplit(tasks_per_node, ',', absl::SkipEmpty())) {
    int tasks = 0;
    int repeat = 1;
    const size_t paren = part.find("(x");
    bool ok = absl::SimpleAtoi(part.substr(0, paren), &tasks);
    if (paren != absl::string_view::npos) {
      ok = ok && part.back() == ')' && absl::SimpleAtoi(part.substr(paren + 2, part.size() - paren - 3), &repeat);
    }
    if (!ok || tasks < 0 || repeat < 1) return bad_counts("want counts like \"2(x3),1\"");
    for (int r = 0; r < repeat; ++r, ++node) {
      if (node >= nodes.size()) {
        return bad_counts(absl::StrCat("more nodes than the ", nodes.size(), " of DET_SLURM_HOSTS \"", hosts, "\""));
      }
      addresses.insert(addresses.end(), tasks, nodes[node]);
    }
  }
  if (rank < 0 || rank >= static_cast<int>(addresses.size())) {
    return bad_counts(absl::StrCat("rank ", rank, " is not among its ", addresses.size(), " task(s)"));
  }
  return json{{"container_addrs", addresses},
              {"container_rank", rank},
              {"container_slot_counts", std::vector<int>(addresses.size(), slots_per_task)}}
      .dump();
}

}  // namespace det::agent
