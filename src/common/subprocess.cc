#include "common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

extern char** environ;

namespace det {

namespace {

// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// write() to a pipe whose reader is gone: EPIPE instead of killing this process with SIGPIPE. SIGPIPE
// is blocked on this thread for the write, and one it raised is consumed before unblocking.
ssize_t WriteWithoutSigpipe(int fd, const char* data, size_t size) {
  sigset_t pipe_only, old;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  sigset_t pending;
  sigpending(&pending);
  const bool already_pending = sigismember(&pending, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  const ssize_t n = ::write(fd, data, size);
  const int saved_errno = errno;
  if (n < 0 && saved_errno == EPIPE && !already_pending) {
    const timespec zero = {0, 0};
    while (::sigtimedwait(&pipe_only, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = saved_errno;
  return n;
}

}  // namespace

absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv, const std::string& input,
                                         const std::map<std::string, std::string>& env,
                                         std::chrono::milliseconds limit) {
  if (argv.empty()) return absl::InvalidArgumentError("no program to run");
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) return absl::InternalError(std::strerror(errno));
  Fd in_read{in_pipe[0]}, in_write{in_pipe[1]};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return absl::InternalError(std::strerror(errno));
  Fd out_read{out_pipe[0]}, out_write{out_pipe[1]};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return absl::InternalError(std::strerror(errno));
  Fd err_read{err_pipe[0]}, err_write{err_pipe[1]};

  // The environment: this process's, with `env` replacing or adding variables.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    if (!env.count(entry.substr(0, entry.find('=')))) env_strings.push_back(std::move(entry));
  }
  for (const auto& [name, value] : env) env_strings.push_back(absl::StrCat(name, "=", value));
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.fd, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_write.fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_write.fd, STDERR_FILENO);
  // Its own process group, so that a time-out kills what it started too.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  // posix_spawnp looks argv[0] up on PATH (this process's PATH) unless it contains a '/'.
  const int spawned = ::posix_spawnp(&pid, argv[0].c_str(), &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawned == ENOENT) return absl::NotFoundError(absl::StrCat(argv[0], " is not on PATH"));
  if (spawned != 0) {
    return absl::InternalError(absl::StrCat("cannot run ", argv[0], ": ", std::strerror(spawned)));
  }
  in_read.Close();
  out_write.Close();
  err_write.Close();
  if (input.empty()) in_write.Close();
  // Writes to a child that has exited must fail with EPIPE, not kill this process.
  ::fcntl(in_write.fd, F_SETFL, O_NONBLOCK);

  CommandResult result;
  size_t written = 0;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  bool timed_out = false;
  while (out_read.fd >= 0 || err_read.fd >= 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd fds[3] = {{out_read.fd, POLLIN, 0}, {err_read.fd, POLLIN, 0}, {in_write.fd, POLLOUT, 0}};
    if (::poll(fds, 3, static_cast<int>(left.count())) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[8192];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        (i == 0 ? out_read : err_read).Close();
      }
    }
    if (in_write.fd >= 0 && fds[2].revents != 0) {
      const ssize_t n = WriteWithoutSigpipe(in_write.fd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      // EPIPE: it exited (or closed stdin) without reading everything; its exit status tells why.
      if (n < 0 && errno != EAGAIN && errno != EINTR) in_write.Close();
      if (written == input.size()) in_write.Close();
    }
  }
  in_write.Close();
  if (timed_out) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return absl::DeadlineExceededError(
        absl::StrCat(absl::StrJoin(argv, " "), " ran longer than ", limit.count(), " ms and was killed"));
  }
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace det
