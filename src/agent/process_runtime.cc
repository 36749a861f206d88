#include "agent/process_runtime.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
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
#include <deque>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "agent/child_failure.h"
#include "agent/line_splitter.h"
#include "spdlog/spdlog.h"

namespace det::agent {

const char* StdTypeName(StdType type) { return type == StdType::kStdout ? "stdout" : "stderr"; }

namespace {

using Clock = std::chrono::steady_clock;

// The descriptor on which the shim finds the report pipe (task_shim.cc).
constexpr int kShimReportFd = 3;

int64_t NowNanos() { return Clock::now().time_since_epoch().count(); }

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

int PidfdOpen(int pid) {
  // Via syscall(): the glibc wrapper is not usable from C++ on every Debian 12 toolchain.
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}

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

// Everything in the child between fork and exec must be async-signal-safe: no allocation, no locks.
[[noreturn]] void RunChild(const char* exe, char* const* argv, char* const* envp, const char* cwd,
                           int out_fd, int err_fd, int devnull_fd, int report_fd) {
  ::setsid();
  // The agent blocks and handles signals its own way; the task starts from a clean slate. The
  // dispositions are reset before anything is unblocked: this child shares the agent's memory.
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  if (::chdir(cwd) != 0) ReportChildFailure(report_fd, ChildFailure::kChdir);
  if (::dup2(devnull_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) {
    ReportChildFailure(report_fd, ChildFailure::kStdio);
  }
  // The shim reports on descriptor 3, which must survive the exec (dup2 clears close-on-exec).
  if (report_fd == kShimReportFd ? ::fcntl(report_fd, F_SETFD, 0) != 0
                                 : ::dup2(report_fd, kShimReportFd) < 0) {
    ReportChildFailure(report_fd, ChildFailure::kStdio);
  }
  report_fd = kShimReportFd;
  // Descriptors the agent's libraries opened without O_CLOEXEC must not leak into the task.
  if (::close_range(kShimReportFd + 1, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    struct rlimit rl;
    int max_fd = ::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                     ? static_cast<int>(std::min<rlim_t>(rl.rlim_cur, 65536))
                     : 65536;
    for (int fd = kShimReportFd + 1; fd < max_fd; ++fd) ::close(fd);
  }
  ::execve(exe, argv, envp);
  ReportChildFailure(report_fd, ChildFailure::kExec);
}

// One output file of a task, read as it grows.
class OutputFollower {
 public:
  OutputFollower(StdType type, std::function<void(StdType, std::string, uint64_t)> deliver)
      : type_(type), lines_([this, deliver = std::move(deliver)](std::string line) {
          deliver(type_, std::move(line), offset_ + lines_.consumed());
        }) {}
  ~OutputFollower() { CloseFd(fd_); }

  // Opens `path` and skips the `offset` bytes delivered before.
  void Open(const std::filesystem::path& path, uint64_t offset) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      spdlog::warn("cannot read {}: {}", path.string(), std::strerror(errno));
      return;
    }
    offset_ = offset;
    if (offset > 0) {
      char previous = 0;
      if (::pread(fd_, &previous, 1, static_cast<off_t>(offset - 1)) == 1 && previous == '\r') {
        lines_.ContinueAfterCarriageReturn();
      }
      ::lseek(fd_, static_cast<off_t>(offset), SEEK_SET);
    }
  }

  // Delivers the complete lines written since the last call.
  void ReadAvailable() {
    if (fd_ < 0) return;
    std::array<char, 64 * 1024> buf;
    while (true) {
      ssize_t n = ::read(fd_, buf.data(), buf.size());
      if (n > 0) {
        lines_.Feed(std::string_view(buf.data(), static_cast<size_t>(n)));
      } else if (n == 0 || errno != EINTR) {
        return;
      }
    }
  }

  // The end: reads what is left and delivers a last unterminated line.
  void Finish() {
    ReadAvailable();
    lines_.Finish();
  }

 private:
  const StdType type_;
  int fd_ = -1;
  uint64_t offset_ = 0;  // where reading started
  LineSplitter lines_;
};

}  // namespace

struct ProcessRuntime::Process {
  Process(std::string id, TaskState state) : id(std::move(id)), state(std::move(state)) {}

  const std::string id;
  const TaskState state;
  int pid = -1;
  bool own_child = false;  // started by this runtime, so reaped here with waitpid
  int pidfd = -1;          // -1 where pidfd_open is unavailable; exits are then polled for
  int wake_fd = -1;        // eventfd: Kill() wakes the supervisor so the grace period is exact
  // Steady-clock nanoseconds at which to SIGKILL the group; 0 when no kill is pending.
  std::atomic<int64_t> kill_deadline{0};
  // Set (under the runtime's mu_) once the shim exited, before it is reaped, so Kill() never
  // signals a process group id that could have been reused.
  bool exited = false;
  uint64_t start_time = 0;  // of the shim, for adopted tasks without a pidfd

  // Delivered lines not yet acknowledged: the output offsets right after each. Guarded by log_mu.
  std::mutex log_mu;
  std::deque<LogPosition> unacknowledged;
  uint64_t acknowledged = 0;  // lines
  LogPosition delivered;      // offsets after the last delivered line

  void Wake() const {
    uint64_t one = 1;
    ssize_t ignored = ::write(wake_fd, &one, sizeof one);
    (void)ignored;
  }
};

ProcessRuntime::ProcessRuntime(std::filesystem::path state_root, std::filesystem::path shim)
    : state_root_(std::move(state_root)), shim_(std::move(shim)) {}

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
  auto process = std::make_shared<Process>(spec.id, TaskState(state_root_ / spec.id));
  const TaskState& state = process->state;

  // Build argv/envp before forking: the child may not allocate.
  std::vector<std::string> shim_args = {shim_.string()};
  if (spec.user) {
    if (::geteuid() != 0 && (spec.user->uid != ::geteuid() || spec.user->gid != ::getegid())) {
      return absl::FailedPreconditionError(absl::StrCat(
          "task ", spec.id, ": cannot run as uid ", spec.user->uid, " gid ", spec.user->gid, ": the agent runs as uid ",
          ::geteuid(), ", not root (run the agent as root to run tasks as their workspace's agent user group)"));
    }
    shim_args.push_back(absl::StrCat("--user=", spec.user->uid, ":", spec.user->gid));
  }
  shim_args.insert(shim_args.end(), {state.exit_status_path().string(), exe});
  shim_args.insert(shim_args.end(), spec.argv.begin(), spec.argv.end());
  std::vector<std::string> env_strings;
  env_strings.reserve(spec.env.size());
  for (const auto& [k, v] : spec.env) env_strings.push_back(absl::StrCat(k, "=", v));
  std::vector<char*> argv;
  for (std::string& a : shim_args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string cwd = spec.work_dir.string();

  int out_fd = -1, err_fd = -1, devnull = -1;
  int report_pipe[2] = {-1, -1};
  auto cleanup = [&] {
    for (int* fd : {&out_fd, &err_fd, &devnull, &report_pipe[0], &report_pipe[1],
                    &process->wake_fd}) {
      CloseFd(*fd);
    }
  };

  std::unique_lock lock(mu_);
  JoinFinishedLocked();
  if (running_.count(spec.id) > 0 || orphans_.count(spec.id) > 0) {
    return absl::AlreadyExistsError(absl::StrCat("task ", spec.id, " is already running"));
  }
  if (absl::Status created = state.Create(); !created.ok()) {
    return absl::InternalError(absl::StrCat("task ", spec.id, ": ", created.message()));
  }
  constexpr int kOutputFlags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC;
  if ((out_fd = ::open(state.stdout_path().c_str(), kOutputFlags, 0600)) < 0 ||
      (err_fd = ::open(state.stderr_path().c_str(), kOutputFlags, 0600)) < 0 ||
      ::pipe2(report_pipe, O_CLOEXEC) != 0 ||
      (devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0 ||
      (process->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
    int err = errno;
    cleanup();
    state.Remove();
    return absl::InternalError(
        absl::StrCat("task ", spec.id, ": cannot set up its output: ", std::strerror(err)));
  }
  // vfork: the child borrows the agent's memory until it execs the shim instead of copying the page
  // tables of a multi-threaded process (the larger part of a trivial task's start). RunChild only
  // makes system calls on its own stack, as a vfork child must.
  pid_t pid = ::vfork();
  if (pid < 0) {
    int err = errno;
    cleanup();
    state.Remove();
    return absl::ResourceExhaustedError(
        absl::StrCat("task ", spec.id, ": vfork: ", std::strerror(err)));
  }
  if (pid == 0) {
    RunChild(shim_.c_str(), argv.data(), envp.data(), cwd.c_str(), out_fd, err_fd, devnull,
             report_pipe[1]);
  }
  CloseFd(out_fd);
  CloseFd(err_fd);
  CloseFd(report_pipe[1]);
  CloseFd(devnull);
  // At once, so a later runtime can find the task even if this agent dies while it starts.
  process->start_time = ProcessStartTime(pid).value_or(0);
  absl::Status recorded = state.WriteRecord({pid, process->start_time, spec.annotation});
  if (!recorded.ok()) spdlog::warn("task {}: {}", spec.id, recorded.ToString());

  // EOF on the report pipe means the program runs; a record says what failed.
  ChildFailure failure{};
  bool failed = ReadChildFailure(report_pipe[0], &failure);
  CloseFd(report_pipe[0]);
  if (failed) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    cleanup();
    state.Remove();
    static constexpr const char* kStages[] = {"chdir to ", "set up stdio for ", "exec ", "exec ", "switch to "};
    int stage = std::clamp(failure.stage, 0, 4);
    std::string what = stage == ChildFailure::kChdir      ? cwd
                       : stage == ChildFailure::kExec     ? shim_.string()
                       : stage == ChildFailure::kSetUser ? absl::StrCat("uid ", spec.user->uid, " gid ", spec.user->gid)
                                                          : exe;
    return absl::FailedPreconditionError(absl::StrCat("cannot start task ", spec.id, ": ",
                                                      kStages[stage], what, ": ",
                                                      std::strerror(failure.error)));
  }

  process->pid = pid;
  process->own_child = true;
  process->pidfd = PidfdOpen(pid);
  running_[spec.id] = process;
  ++active_;
  lock.unlock();

  // Before the supervisor exists, so TaskStarted always precedes any line or exit of the task.
  if (callbacks.on_started) callbacks.on_started(pid);
  Launch(process, std::move(callbacks));
  return pid;
}

void ProcessRuntime::Launch(std::shared_ptr<Process> process, TaskCallbacks callbacks) {
  std::lock_guard lock(mu_);
  uint64_t serial = next_serial_++;
  threads_[serial] =
      std::thread(&ProcessRuntime::Supervise, this, process, std::move(callbacks), serial);
}

std::vector<OrphanTask> ProcessRuntime::Orphans() {
  std::vector<OrphanTask> found;
  std::error_code ec;
  std::filesystem::directory_iterator dirs(state_root_, ec);
  if (ec) return found;  // nothing was ever started here
  std::lock_guard lock(mu_);
  for (const auto& entry : dirs) {
    if (!entry.is_directory(ec)) continue;
    std::string id = entry.path().filename().string();
    if (running_.count(id) > 0) continue;
    TaskState state(entry.path());
    absl::StatusOr<TaskRecord> record = state.ReadRecord();
    if (!record.ok()) {
      spdlog::warn("task {}: left by an earlier agent, but {}; removing it", id,
                   record.status().ToString());
      state.Remove();
      continue;
    }
    orphans_[id] = *record;
    found.push_back({id, record->pid, record->annotation});
  }
  return found;
}

absl::Status ProcessRuntime::Adopt(const std::string& id, TaskCallbacks callbacks) {
  std::unique_lock lock(mu_);
  auto it = orphans_.find(id);
  if (it == orphans_.end()) return absl::NotFoundError(absl::StrCat("task ", id, " is no orphan"));
  TaskRecord record = it->second;
  orphans_.erase(it);
  auto process = std::make_shared<Process>(id, TaskState(state_root_ / id));
  process->pid = record.pid;
  process->start_time = record.start_time;
  process->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  // The shim still runs (or is a zombie nobody reaped) only if its pid still names the same process.
  if (ProcessStartTime(record.pid) == record.start_time) {
    process->pidfd = PidfdOpen(record.pid);
    if (process->pidfd >= 0 && ProcessStartTime(record.pid) != record.start_time) {
      CloseFd(process->pidfd);  // it ended and the pid was reused in between
      process->exited = true;
    }
  } else {
    process->exited = true;
  }
  LogPosition position = process->state.ReadLogPosition();
  process->delivered = position;
  running_[id] = process;
  ++active_;
  lock.unlock();
  spdlog::info("task {}: adopted (pid {}, {})", id, record.pid,
               process->exited ? "it ended while no agent watched" : "still running");
  Launch(process, std::move(callbacks));
  return absl::OkStatus();
}

void ProcessRuntime::Supervise(std::shared_ptr<Process> p, TaskCallbacks callbacks,
                               uint64_t serial) {
  auto deliver = [&callbacks, &p](StdType type, std::string line, uint64_t end_offset) {
    {
      std::lock_guard lock(p->log_mu);
      (type == StdType::kStdout ? p->delivered.stdout_offset : p->delivered.stderr_offset) =
          end_offset;
      p->unacknowledged.push_back(p->delivered);
    }
    if (callbacks.on_line) callbacks.on_line(type, std::move(line));
  };
  OutputFollower out(StdType::kStdout, deliver);
  OutputFollower err(StdType::kStderr, deliver);
  LogPosition start = p->delivered;
  out.Open(p->state.stdout_path(), start.stdout_offset);
  err.Open(p->state.stderr_path(), start.stderr_offset);
  int inotify_fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (inotify_fd >= 0 && ::inotify_add_watch(inotify_fd, p->state.dir().c_str(), IN_MODIFY) < 0) {
    CloseFd(inotify_fd);
  }

  bool exited;
  {
    std::lock_guard lock(mu_);
    exited = p->exited;
  }
  bool sigkilled = false;
  bool first = true;          // output written before the watch existed is read at once
  std::optional<int> status;  // the shim's wait status, for an own child
  while (!exited) {
    // Without inotify, output is polled for; without a pidfd, so is the exit.
    int timeout_ms = first ? 0 : inotify_fd >= 0 && p->pidfd >= 0 ? 1000 : 50;
    first = false;
    int64_t deadline = p->kill_deadline.load();
    if (deadline != 0 && !sigkilled) {
      int64_t left_ms = (deadline - NowNanos() + 999'999) / 1'000'000;
      timeout_ms = static_cast<int>(std::clamp<int64_t>(left_ms, 0, timeout_ms));
    }
    std::array<pollfd, 3> fds;
    nfds_t nfds = 0;
    fds[nfds++] = {p->wake_fd, POLLIN, 0};
    if (inotify_fd >= 0) fds[nfds++] = {inotify_fd, POLLIN, 0};
    if (p->pidfd >= 0) fds[nfds++] = {p->pidfd, POLLIN, 0};
    int ready = ::poll(fds.data(), nfds, timeout_ms);
    if (ready < 0 && errno != EINTR) {
      spdlog::error("task {}: poll: {}", p->id, std::strerror(errno));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::array<char, 4096> events;
    if (inotify_fd >= 0) {
      while (::read(inotify_fd, events.data(), events.size()) > 0) {
      }
    }
    uint64_t counter;
    ssize_t ignored = ::read(p->wake_fd, &counter, sizeof counter);
    (void)ignored;
    out.ReadAvailable();
    err.ReadAvailable();

    bool gone;
    if (p->own_child) {
      siginfo_t info;
      std::memset(&info, 0, sizeof info);
      // WNOWAIT: look without reaping, so the group id stays ours until `exited` is set.
      gone = ::waitid(P_PID, p->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
             info.si_pid == p->pid;
    } else if (p->pidfd >= 0) {
      pollfd pfd{p->pidfd, POLLIN, 0};
      gone = ::poll(&pfd, 1, 0) > 0;
    } else {
      gone = ProcessStartTime(p->pid) != p->start_time;
    }
    if (gone) {
      {
        std::lock_guard lock(mu_);
        p->exited = true;
      }
      if (p->own_child) {
        int wait_status = 0;
        while (::waitpid(p->pid, &wait_status, 0) < 0 && errno == EINTR) {
        }
        status = wait_status;
      }
      exited = true;
    } else if (deadline != 0 && !sigkilled && NowNanos() >= deadline) {
      spdlog::warn("task {}: still running after its grace period; sending SIGKILL", p->id);
      ::kill(-p->pid, SIGKILL);
      sigkilled = true;
    }
  }
  out.Finish();
  err.Finish();
  CloseFd(p->pidfd);

  // The shim records the program's status; without a record the shim itself was killed.
  int exit_code = -1;
  if (std::optional<int> recorded = p->state.ReadExitStatus()) {
    exit_code = *recorded;
  } else if (status && WIFSIGNALED(*status)) {
    exit_code = 128 + WTERMSIG(*status);
  } else if (status && WIFEXITED(*status)) {
    exit_code = WEXITSTATUS(*status);
  } else if (sigkilled) {
    exit_code = 128 + SIGKILL;
  } else {
    spdlog::warn("task {}: ended while no agent watched, without recording an exit status", p->id);
  }

  {
    std::lock_guard lock(mu_);
    running_.erase(p->id);
  }
  if (callbacks.on_exit) callbacks.on_exit(exit_code);
  // Only after the exit is reported: closing an inotify instance waits for an RCU grace period
  // (10-15 ms), which would otherwise delay every task's exit by as much.
  CloseFd(inotify_fd);
  p->state.Remove();

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

void ProcessRuntime::Acknowledge(const std::string& id, uint64_t lines) {
  std::shared_ptr<Process> p;
  {
    std::lock_guard lock(mu_);
    auto it = running_.find(id);
    if (it == running_.end()) return;
    p = it->second;
  }
  std::lock_guard lock(p->log_mu);
  if (lines <= p->acknowledged) return;
  uint64_t n = std::min<uint64_t>(lines - p->acknowledged, p->unacknowledged.size());
  if (n == 0) return;
  LogPosition position = p->unacknowledged[n - 1];
  p->unacknowledged.erase(p->unacknowledged.begin(),
                          p->unacknowledged.begin() + static_cast<std::ptrdiff_t>(n));
  p->acknowledged += n;
  absl::Status written = p->state.WriteLogPosition(position);
  if (!written.ok()) spdlog::warn("task {}: {}", id, written.ToString());
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
