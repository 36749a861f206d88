#include "agent/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

extern char** environ;

namespace det::agent {

namespace {

// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

absl::StatusOr<std::string> ProcessCommandRunner::Run(const std::vector<std::string>& argv) {
  if (argv.empty()) return absl::InvalidArgumentError("no program to run");
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return absl::InternalError(std::strerror(errno));
  Fd out_read{out_pipe[0]}, out_write{out_pipe[1]};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return absl::InternalError(std::strerror(errno));
  Fd err_read{err_pipe[0]}, err_write{err_pipe[1]};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_write.fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_write.fd, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      ::posix_spawnp(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned == ENOENT) return absl::NotFoundError(absl::StrCat(argv[0], " is not on PATH"));
  if (spawned != 0)
    return absl::InternalError(absl::StrCat("cannot run ", argv[0], ": ", std::strerror(spawned)));
  ::close(out_write.fd);
  out_write.fd = -1;
  ::close(err_write.fd);
  err_write.fd = -1;

  std::string out, err;
  const auto deadline = std::chrono::steady_clock::now() + limit_;
  bool timed_out = false;
  pollfd fds[2] = {{out_read.fd, POLLIN, 0}, {err_read.fd, POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    if (::poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? out : err).append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string command = absl::StrJoin(argv, " ");
  if (timed_out) {
    return absl::DeadlineExceededError(
        absl::StrCat(command, " ran longer than ", limit_.count(), " ms"));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string why = WIFEXITED(status) ? absl::StrCat("exited with status ", WEXITSTATUS(status))
                                        : absl::StrCat("was killed by signal ", WTERMSIG(status));
    if (err.size() > 500) err.resize(500);
    return absl::InternalError(absl::StrCat(command, " ", why, err.empty() ? "" : ": ", err));
  }
  return out;
}

}  // namespace det::agent
