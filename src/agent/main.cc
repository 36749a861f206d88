// determined-agent: runs tasks on this machine for a determined-master (docs/task-contract.md).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "agent/agent.h"
#include "agent/agent_config.h"
#include "agent/command_runner.h"
#include "agent/context_download.h"
#include "agent/master_link.h"
#include "agent/master_url.h"
#include "agent/offered_slots.h"
#include "agent/container_runtime.h"
#include "agent/docker_client.h"
#include "agent/harness_libraries.h"
#include "agent/process_runtime.h"
#include "agent/rest_log_sink.h"
#include "agent/task_env.h"
#include "api/agent_protocol.h"
#include "client/rest_client.h"
#include "common/file_util.h"
#include "common/logging.h"
#include "common/version.h"
#include "config/settings_overlay.h"
#include "spdlog/spdlog.h"

namespace {

constexpr const char* kDefaultConfigFile = "/etc/determined/agent.yaml";

std::string Hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& arg : args) {
    if (arg == "--version") {
      std::printf("%s\n", det::kVersion);
      return 0;
    }
  }
  bool help = false;
  absl::StatusOr<det::config::FlagValues> flags =
      det::config::ParseFlagArgs(args, det::agent::AgentSettings(), &help);
  if (!flags.ok()) {
    std::fprintf(stderr, "determined-agent: %s\n%s", std::string(flags.status().message()).c_str(),
                 det::agent::AgentUsage().c_str());
    return 2;
  }
  if (help) {
    std::printf("%s", det::agent::AgentUsage().c_str());
    return 0;
  }
  std::map<std::string, std::string> env = det::config::DetEnvironment();
  std::string yaml;
  std::optional<std::string> config_file = det::config::Lookup("config-file", env, *flags);
  if (!config_file && std::filesystem::exists(kDefaultConfigFile)) config_file = kDefaultConfigFile;
  if (config_file) {
    absl::StatusOr<std::string> text = det::ReadFile(*config_file);
    if (!text.ok()) {
      std::fprintf(stderr, "determined-agent: --config-file %s: %s\n", config_file->c_str(),
                   std::string(text.status().message()).c_str());
      return 2;
    }
    yaml = *text;
  }
  absl::StatusOr<det::agent::AgentFileConfig> options =
      det::agent::LoadAgentConfig(yaml, env, *flags);
  if (!options.ok()) {
    std::fprintf(stderr, "determined-agent: %s%s\n",
                 config_file ? absl::StrCat(*config_file, ": ").c_str() : "",
                 std::string(options.status().message()).c_str());
    return 2;
  }
  std::string agent_id = options->agent_id;
  const std::string& resource_pool = options->resource_pool;
  std::string work_dir = options->work_dir;
  const det::agent::AgentTlsConfig& tls = options->tls;
  det::agent::MasterUrl master{.scheme = tls.enabled ? "https" : "http",
                               .host = options->master_host,
                               .port = options->master_port};
  std::string master_cert;  // absolute, so tasks find it from their own directories
  if (!tls.master_cert.empty()) {
    std::error_code cert_ec;
    master_cert = std::filesystem::absolute(tls.master_cert, cert_ec).lexically_normal().string();
    if (cert_ec || !std::filesystem::is_regular_file(master_cert, cert_ec)) {
      std::fprintf(stderr, "determined-agent: security.tls.master_cert %s: no such file\n",
                   tls.master_cert.c_str());
      return 2;
    }
  }
  const det::client::TlsOptions client_tls{
      .ca_file = master_cert, .cert_name = tls.master_cert_name, .no_verify = tls.skip_verify};
  det::agent::MasterUrl container_master = master;
  if (!options->container_master_host.empty()) container_master.host = options->container_master_host;
  if (options->container_master_port != 0) container_master.port = options->container_master_port;

  // Signals are taken synchronously by the main thread: block them before any thread exists so
  // every thread inherits the mask. Tasks get a clean mask (ProcessRuntime resets it in the child).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  det::InitLogging("agent", options->log_level);
  for (const std::string& warning : options->warnings) spdlog::warn("{}", warning);
  std::string hostname = Hostname();
  if (agent_id.empty()) agent_id = hostname;
  if (!det::agent::IsSafeAllocationId(agent_id)) {
    spdlog::error("agent_id \"{}\": must not be empty or contain '/'", agent_id);
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
  config.work_dir = work_path;
  config.env = det::agent::AgentEnvironmentFromProcess(container_master, agent_id);
  {
    det::agent::ProcessCommandRunner runner;
    std::vector<std::string> notes;
    absl::StatusOr<std::vector<det::api::SlotInfo>> slots = det::agent::OfferedSlots(*options, runner, notes);
    for (const std::string& note : notes) spdlog::info("{}", note);
    if (!slots.ok()) {
      spdlog::error("{}", std::string(slots.status().message()));
      return 2;
    }
    config.env.slots = *std::move(slots);
  }
  config.env.master_cert_file = master_cert;
  config.env.master_cert_name = tls.master_cert_name;
  config.env.skip_verify = tls.skip_verify;
  const std::string http_url = master.HttpUrl();

  det::agent::MasterLink::Options link_options;
  link_options.host = master.host;
  link_options.port = master.port;
  link_options.tls = tls.enabled;
  link_options.ca_file = master_cert;
  link_options.cert_name = tls.master_cert_name;
  link_options.skip_verify = tls.skip_verify;
  link_options.target =
      absl::StrCat("/agents?id=", det::client::UrlEncode(agent_id),
                   "&resource_pool=", det::client::UrlEncode(resource_pool),
                   "&hostname=", det::client::UrlEncode(hostname), "&version=", det::kVersion);
  det::agent::MasterLink link(link_options);

  det::agent::AgentDeps deps;
  // The shim is installed beside the agent.
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  deps.runtime = std::make_unique<det::agent::ProcessRuntime>(
      work_path / "runtime", exe.parent_path() / "determined-task-shim");
  // Tasks that name an image run in containers when a Docker Engine API socket is configured.
  std::string container_socket = options->container_socket;
  if (const char* docker_host = std::getenv("DOCKER_HOST"); container_socket.empty() && docker_host != nullptr) {
    if (std::string_view(docker_host).starts_with("unix://")) {
      container_socket = std::string(docker_host).substr(7);
    } else if (*docker_host != '\0') {
      spdlog::warn("DOCKER_HOST={}: only unix:// sockets are supported; tasks with an image run on the host", docker_host);
    }
  }
  if (!container_socket.empty()) {
    auto engine = std::make_shared<det::agent::DockerClient>(container_socket);
    absl::StatusOr<std::string> described = engine->Describe();
    if (!described.ok()) {
      spdlog::error("container_socket {}: {}", container_socket, std::string(described.status().message()));
      return 2;
    }
    absl::StatusOr<std::filesystem::path> libraries =
        det::agent::CollectHarnessLibraries(config.env.python_dir, work_path / "container-libs");
    if (!libraries.ok()) {
      spdlog::error("preparing the harness's libraries for containers: {}", std::string(libraries.status().message()));
      return 2;
    }
    spdlog::info("tasks with an image run in containers of {} at {}", *described, container_socket);
    deps.runtime = std::make_unique<det::agent::ContainerRuntime>(
        std::move(deps.runtime), engine,
        det::agent::ContainerRuntimeOptions{
            .agent_id = agent_id,
            .state_root = work_path / "container-runtime",
            .read_only_dirs = {exe.parent_path(), config.env.python_dir, *libraries},
            .library_path = libraries->string()});
    deps.engine = std::move(engine);
  }
  deps.send = [&link](const det::api::AgentMessage& msg, std::function<void()> on_written) {
    link.Send(det::api::Encode(msg), std::move(on_written));
  };
  deps.make_log_sink = [http_url, client_tls](const det::api::StartTask& task,
                                              const det::agent::LogMetadata& meta) {
    return std::make_unique<det::agent::RestLogSink>(http_url, task.session_token, meta,
                                                     client_tls);
  };
  deps.download_context = [http_url, client_tls](const det::api::StartTask& task,
                                                 const std::filesystem::path& dest) {
    det::client::RestClient client(
        http_url, {.user_token = "", .allocation_token = task.session_token}, client_tls);
    client.set_timeout_seconds(300);
    return det::agent::DownloadContext(client, task.task_id, dest);
  };
  det::agent::Agent agent(config, std::move(deps));

  // Tasks an earlier run of this agent left behind are listed in the first hello.
  agent.Recover();
  std::atomic<bool> refused = false;
  link.Start({
      .hello = [&agent] { return det::api::Encode(det::api::AgentMessage(agent.Hello())); },
      .on_message =
          [&agent, &refused](std::string text) {
            absl::StatusOr<det::api::MasterMessage> msg = det::api::DecodeMasterMessage(text);
            if (!msg.ok()) {
              spdlog::warn("ignoring a message from the master: {}",
                           std::string(msg.status().message()));
              return;
            }
            if (const auto* no = std::get_if<det::api::AgentRefused>(&*msg)) {
              // Reconnecting would be refused again: stop, as on SIGTERM, and exit non-zero.
              spdlog::error("the master refused this agent: {}", no->reason);
              refused = true;
              ::kill(::getpid(), SIGTERM);
              return;
            }
            agent.Handle(*msg);
          },
  });
  spdlog::info("agent {} ({}, pool {}) working in {}; master {}", agent_id, det::agent::DescribeSlots(config.env.slots),
               resource_pool.empty() ? "(the master's default compute pool)" : resource_pool, work_path.string(),
               http_url);

  int sig = 0;
  while (sigwait(&stop_signals, &sig) != 0) {
  }
  spdlog::info("received {}; stopping tasks", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  bool clean = agent.Shutdown();
  // Give the final TaskExited messages a chance to reach the master.
  link.Stop(std::chrono::seconds(3));
  spdlog::info("agent {} stopped", agent_id);
  const int status = refused ? 3 : 0;
  if (!clean) {
    // Something is stuck (a download, say); leave without waiting for it.
    spdlog::default_logger()->flush();
    _exit(status);
  }
  return status;
}
