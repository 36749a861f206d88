// determined-agent: runs tasks on this machine for a determined-master (docs/task-contract.md).
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "agent/agent.h"
#include "agent/context_download.h"
#include "agent/master_link.h"
#include "agent/master_url.h"
#include "agent/process_runtime.h"
#include "agent/rest_log_sink.h"
#include "agent/task_env.h"
#include "api/agent_protocol.h"
#include "client/rest_client.h"
#include "common/logging.h"
#include "spdlog/spdlog.h"

namespace {

constexpr const char* kVersion = "0.1.0";

std::string Hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  std::string master_url;
  std::string agent_id;
  int slots = 1;
  std::string resource_pool = "default";
  std::string work_dir;
  std::string log_level = "info";

  CLI::App app{"determined-agent: runs tasks for a determined-master on this machine"};
  app.add_option("--master-url", master_url, "the master, http://HOST:PORT")
      ->envname("DET_MASTER_URL")
      ->required();
  app.add_option("--id", agent_id, "this agent's id (default: the hostname)")
      ->envname("DET_AGENT_ID");
  app.add_option("--slots", slots, "number of CPU slots to offer")
      ->envname("DET_SLOTS")
      ->check(CLI::Range(0, 4096));
  app.add_option("--resource-pool", resource_pool, "the resource pool to join");
  app.add_option("--work-dir", work_dir,
                 "where task directories go (default /tmp/determined-agent-ID)");
  app.add_option("--log-level", log_level, "trace, debug, info, warn or error");
  app.set_version_flag("--version", kVersion);
  CLI11_PARSE(app, argc, argv);

  // Signals are taken synchronously by the main thread: block them before any thread exists so
  // every thread inherits the mask. Tasks get a clean mask (ProcessRuntime resets it in the child).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  det::InitLogging("agent", log_level);

  absl::StatusOr<det::agent::MasterUrl> master = det::agent::ParseMasterUrl(master_url);
  if (!master.ok()) {
    spdlog::error("{}", std::string(master.status().message()));
    return 2;
  }
  std::string hostname = Hostname();
  if (agent_id.empty()) agent_id = hostname;
  if (!det::agent::IsSafeAllocationId(agent_id)) {
    spdlog::error("--id \"{}\": must not be empty or contain '/'", agent_id);
    return 2;
  }
  if (work_dir.empty()) work_dir = absl::StrCat("/tmp/determined-agent-", agent_id);
  std::error_code ec;
  std::filesystem::path work_path = std::filesystem::absolute(work_dir, ec);
  std::filesystem::create_directories(work_path / "tasks", ec);
  if (ec) {
    spdlog::error("--work-dir {}: cannot create {}: {}", work_dir, (work_path / "tasks").string(),
                  ec.message());
    return 1;
  }

  det::agent::AgentConfig config;
  config.agent_id = agent_id;
  config.slots = slots;
  config.work_dir = work_path;
  config.env = det::agent::AgentEnvironmentFromProcess(*master, agent_id);
  const std::string http_url = master->HttpUrl();

  det::agent::MasterLink::Options link_options;
  link_options.host = master->host;
  link_options.port = master->port;
  link_options.target =
      absl::StrCat("/agents?id=", det::client::UrlEncode(agent_id),
                   "&resource_pool=", det::client::UrlEncode(resource_pool),
                   "&hostname=", det::client::UrlEncode(hostname), "&version=", kVersion);
  det::agent::MasterLink link(link_options);

  det::agent::AgentDeps deps;
  deps.runtime = std::make_unique<det::agent::ProcessRuntime>();
  deps.send = [&link](const det::api::AgentMessage& msg, std::function<void()> on_written) {
    link.Send(det::api::Encode(msg), std::move(on_written));
  };
  deps.make_log_sink = [http_url](const det::api::StartTask& task,
                                  const det::agent::LogMetadata& meta) {
    return std::make_unique<det::agent::RestLogSink>(http_url, task.session_token, meta);
  };
  deps.download_context = [http_url](const det::api::StartTask& task,
                                     const std::filesystem::path& dest) {
    det::client::RestClient client(http_url,
                                   {.user_token = "", .allocation_token = task.session_token});
    client.set_timeout_seconds(300);
    return det::agent::DownloadContext(client, task.task_id, dest);
  };
  det::agent::Agent agent(config, std::move(deps));

  link.Start({
      .hello = [&agent] { return det::api::Encode(det::api::AgentMessage(agent.Hello())); },
      .on_message =
          [&agent](std::string text) {
            absl::StatusOr<det::api::MasterMessage> msg = det::api::DecodeMasterMessage(text);
            if (!msg.ok()) {
              spdlog::warn("ignoring a message from the master: {}",
                           std::string(msg.status().message()));
              return;
            }
            agent.Handle(*msg);
          },
  });
  spdlog::info("agent {} ({} CPU slot(s), pool {}) working in {}; master {}", agent_id, slots,
               resource_pool, work_path.string(), http_url);

  int sig = 0;
  while (sigwait(&stop_signals, &sig) != 0) {
  }
  spdlog::info("received {}; stopping tasks", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  bool clean = agent.Shutdown();
  // Give the final TaskExited messages a chance to reach the master.
  link.Stop(std::chrono::seconds(3));
  spdlog::info("agent {} stopped", agent_id);
  if (!clean) {
    // Something is stuck (a download, say); leave without waiting for it.
    spdlog::default_logger()->flush();
    _exit(0);
  }
  return 0;
}
