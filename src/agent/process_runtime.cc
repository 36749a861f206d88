#include "agent/process_runtime.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "agent/line_splitter.h"
#include "spdlog/spdlog.h"

namespace det::agent {

const char* StdTypeName(StdType type) { return type == StdType::kStdout ? "stdout" : "stderr"; }

namespace {

using Clock = std::chrono::steady_clock;

int64_t NowNanos() { return Clock::now().time_since_epoch().count(); }

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// What the child writes to the parent through a close-on-exec pipe when it fails before exec.
struct ChildFailure {
  int stage;  // 0: chdir, 1: stdio setup, 2: exec
  int error;
};

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// Looks argv[0] up the way execvp would, but in the task's PATH rather than the agent's.
absl::StatusOr<std::string> ResolveExecutable(const TaskSpec& spec) {
  const std::string& name = spec.argv[0];
  if (name.empty()) return absl::InvalidArgumentError("entrypoint: argv[0] is empty");
  if (name.find('/') != std::string::npos) {
    std::filesystem::path p(name);
    if (p.is_relative()) p = spec.work_dir / p;
    return p.string();
  }
  auto it = spec.env.find("PATH");
  std::string path_var = it != spec.env.end() ? it->second : "/usr/bin:/bin";
  for (absl::string_view dir : absl::StrSplit(path_var, ':')) {
    std::filesystem::path d =
        dir.empty() ? std::filesystem::path(".") : std::filesystem::path(std::string(dir));
    if (d.is_relative()) d = spec.work_dir / d;
    std::string candidate = (d / name).string();
    if (IsExecutableFile(candidate)) return candidate;
  }
  return absl::NotFoundError(
      absl::StrCat("entrypoint: command \"", name, "\" not found in PATH=", path_var));
}

[[noreturn]] void ChildFail(int report_fd, int stage) {
  ChildFailure f{stage, errno};
  ssize_t ignored = ::write(report_fd, &f, sizeof f);
  (void)ignored;
  ::_exit(127);
}

// Everything in the child between fork and exec must be async-signal-safe: no allocation, no locks.
[[noreturn]] void RunChild(const char* exe, char* const* argv, char* const* envp, const char* cwd,
                           int out_fd, int err_fd, int devnull_fd, int report_fd) {
  auto fail = [report_fd](int stage) { ChildFail(report_fd, stage); };
  ::setsid();
  // The agent blocks and handles signals its own way; the task starts from a clean slate.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);

  if (::chdir(cwd) != 0) fail(0);
  if (::dup2(devnull_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) fail(1);
  // Descriptors the agent's libraries opened without O_CLOEXEC must not leak into the task.
  if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    struct rlimit rl;
    int max_fd = ::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                     ? static_cast<int>(std::min<rlim_t>(rl.rlim_cur, 65536))
                     : 65536;
    for (int fd = 3; fd < max_fd; ++fd) {
      if (fd != report_fd) ::close(fd);
    }
  }
  ::execve(exe, argv, envp);
  ChildFail(report_fd, 2);
}

}  // namespace

struct ProcessRuntime::Process {
  std::string id;
  int pid = -1;
  int out_fd = -1;
  int err_fd = -1;
  int pidfd = -1;    // -1 where pidfd_open is unavailable; the supervisor then polls waitid
  int wake_fd = -1;  // eventfd: Kill() wakes the supervisor so the grace period is exact
  // Steady-clock nanoseconds at which to SIGKILL the group; 0 when no kill is pending.
  std::atomic<int64_t> kill_deadline{0};
  // Set (under the runtime's mu_) once the main process exited, before it is reaped, so Kill()
  // never signals a process group id that could have been reused.
  bool exited = false;

  void Wake() const {
    uint64_t one = 1;
    ssize_t ignored = ::write(wake_fd, &one, sizeof one);
    (void)ignored;
  }
};

ProcessRuntime::~ProcessRuntime() {
  std::unique_lock lock(mu_);
  for (auto& [id, p] : running_) {
    if (!p->exited) ::kill(-p->pid, SIGKILL);
  }
  all_done_.wait(lock, [this] { return active_ == 0; });
  std::vector<std::thread> threads;
  for (auto& [serial, t] : threads_) threads.push_back(std::move(t));
  for (auto& t : finished_) threads.push_back(std::move(t));
  threads_.clear();
  finished_.clear();
  lock.unlock();
  for (auto& t : threads) {
    if (t.joinable()) t.join();
  }
}

void ProcessRuntime::JoinFinishedLocked() {
  // These threads have returned from their last callback; joining only reclaims them.
  for (auto& t : finished_) {
    if (t.joinable()) t.join();
  }
  finished_.clear();
}

absl::StatusOr<int> ProcessRuntime::Start(const TaskSpec& spec, TaskCallbacks callbacks) {
  if (spec.argv.empty()) return absl::InvalidArgumentError("entrypoint: empty argv");
  std::string exe;
  {
    absl::StatusOr<std::string> resolved = ResolveExecutable(spec);
    if (!resolved.ok()) return resolved.status();
    exe = *std::move(resolved);
  }

  // Build argv/envp before forking: the child may not allocate.
  std::vector<std::string> env_strings;
  env_strings.reserve(spec.env.size());
  for (const auto& [k, v] : spec.env) env_strings.push_back(absl::StrCat(k, "=", v));
  std::vector<char*> argv;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string cwd = spec.work_dir.string();

  auto process = std::make_shared<Process>();
  process->id = spec.id;
  int out_pipe[2] = {-1, -1};
  int err_pipe[2] = {-1, -1};
  int report_pipe[2] = {-1, -1};
  int devnull = -1;
  auto cleanup = [&] {
    for (int* fd : {&out_pipe[0], &out_pipe[1], &err_pipe[0], &err_pipe[1], &report_pipe[0],
                    &report_pipe[1], &devnull, &process->wake_fd}) {
      CloseFd(*fd);
    }
  };

  std::unique_lock lock(mu_);
  JoinFinishedLocked();
  if (running_.count(spec.id) > 0) {
    return absl::AlreadyExistsError(absl::StrCat("task ", spec.id, " is already running"));
  }
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(report_pipe, O_CLOEXEC) != 0 ||
      (devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0 ||
      (process->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
    int err = errno;
    cleanup();
    return absl::InternalError(
        absl::StrCat("task ", spec.id, ": cannot create pipes: ", std::strerror(err)));
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    cleanup();
    return absl::ResourceExhaustedError(
        absl::StrCat("task ", spec.id, ": fork: ", std::strerror(err)));
  }
  if (pid == 0) {
    RunChild(exe.c_str(), argv.data(), envp.data(), cwd.c_str(), out_pipe[1], err_pipe[1], devnull,
             report_pipe[1]);
  }
  CloseFd(out_pipe[1]);
  CloseFd(err_pipe[1]);
  CloseFd(report_pipe[1]);
  CloseFd(devnull);

  // EOF on the report pipe means exec succeeded (it is close-on-exec); a record means it did not.
  ChildFailure failure{};
  size_t got = 0;
  while (got < sizeof failure) {
    ssize_t n =
        ::read(report_pipe[0], reinterpret_cast<char*>(&failure) + got, sizeof failure - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  CloseFd(report_pipe[0]);
  if (got == sizeof failure) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    cleanup();
    static constexpr const char* kStages[] = {"chdir to ", "set up stdio for ", "exec "};
    std::string what = failure.stage == 0 ? cwd : exe;
    return absl::FailedPreconditionError(absl::StrCat("cannot start task ", spec.id, ": ",
                                                      kStages[std::clamp(failure.stage, 0, 2)],
                                                      what, ": ", std::strerror(failure.error)));
  }

  process->pid = pid;
  process->out_fd = out_pipe[0];
  process->err_fd = err_pipe[0];
  ::fcntl(process->out_fd, F_SETFL, O_NONBLOCK);
  ::fcntl(process->err_fd, F_SETFL, O_NONBLOCK);
  // Via syscall(): the glibc wrapper is not usable from C++ on every Debian 12 toolchain.
  process->pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  running_[spec.id] = process;
  ++active_;
  uint64_t serial = next_serial_++;
  lock.unlock();

  // Before the supervisor exists, so TaskStarted always precedes any line or exit of the task.
  if (callbacks.on_started) callbacks.on_started(pid);

  lock.lock();
  threads_[serial] =
      std::thread(&ProcessRuntime::Supervise, this, process, std::move(callbacks), serial);
  return pid;
}

void ProcessRuntime::Supervise(std::shared_ptr<Process> p, TaskCallbacks callbacks,
                               uint64_t serial) {
  auto deliver = [&callbacks](StdType type) {
    return [&callbacks, type](std::string line) {
      if (callbacks.on_line) callbacks.on_line(type, std::move(line));
    };
  };
  LineSplitter out_lines(deliver(StdType::kStdout));
  LineSplitter err_lines(deliver(StdType::kStderr));
  std::optional<Clock::time_point> drain_deadline;
  bool sigkilled = false;
  int exit_code = -1;
  std::array<char, 64 * 1024> buf;

  auto read_some = [&buf](int& fd, LineSplitter& lines) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n > 0) {
      lines.Feed(std::string_view(buf.data(), static_cast<size_t>(n)));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      lines.Finish();
      CloseFd(fd);
    }
  };

  while (true) {
    Clock::time_point now = Clock::now();
    int timeout_ms;
    if (!drain_deadline) {
      // With a pidfd the exit wakes poll; without one, poll for it.
      timeout_ms = p->pidfd >= 0 ? 1000 : 50;
      int64_t deadline = p->kill_deadline.load();
      if (deadline != 0 && !sigkilled) {
        int64_t left_ms = (deadline - NowNanos() + 999'999) / 1'000'000;
        timeout_ms = static_cast<int>(std::clamp<int64_t>(left_ms, 0, timeout_ms));
      }
    } else {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*drain_deadline - now).count();
      timeout_ms = static_cast<int>(std::max<int64_t>(left, 0));
    }

    std::array<pollfd, 4> fds;
    nfds_t nfds = 0;
    int out_index = -1, err_index = -1;
    if (p->out_fd >= 0) {
      out_index = static_cast<int>(nfds);
      fds[nfds++] = {p->out_fd, POLLIN, 0};
    }
    if (p->err_fd >= 0) {
      err_index = static_cast<int>(nfds);
      fds[nfds++] = {p->err_fd, POLLIN, 0};
    }
    if (p->pidfd >= 0 && !drain_deadline) fds[nfds++] = {p->pidfd, POLLIN, 0};
    fds[nfds++] = {p->wake_fd, POLLIN, 0};
    int ready = ::poll(fds.data(), nfds, timeout_ms);
    if (ready < 0 && errno != EINTR) {
      spdlog::error("task {}: poll: {}", p->id, std::strerror(errno));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (ready > 0) {
      if (out_index >= 0 && fds[out_index].revents != 0) read_some(p->out_fd, out_lines);
      if (err_index >= 0 && fds[err_index].revents != 0) read_some(p->err_fd, err_lines);
      uint64_t counter;
      ssize_t ignored = ::read(p->wake_fd, &counter, sizeof counter);
      (void)ignored;
    }

    if (!drain_deadline) {
      siginfo_t info;
      std::memset(&info, 0, sizeof info);
      // WNOWAIT: look without reaping, so the group id stays ours until the stragglers are killed.
      if (::waitid(P_PID, p->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
          info.si_pid == p->pid) {
        {
          std::lock_guard lock(mu_);
          p->exited = true;
          ::kill(-p->pid, SIGKILL);  // leftovers of the group; ESRCH when there are none
        }
        int status = 0;
        while (::waitpid(p->pid, &status, 0) < 0 && errno == EINTR) {
        }
        exit_code = WIFEXITED(status)     ? WEXITSTATUS(status)
                    : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                          : -1;
        drain_deadline = Clock::now() + kDrainTimeout;
      } else {
        int64_t deadline = p->kill_deadline.load();
        if (!sigkilled && deadline != 0 && NowNanos() >= deadline) {
          spdlog::warn("task {}: still running after its grace period; sending SIGKILL", p->id);
          ::kill(-p->pid, SIGKILL);
          sigkilled = true;
        }
      }
    }
    if (drain_deadline && ((p->out_fd < 0 && p->err_fd < 0) || Clock::now() >= *drain_deadline)) {
      break;
    }
  }
  if (p->out_fd >= 0 || p->err_fd >= 0) {
    spdlog::warn("task {}: output pipes still open {} ms after exit; no longer reading them", p->id,
                 kDrainTimeout.count());
  }
  out_lines.Finish();
  err_lines.Finish();
  CloseFd(p->out_fd);
  CloseFd(p->err_fd);
  CloseFd(p->pidfd);

  {
    std::lock_guard lock(mu_);
    running_.erase(p->id);
  }
  if (callbacks.on_exit) callbacks.on_exit(exit_code);

  std::lock_guard lock(mu_);
  CloseFd(p->wake_fd);
  auto it = threads_.find(serial);
  if (it != threads_.end()) {
    finished_.push_back(std::move(it->second));
    threads_.erase(it);
  }
  --active_;
  all_done_.notify_all();
}

absl::Status ProcessRuntime::Kill(const std::string& id, std::chrono::milliseconds grace) {
  std::lock_guard lock(mu_);
  auto it = running_.find(id);
  if (it == running_.end() || it->second->exited) {
    return absl::NotFoundError(absl::StrCat("task ", id, " is not running"));
  }
  Process& p = *it->second;
  int64_t deadline = NowNanos() + std::chrono::nanoseconds(grace).count();
  int64_t current = p.kill_deadline.load();
  if (current == 0 || deadline < current) p.kill_deadline.store(deadline);
  ::kill(-p.pid, grace.count() <= 0 ? SIGKILL : SIGTERM);
  p.Wake();
  return absl::OkStatus();
}

std::vector<std::string> ProcessRuntime::RunningTasks() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> ids;
  for (const auto& [id, p] : running_) ids.push_back(id);
  return ids;
}

bool ProcessRuntime::WaitAll(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return all_done_.wait_for(lock, timeout, [this] { return active_ == 0; });
}

}  // namespace det::agent
