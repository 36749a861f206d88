#include "agent/pod_launch.h"

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
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
      return absl::InvalidArgumentError(absl::StrCat(
          "environment variable ", name,
          " is not set: determined-pod-runner runs in pods that the master's Kubernetes resource manager creates"));
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
  if (std::string index = Get(env, "JOB_COMPLETION_INDEX"); !index.empty() && !absl::SimpleAtoi(index, &out.rank)) {
    return absl::InvalidArgumentError(absl::StrCat("JOB_COMPLETION_INDEX: want a number, got \"", index, "\""));
  }
  if (out.rank < 0 || out.rank >= out.pods) {
    return absl::InvalidArgumentError(
        absl::StrCat("JOB_COMPLETION_INDEX ", out.rank, " is not below the task's ", out.pods, " pod(s)"));
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

}  // namespace det::agent
