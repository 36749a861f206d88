#include "agent/task_env.h"

#include <cstdlib>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/build_layout.h"
#include "config/task_container_defaults.h"

namespace det::agent {

AgentEnvironment AgentEnvironmentFromProcess(MasterUrl master, std::string agent_id) {
  AgentEnvironment env;
  env.master = std::move(master);
  env.agent_id = std::move(agent_id);
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) exe = std::filesystem::current_path(ec) / "determined-agent";
  std::filesystem::path bin = std::filesystem::weakly_canonical(exe.parent_path(), ec);
  env.bin_dir = ec ? exe.parent_path() : bin;
  env.python_dir = HarnessPythonDir(exe.parent_path());
  if (const char* path = std::getenv("PATH")) env.agent_path = path;
  for (const char* name : {"HOME", "USER", "LANG", "TMPDIR"}) {
    if (const char* value = std::getenv(name)) env.inherited[name] = value;
  }
  return env;
}

std::map<std::string, std::string> BuildTaskEnv(const api::StartTask& task,
                                                const AgentEnvironment& agent,
                                                const std::filesystem::path& task_dir) {
  std::map<std::string, std::string> env = agent.inherited;
  // Python prints UTF-8 regardless, but tools the task runs behave better with a UTF-8 locale.
  if (env.count("LANG") == 0) env["LANG"] = "C.UTF-8";
  for (const auto& [k, v] : task.env) env[k] = v;

  std::string python_path = agent.python_dir.string();
  if (auto it = task.env.find("PYTHONPATH"); it != task.env.end() && !it->second.empty()) {
    absl::StrAppend(&python_path, ":", it->second);
  }
  std::string path = "/usr/bin:/bin:/usr/sbin:/sbin";
  if (!agent.bin_dir.empty()) path = absl::StrCat(agent.bin_dir.string(), ":", path);
  // An empty PATH entry would mean the current directory, so append only a non-empty PATH.
  if (!agent.agent_path.empty()) absl::StrAppend(&path, ":", agent.agent_path);

  env["DET_MASTER"] = agent.master.HttpUrl();
  env["DET_MASTER_HOST"] = agent.master.host;
  env["DET_MASTER_ADDR"] = agent.master.host;
  env["DET_MASTER_PORT"] = std::to_string(agent.master.port);
  const bool tls = agent.master.scheme == "https";
  env["DET_USE_TLS"] = tls ? "true" : "false";
  env.erase("DET_MASTER_CERT_FILE");
  env.erase("DET_MASTER_CERT_NAME");
  if (tls && agent.skip_verify) {
    env["DET_MASTER_CERT_FILE"] = "noverify";
  } else if (tls && !agent.master_cert_file.empty()) {
    env["DET_MASTER_CERT_FILE"] = agent.master_cert_file;
  }
  if (tls && !agent.master_cert_name.empty()) env["DET_MASTER_CERT_NAME"] = agent.master_cert_name;
  env["DET_AGENT_ID"] = agent.agent_id;
  env["DET_SLOT_IDS"] = absl::StrCat("[", absl::StrJoin(task.slot_ids, ","), "]");
  env["DET_WORKDIR"] = task_dir.string();
  // Exactly the task's GPUs: CUDA's by uuid (a MIG instance's too), ROCm's by index; none on CPU slots
  // and without slots.
  std::vector<std::string> cuda, rocm;
  for (int id : task.slot_ids) {
    for (const api::SlotInfo& slot : agent.slots) {
      if (slot.id != id) continue;
      if (slot.type == "cuda") cuda.push_back(slot.uuid);
      if (slot.type == "rocm") rocm.push_back(std::to_string(slot.id));
    }
  }
  env["CUDA_VISIBLE_DEVICES"] = absl::StrJoin(cuda, ",");
  env["ROCR_VISIBLE_DEVICES"] = absl::StrJoin(rocm, ",");
  env["PATH"] = path;
  env["PYENV_VERSION"] = "system";
  env["PYTHONUNBUFFERED"] = "1";
  env["PYTHONPATH"] = python_path;
  return env;
}

std::vector<std::string> WithStartupHook(std::vector<std::string> argv, const std::filesystem::path& work_dir,
                                         const std::map<std::string, std::string>& env) {
  constexpr char kHook[] = "startup-hook.sh";
  std::error_code ec;
  auto pool_hook = env.find(config::kStartupHookVariable);
  const bool has_pool_hook = pool_hook != env.end() && !pool_hook->second.empty();
  if (!has_pool_hook && !std::filesystem::is_regular_file(work_dir / kHook, ec)) return argv;
  // The EXIT trap says a hook ended the task, and is gone before the entrypoint starts.
  const std::string script = absl::StrCat(
      "trap 's=$?; if [ $s -ne 0 ]; then echo \"startup hook failed with exit status $s; the entrypoint did not "
      "run\" >&2; fi' EXIT; set -e; ",
      has_pool_hook ? absl::StrCat("eval \"$", config::kStartupHookVariable, "\"; ") : "",
      "if [ -f ./startup-hook.sh ]; then source ./startup-hook.sh; fi; set +e; trap - EXIT; exec \"$@\"");
  std::vector<std::string> wrapped = {"bash", "-c", script, kHook};
  wrapped.insert(wrapped.end(), std::make_move_iterator(argv.begin()), std::make_move_iterator(argv.end()));
  return wrapped;
}

}  // namespace det::agent
