#include "cli/process_util.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/file_util.h"

namespace det::cli {
namespace fs = std::filesystem;

absl::StatusOr<fs::path> ExecutableDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot resolve /proc/self/exe: ", ec.message()));
  return exe.parent_path();
}

absl::StatusOr<pid_t> SpawnDaemon(const std::vector<std::string>& argv, const fs::path& log_file) {
  if (argv.empty()) return absl::InvalidArgumentError("SpawnDaemon: empty argv");
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  std::string log = log_file.string();

  // The child reports a failed exec through a close-on-exec pipe: EOF means exec succeeded.
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::setsid();
    int in = ::open("/dev/null", O_RDONLY);
    int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in < 0 || out < 0) {
      int err = errno;
      (void)!::write(fds[1], &err, sizeof(err));
      ::_exit(127);
    }
    ::dup2(in, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(out, STDERR_FILENO);
    for (int fd = 3; fd < 1024; ++fd) {
      if (fd != fds[1]) ::close(fd);
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execv(cargv[0], cargv.data());
    int err = errno;
    (void)!::write(fds[1], &err, sizeof(err));
    ::_exit(127);
  }
  ::close(fds[1]);
  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(fds[0], &child_errno, sizeof(child_errno));
  } while (n < 0 && errno == EINTR);
  ::close(fds[0]);
  if (n > 0) {
    ::waitpid(pid, nullptr, 0);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot start ", argv[0], ": ", std::strerror(child_errno)));
  }
  return pid;
}

bool ProcessAlive(pid_t pid) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno != EPERM) return false;
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string content((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t close_paren = content.rfind(')');
  if (close_paren == std::string::npos || close_paren + 2 >= content.size()) return true;
  char state = content[close_paren + 2];
  return state != 'Z' && state != 'X';
}

bool ProcessCommandContains(pid_t pid, std::string_view needle) {
  if (!ProcessAlive(pid)) return false;
  std::ifstream in(absl::StrCat("/proc/", pid, "/cmdline"), std::ios::binary);
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return cmdline.find(needle) != std::string::npos;
}

std::optional<std::string> ReapIfExited(pid_t pid) {
  int status = 0;
  pid_t r = ::waitpid(pid, &status, WNOHANG);
  if (r == 0) return std::nullopt;
  if (r < 0) return ProcessAlive(pid) ? std::nullopt : std::optional<std::string>("exited");
  if (WIFEXITED(status)) return absl::StrCat("exited with status ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return absl::StrCat("was killed by signal ", WTERMSIG(status));
  return "exited";
}

std::vector<pid_t> SignalAndWait(const std::vector<pid_t>& pids, int sig,
                                 std::chrono::milliseconds timeout) {
  for (pid_t pid : pids) {
    if (ProcessAlive(pid)) ::kill(pid, sig);
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<pid_t> alive;
  while (true) {
    alive.clear();
    for (pid_t pid : pids) {
      ::waitpid(pid, nullptr, WNOHANG);  // reaps our own children; ECHILD for others
      if (ProcessAlive(pid)) alive.push_back(pid);
    }
    if (alive.empty() || std::chrono::steady_clock::now() >= deadline) return alive;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string TailOfFile(const fs::path& path, int lines) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return "";
  const std::string& s = *text;
  size_t pos = s.size();
  if (pos > 0 && s[pos - 1] == '\n') --pos;
  int count = 0;
  while (pos > 0) {
    if (s[pos - 1] == '\n' && ++count == lines) break;
    --pos;
  }
  return s.substr(pos);
}

}  // namespace det::cli
