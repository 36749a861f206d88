// determined-pod-runner: what determined-container runs in every pod of the master's Kubernetes resource
// manager, and what srun runs as every task of a job of its Slurm resource manager. It unpacks the
// task's context from the master into its working directory, learns the addresses of the task's other
// processes when there are several (from the master in a pod; from Slurm's step layout in a Slurm job),
// and runs the task's entrypoint (after its startup hooks) with the task's environment. In a pod the
// entrypoint's output is the pod's log, which the master follows; in a Slurm job it is shipped to the
// master's task-log API (and echoed to the job's output file). Its exit status is the runner's.
// SIGTERM (Kubernetes deleting the pod, scancel) reaches the entrypoint's whole process group.
#include <fcntl.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/context_download.h"
#include "agent/line_splitter.h"
#include "agent/log_shipper.h"
#include "agent/pod_launch.h"
#include "agent/rest_log_sink.h"
#include "agent/task_env.h"
#include "agent/task_mounts.h"
#include "client/rest_client.h"

extern char** environ;

namespace {

constexpr auto kRendezvousWait = std::chrono::minutes(30);

volatile sig_atomic_t child_group = 0;

void Forward(int sig) {
  if (child_group > 0) ::kill(-child_group, sig);
}

// Where the task's log goes from a Slurm job (null in a pod, whose output the master reads itself).
std::unique_ptr<det::agent::LogShipper> shipper;

int Fail(const std::string& what) {
  const std::string line = absl::StrCat("determined-pod-runner: ", what);
  std::fprintf(stderr, "%s\n", line.c_str());
  if (shipper) {
    shipper->Add(det::agent::StdType::kStderr, line);
    shipper->Close();
  }
  return 1;
}

std::atomic<bool> entrypoint_ended{false};

// Copies one of the entrypoint's outputs to the task log, line by line, and to the runner's own (the job's
// output file), until the entrypoint's processes close it, or, once the entrypoint ended, until nothing
// came for a moment (a process it started in a session of its own may hold the pipe open).
void ShipOutput(int fd, det::agent::StdType type, FILE* echo) {
  det::agent::LineSplitter lines([&](std::string line) {
    std::fprintf(echo, "%s\n", line.c_str());
    shipper->Add(type, std::move(line));
  });
  std::vector<char> buf(64 * 1024);
  while (true) {
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    int ready = ::poll(&p, 1, 500);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      if (entrypoint_ended) break;
      continue;
    }
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    lines.Feed(std::string_view(buf.data(), static_cast<size_t>(n)));
  }
  lines.Finish();
  std::fflush(echo);
  ::close(fd);
}

std::map<std::string, std::string> ProcessEnv() {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

// Asks the master where the allocation's pods are until each has an address.
absl::StatusOr<std::string> AwaitRendezvous(det::client::RestClient& master, const det::agent::PodLaunch& launch) {
  const std::string path = absl::StrCat("/api/v1/allocations/", det::client::UrlEncode(launch.allocation_id),
                                        "/resources/", det::client::UrlEncode(launch.resources_id), "/rendezvous");
  auto deadline = std::chrono::steady_clock::now() + kRendezvousWait;
  bool said = false;
  while (true) {
    absl::StatusOr<det::client::RawResponse> reply = master.Send("GET", path, "");
    if (reply.ok() && reply->status == 200) return det::agent::RendezvousInfoJson(reply->body);
    bool again = !reply.ok() || reply->status == 503;
    if (!again || std::chrono::steady_clock::now() > deadline) {
      return absl::UnavailableError(absl::StrCat("the master did not say where the task's other pods are: ",
                                                 reply.ok() ? reply->body : reply.status().ToString()));
    }
    if (!said) {
      std::fprintf(stderr, "determined-pod-runner: waiting for the task's %d pods to start\n", launch.pods);
      said = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

// `hosts` (space-separated names) as IPv4 addresses, which the harness's rendezvous wants; a name that
// does not resolve stays as it is (and the harness says so).
std::string ResolveHosts(const std::string& hosts) {
  std::string out;
  size_t start = 0;
  while (start < hosts.size()) {
    size_t end = hosts.find(' ', start);
    if (end == std::string::npos) end = hosts.size();
    std::string host = hosts.substr(start, end - start);
    start = end + 1;
    if (host.empty()) continue;
    addrinfo hints{};
    hints.ai_family = AF_INET;
    addrinfo* found = nullptr;
    if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) == 0 && found != nullptr) {
      char ip[INET_ADDRSTRLEN] = {};
      auto* sin = reinterpret_cast<sockaddr_in*>(found->ai_addr);
      if (::inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip)) != nullptr) host = ip;
      ::freeaddrinfo(found);
    }
    absl::StrAppend(&out, out.empty() ? "" : " ", host);
  }
  return out;
}

}  // namespace

int main() {
  std::map<std::string, std::string> pod_env = ProcessEnv();
  absl::StatusOr<det::agent::PodLaunch> launch = det::agent::ReadPodLaunch(pod_env);
  if (!launch.ok()) return Fail(std::string(launch.status().message()));
  const bool on_slurm = launch->platform == det::agent::RunnerPlatform::kSlurm;
  if (on_slurm) {
    if (pod_env.count("SLURMD_NODENAME")) pod_env["DET_AGENT_ID"] = pod_env["SLURMD_NODENAME"];
    shipper = std::make_unique<det::agent::LogShipper>(
        std::make_unique<det::agent::RestLogSink>(launch->master_url, launch->session_token,
                                                  det::agent::LogMetadata{.task_id = launch->task_id,
                                                                          .allocation_id = launch->allocation_id,
                                                                          .agent_id = pod_env["DET_AGENT_ID"],
                                                                          .container_id = launch->resources_id}),
        launch->resources_id);
  }
  std::error_code ec;
  const std::filesystem::path task_dir = std::filesystem::current_path(ec);
  if (ec) return Fail(absl::StrCat("no working directory: ", ec.message()));
  const std::filesystem::path bin_dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();

  det::client::RestClient master(launch->master_url, {.allocation_token = launch->session_token});
  if (launch->download_context) {
    if (absl::Status got = det::agent::DownloadContext(master, launch->task_id, task_dir); !got.ok()) {
      return Fail(std::string(got.message()));
    }
  }
  std::optional<std::string> rendezvous;
  if (launch->pods > 1) {
    absl::StatusOr<std::string> info =
        on_slurm ? det::agent::SlurmRendezvousJson(ResolveHosts(pod_env["DET_SLURM_HOSTS"]), pod_env["SLURM_STEP_TASKS_PER_NODE"],
                                                   launch->rank, launch->slots_per_pod)
                 : AwaitRendezvous(master, *launch);
    if (!info.ok()) return Fail(std::string(info.status().message()));
    rendezvous = *info;
  }
  absl::StatusOr<std::filesystem::path> work_dir = det::agent::TaskWorkDir(launch->work_dir, task_dir);
  if (!work_dir.ok()) return Fail(std::string(work_dir.status().message()));
  std::map<std::string, std::string> env = det::agent::PodTaskEnv(pod_env, *launch, bin_dir, task_dir, rendezvous);
  std::vector<std::string> argv = det::agent::WithStartupHook(launch->entrypoint, *work_dir, env);

  env.erase("DET_SLURM_HOSTS");

  // On Slurm the entrypoint writes into pipes that ShipOutput reads.
  int out_pipe[2] = {-1, -1};
  int err_pipe[2] = {-1, -1};
  if (on_slurm && (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0)) {
    return Fail(absl::StrCat("cannot make the output pipes: ", strerror(errno)));
  }
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT}) ::signal(sig, Forward);
  pid_t child = ::fork();
  if (child < 0) return Fail("fork failed");
  if (child == 0) {
    ::setpgid(0, 0);
    if (on_slurm) {
      ::dup2(out_pipe[1], STDOUT_FILENO);
      ::dup2(err_pipe[1], STDERR_FILENO);
    }
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT}) ::signal(sig, SIG_DFL);
    if (::chdir(work_dir->c_str()) != 0) _exit(Fail(absl::StrCat("cannot enter ", work_dir->string())));
    ::clearenv();
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "determined-pod-runner: cannot run %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  ::setpgid(child, child);
  child_group = child;
  std::vector<std::thread> readers;
  if (on_slurm) {
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    readers.emplace_back(ShipOutput, out_pipe[0], det::agent::StdType::kStdout, stdout);
    readers.emplace_back(ShipOutput, err_pipe[0], det::agent::StdType::kStderr, stderr);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  // What the entrypoint left running in its group ends with it.
  ::kill(-child, SIGKILL);
  entrypoint_ended = true;
  for (std::thread& reader : readers) reader.join();
  if (shipper) shipper->Close();
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}
